import { cancelIpfApplication } from './application/cancel.ts';
import { createIpfApplication } from './application/create.ts';
import { decideApplication } from './application/decide.ts';
import { agreementOf, getIpfApplication, listIpfApplications } from './application/read.ts';
import { signIpfApplication } from './application/sign.ts';
import { requestSigningCode } from './application/signing-code.ts';
import { submitIpfApplication } from './application/submit.ts';

/**
 * The premium-finance application operations (docs/premium-finance.md "Premium finance: applications, decision and signing"), one
 * file each under application/: every status change goes through ipf-state.ts transitionIpf, every operation starts
 * with requireFinanceOffered (403 ipf_not_offered for SACCO and microfinance organisations).
 */

export { type IpfApplicationFilters, type IpfApplicationQuery, ipfApplicationListWhere } from './application/read.ts';
export { type SigningCodeSent } from './application/signing-code.ts';
export { type ApplicationRow } from './application/common.ts';

export const ipfApplicationService = {
  list: listIpfApplications,
  get: getIpfApplication,
  agreement: agreementOf,
  create: createIpfApplication,
  submit: submitIpfApplication,
  cancel: cancelIpfApplication,
  requestSigningCode,
  sign: signIpfApplication,
  /** The lender's decision (jobs/finance.worker.ts, queue ipf.decide). */
  decide: decideApplication,
};
