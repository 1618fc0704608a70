import type { AppServices } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import type { PolicyStatus } from '../../generated/prisma/enums.ts';
import { addDays, daysBetween, fromDbDate, nairobiIso, todayNairobi, toDbDate } from '../../lib/dates.ts';
import { amountOf } from '../../lib/money.ts';
import { emitEvent } from '../events/event.service.ts';
import { POLICY_RULES, transitionPolicy } from './policy-state.ts';

/**
 * The daily lifecycle run (queue policies.lifecycle, 00:05 Nairobi), documented in the README "Policy lifecycle".
 * Candidates are found across organisations (system lookup); each move runs in its own transaction on the policy's
 * organisation and is a guarded transition, so a rerun (or two overlapping runs) changes nothing the first did not.
 *
 * With `asOf` the day being judged (Y-m-d, Nairobi):
 * - pending_payment → not_taken_up: instalment 1 not paid in full and asOf is more than notTakenUpDays after the
 *   later of the start date and the bind date. A renewal never taken up releases the policy it renews (renewalOfId
 *   cleared, the history says which), so that policy can be renewed again.
 * - active → expired: the end date is before asOf (the day after the last day of cover).
 * - active → lapsed: an instalment debit note has something outstanding (amount − paid − credited) and its due date
 *   plus lapseGraceDays is before asOf. Expiry is judged first: a policy past its end expires rather than lapses.
 * - renewal notice: an active policy ending within renewalNoticeDays of asOf, not yet renewed, gets
 *   `policy.renewal_due` once (renewalNoticeAt records it).
 * - previews past their validity: pending endorsements and quoted cancellations whose expiresAt has passed, and
 *   quoted renewal quotes whose valid_until is before asOf, become `expired`.
 */
export interface LifecycleCounts {
  notTakenUp: number;
  expired: number;
  lapsed: number;
  renewalNotices: number;
  endorsementsExpired: number;
  cancellationsExpired: number;
  renewalQuotesExpired: number;
  failures: number;
}

interface Candidate {
  id: number;
  tenant_id: number;
}

/** The Nairobi calendar day of a timestamp as a database date. */
const bindDay = (d: Date) => todayNairobi(d);

