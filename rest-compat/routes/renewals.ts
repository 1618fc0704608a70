import type { RestRoute } from '../route.ts';
import type { SchemaObject } from 'openapi3-ts/oas31';

export const renewalRoutes: RestRoute[] = [];
export const renewalSchemas: Record<string, SchemaObject> = {};
