import { addMember } from './add-member.ts';
import { addVehicle } from './add-vehicle.ts';
import { changeDetails } from './change-details.ts';
import { changeSumInsured } from './change-sum-insured.ts';
import { changeValue } from './change-value.ts';
import { removeMember } from './remove-member.ts';
import { removeVehicle } from './remove-vehicle.ts';
import type { EndorsementOperation, EndorsementOperationRules } from './shared.ts';

/** Each operation's validation, price and apply, in one file per operation: the only place that branches on it. */
export const OPERATIONS: Record<EndorsementOperation, EndorsementOperationRules> = {
  add_vehicle: addVehicle,
  remove_vehicle: removeVehicle,
  change_value: changeValue,
  change_details: changeDetails,
  add_member: addMember,
  remove_member: removeMember,
  change_sum_insured: changeSumInsured,
};
