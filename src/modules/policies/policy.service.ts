import type { Principal } from '../../auth/principal.ts';
import { appliesEvery, forwardPage, keyset, keysetWhere, newestFirst } from '../../db/read-model.ts';
import { planSelection, shapedAsPlanned } from '../../db/selection-sql.ts';
import type { Context } from '../../context.ts';
import { Prisma, type Tx } from '../../db/client.ts';
import { isYmd, toDbDate, YMD_MESSAGE } from '../../lib/dates.ts';
import { normaliseRegNo } from '../../lib/identifiers.ts';
import { containsText } from '../../lib/search.ts';
import { type FieldError, ValidationError } from '../../lib/problem.ts';
import {
  policyVisibility,
  policyVisibilityShape,
  policyVisibilitySql,
  visiblePolicy,
} from '../access/policy.visibility.ts';

export interface PolicyListFilters {
  status?: string | null;
  clientNo?: string | null;
  productLine?: string | null;
  insurerId?: number | null;
  salesPersonId?: number | null;
  startFrom?: string | null;
  startTo?: string | null;
  search?: string | null;
}

const LINES = ['motor', 'medical', 'travel', 'standard'];
const STATUSES = ['pending_payment', 'active', 'cancelled', 'expired', 'lapsed', 'renewed', 'not_taken_up'];

/** The list's where: visibility is always ANDed, so no filter can widen what the caller sees. */
export function policyListWhere(ctx: Context, f: PolicyListFilters): Prisma.PolicyWhereInput {
  const errors: FieldError[] = [];
  if (f.status && !STATUSES.includes(f.status))
    errors.push({ field: 'status', code: 'not_one_of', message: `one of ${STATUSES.join(', ')}` });
  if (f.productLine && !LINES.includes(f.productLine))
    errors.push({ field: 'productLine', code: 'not_one_of', message: `one of ${LINES.join(', ')}` });
  for (const k of ['startFrom', 'startTo'] as const)
    if (f[k] && !isYmd(f[k])) errors.push({ field: k, code: 'invalid_value', message: YMD_MESSAGE });
  if (errors.length) throw new ValidationError(errors);
  const and: Prisma.PolicyWhereInput[] = [policyVisibility(ctx.principal)];
  if (f.status) and.push({ status: f.status as never });
  if (f.clientNo) and.push({ client: { clientNo: f.clientNo } });
  if (f.productLine) and.push({ productLine: f.productLine });
  if (f.insurerId != null) and.push({ insurerId: f.insurerId });
  if (f.salesPersonId != null) and.push({ salesPersonId: f.salesPersonId });
  if (f.startFrom) and.push({ startDate: { gte: toDbDate(f.startFrom) } });
  if (f.startTo) and.push({ startDate: { lte: toDbDate(f.startTo) } });
  const s = f.search?.trim();
  if (s) {
    // Registrations are stored normalised (no spaces, upper case), so "kde 123a" must find KDE123A.
    const reg = normaliseRegNo(s);
    and.push({
      OR: [{ policyNo: containsText(s) }, ...(reg ? [{ vehicles: { some: { regNo: { contains: reg } } } }] : [])],
    });
  }
  return { AND: and };
}

export const policyService = {
  list(ctx: Context, filters: PolicyListFilters, query: Prisma.PolicyFindManyArgs) {
    const { query: paged, id } = keyset(query);
    const where = keysetWhere(policyListWhere(ctx, filters), id);
    return ctx.tx(
      (tx) =>
        (policyPage(tx, ctx.principal!, filters, paged, id) as ReturnType<typeof tx.policy.findMany> | null) ??
        tx.policy
          .findMany({ ...paged, where, orderBy: { id: 'desc' } })
          .then((rows) => shapedAsPlanned(tx, 'Policy', paged, rows)),
      { readOnly: true },
    );
  },

  get: visiblePolicy,

  /** How many policies the caller may see are in each state (states with none left out). */
  async counts(ctx: Context) {
    const groups = await ctx.tx((tx) =>
      tx.policy.groupBy({
        by: ['status'],
        where: policyVisibility(ctx.principal),
        _count: { _all: true },
        orderBy: { status: 'asc' },
      }),
    );
    return groups.map((g) => ({ status: g.status, count: g._count._all }));
  },

  /** A policy an operation of the caller's just wrote or read, loaded again with the caller's selection. */
  byId(ctx: Context, id: number, query: Omit<Prisma.PolicyFindUniqueArgs, 'where'> = {}) {
    return ctx.tx((tx) => tx.policy.findUniqueOrThrow({ ...query, where: { id } }));
  },
};

