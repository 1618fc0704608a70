import type { AppServices } from '../../context.ts';
import type { Tx } from '../../db/client.ts';

/**
 * Called by settlement inside its transaction after a receipt was allocated to a policy (and after the first
 * instalment activated it): lifecycle reactions to money, such as a lapsed policy whose arrears are now paid, or a
 * renewal whose activation makes the old policy `renewed`.
 */
export async function onPolicyPaid(_app: AppServices, _tx: Tx, _tenantId: number, _policyId: number, _receiptNo: string): Promise<void> {
  // Implemented by the lifecycle change.
}
