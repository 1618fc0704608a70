import type { AppServices } from '../../../context.ts';
import { todayNairobi } from '../../../lib/dates.ts';

/**
 * The minute sweep (job payments.reconcile), queueing for issue: active policies with a due-but-missing
 * certificate (a paid instalment with no certificate for a live vehicle and that stage, where one ended before the
 * latest reinstatement does not count) or a pending one untouched for a minute (motor policies only: no other line
 * has registry certificates); any policy with an unanswered or abandoned `issuing` call. cancel_pending
 * certificates untouched for 30 seconds are queued for cancellation.
 */
export async function sweepCertificates(app: AppServices): Promise<{ issue: number; cancel: number }> {
  const send = app.registry.send;
  if (!send) return { issue: 0, cancel: 0 };
  const { issue, cancel } = await app.db.system(async (tx) => {
    const issue = await tx.$queryRaw<{ id: number }[]>`
      SELECT policy_id AS id FROM certificates WHERE status = 'issuing' AND updated_at < now() - interval '1 minute'
      UNION
      SELECT p.id FROM policies p
      WHERE p.status = 'active' AND p.motor_product_id IS NOT NULL AND (
        EXISTS (SELECT 1 FROM certificates c WHERE c.policy_id = p.id AND c.status = 'pending' AND c.updated_at < now() - interval '1 minute')
        OR EXISTS (
          SELECT 1 FROM policy_vehicles v
          JOIN debit_notes d ON d.policy_id = p.id AND d.kind = 'instalment' AND d.paid_minor + d.credited_minor >= d.amount_minor
          WHERE v.policy_id = p.id AND v.status = 'active'
            AND NOT EXISTS (
              SELECT 1 FROM certificates c WHERE c.vehicle_id = v.id AND c.stage = d.instalment_no
                AND (c.status NOT IN ('cancelled', 'void') OR c.created_at >= COALESCE(
                  (SELECT max(h.at) FROM policy_status_changes h WHERE h.policy_id = p.id AND h.from_status = 'cancelled' AND h.to_status = 'active'),
                  '-infinity')))
            AND (v.added_on IS NULL OR v.added_on <= p.start_date OR d.due_on >= v.added_on - interval '1 month')
            -- a stage already over is never certified (planDue skips it): don't queue for it every minute
            AND (CASE WHEN d.instalment_no >= d.instalment_count THEN p.end_date
                      ELSE (p.start_date + d.instalment_no * interval '1 month' - interval '1 day')::date END)
                >= ${todayNairobi(app.registry.clock())}::date))
      ORDER BY id LIMIT 200`;
    const cancel = await tx.$queryRaw<{ id: number }[]>`
      SELECT id FROM certificates WHERE status = 'cancel_pending' AND updated_at < now() - interval '30 seconds' ORDER BY id LIMIT 200`;
    return { issue, cancel };
  });
  for (const p of issue) await send('issue', { policyId: p.id });
  for (const c of cancel) await send('cancel', { certificateId: c.id });
  return { issue: issue.length, cancel: cancel.length };
}
