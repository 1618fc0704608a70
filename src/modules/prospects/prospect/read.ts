import type { Principal } from '../../../auth/principal.ts';
import { keyset, keysetWhere } from '../../../db/read-model.ts';
import type { Context } from '../../../context.ts';
import type { Prisma, Tx } from '../../../db/client.ts';
import type { ProspectStatus } from '../../../generated/prisma/enums.ts';
import { todayNairobi, toDbDate } from '../../../lib/dates.ts';
import { identifiersIn, identityConditions, isUuid } from '../../../lib/identifiers.ts';
import { notFound } from '../../../lib/problem.ts';
import { containsText, sameText } from '../../../lib/search.ts';
import { prospectVisibility } from '../../access/prospect.visibility.ts';
import { OPEN_PROSPECT_STATES } from '../prospect-state.ts';

export type ProspectQuery = { include?: Prisma.ProspectInclude; select?: Prisma.ProspectSelect };

export interface ProspectListFilters {
  status?: ProspectStatus | null;
  assigneeId?: number | null;
  source?: string | null;
  interest?: string | null;
  /** Open prospects whose next follow-up date is today (Nairobi) or earlier. */
  followUpDue?: boolean | null;
  search?: string | null;
}

/** Due for a follow-up on `asOf`: open, with a date on or before it. */
export function followUpDueWhere(asOf: string): Prisma.ProspectWhereInput {
  return { status: { in: [...OPEN_PROSPECT_STATES] }, nextFollowUpOn: { lte: toDbDate(asOf) } };
}

/** A search term matches a name in part, or a prospect number, phone, ID number or PIN exactly (once normalised). */
export function prospectListWhere(p: Principal, f: ProspectListFilters): Prisma.ProspectWhereInput {
  const and: Prisma.ProspectWhereInput[] = [prospectVisibility(p)];
  if (f.status) and.push({ status: f.status });
  if (f.assigneeId != null) and.push({ assigneeUserId: f.assigneeId });
  if (f.source) and.push({ source: f.source });
  if (f.interest) and.push({ interests: { has: f.interest } });
  if (f.followUpDue) and.push(followUpDueWhere(todayNairobi()));
  const term = f.search?.trim();
  if (term) {
    and.push({
      OR: [{ name: containsText(term) }, { prospectNo: sameText(term) }, ...identityConditions(identifiersIn(term))],
    });
  }
  return { AND: and };
}

export function listProspects(ctx: Context, filters: ProspectListFilters, query: Prisma.ProspectFindManyArgs) {
  const p = ctx.principal!;
  const { query: paged, id } = keyset(query);
  return ctx.tx((tx) =>
    tx.prospect.findMany({ ...paged, where: keysetWhere(prospectListWhere(p, filters), id), orderBy: { id: 'desc' } }),
  );
}

/** The follow-up-due list: oldest date first (the most overdue on top), then oldest prospect. */
export function listFollowUps(
  ctx: Context,
  filters: { assigneeId?: number | null },
  query: Prisma.ProspectFindManyArgs,
) {
  const p = ctx.principal!;
  return ctx.tx((tx) =>
    tx.prospect.findMany({
      ...query,
      where: prospectListWhere(p, { assigneeId: filters.assigneeId, followUpDue: true }),
      orderBy: [{ nextFollowUpOn: 'asc' }, { id: 'asc' }],
    }),
  );
}

/** The prospect `uuid` if the caller may see it, else 404: the one lookup every prospect operation starts from. */
export async function findVisibleProspect(tx: Tx, p: Principal, uuid: string) {
  const row = isUuid(uuid) ? await tx.prospect.findFirst({ where: { AND: [{ uuid }, prospectVisibility(p)] } }) : null;
  if (!row) throw notFound('Prospect');
  return row;
}

export async function getProspect(ctx: Context, uuid: string, query: ProspectQuery = {}) {
  const p = ctx.principal!;
  if (!isUuid(uuid)) throw notFound('Prospect');
  const row = await ctx.tx((tx) =>
    tx.prospect.findFirst({ ...query, where: { AND: [{ uuid }, prospectVisibility(p)] } }),
  );
  if (!row) throw notFound('Prospect');
  return row;
}

/** The record as the caller's selection asks for it, read in the write's own transaction. */
export function reread(tx: Tx, id: number, query: ProspectQuery = {}) {
  return tx.prospect.findUniqueOrThrow({ ...query, where: { id } });
}
