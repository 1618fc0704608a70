import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef, ProblemRef, syncTypeCheck } from '../../graphql/common.ts';
import { ValidationError } from '../../lib/problem.ts';
import {
  type MotorQuote,
  type MotorRisk,
  motorQuoteService,
  NoQuoteError,
  type QuotedOption,
} from './quote.service.ts';

builder.objectType(NoQuoteError, {
  description: 'no_quote (422): no insurer on the panel rates this risk; detail says why.',
  name: 'NoQuoteProblem',
  interfaces: [ProblemRef],
  ...syncTypeCheck(NoQuoteError),
  fields: () => ({}),
});

export const MotorRiskRef = builder.objectRef<MotorRisk>('MotorRisk').implement({
  description: 'The quote request as understood: the rating class and cover it maps to, and the cover period.',
  fields: (t) => ({
    class: t.exposeString('classLabel'),
    coverage: t.exposeString('coverage'),
    scope: t.exposeString('scopeLabel'),
    vehicleClass: t.exposeString('vehicleClass', { description: 'private, commercial, psv or motorcycle' }),
    coverType: t.exposeString('coverType', { description: 'comprehensive, tpo or tpft' }),
    coverPeriod: t.exposeString('coverPeriod'),
    days: t.exposeInt('days'),
    startDate: t.exposeString('startDate'),
    endDate: t.exposeString('endDate'),
    year: t.exposeInt('year'),
    tonnage: t.exposeFloat('tonnage', { nullable: true }),
    pll: t.exposeInt('pll'),
    value: t.field({ type: MoneyRef, nullable: true, resolve: (r) => money(r.valueMinor) }),
  }),
});

export const TaxLineRef = builder.objectRef<{ code: string; name: string; amountMinor: bigint }>('TaxLine').implement({
  fields: (t) => ({
    code: t.exposeString('code'),
    name: t.exposeString('name'),
    amount: t.field({ type: MoneyRef, resolve: (x) => money(x.amountMinor)! }),
  }),
});

const BenefitRef = builder.objectRef<{ id: string; name: string }>('OptionBenefit').implement({
  fields: (t) => ({ id: t.exposeString('id'), name: t.exposeString('name') }),
});

const LimitRef = builder
  .objectRef<{ benefitId: string; item: string; limitMinor: bigint | null }>('LimitOfLiability')
  .implement({
    fields: (t) => ({
      benefitId: t.exposeString('benefitId'),
      item: t.exposeString('item'),
      limit: t.field({
        type: MoneyRef,
        nullable: true,
        description: 'Null: unlimited or included.',
        resolve: (x) => money(x.limitMinor),
      }),
    }),
  });

export const InstalmentPlanRef = builder
  .objectRef<{ parts: number; amountsMinor: bigint[] }>('InstalmentPlan')
  .implement({
    fields: (t) => ({
      parts: t.exposeInt('parts'),
      amounts: t.field({ type: [MoneyRef], resolve: (x) => x.amountsMinor.map((c) => ({ cents: c })) }),
    }),
  });

export const IpfOfferRef = builder.objectRef<QuotedOption['ipfOffers'][number]>('IpfOffer').implement({
  fields: (t) => ({
    lenderName: t.exposeString('lenderName'),
    tenorMonths: t.exposeInt('tenorMonths'),
    deposit: t.field({ type: MoneyRef, resolve: (x) => money(x.depositMinor)! }),
    instalment: t.field({ type: MoneyRef, resolve: (x) => money(x.instalmentMinor)! }),
    financeCharge: t.field({ type: MoneyRef, resolve: (x) => money(x.chargeMinor)! }),
    aprBps: t.exposeInt('aprBps'),
  }),
});

