import { appointAssessor, recordAssessment } from './adjudication/assessment.ts';
import { approveClaim } from './adjudication/approve.ts';
import { moveClaimTo } from './adjudication/move.ts';
import { reopenClaim } from './adjudication/reopen.ts';
import { repudiateClaim } from './adjudication/repudiate.ts';
import { adjustReserve } from './adjudication/reserve.ts';
import { updateClaim } from './adjudication/update.ts';
import { countClaims, getClaim, listCauses, listClaims } from './read.ts';
import { registerClaim } from './register/register.ts';
import { runClaimSla } from './sla.ts';

/**
 * The claim operations, one file each: registration (register/), reads (read.ts) and handling (adjudication/); the
 * state machine is claim-state.ts and every move goes through claim-moves.ts. Documents (documents/) and payouts
 * (settlement/) have their own tables.
 */

export { type ClaimListFilters, type ClaimQuery, claimListWhere } from './read.ts';

export const claimService = {
  list: listClaims,
  counts: countClaims,
  get: getClaim,
  causes: listCauses,
  register: registerClaim,
  move: moveClaimTo,
  adjustReserve,
  appointAssessor,
  recordAssessment,
  approve: approveClaim,
  repudiate: repudiateClaim,
  reopen: reopenClaim,
  update: updateClaim,
  /** The daily service-level run (jobs/claims.worker.ts). */
  runSla: runClaimSla,
};
