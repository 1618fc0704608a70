import type { RestRoute } from '../route.ts';
import { apiClientRoutes, apiClientSchemas } from './api-clients.ts';
import { identityRoutes } from './identity.ts';
import { referenceRoutes, referenceSchemas } from './reference.ts';

/** The whole legacy surface under /api/v1: one table, read by the router and by the OpenAPI generator. */
export const ROUTES: RestRoute[] = [...identityRoutes, ...referenceRoutes, ...apiClientRoutes];

export const COMPONENT_SCHEMAS = { ...referenceSchemas, ...apiClientSchemas };
