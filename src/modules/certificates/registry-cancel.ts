import type { AppServices } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { nairobiIso } from '../../lib/dates.ts';
import { emitEvent } from '../events/event.service.ts';
import { certificateEventBase } from './certificate-events.ts';
import { transitionCertificate, transitionCertificates } from './certificate-state.ts';
import { registryMessage } from '../../ports/certificate-registry.ts';

/**
 * Cancellation at the registry, on the rail's discipline: the intent (`cancel_pending`, with its reason) is committed
 * before the call, the call runs outside any transaction, and the answer is recorded after. A refusal is checked
 * against the registry's record, so a retry of a call whose answer was lost records the cancellation it made.
 */

/**
 * Inside the caller's transaction: live certificates → cancel_pending (with the reason), pending or failed issues
 * → void. An issue in flight cannot be called back: it is marked with the reason, and its answer is voided or
 * cancelled on arrival (registry-issue.ts). Returns the ids to cancel at the registry.
 */
export async function markForCancellation(
  tx: Tx,
  where: { policyId: number } | { vehicleId: number },
  reasonId: number,
): Promise<number[]> {
  await transitionCertificates(tx, where, ['pending', 'failed'], 'void');
  await tx.certificate.updateMany({
    where: { AND: [where, { status: 'issuing' }] },
    data: { cancelReasonId: reasonId },
  });
  return transitionCertificates(tx, where, ['issued', 'cancel_refused'], 'cancel_pending', {
    cancelReasonId: reasonId,
    errorCode: null,
    errorMessage: null,
  });
}

interface CancelClaim {
  id: number;
  tenantId: number;
  policyId: number;
  certificateNo: string;
  reasonId: number;
}

type CancelVerdict =
  { kind: 'cancelled'; registryRef: string; reasonId: number } | { kind: 'refused'; code: string; message: string };

/**
 * The cancel job (and the manual cancel, which first records its own intent and audit): one cancel_pending
 * certificate at the registry. ER007 (past 24 hours) → cancel_refused. A registry that does not answer throws, and
 * the certificate stays cancel_pending for the job's retry or the sweep. Returns the status the certificate ends in.
 */
export async function cancelAtRegistry(
  app: AppServices,
  certificateId: number,
  tenantIdHint?: number,
  manual?: { reasonId: number; audit: (tx: Tx) => Promise<void> },
): Promise<string | null> {
  const tenantId =
    tenantIdHint ??
    (
      await app.db.system((tx) =>
        tx.certificate.findUnique({ where: { id: certificateId }, select: { tenantId: true } }),
      )
    )?.tenantId;
  if (tenantId == null) return null;
  const claimed = await claimCancel(app, tenantId, certificateId, manual);
  if ('status' in claimed) return claimed.status;
  const verdict = await askRegistryToCancel(app, claimed);
  const { status, reissue } = await recordCancel(app, claimed, verdict);
  if (reissue) await queueReissue(app, claimed.policyId);
  return status;
}

async function claimCancel(
  app: AppServices,
  tenantId: number,
  certificateId: number,
  manual?: { reasonId: number; audit: (tx: Tx) => Promise<void> },
): Promise<CancelClaim | { status: string }> {
  return app.db.tenant(tenantId, async (tx) => {
    await tx.$queryRaw`SELECT id FROM certificates WHERE id = ${certificateId} FOR UPDATE`;
    const c = await tx.certificate.findUniqueOrThrow({ where: { id: certificateId } });
    if (manual && (c.status === 'issued' || c.status === 'cancel_refused')) {
      await transitionCertificate(tx, c.id, c.status, 'cancel_pending', {
        cancelReasonId: manual.reasonId,
        errorCode: null,
        errorMessage: null,
      });
      await manual.audit(tx);
      c.cancelReasonId = manual.reasonId;
    } else if (c.status !== 'cancel_pending' || !c.certificateNo) return { status: c.status };
    return {
      id: c.id,
      tenantId,
      policyId: c.policyId,
      certificateNo: c.certificateNo!,
      reasonId: c.cancelReasonId ?? 8,
    };
  });
}

/** Outside any transaction. A throw (no answer) propagates: the intent stays recorded. */
async function askRegistryToCancel(app: AppServices, claim: CancelClaim): Promise<CancelVerdict> {
  const registry = app.registry.registry;
  const res = await registry.cancel({ certificateNo: claim.certificateNo, reasonId: claim.reasonId });
  if (res.success) return { kind: 'cancelled', registryRef: res.referenceNo, reasonId: claim.reasonId };
  // "Already cancelled" is our own earlier call whose answer was lost (or a concurrent one): the registry's record says.
  const got = await registry.get(claim.certificateNo);
  if (got.certificate?.status === 'Cancelled')
    return {
      kind: 'cancelled',
      registryRef: got.referenceNo,
      reasonId: got.certificate.cancelReasonId ?? claim.reasonId,
    };
  return { kind: 'refused', ...registryMessage(res.errors) };
}

/**
 * The answer, recorded while the certificate is still cancel_pending. The policy row is read under a share lock, so
 * this serialises with issue planning (which locks it for update): either the planner sees this certificate cancelled,
 * or this sees the policy active again and asks for the re-issue the planner held back (`reissue`).
 */
async function recordCancel(
  app: AppServices,
  claim: CancelClaim,
  verdict: CancelVerdict,
): Promise<{ status: string; reissue: boolean }> {
  return app.db.tenant(claim.tenantId, async (tx) => {
    const [policy] = await tx.$queryRaw<
      { status: string }[]
    >`SELECT status::text AS status FROM policies WHERE id = ${claim.policyId} FOR SHARE`;
    await tx.$queryRaw`SELECT id FROM certificates WHERE id = ${claim.id} FOR UPDATE`;
    const c = await tx.certificate.findUniqueOrThrow({
      where: { id: claim.id },
      include: { vehicle: true, policy: { include: { client: true } } },
    });
    if (c.status !== 'cancel_pending') return { status: c.status, reissue: false };
    if (verdict.kind === 'refused') {
      await transitionCertificate(tx, c.id, 'cancel_pending', 'cancel_refused', {
        errorCode: verdict.code,
        errorMessage: verdict.message,
      });
      return { status: 'cancel_refused', reissue: false };
    }
    const cancelledAt = app.registry.clock();
    await transitionCertificate(tx, c.id, 'cancel_pending', 'cancelled', {
      cancelledAt,
      cancelReasonId: verdict.reasonId,
      registryRef: verdict.registryRef,
      errorCode: null,
      errorMessage: null,
    });
    await emitEvent(app, tx, claim.tenantId, 'certificate.cancelled', {
      ...certificateEventBase(c, c.policy, c.vehicle.regNo),
      certificate_no: c.certificateNo,
      reason_id: verdict.reasonId,
      cancelled_at: nairobiIso(cancelledAt),
    });
    return { status: 'cancelled', reissue: policy?.status === 'active' };
  });
}

/** After commit; a lost send is caught by the minute sweep (a stage whose certificate ended before a reinstatement). */
async function queueReissue(app: AppServices, policyId: number): Promise<void> {
  await app.registry
    .send?.('issue', { policyId })
    .catch((err) => app.log.error({ err, policy_id: policyId }, 'certificate re-issue not queued'));
}
