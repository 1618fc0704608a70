import type { AnyRoute } from '../route.ts';
// The named components a definition's ref() resolves when a body is parsed (not only when the document is built).
import '../schemas/index.ts';
import { apiClientRoutes } from './api-clients.ts';
import { cancellationRoutes } from './cancellations.ts';
import { certificateRoutes } from './certificates.ts';
import { clientRoutes } from './clients.ts';
import { endorsementRoutes } from './endorsements.ts';
import { identityRoutes } from './identity.ts';
import { motorRoutes } from './motor.ts';
import { coverRoutes } from './covers.ts';
import { paymentRoutes } from './payments.ts';
import { policyRoutes } from './policies.ts';
import { referenceRoutes } from './reference.ts';
import { renewalRoutes } from './renewals.ts';
import { webhookRoutes } from './webhooks.ts';
import { claimRoutes } from './claims.ts';
import { claimCommandRoutes } from './claim-commands.ts';
import { claimDocumentsRoutes } from './claim-documents.ts';
import { claimPaymentsRoutes } from './claim-payments.ts';
import { prospectsRoutes } from './prospects.ts';
import { smsRoutes } from './sms.ts';
import { smsSimulatorRoutes } from './sms-simulator.ts';
import { clientAreaRoutes } from './client-area.ts';
import { clientAreaSignInRoutes } from './client-area-sign-in.ts';
import { ipfApplicationsRoutes } from './ipf-applications.ts';
import { ipfLoansRoutes } from './ipf-loans.ts';
import { ipfSettlementRoutes } from './ipf-settlement.ts';
import { erpRoutes } from './erp.ts';
import { sandboxRoutes } from './sandbox.ts';

/** The whole legacy surface under /api/v1: one table, read by the router and by the OpenAPI generator. */
export const ROUTES: AnyRoute[] = [
  ...identityRoutes,
  ...referenceRoutes,
  ...apiClientRoutes,
  ...clientRoutes,
  ...motorRoutes,
  ...coverRoutes,
  ...renewalRoutes,
  ...policyRoutes,
  ...endorsementRoutes,
  ...cancellationRoutes,
  ...certificateRoutes,
  ...webhookRoutes,
  ...paymentRoutes,
  ...prospectsRoutes,
  ...claimRoutes,
  ...claimCommandRoutes,
  ...claimDocumentsRoutes,
  ...claimPaymentsRoutes,
  ...smsRoutes,
  ...smsSimulatorRoutes,
  ...ipfLoansRoutes,
  ...ipfApplicationsRoutes,
  ...ipfSettlementRoutes,
  ...erpRoutes,
  ...sandboxRoutes,
  ...clientAreaSignInRoutes,
  ...clientAreaRoutes,
];