export const MotorOptionRef = builder.objectRef<QuotedOption>('MotorQuoteOption').implement({
  fields: (t) => ({
    insurerId: t.int({ resolve: (o) => o.insurer.id }),
    insurerName: t.string({ resolve: (o) => o.insurer.name }),
    monogram: t.string({ resolve: (o) => o.insurer.monogram }),
    motorProductId: t.exposeInt('productId'),
    productVersion: t.exposeInt('productVersion', {
      description: 'Rating version priced; a bind on a newer one answers price_changed.',
    }),
    vehicleClass: t.exposeString('vehicleClass'),
    coverType: t.exposeString('coverType'),
    rateBps: t.exposeInt('rateBps', { nullable: true }),
    rate: t.float({
      nullable: true,
      description: 'Percent.',
      resolve: (o) => (o.rateBps == null ? null : o.rateBps / 100),
    }),
    value: t.field({ type: MoneyRef, nullable: true, resolve: (o) => money(o.valueMinor) }),
    basicPremium: t.field({ type: MoneyRef, resolve: (o) => money(o.basicMinor)! }),
    taxes: t.field({ type: [TaxLineRef], resolve: (o) => o.taxes }),
    taxesTotal: t.field({ type: MoneyRef, resolve: (o) => money(o.taxesMinor)! }),
    total: t.field({ type: MoneyRef, resolve: (o) => money(o.totalMinor)! }),
    commissionRateBps: t.int({ resolve: (o) => o.insurer.commissionRateBps }),
    benefits: t.field({ type: [BenefitRef], resolve: (o) => o.benefits }),
    limitsOfLiability: t.field({ type: [LimitRef], resolve: (o) => o.limitsOfLiability }),
    excess: t.exposeString('excess'),
    pll: t.exposeInt('pll'),
    tonnage: t.exposeFloat('tonnage', { nullable: true }),
    instalments: t.field({ type: [InstalmentPlanRef], resolve: (o) => o.instalments }),
    ipfOffers: t.field({ type: [IpfOfferRef], resolve: (o) => o.ipfOffers }),
    ipfReason: t.exposeString('ipfReason', { nullable: true }),
  }),
});

const MotorQuoteRef = builder.objectRef<MotorQuote>('MotorQuote').implement({
  fields: (t) => ({
    message: t.string({
      resolve: (q) =>
        `${q.options.length} insurer${q.options.length === 1 ? '' : 's'} rate${q.options.length === 1 ? 's' : ''} this risk`,
    }),
    quote: t.field({ type: MotorRiskRef, resolve: (q) => q.risk }),
    options: t.field({
      type: [MotorOptionRef],
      description: 'One per insurer that rates the class, cheapest first.',
      resolve: (q) => q.options,
    }),
  }),
});

export const MotorQuoteInputRef = builder.inputType('MotorQuoteInput', {
  fields: (t) => ({
    class: t.string({ required: true, description: 'Motor, Tuktuk or Motorcycle (case-insensitive)' }),
    coverage: t.string({ description: 'Private (default), a commercial class or a PSV class' }),
    scope: t.string({ required: true, description: 'Comprehensive or TPO (or "third party only")' }),
    coverPeriod: t.string({ description: 'annual (default) or tor' }),
    days: t.int({ description: 'Time on risk, 1–364' }),
    year: t.int({ required: true }),
    value: t.float({ description: 'Whole shillings; required for comprehensive' }),
    tonnage: t.float(),
    pll: t.int({ description: 'Passengers covered for passenger legal liability' }),
    insurerIds: t.intList({ description: 'Limit to these insurers' }),
    startDate: t.string({ description: 'Y-m-d; a past date starts today' }),
  }),
});

builder.queryField('motorQuote', (t) =>
  t.field({
    type: MotorQuoteRef,
    authScopes: { quote: true },
    errors: { types: [ValidationError, NoQuoteError], directResult: true, union: { name: 'MotorQuoteResult' } },
    description: 'Prices motor cover with every insurer that rates it. Nothing is stored.',
    args: { input: t.arg({ description: 'The vehicle and cover to price.', type: MotorQuoteInputRef, required: true }) },
    resolve: (_root, { input }, ctx) => motorQuoteService.quote(ctx, input),
  }),
);
