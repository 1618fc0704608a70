import { convertProspect } from './prospect/convert.ts';
import { createProspect } from './prospect/create.ts';
import { addProspectNote } from './prospect/notes.ts';
import { getProspect, listFollowUps, listProspects } from './prospect/read.ts';
import { onPolicyBound, onQuoteSaved } from './prospect/sale-hooks.ts';
import { updateProspect } from './prospect/update.ts';

/**
 * The prospect operations (docs/motor-and-clients.md "Prospects"), one file each under ./prospect/, with the state machine in
 * prospect-state.ts (the only writer of the status) and the identity rules shared with clients (prospect/identity.ts).
 */

export { type ProspectListFilters, type ProspectQuery } from './prospect/read.ts';
export { runProspectFollowUps, type FollowUpCounts } from './prospect/follow-ups.ts';
export { type SaleHook } from './prospect/sale-hooks.ts';

export const prospectService = {
  list: listProspects,
  followUps: listFollowUps,
  get: getProspect,
  create: createProspect,
  update: updateProspect,
  addNote: addProspectNote,
  convert: convertProspect,
  /** Called by the motor save-quote inside its transaction: the prospect behind the quote moves to quoted. */
  onQuoteSaved,
  /** Called by the bind inside its transaction: the prospect behind the policy moves to won. */
  onPolicyBound,
};