/**
 * The page policyListWhere's findMany would return (newest first, after the cursor's id), read by the selection's plan
 * (src/db/selection-sql.ts) when it covers the selection, the page pages forward and every filter set is one of the
 * equalities below (appliesEvery); else null, and the caller reads with Prisma. The filters were judged by
 * policyListWhere first.
 */
function policyPage(
  tx: Tx,
  p: Principal,
  f: PolicyListFilters,
  query: Prisma.PolicyFindManyArgs,
  id: { lt: number } | { gt: number } | null,
): Promise<unknown[]> | null {
  const page = forwardPage(query, id);
  if (!page || !appliesEvery(f, ['status', 'productLine', 'insurerId', 'salesPersonId'])) return null;
  const plan = planSelection(tx, 'Policy', 'p', query.select);
  if (!plan) return null;
  const and: Prisma.Sql[] = [policyVisibilitySql(p, 'p')];
  if (f.status) and.push(Prisma.sql`p.status::text = ${f.status}`);
  if (f.productLine) and.push(Prisma.sql`p.product_line = ${f.productLine}`);
  if (f.insurerId != null) and.push(Prisma.sql`p.insurer_id = ${f.insurerId}`);
  if (f.salesPersonId != null) and.push(Prisma.sql`p.sales_person_id = ${f.salesPersonId}`);
  const { where, tail } = newestFirst('p', page, and);
  // Everything the text depends on: the reach, which filters are set, and whether the page starts after a cursor.
  const shape = [
    policyVisibilityShape(p),
    f.status ? 'status' : '',
    f.productLine ? 'line' : '',
    f.insurerId != null ? 'insurer' : '',
    f.salesPersonId != null ? 'sales' : '',
    page.below === null ? '' : 'after',
  ].join(' ');
  return plan.query(tx, shape, Prisma.sql`WHERE ${where} ${tail}`);
}

/**
 * The one double-cover rule of binds, renewals, added vehicles and reinstatements: a vehicle row of a pending or
 * active policy (other than `excludePolicyId`) with one of `regNos` on cover for any day from `from` to `to`
 * (Y-m-d, inclusive). A vehicle removed by endorsement is off cover from its `removedOn`. Returns the first, or null.
 * `policyRef` names the clashing policy only when `viewer` may see it ("policy P-…"), else "another policy": the
 * refusal must not tell an agent the number of a policy outside their reach.
 * Checking and then writing would let two transactions both see no clash (test/races.test.ts binds one registration
 * four times at once): each registration is locked until the caller's transaction ends, so they take turns.
 */
export async function findCoverClash(
  tx: Tx,
  q: { regNos: string[]; from: string; to: string; excludePolicyId?: number },
  viewer: Principal,
): Promise<{ regNo: string; policyId: number; policyRef: string } | null> {
  for (const regNo of [...new Set(q.regNos)].sort())
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`cover:${regNo}`}, 0))`;
  const row = await tx.policyVehicle.findFirst({
    where: {
      regNo: { in: q.regNos },
      ...(q.excludePolicyId != null ? { policyId: { not: q.excludePolicyId } } : {}),
      OR: [{ removedOn: null }, { removedOn: { gt: toDbDate(q.from) } }],
      policy: {
        status: { in: ['pending_payment', 'active'] },
        startDate: { lte: toDbDate(q.to) },
        endDate: { gte: toDbDate(q.from) },
      },
    },
    orderBy: { id: 'asc' },
    select: { regNo: true, policyId: true, policy: { select: { policyNo: true } } },
  });
  if (!row) return null;
  const visible =
    !viewer.actor?.ownRecordsOnly ||
    !!(await tx.policy.findFirst({ where: { id: row.policyId, ...policyVisibility(viewer) }, select: { id: true } }));
  return {
    regNo: row.regNo,
    policyId: row.policyId,
    policyRef: visible ? `policy ${row.policy.policyNo}` : 'another policy',
  };
}

/** Who a cancellation's refund goes to (docs/premium-finance.md "Premium finance"): the lender while its loan has paid the premium. */
export type RefundPayee = 'client' | 'lender';

/**
 * Points the policy's refunds at the lender (when a premium-finance loan funds it) or back at the client (when the
 * loan is paid off), in the caller's transaction.
 */
export async function setRefundsTo(tx: Tx, policyId: number, to: RefundPayee): Promise<void> {
  await tx.policy.update({ where: { id: policyId }, data: { refundsTo: to } });
}
