import type { AppServices } from '../../context.ts';
import type { Tx } from '../../db/client.ts';

/**
 * The certificate module's contract with the rest of the policy lifecycle. Callers outside src/modules/certificates
 * use only these functions.
 */

/**
 * After a commit that may have made certificates due (activation, an instalment paid, a vehicle added, a
 * reinstatement): queue issuance of whatever is due for the policy. Never throws; a lost queueing is caught by the
 * sweep.
 */
export async function queueCertificateIssue(_app: AppServices, _policyId: number): Promise<void> {
  // Implemented by the certificates change.
}

/**
 * Inside the caller's transaction: the policy's (or one vehicle's) live certificates are to be cancelled at the
 * registry with `reasonId` (registry reason ids, registry.ts CANCEL_REASONS); pending issues are dropped. The
 * registry calls run as jobs after commit.
 */
export async function requestCertificateCancellation(
  _app: AppServices,
  _tx: Tx,
  _target: { policyId: number } | { vehicleId: number },
  _reasonId: number,
): Promise<void> {
  // Implemented by the certificates change.
}
