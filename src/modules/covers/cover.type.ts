import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { ValidationError } from '../../lib/problem.ts';
import { InsuredInputRef } from '../clients/insured.input.ts';
import { QuotedFiguresInput, saveOrBindProblems, SavedQuoteRef } from '../motor/motor.mutations.ts';
import { NoQuoteError } from '../motor/quote.service.ts';
import { InstalmentPlanRef, IpfOfferRef, TaxLineRef } from '../motor/quote.type.ts';
import { CoverBindPolicyInput, MedicalCoverInput, StandardCoverInput, TripInput } from './cover.inputs.ts';
import type { CoverInsured, CoverLineCode, CoverRiskBase } from './line.ts';
import { lineOf } from './lines.ts';
import { type CoverOption, type CoverQuote, coverQuoteService } from './quote.service.ts';
import { coverSaveQuoteService } from './save-quote.service.ts';

export { CoverBindPolicyInput, MedicalCoverInput, StandardCoverInput, TripInput };

export const CoverInsuredRef = builder.objectRef<CoverInsured>('CoverInsured').implement({
  description: 'An insured person (medical member), traveller or insured item.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'member, traveller or item' }),
    name: t.exposeString('name'),
    relationship: t.exposeString('relationship', { nullable: true }),
    dateOfBirth: t.exposeString('dateOfBirth', { nullable: true }),
    age: t.exposeInt('ageYears', { nullable: true }),
    inSchool: t.exposeBoolean('inSchool', { nullable: true }),
    idNo: t.exposeString('idNo', { nullable: true }),
    sumInsured: t.field({ type: MoneyRef, nullable: true, resolve: (i) => money(i.sumInsuredMinor ?? null) }),
  }),
});

type QuotedRisk = { line: CoverLineCode; risk: CoverRiskBase };

const CoverRiskRef = builder.objectRef<QuotedRisk>('CoverRisk').implement({
  description: 'The quote request as understood: the product, the cover period and the insured.',
  fields: (t) => ({
    productLine: t.string({ resolve: (q) => q.line }),
    product: t.string({
      description: 'Product code: MEDICAL, TRAVEL, or a standard product',
      resolve: (q) => q.risk.productCode,
    }),
    coverPeriod: t.string({ description: 'annual or trip', resolve: (q) => q.risk.coverPeriod }),
    startDate: t.string({ resolve: (q) => q.risk.startDate }),
    endDate: t.string({ resolve: (q) => q.risk.endDate }),
    days: t.int({ resolve: (q) => q.risk.days }),
    cover: t.field({
      type: 'JSON',
      description:
        'The cover as normalised (medical: cover type, limits, riders; travel: plan, region; standard: extensions)',
      resolve: (q) => lineOf(q.line).coverDetails(q.risk),
    }),
    insured: t.field({ type: [CoverInsuredRef], resolve: (q) => lineOf(q.line).insured(q.risk) }),
  }),
});

const BreakdownRef = builder.objectRef<CoverOption['breakdown'][number]>('PremiumBreakdownLine').implement({
  fields: (t) => ({
    item: t.exposeString('item'),
    amount: t.field({ type: MoneyRef, resolve: (b) => money(b.amountMinor)! }),
  }),
});

const CoverBenefitRef = builder.objectRef<CoverOption['benefits'][number]>('CoverBenefit').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    limit: t.field({
      type: MoneyRef,
      nullable: true,
      description: 'Null: unlimited or as stated',
      resolve: (b) => money(b.limitMinor),
    }),
  }),
});

