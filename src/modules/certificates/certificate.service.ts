import { cancelCertificate } from './certificate/cancel.ts';
import { checkCertificate } from './certificate/check.ts';
import { issueForPolicy } from './certificate/issue.ts';
import { certificateById, certificatesByIds, listForPolicy, visibleCertificate } from './certificate/read.ts';

/**
 * The certificate operations, one file each under ./certificate/: issue (the job's run of what is due, and the
 * manual issue), cancel, check at the registry, the minute sweep. Callers outside the module use this table, the
 * names re-exported here, or issuance.ts.
 */

export { DoubleInsuranceError, CertificateStateError, RegistryRefusedError } from './certificate/problems.ts';
export { type Stage, stagesOf } from './certificate/due.ts';
export { type IssueOutcome, issueDue } from './certificate/issue.ts';
export { sweepCertificates } from './certificate/sweep.ts';
export type { CertificateCheck } from './certificate/check.ts';

export const COVER_NAMES: Record<number, string> = {
  100: 'Comprehensive',
  200: 'Third party only',
  300: 'Third party, fire and theft',
};

/** The API-facing operations (ctx: visibility, abilities, audit). */
export const certificateService = {
  listForPolicy,
  get: visibleCertificate,
  issue: issueForPolicy,
  cancel: cancelCertificate,
  check: checkCertificate,
  byId: certificateById,
  byIds: certificatesByIds,
};
