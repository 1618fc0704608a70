import type { Context } from '../../context.ts';
import type { Prisma, Tx } from '../../db/client.ts';
import type { Insurer, Levy, StandardProduct } from '../../generated/prisma/client.ts';
import type { CoverLineCode, RatingCoverProduct } from './cover-products.ts';
import type { IpfDepositRule, IpfLenderTerms, IpfPricing } from './ipf-terms.ts';
import { motorBenefitId, type RatingLevy, ratingLevy } from './rating-rows.ts';

const PRODUCT_INCLUDE = {
  insurer: true,
  rateBands: { orderBy: { id: 'asc' } },
  tonnageBands: { orderBy: { id: 'asc' } },
  benefits: { orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }] },
} as const satisfies Prisma.MotorProductInclude;

export type RatingProductRow = Prisma.MotorProductGetPayload<{ include: typeof PRODUCT_INCLUDE }> & {
  /** motorBenefitId of each benefit, in the benefits' order (computed once per load, not per quote). */
  benefitIds: string[];
};

export type RatingLenderRow = IpfLenderTerms;

/** Everything motor rating reads of an organisation, as of one rating version. Shared between requests: never mutate. */
export interface RatingData {
  /** rating_versions.version when this was read (0: the organisation has never had rating data). */
  version: bigint;
  /** Every motor product, by id, with its insurer, bands and benefits. */
  products: readonly RatingProductRow[];
  /** Every active non-motor cover product (medical, travel, standard), by id, with its insurer and rate rows. */
  coverProducts: readonly RatingCoverProduct[];
  /** Active premium-finance lenders with their tenors, by id. */
  lenders: readonly RatingLenderRow[];
  levies: readonly RatingLevy[];
  /**
   * Reference lists served from the same copy: every insurer (by name, id), the levy rows, distinct benefit names and
   * the standard-product catalogue (by name, id).
   */
  insurers: readonly Insurer[];
  levyRows: readonly Levy[];
  benefitNames: readonly string[];
  standardProducts: readonly StandardProduct[];
}

async function currentVersion(tx: Tx, tenantId: number): Promise<bigint> {
  const row = await tx.ratingVersion.findUnique({ where: { tenantId }, select: { version: true } });
  return row?.version ?? 0n;
}

/** Reads the rating data and its version in one transaction (repeatable read: one snapshot for all of it). */
async function load(tx: Tx, tenantId: number): Promise<RatingData> {
  const version = await currentVersion(tx, tenantId);
  const products = await tx.motorProduct.findMany({ include: PRODUCT_INCLUDE, orderBy: { id: 'asc' } });
  const lenderRows = await tx.ipfLender.findMany({
    where: { active: true },
    include: { tenors: { orderBy: { months: 'asc' } }, feeBands: { orderBy: { id: 'asc' } } },
    orderBy: { id: 'asc' },
  });
  const coverRows = await tx.coverProduct.findMany({
    where: { active: true },
    include: { insurer: true, rates: { orderBy: [{ rateTable: 'asc' }, { key: 'asc' }, { fromValue: 'asc' }] } },
    orderBy: { id: 'asc' },
  });
  const levyRows = await tx.levy.findMany({ orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }] });
  const insurers = await tx.insurer.findMany({ orderBy: [{ name: 'asc' }, { id: 'asc' }] });
  const benefits = await tx.motorProductBenefit.findMany({
    distinct: ['name'],
    select: { name: true },
    orderBy: { name: 'asc' },
  });
  const standardProducts = await tx.standardProduct.findMany({ orderBy: [{ name: 'asc' }, { id: 'asc' }] });
  return deepFreeze({
    version,
    products: products.map((p) => ({ ...p, benefitIds: p.benefits.map((b) => motorBenefitId(b.name)) })),
    coverProducts: coverRows.map(coverProduct),
    lenders: lenderRows.map(lenderTerms),
    levies: levyRows.map(ratingLevy),
    insurers,
    levyRows,
    benefitNames: benefits.map((b) => b.name),
    standardProducts,
  });
}

/** A cover product row in its rating form. */
function coverProduct(
  p: Prisma.CoverProductGetPayload<{ include: { insurer: true; rates: true } }>,
): RatingCoverProduct {
  return {
    id: p.id,
    insurerId: p.insurerId,
    insurer: {
      id: p.insurer.id,
      name: p.insurer.name,
      monogram: p.insurer.monogram,
      commissionRateBps: p.insurer.commissionRateBps,
      status: p.insurer.status,
    },
    productLine: p.productLine as CoverLineCode,
    code: p.code,
    name: p.name,
    version: p.version,
    minPremiumMinor: p.minPremiumMinor,
    maxInstalments: p.maxInstalments,
    ipfEligible: p.ipfEligible,
    renewable: p.renewable,
    excessText: p.excessText,
    terms: p.terms,
    rates: p.rates.map((r) => ({
      table: r.rateTable,
      key: r.key,
      from: r.fromValue,
      to: r.toValue,
      rateBps: r.rateBps,
      amountMinor: r.amountMinor,
    })),
  };
}

/** A lender row with its tenors and fee bands as the arithmetic reads it. */
export function lenderTerms(
  l: Prisma.IpfLenderGetPayload<{ include: { tenors: true; feeBands: true } }>,
): IpfLenderTerms {
  return {
    id: l.id,
    name: l.name,
    minPremiumMinor: l.minPremiumMinor,
    maxPremiumMinor: l.maxPremiumMinor,
    pricing: l.pricing as IpfPricing,
    depositRule: l.depositRule as IpfDepositRule,
    depositBps: l.depositBps,
    maxInstalmentToIncomeBps: l.maxInstalmentToIncomeBps,
    defaultGraceDays: l.defaultGraceDays,
    tenors: l.tenors.map((t) => ({ months: t.months, chargeBps: t.chargeBps })),
    feeBands: l.feeBands
      .map((b) => ({ upToPremiumMinor: b.upToPremiumMinor, feeMinor: b.feeMinor }))
      .sort((a, b) =>
        a.upToPremiumMinor === null
          ? 1
          : b.upToPremiumMinor === null
            ? -1
            : a.upToPremiumMinor < b.upToPremiumMinor
              ? -1
              : 1,
      ),
  };
}

/** Freezes a cached copy all the way down: it is shared between requests (rating data, the directory). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

export function ratingCache(ctx: Context) {
  return ctx.app.caches.define<number, RatingData>('rating', ['rating']);
}

/**
 * The caller's organisation's rating data. Without `tx` (a quote: nothing is written) it comes from this process's
 * cache, which a trigger on every rating table invalidates in every process at commit (migration
 * caches_and_replicas), so a quote served from memory touches PostgreSQL not at all. With `tx` (a bind, a renewal, an
 * endorsement: the price is about to be stored) the cached copy is used only if its version is the one the
 * transaction sees (one primary-key read; the copy was read at that version in one snapshot), otherwise the data is
 * read inside the transaction.
 */
export async function ratingData(ctx: Context, tx?: Tx): Promise<RatingData> {
  const tenantId = ctx.principal!.tenant.id;
  const cache = ratingCache(ctx);
  if (!tx) {
    return cache.get(tenantId, async () => ({
      value: await ctx.tx((t) => load(t, tenantId), { isolationLevel: 'RepeatableRead' }),
      scope: tenantId,
    }));
  }
  const version = await currentVersion(tx, tenantId);
  const cached = cache.peek(tenantId);
  if (cached && cached.version === version) return cached;
  // Not offered to the cache: a read-committed transaction's statements need not share one snapshot.
  return load(tx, tenantId);
}
