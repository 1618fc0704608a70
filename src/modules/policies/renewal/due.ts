import type { Context } from '../../../context.ts';
import type { Prisma } from '../../../db/client.ts';
import { addDays, todayNairobi, toDbDate } from '../../../lib/dates.ts';
import { ValidationError } from '../../../lib/problem.ts';
import { policyVisibility } from '../../access/policy.visibility.ts';
import { POLICY_RULES } from '../policy-state.ts';
import { RENEWAL_RULES } from './shared.ts';

/** Where of renewals-due: active, visible, ending within N days of today, no renewal bound, not a single trip. */
export function dueWhere(ctx: Context, withinDays: number | null | undefined): Prisma.PolicyWhereInput {
  const n = withinDays ?? POLICY_RULES.renewalNoticeDays;
  if (!Number.isInteger(n) || n < 0 || n > RENEWAL_RULES.maxDueWithinDays) {
    throw new ValidationError([
      {
        field: 'withinDays',
        code: Number.isInteger(n) ? 'out_of_range' : 'not_a_whole_number',
        message: `an integer from 0 to ${RENEWAL_RULES.maxDueWithinDays}`,
      },
    ]);
  }
  const today = todayNairobi();
  return {
    AND: [
      policyVisibility(ctx.principal),
      {
        status: 'active',
        renewal: { is: null },
        // Single trips are not renewed.
        productLine: { not: 'travel' },
        endDate: { gte: toDbDate(today), lte: toDbDate(addDays(today, n)) },
      },
    ],
  };
}

/** Renewals due, ending soonest first. */
export function due(ctx: Context, withinDays: number | null | undefined, query: Prisma.PolicyFindManyArgs) {
  const where = dueWhere(ctx, withinDays);
  return ctx.tx((tx) => tx.policy.findMany({ ...query, where, orderBy: [{ endDate: 'asc' }, { id: 'asc' }] }));
}
