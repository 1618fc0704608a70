import { Prisma } from '../../../db/client.ts';
import { tenantSql } from '../../../db/org-clocks.ts';
import { addDays, fromDbDate, toDbDate } from '../../../lib/dates.ts';
import { POLICY_RULES } from '../policy-state.ts';
import { type Candidate, each, type LifecycleRun, move } from './run.ts';

/**
 * active → lapsed: an instalment debit note has something outstanding (amount − paid − credited) and its due date
 * plus lapseGraceDays is before asOf. A policy past its end is left to expiry (run first), not lapsed; the earliest
 * overdue instalment names the lapse.
 */
export async function lapseOverdue(run: LifecycleRun): Promise<void> {
  const { app, asOf, asOfDb } = run;
  const cut = toDbDate(addDays(asOf, -POLICY_RULES.lapseGraceDays));
  const overdue = await app.db.system(
    (tx) => tx.$queryRaw<(Candidate & { number: string; due_on: Date; outstanding: bigint })[]>`
      SELECT DISTINCT ON (p.id) p.id, p.tenant_id, dn.number, dn.due_on, dn.amount_minor - dn.paid_minor - dn.credited_minor AS outstanding
      FROM debit_notes dn JOIN policies p ON p.id = dn.policy_id
      WHERE ${tenantSql(run.tenants, Prisma.sql`p.tenant_id`)} AND p.status = 'active' AND p.end_date >= ${asOfDb} AND dn.kind = 'instalment'
        AND dn.amount_minor - dn.paid_minor - dn.credited_minor > 0 AND dn.due_on < ${cut}
      ORDER BY p.id, dn.due_on, dn.instalment_no`,
  );
  for (const o of overdue) {
    const reason = `debit note ${o.number} due ${fromDbDate(o.due_on)} unpaid after ${POLICY_RULES.lapseGraceDays} days' grace`;
    await each(run, o, move(app, o, 'active', 'lapsed', 'policy.lapsed', reason), 'lapsed');
  }
}
