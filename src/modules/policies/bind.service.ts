import { bind } from './bind/bind.ts';

/**
 * Binding a motor policy (docs/motor-and-clients.md "Bind"): ./bind/validate.ts checks the input, ./bind/price.ts prices the risk and
 * holds the caller to that price, ./bind/bind.ts writes the policy through policy-factory.ts.
 */
export const bindService = { bind };

export { BIND_RULES, type BindInput, type BindVehicleInput } from './bind/validate.ts';
