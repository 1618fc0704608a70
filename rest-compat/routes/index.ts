import type { RestRoute } from '../route.ts';
import { apiClientRoutes, apiClientSchemas } from './api-clients.ts';
import { clientRoutes } from './clients.ts';
import { policyRoutes } from './policies.ts';
import { policySchemas } from '../mappers/policy.ts';
import { motorRoutes } from './motor.ts';
import { motorSchemas } from '../mappers/motor.ts';
import { identityRoutes } from './identity.ts';
import { clientSchemas } from '../mappers/client.ts';
import { referenceRoutes, referenceSchemas } from './reference.ts';
import { paymentRoutes, paymentSchemas } from './payments.ts';
import { webhookRoutes, webhookSchemas } from './webhooks.ts';
import { endorsementRoutes, endorsementSchemas } from './endorsements.ts';
import { cancellationRoutes, cancellationSchemas } from './cancellations.ts';
import { certificateRoutes, certificateSchemas } from './certificates.ts';
import { renewalRoutes, renewalSchemas } from './renewals.ts';

/** The whole legacy surface under /api/v1: one table, read by the router and by the OpenAPI generator. */
export const ROUTES: RestRoute[] = [
  ...identityRoutes,
  ...referenceRoutes,
  ...apiClientRoutes,
  ...clientRoutes,
  ...motorRoutes,
  ...renewalRoutes,
  ...policyRoutes,
  ...endorsementRoutes,
  ...cancellationRoutes,
  ...certificateRoutes,
  ...webhookRoutes,
  ...paymentRoutes,
];

export const COMPONENT_SCHEMAS = {
  ...referenceSchemas,
  ...apiClientSchemas,
  ...clientSchemas,
  ...motorSchemas,
  ...policySchemas,
  ...endorsementSchemas,
  ...cancellationSchemas,
  ...certificateSchemas,
  ...renewalSchemas,
  ...webhookSchemas,
  ...paymentSchemas,
};