export const CoverOptionRef = builder.objectRef<CoverOption>('CoverQuoteOption').implement({
  fields: (t) => ({
    insurerId: t.int({ resolve: (o) => o.insurer.id }),
    insurerName: t.string({ resolve: (o) => o.insurer.name }),
    monogram: t.string({ resolve: (o) => o.insurer.monogram }),
    productId: t.exposeInt('productId'),
    productCode: t.exposeString('productCode'),
    productName: t.exposeString('productName'),
    productVersion: t.exposeInt('productVersion', {
      description: 'Rating version priced; a bind on a newer one answers price_changed.',
    }),
    rateBps: t.exposeInt('rateBps', { nullable: true }),
    rate: t.float({
      nullable: true,
      description: 'Percent.',
      resolve: (o) => (o.rateBps == null ? null : o.rateBps / 100),
    }),
    basicPremium: t.field({ type: MoneyRef, resolve: (o) => money(o.basicMinor)! }),
    breakdown: t.field({
      type: [BreakdownRef],
      description: 'What makes up the basic premium',
      resolve: (o) => o.breakdown,
    }),
    insuredPremiums: t.field({
      type: [MoneyRef],
      nullable: true,
      description:
        "Each insured's share of the basic premium, in the order of quote.insured; null when priced as a whole",
      resolve: (o) => o.perInsuredMinor?.map((c) => money(c)!) ?? null,
    }),
    terms: t.field({
      type: 'JSON',
      description: 'Line terms: waiting periods, medical limit, sum insured, …',
      resolve: (o) => o.terms,
    }),
    benefits: t.field({ type: [CoverBenefitRef], resolve: (o) => o.benefits }),
    excess: t.exposeString('excess'),
    taxes: t.field({ type: [TaxLineRef], resolve: (o) => o.taxes }),
    taxesTotal: t.field({ type: MoneyRef, resolve: (o) => money(o.taxesMinor)! }),
    total: t.field({ type: MoneyRef, resolve: (o) => money(o.totalMinor)! }),
    commissionRateBps: t.int({ resolve: (o) => o.insurer.commissionRateBps }),
    instalments: t.field({ type: [InstalmentPlanRef], resolve: (o) => o.instalments }),
    ipfOffers: t.field({ type: [IpfOfferRef], resolve: (o) => o.ipfOffers }),
    ipfReason: t.exposeString('ipfReason', { nullable: true }),
  }),
});

const CoverQuoteRef = builder.objectRef<CoverQuote>('CoverQuote').implement({
  fields: (t) => ({
    message: t.string({
      resolve: (q) =>
        `${q.options.length} insurer${q.options.length === 1 ? '' : 's'} rate${q.options.length === 1 ? 's' : ''} this risk`,
    }),
    quote: t.field({ type: CoverRiskRef, resolve: (q) => ({ line: q.line, risk: q.risk }) }),
    options: t.field({
      type: [CoverOptionRef],
      description: 'One per insurer that rates the risk, cheapest first.',
      resolve: (q) => q.options,
    }),
  }),
});

/** Per line: the GraphQL names, the input type and the argument carrying the risk (as REST spells it). */
const LINE_FIELDS = [
  {
    code: 'medical',
    quote: 'medicalQuote',
    save: 'saveMedicalQuote',
    arg: 'medical',
    input: MedicalCoverInput,
    what: 'medical cover (family or group)',
  },
  {
    code: 'travel',
    quote: 'travelQuote',
    save: 'saveTravelQuote',
    arg: 'trip',
    input: TripInput,
    what: 'single-trip travel cover',
  },
  {
    code: 'standard',
    quote: 'standardQuote',
    save: 'saveStandardQuote',
    arg: 'cover',
    input: StandardCoverInput,
    what: 'a standard product',
  },
] as const;

for (const l of LINE_FIELDS) {
  builder.queryField(l.quote, (t) =>
    t.field({
      type: CoverQuoteRef,
      authScopes: { quote: true },
      errors: {
        types: [ValidationError, NoQuoteError],
        directResult: true,
        union: { name: `${l.quote[0].toUpperCase()}${l.quote.slice(1)}Result` },
      },
      description: `Prices ${l.what} with every insurer that rates it, cheapest first. Nothing is stored.`,
      args: { input: t.arg({ type: l.input, required: true, description: `The ${l.what} to price.` }) },
      resolve: (_root, { input }, ctx) => coverQuoteService.quote(ctx, l.code, input),
    }),
  );
  builder.mutationField(l.save, (t) =>
    t.field({
      type: SavedQuoteRef,
      authScopes: { $any: { quote: true, bind: true } },
      errors: {
        types: saveOrBindProblems,
        directResult: true,
        union: { name: `${l.save[0].toUpperCase()}${l.save.slice(1)}Result` },
      },
      description: `Matches or creates the client and stores the ${l.what} quote with every insurer's option (valid 14 days).`,
      args: {
        client: t.arg({
          type: InsuredInputRef,
          required: true,
          description:
            'The client the quote is for: an existing one by clientNo, or the details of one to match or add.',
        }),
        [l.arg]: t.arg({ type: l.input, required: true, description: `The ${l.what} to price and store.` }),
        quotes: t.arg({
          type: [QuotedFiguresInput],
          description:
            "The figures the caller was shown, per insurer; each must be within KES 1 of the server's price (premium_mismatch otherwise).",
        }),
        prospectUuid: t.arg.string({ description: 'The prospect this quote is for: it moves to quoted' }),
      },
      resolve: (_r, args: Record<string, unknown>, ctx) =>
        coverSaveQuoteService.save(ctx, l.code, {
          client: args.client as never,
          risk: args[l.arg],
          quotes: args.quotes as never,
          prospectUuid: args.prospectUuid as string | null | undefined,
        }),
    }),
  );
}
