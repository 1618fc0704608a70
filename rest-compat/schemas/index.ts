import { apiClientSchemas } from './api-client.ts';
import { cancellationSchemas } from './cancellation.ts';
import { certificateSchemas } from './certificate.ts';
import { clientSchemas } from './client.ts';
import { endorsementSchemas } from './endorsement.ts';
import { coverSchemas } from './covers.ts';
import { motorSchemas } from './motor.ts';
import { paymentSchemas } from './payment.ts';
import { policySchemas } from './policy.ts';
import { referenceSchemas } from './reference.ts';
import { renewalSchemas } from './renewal.ts';
import { webhookSchemas } from './webhook.ts';
import { claimSchemas } from './claim.ts';
import { claimDocumentSchemas } from './claim-document.ts';
import { claimPaymentSchemas } from './claim-payment.ts';
import { prospectSchemas } from './prospect.ts';
import { smsSchemas } from './sms.ts';
import { clientAreaSchemas } from './client-area.ts';
import { ipfApplicationSchemas } from './ipf-application.ts';
import { ipfLoanSchemas } from './ipf-loan.ts';
import { ipfSettlementSchemas } from './ipf-settlement.ts';
import { erpSchemas } from './erp.ts';

import { registerComponents } from './builders.ts';

/** The OpenAPI component schemas of the legacy resources, in the document's order (each a `$ref` where used). */
export const COMPONENT_SCHEMAS = registerComponents({
  ...referenceSchemas,
  ...apiClientSchemas,
  ...clientSchemas,
  ...motorSchemas,
  ...coverSchemas,
  ...policySchemas,
  ...endorsementSchemas,
  ...cancellationSchemas,
  ...certificateSchemas,
  ...renewalSchemas,
  ...webhookSchemas,
  ...paymentSchemas,
  ...prospectSchemas,
  ...claimSchemas,
  ...claimDocumentSchemas,
  ...claimPaymentSchemas,
  ...smsSchemas,
  ...clientAreaSchemas,
  ...ipfApplicationSchemas,
  ...ipfLoanSchemas,
  ...ipfSettlementSchemas,
  ...erpSchemas,
});
