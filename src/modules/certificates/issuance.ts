import type { AppServices } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { markForCancellation } from './registry-cancel.ts';

/**
 * The certificate module's contract with the rest of the policy lifecycle. Callers outside src/modules/certificates
 * use only these functions.
 */

/** The policy as issuance reads it: its id and whether it is a motor policy (the only ones with certificates). */
export interface CertifiablePolicy {
  id: number;
  motorProductId: number | null;
}

/**
 * After a commit that may have made certificates due (activation, an instalment paid, a vehicle added, a
 * reinstatement): queue issuance of whatever is due for the policy. A medical, travel or standard policy has no
 * registry certificates: nothing is queued for it. Never throws; a lost queueing is caught by the sweep.
 */
export async function queueCertificateIssue(app: AppServices, policy: CertifiablePolicy): Promise<void> {
  if (policy.motorProductId == null) return;
  const policyId = policy.id;
  const send = app.registry.send;
  if (!send) return; // no job runner in this process: the runner's minute sweep finds the policy
  await send('issue', { policyId }).catch((err) =>
    app.log.error({ err, policy_id: policyId }, 'certificate issue not queued'),
  );
}

/**
 * Inside the caller's transaction: the policy's (or one vehicle's) live certificates are to be cancelled at the
 * registry with `reasonId` (registry reason ids, registry.ts CANCEL_REASONS); pending issues are dropped. The
 * registry calls run as jobs after commit.
 */
export async function requestCertificateCancellation(
  app: AppServices,
  tx: Tx,
  target: { policyId: number } | { vehicleId: number },
  reasonId: number,
): Promise<void> {
  const ids = await markForCancellation(tx, target, reasonId);
  const send = app.registry.send;
  if (!send) return;
  // Sent now with a short delay; a job that runs before the commit (or after a rollback) finds the certificate not
  // cancel_pending and does nothing, and the minute sweep sends it again.
  for (const id of ids) {
    await send('cancel', { certificateId: id }, { startAfter: 3 }).catch((err) =>
      app.log.error({ err, certificate_id: id }, 'certificate cancel not queued'),
    );
  }
}
