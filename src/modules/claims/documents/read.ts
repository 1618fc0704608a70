import type { Context } from '../../../context.ts';
import type { Prisma } from '../../../db/client.ts';
import { isUuid } from '../../../lib/identifiers.ts';
import { notFound } from '../../../lib/problem.ts';
import { visibleClaim } from '../../access/claim.visibility.ts';
import { stateOf } from './checklist.ts';

export type ClaimDocumentQuery = Omit<Prisma.ClaimDocumentFindManyArgs, 'where' | 'orderBy'>;

/** Checklist order: the cause's lines as listed, then extras as they arrived. */
export const LINE_ORDER = [
  { sortOrder: 'asc' },
  { id: 'asc' },
] as const satisfies Prisma.ClaimDocumentOrderByWithRelationInput[];

/** The claim's checklist: its state and the id the lines are read by (the claim must be visible, else 404). */
export async function checklist(ctx: Context, claimUuid: string) {
  const claim = await visibleClaim(ctx, claimUuid, { select: { id: true } });
  const lines = await ctx.tx((tx) =>
    tx.claimDocument.findMany({
      where: { claimId: claim.id },
      select: { kind: true, required: true, status: true },
      orderBy: [...LINE_ORDER],
    }),
  );
  return { claimId: claim.id, ...stateOf(lines) };
}

/** The lines of a claim already shown visible (`checklist`), with the caller's selection (files included). */
export function linesOf(ctx: Context, claimId: number, query: ClaimDocumentQuery = {}) {
  return ctx.tx((tx) => tx.claimDocument.findMany({ ...query, where: { claimId }, orderBy: [...LINE_ORDER] }));
}

/**
 * One line again by id, with the caller's selection: for a line an operation of this request has just found on a
 * visible claim (the GraphQL type's access rule checks reach again).
 */
export function lineById(ctx: Context, id: number, query: Pick<ClaimDocumentQuery, 'select' | 'include'> = {}) {
  return ctx.tx((tx) => tx.claimDocument.findUniqueOrThrow({ ...query, where: { id } }));
}

/** The lines of a visible claim with the caller's selection, files by default (404 when the claim is out of reach). */
export async function list(
  ctx: Context,
  claimUuid: string,
  query: ClaimDocumentQuery = { include: { files: { orderBy: { id: 'asc' } } } },
) {
  const claim = await visibleClaim(ctx, claimUuid, { select: { id: true } });
  return linesOf(ctx, claim.id, query);
}

/** One file's row of a visible claim (404 for a claim or file out of reach, or a file of another claim). */
export async function fileOf<Q extends Omit<Prisma.ClaimDocumentFileFindFirstArgs, 'where'>>(
  ctx: Context,
  claimUuid: string,
  fileUuid: string,
  query?: Q,
) {
  const claim = await visibleClaim(ctx, claimUuid, { select: { id: true } });
  if (!isUuid(fileUuid)) throw notFound('Document');
  const file = await ctx.tx((tx) =>
    tx.claimDocumentFile.findFirst({ ...(query ?? ({} as Q)), where: { uuid: fileUuid, claimId: claim.id } }),
  );
  if (!file) throw notFound('Document');
  return file;
}
