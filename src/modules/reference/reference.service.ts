import { createHash } from 'node:crypto';
import type { Context } from '../../context.ts';
import type { Prisma, Tx } from '../../db/client.ts';
import { escapeLike } from '../../lib/validate.ts';

/** One line of the tenant's levy table as every product line's rating reads it (percent of basic premium, or flat). */
export interface RatingLevy {
  code: string;
  name: string;
  basis: 'percent' | 'flat';
  rateBps: number | null;
  amountMinor: bigint | null;
}

/** The tenant's levy table in its rating form, in display order: what every premium and mid-term change is levied by. */
export async function levyTable(tx: Tx): Promise<RatingLevy[]> {
  const rows = await tx.levy.findMany({ orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }] });
  return rows.map((l) => ({
    code: l.code,
    name: l.name,
    basis: l.basis,
    rateBps: l.rateBps,
    amountMinor: l.amountMinor,
  }));
}

/** Reads of the tenant's reference data. Tenant scoping comes from the transaction (row-level security). */
export const referenceService = {
  insurers(
    ctx: Context,
    search: string | null | undefined,
    query: { include?: Prisma.InsurerInclude; select?: Prisma.InsurerSelect } = {},
  ) {
    const term = search?.trim() ? escapeLike(search.trim()) : undefined;
    return ctx.tx((tx) =>
      tx.insurer.findMany({
        ...query,
        where: term
          ? {
              OR: [
                { name: { contains: term, mode: 'insensitive' } },
                { legalName: { contains: term, mode: 'insensitive' } },
              ],
            }
          : {},
        orderBy: [{ name: 'asc' }, { id: 'asc' }],
      }),
    );
  },

  branches(ctx: Context, query: { include?: Prisma.BranchInclude; select?: Prisma.BranchSelect } = {}) {
    return ctx.tx((tx) => tx.branch.findMany({ ...query, orderBy: [{ name: 'asc' }, { id: 'asc' }] }));
  },

  /** Risk managers are the account executives; sales people are the agents (their code is what X-Agent-Code takes). */
  staff(
    ctx: Context,
    kind: 'risk_managers' | 'sales_people',
    query: { include?: Prisma.UserInclude; select?: Prisma.UserSelect } = {},
  ) {
    const role = kind === 'risk_managers' ? 'account_exec' : 'agent';
    return ctx.tx((tx) =>
      tx.user.findMany({ ...query, where: { role, disabled: false }, orderBy: [{ name: 'asc' }, { id: 'asc' }] }),
    );
  },

  levies(ctx: Context, query: { include?: Prisma.LevyInclude; select?: Prisma.LevySelect } = {}) {
    return ctx.tx((tx) => tx.levy.findMany({ ...query, orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }] }));
  },

  async motorBenefits(ctx: Context): Promise<{ id: string; name: string }[]> {
    const rows = await ctx.tx((tx) =>
      tx.motorProductBenefit.findMany({ distinct: ['name'], select: { name: true }, orderBy: { name: 'asc' } }),
    );
    return rows.map((r) => ({ id: motorBenefitId(r.name), name: r.name }));
  },

  standardProducts(
    ctx: Context,
    query: { include?: Prisma.StandardProductInclude; select?: Prisma.StandardProductSelect } = {},
  ) {
    return ctx.tx((tx) => tx.standardProduct.findMany({ ...query, orderBy: [{ name: 'asc' }, { id: 'asc' }] }));
  },
};

/** Stable across re-seeding and tenants: derived from the benefit's name alone. */
export function motorBenefitId(name: string): string {
  return `mb_${createHash('sha256').update(name.trim().toLowerCase()).digest('hex').slice(0, 16)}`;
}

/** The four product lines and where each is quoted (REST path). */
export const PRODUCT_LINES = [
  { code: 'motor', name: 'Motor', quoteEndpoint: '/motor/quote' },
  { code: 'medical', name: 'Medical', quoteEndpoint: '/medical/quote' },
  { code: 'travel', name: 'Travel', quoteEndpoint: '/travel/quote' },
  { code: 'standard', name: 'Standard products', quoteEndpoint: '/standard/quote' },
] as const;
