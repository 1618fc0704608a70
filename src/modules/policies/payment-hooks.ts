import { now as clockNow } from '../../lib/clock.ts';
import type { AppServices } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { nairobiIso, todayNairobi, toDbDate } from '../../lib/dates.ts';
import { emitEvent } from '../events/event.service.ts';
import { POLICY_RULES, transitionPolicy } from './policy-state.ts';

const DAY_MS = 86_400_000;

/**
 * Called by settlement inside its transaction after a receipt was allocated to a policy (and after the first
 * instalment activated it): lifecycle reactions to money (docs/policy-lifecycle.md "Policy lifecycle").
 * - A `lapsed` policy whose overdue debit notes (due on or before today) are now paid in full, within
 *   POLICY_RULES.reinstatementDays of the lapse, is active again (source payment, event policy.reinstated).
 * - An `active` policy that renews another makes that one `renewed` (from active or expired; event policy.renewed).
 * Both are guarded transitions: a second receipt changes nothing.
 */
export async function onPolicyPaid(
  app: AppServices,
  tx: Tx,
  tenantId: number,
  policyId: number,
  receiptNo: string,
): Promise<void> {
  const policy = await tx.policy.findUnique({ where: { id: policyId }, include: { client: true } });
  if (!policy) return;
  const now = clockNow();

  if (policy.status === 'lapsed') {
    const withinWindow =
      policy.statusChangedAt != null &&
      now.getTime() - policy.statusChangedAt.getTime() <= POLICY_RULES.reinstatementDays * DAY_MS;
    const due = await tx.debitNote.findMany({ where: { policyId, dueOn: { lte: toDbDate(todayNairobi()) } } });
    const arrears = due.some((n) => n.amountMinor - n.paidMinor - n.creditedMinor > 0n);
    if (withinWindow && !arrears) {
      const reason = `arrears paid (${receiptNo})`;
      if (await transitionPolicy(tx, policyId, 'lapsed', 'active', { tenantId, source: 'payment', reason })) {
        await tx.policy.update({ where: { id: policyId }, data: { revision: { increment: 1 } } });
        await emitEvent(app, tx, tenantId, 'policy.reinstated', {
          policy_no: policy.policyNo,
          policy_uuid: policy.uuid,
          client_no: policy.client.clientNo,
          cancellation_uuid: null,
          previous_status: 'lapsed',
          debit_note_no: null,
          reinstated_at: nairobiIso(now),
        });
      }
    }
    return;
  }

  if (policy.status === 'active' && policy.renewalOfId != null) {
    const old = await tx.policy.findUnique({ where: { id: policy.renewalOfId }, include: { client: true } });
    if (!old || (old.status !== 'active' && old.status !== 'expired')) return;
    // No number in the words: the history is read by whoever may see this policy, who may not see its renewal
    // (renewed_by reads null for them); the link itself is `renewalOfId`.
    const reason = 'its renewal became active';
    if (await transitionPolicy(tx, old.id, old.status, 'renewed', { tenantId, source: 'payment', reason })) {
      await emitEvent(app, tx, tenantId, 'policy.renewed', {
        policy_no: old.policyNo,
        policy_uuid: old.uuid,
        client_no: old.client.clientNo,
        renewal_policy_no: policy.policyNo,
        renewal_policy_uuid: policy.uuid,
        renewed_at: nairobiIso(now),
      });
    }
  }
}