export async function runLifecycle(app: AppServices, asOf: string = todayNairobi()): Promise<LifecycleCounts> {
  const counts: LifecycleCounts = {
    notTakenUp: 0,
    expired: 0,
    lapsed: 0,
    renewalNotices: 0,
    endorsementsExpired: 0,
    cancellationsExpired: 0,
    renewalQuotesExpired: 0,
    failures: 0,
  };
  const asOfDb = toDbDate(asOf);

  /** One policy, one transaction; a failure is logged and counted, the run goes on. */
  const each = async (c: Candidate, fn: (tx: Tx) => Promise<boolean>, counter: keyof LifecycleCounts) => {
    try {
      const moved = await app.db.tenant(c.tenant_id, fn);
      if (moved) counts[counter] += 1;
    } catch (err) {
      counts.failures += 1;
      app.log.error({ err, policyId: c.id }, `lifecycle: ${counter} failed`);
    }
  };

  const move =
    (
      c: Candidate,
      from: PolicyStatus,
      to: PolicyStatus,
      event: 'policy.not_taken_up' | 'policy.expired' | 'policy.lapsed',
      why: string,
    ) =>
    async (tx: Tx) => {
      const policy = await tx.policy.findUnique({
        where: { id: c.id },
        include: { client: true, renewalOf: { select: { policyNo: true } } },
      });
      if (!policy || policy.status !== from) return false;
      // A renewal never taken up lets go of the policy it would have renewed, which may then be renewed again; the
      // history keeps the link in words.
      const reason =
        to === 'not_taken_up' && policy.renewalOf ? `${why}; renewal of ${policy.renewalOf.policyNo} released` : why;
      if (!(await transitionPolicy(tx, c.id, from, to, { tenantId: c.tenant_id, source: 'schedule', reason })))
        return false;
      if (to === 'not_taken_up' && policy.renewalOfId)
        await tx.policy.update({ where: { id: c.id }, data: { renewalOfId: null } });
      await emitEvent(app, tx, c.tenant_id, event, {
        policy_no: policy.policyNo,
        policy_uuid: policy.uuid,
        client_no: policy.client.clientNo,
        status: to,
        previous_status: from,
        reason,
        changed_at: nairobiIso(new Date()),
      });
      return true;
    };

  // pending_payment → not_taken_up
  const pending = await app.db.system((tx) =>
    tx.policy.findMany({
      where: { status: 'pending_payment', startDate: { lt: toDbDate(addDays(asOf, -POLICY_RULES.notTakenUpDays)) } },
      select: {
        id: true,
        tenantId: true,
        startDate: true,
        createdAt: true,
        debitNotes: { where: { instalmentNo: 1 } },
      },
      orderBy: { id: 'asc' },
    }),
  );
  for (const p of pending) {
    const start = fromDbDate(p.startDate);
    const bound = bindDay(p.createdAt);
    const from = start > bound ? start : bound;
    const deadline = addDays(from, POLICY_RULES.notTakenUpDays);
    if (!(deadline < asOf)) continue;
    const first = p.debitNotes[0];
    if (first && first.paidMinor + first.creditedMinor >= first.amountMinor) continue;
    const reason = `first instalment unpaid ${POLICY_RULES.notTakenUpDays} days after ${from} (deadline ${deadline})`;
    await each(
      { id: p.id, tenant_id: p.tenantId },
      move({ id: p.id, tenant_id: p.tenantId }, 'pending_payment', 'not_taken_up', 'policy.not_taken_up', reason),
      'notTakenUp',
    );
  }

  // active → expired
  const ended = await app.db.system((tx) =>
    tx.policy.findMany({
      where: { status: 'active', endDate: { lt: asOfDb } },
      select: { id: true, tenantId: true, endDate: true },
      orderBy: { id: 'asc' },
    }),
  );
  for (const p of ended) {
    const c = { id: p.id, tenant_id: p.tenantId };
    await each(c, move(c, 'active', 'expired', 'policy.expired', `cover ended ${fromDbDate(p.endDate)}`), 'expired');
  }

  // active → lapsed: the earliest overdue instalment names the lapse.
  const cut = toDbDate(addDays(asOf, -POLICY_RULES.lapseGraceDays));
  const overdue = await app.db.system(
    (tx) => tx.$queryRaw<(Candidate & { number: string; due_on: Date; outstanding: bigint })[]>`
      SELECT DISTINCT ON (p.id) p.id, p.tenant_id, dn.number, dn.due_on, dn.amount_minor - dn.paid_minor - dn.credited_minor AS outstanding
      FROM debit_notes dn JOIN policies p ON p.id = dn.policy_id
      WHERE p.status = 'active' AND p.end_date >= ${asOfDb} AND dn.kind = 'instalment'
        AND dn.amount_minor - dn.paid_minor - dn.credited_minor > 0 AND dn.due_on < ${cut}
      ORDER BY p.id, dn.due_on, dn.instalment_no`,
  );
  for (const o of overdue) {
    const reason = `debit note ${o.number} due ${fromDbDate(o.due_on)} unpaid after ${POLICY_RULES.lapseGraceDays} days' grace`;
    await each(o, move(o, 'active', 'lapsed', 'policy.lapsed', reason), 'lapsed');
  }

  // Renewal notices, once per policy.
  const ending = await app.db.system((tx) =>
    tx.policy.findMany({
      where: {
        status: 'active',
        renewalNoticeAt: null,
        renewal: { is: null },
        endDate: { gte: asOfDb, lte: toDbDate(addDays(asOf, POLICY_RULES.renewalNoticeDays)) },
      },
      select: { id: true, tenantId: true },
      orderBy: { id: 'asc' },
    }),
  );
  for (const p of ending) {
    await each(
      { id: p.id, tenant_id: p.tenantId },
      async (tx) => {
        const r = await tx.policy.updateMany({
          where: { id: p.id, status: 'active', renewalNoticeAt: null },
          data: { renewalNoticeAt: new Date() },
        });
        if (r.count !== 1) return false;
        const policy = await tx.policy.findUniqueOrThrow({
          where: { id: p.id },
          include: { client: true, insurer: true },
        });
        const end = fromDbDate(policy.endDate);
        await emitEvent(app, tx, p.tenantId, 'policy.renewal_due', {
          policy_no: policy.policyNo,
          policy_uuid: policy.uuid,
          client_no: policy.client.clientNo,
          end_date: end,
          days_to_expiry: daysBetween(asOf, end),
          insurer: policy.insurer.name,
          premium: amountOf(policy.totalMinor),
        });
        return true;
      },
      'renewalNotices',
    );
  }

  // Previews past their validity: status updates only.
  const now = new Date();
  await app.db.system(async (tx) => {
    counts.endorsementsExpired = (
      await tx.endorsement.updateMany({
        where: { status: 'pending', expiresAt: { lt: now } },
        data: { status: 'expired' },
      })
    ).count;
    counts.cancellationsExpired = (
      await tx.cancellation.updateMany({
        where: { status: 'quoted', expiresAt: { lt: now } },
        data: { status: 'expired' },
      })
    ).count;
    counts.renewalQuotesExpired = (
      await tx.renewalQuote.updateMany({
        where: { status: 'quoted', validUntil: { lt: asOfDb } },
        data: { status: 'expired' },
      })
    ).count;
  });
  app.log.info({ asOf, ...counts }, 'policy lifecycle run');
  return counts;
}
