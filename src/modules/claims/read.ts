import { now as clockNow } from '../../lib/clock.ts';
import type { Principal } from '../../auth/principal.ts';
import type { Context } from '../../context.ts';
import type { Prisma } from '../../db/client.ts';
import { isYmd, YMD_MESSAGE } from '../../lib/dates.ts';
import { isUuid, normaliseRegNo } from '../../lib/identifiers.ts';
import { sameText } from '../../lib/search.ts';
import { type FieldError, ValidationError } from '../../lib/problem.ts';
import { claimVisibility, visibleClaim } from '../access/claim.visibility.ts';
import { OPEN_CLAIM_STATES } from './claim-state.ts';
import { keyset, keysetWhere } from '../../db/read-model.ts';
import { shapedAsPlanned } from '../../db/selection-sql.ts';
import { type ClaimListFilters, claimPage } from './read-model.ts';

export type ClaimQuery = { include?: Prisma.ClaimInclude; select?: Prisma.ClaimSelect };

export type { ClaimListFilters };

const day = (ymd: string) => new Date(`${ymd}T00:00:00Z`);

/** The list's where-fragment: the caller's reach first, then each filter; a search is a claim number or registration. */
export function claimListWhere(p: Principal, f: ClaimListFilters, now = clockNow()): Prisma.ClaimWhereInput {
  const and: Prisma.ClaimWhereInput[] = [claimVisibility(p)];
  if (f.status?.length) and.push({ status: { in: f.status } });
  if (f.policyId)
    and.push({ policy: { uuid: isUuid(f.policyId) ? f.policyId : '00000000-0000-0000-0000-000000000000' } });
  if (f.clientNo) and.push({ client: { clientNo: f.clientNo } });
  if (f.insurerId != null) and.push({ insurerId: f.insurerId });
  if (f.assigneeId != null) and.push({ assigneeUserId: f.assigneeId });
  if (f.reportedFrom) and.push({ reportedAt: { gte: f.reportedFrom } });
  if (f.reportedTo) and.push({ reportedAt: { lte: f.reportedTo } });
  if (f.lossFrom) and.push({ lossDate: { gte: day(f.lossFrom) } });
  if (f.lossTo) and.push({ lossDate: { lte: day(f.lossTo) } });
  if (f.slaBreached === true) and.push({ status: { in: [...OPEN_CLAIM_STATES] }, slaDueAt: { lt: now } });
  if (f.slaBreached === false) {
    and.push({ OR: [{ status: { notIn: [...OPEN_CLAIM_STATES] } }, { slaDueAt: null }, { slaDueAt: { gte: now } }] });
  }
  const term = f.search?.trim();
  if (term) {
    const or: Prisma.ClaimWhereInput[] = [{ claimNo: sameText(term) }];
    const reg = normaliseRegNo(term);
    if (reg) or.push({ regNo: reg });
    and.push({ OR: or });
  }
  return { AND: and };
}

/** Filters a client can get wrong: refused as validation_failed, never passed on to the database. */
function checkFilters(f: ClaimListFilters): void {
  const errors: FieldError[] = [];
  for (const k of ['lossFrom', 'lossTo'] as const) {
    if (f[k] != null && f[k] !== '' && !isYmd(f[k]))
      errors.push({ field: k, code: 'invalid_value', message: YMD_MESSAGE });
  }
  for (const k of ['reportedFrom', 'reportedTo'] as const) {
    if (f[k] != null && Number.isNaN(f[k].getTime())) errors.push({ field: k, message: 'an ISO 8601 date-time' });
  }
  if (errors.length) throw new ValidationError(errors);
}

/**
 * A page of claims (claimListWhere, newest first, after the cursor's id: keyset): from the read model
 * (read-model.ts) when it answers the selection, filters and paging asked for, else from Prisma.
 */
export function listClaims(ctx: Context, filters: ClaimListFilters, query: Prisma.ClaimFindManyArgs) {
  checkFilters(filters);
  const p = ctx.principal!;
  const { query: paged, id } = keyset(query);
  return ctx.tx(
    (tx) =>
      claimPage(tx, p, filters, paged, id) ??
      tx.claim
        .findMany({
          ...paged,
          where: keysetWhere(claimListWhere(p, filters), id),
          orderBy: { id: 'desc' },
        })
        .then((rows) => shapedAsPlanned(tx, 'Claim', paged, rows)),
    { readOnly: true },
  );
}

export function getClaim(ctx: Context, uuid: string, query: ClaimQuery = {}) {
  return visibleClaim(ctx, uuid, query);
}

/** The claim causes of the organisation, per product line (reference data for registration). */
export function listCauses(ctx: Context, productLine?: string | null) {
  return ctx.tx((tx) =>
    tx.claimCause.findMany({
      where: { active: true, ...(productLine ? { productLine } : {}) },
      orderBy: [{ productLine: 'asc' }, { sortOrder: 'asc' }],
    }),
  );
}

/** How many claims the caller may see are in each state, and how many of those are past their service level. */
export async function countClaims(ctx: Context) {
  const p = ctx.principal!;
  const [all, breached] = await ctx.tx(
    (tx) =>
      Promise.all([
        tx.claim.groupBy({
          by: ['status'],
          where: claimVisibility(p),
          _count: { _all: true },
          orderBy: { status: 'asc' },
        }),
        tx.claim.groupBy({
          by: ['status'],
          where: claimListWhere(p, { slaBreached: true }),
          _count: { _all: true },
          orderBy: { status: 'asc' },
        }),
      ]),
    { readOnly: true },
  );
  const late = new Map(breached.map((g) => [g.status, g._count._all]));
  return all.map((g) => ({ status: g.status, count: g._count._all, slaBreached: late.get(g.status) ?? 0 }));
}
