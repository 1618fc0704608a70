import type { Context } from '../../context.ts';
import { Prisma } from '../../db/client.ts';
import type { User } from '../../generated/prisma/client.ts';
import { containsText } from '../../lib/search.ts';
import { directory, STAFF_COLUMNS } from './directory.ts';
import { ratingData } from './rating-data.ts';
import { motorBenefitId } from './rating-rows.ts';

export { levyTable, motorBenefitId, type RatingLevy } from './rating-rows.ts';

type InsurerQuery = { include?: Prisma.InsurerInclude; select?: Prisma.InsurerSelect };

/**
 * A Pothos query that asks for no relation (the record types are in Pothos' select mode: its select names columns of
 * the model only): cached rows, with every column, answer it as well as the database would.
 */
function scalarsOnly(query: { include?: object; select?: object }, columns: Record<string, unknown>): boolean {
  if (query.include && Object.keys(query.include).length) return false;
  return !query.select || Object.entries(query.select).every(([k, v]) => v === true && k in columns);
}

/** Cached rows are shared and frozen: each caller gets its own shallow copies. */
function copies<T extends object>(rows: readonly T[]): T[] {
  return rows.map((r) => ({ ...r }));
}

/** Reads of the tenant's reference data. Tenant scoping comes from the transaction (row-level security). */
export const referenceService = {
  async insurers(ctx: Context, search: string | null | undefined, query: InsurerQuery = {}) {
    const term = search?.trim() || undefined;
    // The whole list, scalars only: this process's rating copy (rating-data.ts) answers, dropped at every change.
    if (!term && scalarsOnly(query, Prisma.InsurerScalarFieldEnum)) return copies((await ratingData(ctx)).insurers);
    return ctx.tx((tx) =>
      tx.insurer.findMany({
        ...query,
        where: term
          ? {
              OR: [{ name: containsText(term) }, { legalName: containsText(term) }],
            }
          : {},
        orderBy: [{ name: 'asc' }, { id: 'asc' }],
      }),
    );
  },

  async branches(ctx: Context, query: { include?: Prisma.BranchInclude; select?: Prisma.BranchSelect } = {}) {
    // Columns only: this process's directory (directory.ts) answers, dropped at every change.
    if (scalarsOnly(query, Prisma.BranchScalarFieldEnum)) return copies((await directory(ctx)).branches);
    return ctx.tx((tx) => tx.branch.findMany({ ...query, orderBy: [{ name: 'asc' }, { id: 'asc' }] }));
  },

  /** The channels a client may be recorded as coming through (a client's business_source_id), by name. */
  async businessSources(
    ctx: Context,
    query: { include?: Prisma.BusinessSourceInclude; select?: Prisma.BusinessSourceSelect } = {},
  ) {
    if (scalarsOnly(query, Prisma.BusinessSourceScalarFieldEnum))
      return copies([...(await directory(ctx)).businessSources.values()]);
    return ctx.tx((tx) => tx.businessSource.findMany({ ...query, orderBy: [{ name: 'asc' }, { id: 'asc' }] }));
  },

  /** The kinds of prospect or client the organisation tracks (a client's prospect_type_id), by name. */
  async prospectTypes(
    ctx: Context,
    query: { include?: Prisma.ProspectTypeInclude; select?: Prisma.ProspectTypeSelect } = {},
  ) {
    if (scalarsOnly(query, Prisma.ProspectTypeScalarFieldEnum))
      return copies([...(await directory(ctx)).prospectTypes.values()]);
    return ctx.tx((tx) => tx.prospectType.findMany({ ...query, orderBy: [{ name: 'asc' }, { id: 'asc' }] }));
  },

  /** Risk managers are the account executives; sales people are the agents (their code is what X-Agent-Code takes). */
  async staff(
    ctx: Context,
    kind: 'risk_managers' | 'sales_people',
    query: { include?: Prisma.UserInclude; select?: Prisma.UserSelect } = {},
  ) {
    const role = kind === 'risk_managers' ? 'account_exec' : 'agent';
    // Columns the directory keeps only (never the agent key's hash): it answers, in the same order.
    // Typed as whole users, as Pothos types its rows; in select mode a row holds the columns asked for, as these do.
    if (query.select && scalarsOnly(query, STAFF_COLUMNS))
      return copies((await directory(ctx)).staff.filter((u) => u.role === role)) as unknown as User[];
    return ctx.tx((tx) =>
      tx.user.findMany({ ...query, where: { role, disabled: false }, orderBy: [{ name: 'asc' }, { id: 'asc' }] }),
    );
  },

  async levies(ctx: Context, query: { include?: Prisma.LevyInclude; select?: Prisma.LevySelect } = {}) {
    if (scalarsOnly(query, Prisma.LevyScalarFieldEnum)) return copies((await ratingData(ctx)).levyRows);
    return ctx.tx((tx) => tx.levy.findMany({ ...query, orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }] }));
  },

  async motorBenefits(ctx: Context): Promise<{ id: string; name: string }[]> {
    return (await ratingData(ctx)).benefitNames.map((name) => ({ id: motorBenefitId(name), name }));
  },

  async standardProducts(
    ctx: Context,
    query: { include?: Prisma.StandardProductInclude; select?: Prisma.StandardProductSelect } = {},
  ) {
    if (scalarsOnly(query, Prisma.StandardProductScalarFieldEnum))
      return copies((await ratingData(ctx)).standardProducts);
    return ctx.tx((tx) => tx.standardProduct.findMany({ ...query, orderBy: [{ name: 'asc' }, { id: 'asc' }] }));
  },
};

/**
 * Every product line and where it is priced (REST path). GET /products lists only the lines the organisation can
 * really quote — those with a product of an active insurer on its panel (productLines) — so an integrator never
 * follows an endpoint that answers no_quote for want of products (test/reference.test.ts posts to each). The
 * standard-product catalogue beside it is descriptive (names, descriptions, brochures).
 */
export const PRODUCT_LINES = [
  { code: 'motor', name: 'Motor', quoteEndpoint: '/motor/quote' },
  { code: 'medical', name: 'Medical (family or group)', quoteEndpoint: '/medical/quote' },
  { code: 'travel', name: 'Travel (single trip)', quoteEndpoint: '/travel/quote' },
  { code: 'standard', name: 'Standard products', quoteEndpoint: '/standard/quote' },
] as const;

/** The lines of PRODUCT_LINES the caller's organisation has products for, from the rating cache. */
export async function productLines(ctx: Context): Promise<(typeof PRODUCT_LINES)[number][]> {
  const rating = await ratingData(ctx);
  const live = new Set<string>();
  for (const p of rating.products) if (p.insurer.status === 'active') live.add('motor');
  for (const p of rating.coverProducts) if (p.insurer.status === 'active') live.add(p.productLine);
  return PRODUCT_LINES.filter((l) => live.has(l.code));
}
