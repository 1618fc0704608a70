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
    name: t.exposeString('name', {
      description: "The person's name or the item's description (may be empty on a quote).",
    }),
    relationship: t.exposeString('relationship', {
      nullable: true,
      description: 'Medical: principal, spouse, child or employee; null for other lines.',
    }),
    dateOfBirth: t.exposeString('dateOfBirth', {
      nullable: true,
      description: 'Y-m-d; null when only an age was given.',
    }),
    age: t.exposeInt('ageYears', {
      nullable: true,
      description: 'Age in whole years at the start of cover (rated on it); null for items.',
    }),
    inSchool: t.exposeBoolean('inSchool', {
      nullable: true,
      description: 'Medical: a child in full-time education; null when not given or not medical.',
    }),
    idNo: t.exposeString('idNo', {
      nullable: true,
      description: 'National ID or passport number; null when not given.',
    }),
    sumInsured: t.field({
      type: MoneyRef,
      nullable: true,
      description: 'Standard items: the sum insured; null for members and travellers.',
      resolve: (i) => money(i.sumInsuredMinor ?? null),
    }),
  }),
});

type QuotedRisk = { line: CoverLineCode; risk: CoverRiskBase };

const CoverRiskRef = builder.objectRef<QuotedRisk>('CoverRisk').implement({
  description: 'The quote request as understood: the product, the cover period and the insured.',
  fields: (t) => ({
    productLine: t.string({ description: 'medical, travel or standard.', resolve: (q) => q.line }),
    product: t.string({
      description: 'Product code: MEDICAL, TRAVEL, or a standard product',
      resolve: (q) => q.risk.productCode,
    }),
    coverPeriod: t.string({ description: 'annual or trip', resolve: (q) => q.risk.coverPeriod }),
    startDate: t.string({ description: 'Y-m-d: first day of cover as priced.', resolve: (q) => q.risk.startDate }),
    endDate: t.string({ description: 'Y-m-d: last day of cover as priced.', resolve: (q) => q.risk.endDate }),
    days: t.int({ description: 'Days of cover, start to end inclusive.', resolve: (q) => q.risk.days }),
    cover: t.field({
      type: 'JSON',
      description:
        'The cover as normalised (medical: cover type, limits, riders; travel: plan, region; standard: extensions)',
      resolve: (q) => lineOf(q.line).coverDetails(q.risk),
    }),
    insured: t.field({
      type: [CoverInsuredRef],
      description: 'The members, travellers or items priced, in the order given (insuredPremiums follow it).',
      resolve: (q) => lineOf(q.line).insured(q.risk),
    }),
  }),
});

const BreakdownRef = builder.objectRef<CoverOption['breakdown'][number]>('PremiumBreakdownLine').implement({
  description: 'One line of what makes up a basic premium (a member, a rider, an extension …).',
  fields: (t) => ({
    item: t.exposeString('item', { description: 'What the line prices, in words.' }),
    amount: t.field({
      type: MoneyRef,
      description: 'Its part of the basic premium.',
      resolve: (b) => money(b.amountMinor)!,
    }),
  }),
});

const CoverBenefitRef = builder.objectRef<CoverOption['benefits'][number]>('CoverBenefit').implement({
  description: 'A benefit the product includes, with its limit where it has one.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The benefit, as the product names it.' }),
    limit: t.field({
      type: MoneyRef,
      nullable: true,
      description: 'Null: unlimited or as stated',
      resolve: (b) => money(b.limitMinor),
    }),
  }),
});

export const CoverOptionRef = builder.objectRef<CoverOption>('CoverQuoteOption').implement({
  description: "One insurer's price for a medical, travel or standard risk.",
  fields: (t) => ({
    insurerId: t.int({
      description: "The insurer (databaseId): send as the bind's insurerId.",
      resolve: (o) => o.insurer.id,
    }),
    insurerName: t.string({ description: "The insurer's short name.", resolve: (o) => o.insurer.name }),
    monogram: t.string({ description: "The insurer's monogram.", resolve: (o) => o.insurer.monogram }),
    productId: t.exposeInt('productId', { description: "The insurer's product that priced the risk (databaseId)." }),
    productCode: t.exposeString('productCode', { description: 'The product code (plan or standard product code).' }),
    productName: t.exposeString('productName', { description: 'The product name.' }),
    productVersion: t.exposeInt('productVersion', {
      description: 'Rating version priced; a bind on a newer one answers price_changed.',
    }),
    rateBps: t.exposeInt('rateBps', {
      nullable: true,
      description:
        'Standard products rated on the sum insured: the rate in basis points (100 = 1%); null otherwise (medical, travel, per head).',
    }),
    rate: t.float({
      nullable: true,
      description: 'Percent.',
      resolve: (o) => (o.rateBps == null ? null : o.rateBps / 100),
    }),
    basicPremium: t.field({
      type: MoneyRef,
      description: 'Premium before levies and duties.',
      resolve: (o) => money(o.basicMinor)!,
    }),
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
    benefits: t.field({ type: [CoverBenefitRef], description: 'Benefits included.', resolve: (o) => o.benefits }),
    excess: t.exposeString('excess', { description: "The product's excess terms, in words." }),
    taxes: t.field({ type: [TaxLineRef], description: 'Levies and duties, one line each.', resolve: (o) => o.taxes }),
    taxesTotal: t.field({
      type: MoneyRef,
      description: 'Sum of the taxes lines.',
      resolve: (o) => money(o.taxesMinor)!,
    }),
    total: t.field({
      type: MoneyRef,
      description: "What the client pays: basicPremium + taxesTotal (the bind's premium, in whole shillings).",
      resolve: (o) => money(o.totalMinor)!,
    }),
    commissionRateBps: t.int({
      description: "The organisation's commission on this insurer's premiums, in basis points.",
      resolve: (o) => o.insurer.commissionRateBps,
    }),
    instalments: t.field({
      type: [InstalmentPlanRef],
      description: 'The instalment plans the insurer allows.',
      resolve: (o) => o.instalments,
    }),
    ipfOffers: t.field({
      type: [IpfOfferRef],
      description: 'Premium-finance offers; empty when none applies (see ipfReason).',
      resolve: (o) => o.ipfOffers,
    }),
    ipfReason: t.exposeString('ipfReason', {
      nullable: true,
      description:
        'Why premium finance is not available for this option (a bind with paymentMode ipf is refused with it); null when it is.',
    }),
  }),
});

const CoverQuoteRef = builder.objectRef<CoverQuote>('CoverQuote').implement({
  description: "A medical, travel or standard risk as priced, and each insurer's option.",
  fields: (t) => ({
    message: t.string({
      description: 'A summary line: how many insurers rate the risk.',
      resolve: (q) =>
        `${q.options.length} insurer${q.options.length === 1 ? '' : 's'} rate${q.options.length === 1 ? 's' : ''} this risk`,
    }),
    quote: t.field({
      type: CoverRiskRef,
      description: 'The risk as normalised and priced (dates, cover, insured).',
      resolve: (q) => ({ line: q.line, risk: q.risk }),
    }),
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
