import { confirm } from './endorsement/confirm.ts';
import { discard } from './endorsement/discard.ts';
import { endorse } from './endorsement/endorse.ts';

/**
 * Two-phase endorsements (docs/policy-lifecycle.md "Endorsements"): `endorse` prices a mid-term change and stores it `pending`
 * (valid POLICY_RULES.previewValidHours, tied to the policy's `revision`); `confirm` applies it under a lock on the
 * policy row (premium items, vehicles, a debit or credit note, policy totals and levy lines, revision, event, audit);
 * `discard` drops it. Money follows proration.ts: a change is a sum of signed terms ±U(B, e). Each operation
 * (add_vehicle, remove_vehicle, change_value, change_details) prices and applies itself in its own file under
 * ./endorsement/; the phases above call it through ./endorsement/operations.ts.
 */
export const endorsementService = { endorse, confirm, discard };

export {
  ENDORSEMENT_OPERATIONS,
  type EndorsementOperation,
  EndorsementExpiredError,
  EndorsementStaleError,
  EndorsementStateError,
  type EndorseDetailsInput,
  type EndorseInput,
  type EndorseVehicleInput,
  type EndorseMemberInput,
  latestEndorsementDate,
  type StoredEffect,
} from './endorsement/shared.ts';
export { REMOVE_VEHICLE_CERT_REASON } from './endorsement/vehicles.ts';
