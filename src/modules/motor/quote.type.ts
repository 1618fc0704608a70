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
    class: t.exposeString('classLabel', { description: 'The class as sent (Motor, Tuktuk, Motorcycle).' }),
    coverage: t.exposeString('coverage', {
      description: 'The coverage rated: Private, a commercial class or a PSV class.',
    }),
    scope: t.exposeString('scopeLabel', { description: 'The scope as sent (Comprehensive, TPO …).' }),
    vehicleClass: t.exposeString('vehicleClass', { description: 'private, commercial, psv or motorcycle' }),
    coverType: t.exposeString('coverType', { description: 'comprehensive, tpo or tpft' }),
    coverPeriod: t.exposeString('coverPeriod', {
      description: 'annual or tor (time on risk: days of cover shorter than a year).',
    }),
    days: t.exposeInt('days', { description: 'Days of cover.' }),
    startDate: t.exposeString('startDate', { description: 'First day of cover, Y-m-d.' }),
    endDate: t.exposeString('endDate', { description: 'Last day of cover, Y-m-d.' }),
    year: t.exposeInt('year', { description: 'Year of manufacture.' }),
    tonnage: t.exposeFloat('tonnage', {
      description: 'Commercial vehicles: tonnage as sent; null otherwise.',
      nullable: true,
    }),
    pll: t.exposeInt('pll', { description: 'Passengers covered for passenger legal liability (0 when none).' }),
    value: t.field({
      description: 'The vehicle value rated; null for third-party covers sent without one.',
      type: MoneyRef,
      nullable: true,
      resolve: (r) => money(r.valueMinor),
    }),
  }),
});

export const TaxLineRef = builder.objectRef<{ code: string; name: string; amountMinor: bigint }>('TaxLine').implement({
  description: 'One levy or duty line of a premium.',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'Stable code of the levy or duty.' }),
    name: t.exposeString('name', { description: 'Its name as printed on documents.' }),
    amount: t.field({ description: 'The amount of this line.', type: MoneyRef, resolve: (x) => money(x.amountMinor)! }),
  }),
});

const BenefitRef = builder.objectRef<{ id: string; name: string }>('OptionBenefit').implement({
  description: 'A benefit included in a quoted option.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Stable id of the benefit (a hash of its name; see motorBenefits).' }),
    name: t.exposeString('name', { description: "The benefit's name." }),
  }),
});

const LimitRef = builder
  .objectRef<{ benefitId: string; item: string; limitMinor: bigint | null }>('LimitOfLiability')
  .implement({
    description: 'A limit of liability of a quoted option (per item of a benefit).',
    fields: (t) => ({
      benefitId: t.exposeString('benefitId', { description: 'The benefit the limit belongs to (OptionBenefit.id).' }),
      item: t.exposeString('item', { description: 'What is limited, in words.' }),
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
    description: 'One way to split the premium into instalments the insurer allows.',
    fields: (t) => ({
      parts: t.exposeInt('parts', { description: 'How many instalments.' }),
      amounts: t.field({
        description: "Each instalment's amount, in order; they add up to the total.",
        type: [MoneyRef],
        resolve: (x) => x.amountsMinor.map((c) => money(c)!),
      }),
    }),
  });

export const IpfOfferRef = builder.objectRef<QuotedOption['ipfOffers'][number]>('IpfOffer').implement({
  description:
    'A premium-finance offer for a quoted option: a lender pays the premium, the client repays in monthly instalments.',
  fields: (t) => ({
    lenderName: t.exposeString('lenderName', { description: 'The lender.' }),
    tenorMonths: t.exposeInt('tenorMonths', { description: 'How many monthly instalments.' }),
    deposit: t.field({
      description: 'Paid by the client up front.',
      type: MoneyRef,
      resolve: (x) => money(x.depositMinor)!,
    }),
    instalment: t.field({
      description: 'Each monthly instalment.',
      type: MoneyRef,
      resolve: (x) => money(x.instalmentMinor)!,
    }),
    financeCharge: t.field({
      description: "The lender's charge over the tenor.",
      type: MoneyRef,
      resolve: (x) => money(x.chargeMinor)!,
    }),
    aprBps: t.exposeInt('aprBps', { description: 'Annual percentage rate in basis points (2400 = 24%).' }),
  }),
});

export const MotorOptionRef = builder.objectRef<QuotedOption>('MotorQuoteOption').implement({
  description: "One insurer's price for the risk.",
  fields: (t) => ({
    insurerId: t.int({
      description: 'The insurer (databaseId): send it back when saving or binding.',
      resolve: (o) => o.insurer.id,
    }),
    insurerName: t.string({ description: "The insurer's short name.", resolve: (o) => o.insurer.name }),
    monogram: t.string({ description: "The insurer's monogram.", resolve: (o) => o.insurer.monogram }),
    motorProductId: t.exposeInt('productId', { description: "The insurer's motor product that priced the risk." }),
    productVersion: t.exposeInt('productVersion', {
      description: 'Rating version priced; a bind on a newer one answers price_changed.',
    }),
    vehicleClass: t.exposeString('vehicleClass', { description: 'private, commercial, psv or motorcycle.' }),
    coverType: t.exposeString('coverType', { description: 'comprehensive, tpo or tpft.' }),
    rateBps: t.exposeInt('rateBps', {
      description: 'Rate on the vehicle value in basis points (350 = 3.5%); null for a flat premium.',
      nullable: true,
    }),
    rate: t.float({
      nullable: true,
      description: 'Percent.',
      resolve: (o) => (o.rateBps == null ? null : o.rateBps / 100),
    }),
    value: t.field({
      description: 'The vehicle value rated; null when rated without one.',
      type: MoneyRef,
      nullable: true,
      resolve: (o) => money(o.valueMinor),
    }),
    basicPremium: t.field({
      description: 'Premium before levies and duties.',
      type: MoneyRef,
      resolve: (o) => money(o.basicMinor)!,
    }),
    taxes: t.field({ description: 'The levy and duty lines.', type: [TaxLineRef], resolve: (o) => o.taxes }),
    taxesTotal: t.field({
      description: 'Sum of the taxes lines.',
      type: MoneyRef,
      resolve: (o) => money(o.taxesMinor)!,
    }),
    total: t.field({
      description: 'What the client pays: basicPremium + taxesTotal.',
      type: MoneyRef,
      resolve: (o) => money(o.totalMinor)!,
    }),
    commissionRateBps: t.int({
      description: "The organisation's commission on this insurer's premiums, in basis points.",
      resolve: (o) => o.insurer.commissionRateBps,
    }),
    benefits: t.field({ description: 'Benefits included.', type: [BenefitRef], resolve: (o) => o.benefits }),
    limitsOfLiability: t.field({
      description: 'Limits of liability per benefit item.',
      type: [LimitRef],
      resolve: (o) => o.limitsOfLiability,
    }),
    excess: t.exposeString('excess', { description: "The product's excess terms, in words." }),
    pll: t.exposeInt('pll', { description: 'Passengers covered for passenger legal liability.' }),
    tonnage: t.exposeFloat('tonnage', {
      description: 'Commercial vehicles: tonnage rated; null otherwise.',
      nullable: true,
    }),
    instalments: t.field({
      description: 'The instalment plans the insurer allows.',
      type: [InstalmentPlanRef],
      resolve: (o) => o.instalments,
    }),
    ipfOffers: t.field({
      description: 'Premium-finance offers; empty when none applies (see ipfReason).',
      type: [IpfOfferRef],
      resolve: (o) => o.ipfOffers,
    }),
    ipfReason: t.exposeString('ipfReason', {
      description:
        'Why premium finance is not available for this option (a bind with paymentMode ipf is refused with it); null when it is.',
      nullable: true,
    }),
  }),
});

const MotorQuoteRef = builder.objectRef<MotorQuote>('MotorQuote').implement({
  description: 'The answer of motorQuote: the risk as understood and one option per insurer.',
  fields: (t) => ({
    message: t.string({
      description: 'A summary for people (3 insurers rate this risk).',
      resolve: (q) =>
        `${q.options.length} insurer${q.options.length === 1 ? '' : 's'} rate${q.options.length === 1 ? 's' : ''} this risk`,
    }),
    quote: t.field({ description: 'The risk as understood.', type: MotorRiskRef, resolve: (q) => q.risk }),
    options: t.field({
      type: [MotorOptionRef],
      description: 'One per insurer that rates the class, cheapest first.',
      resolve: (q) => q.options,
    }),
  }),
});

export const MotorQuoteInputRef = builder.inputType('MotorQuoteInput', {
  description: 'What to price: the vehicle, the cover and the period.',
  fields: (t) => ({
    class: t.string({ required: true, description: 'Motor, Tuktuk or Motorcycle (case-insensitive)' }),
    coverage: t.string({ description: 'Private (default), a commercial class or a PSV class' }),
    scope: t.string({ required: true, description: 'Comprehensive or TPO (or "third party only")' }),
    coverPeriod: t.string({ description: 'annual (default) or tor' }),
    days: t.int({ description: 'Time on risk, 1–364' }),
    year: t.int({ description: 'Year of manufacture.', required: true }),
    value: t.float({ description: 'Whole shillings; required for comprehensive' }),
    tonnage: t.float({ description: 'Commercial vehicles: tonnage.' }),
    pll: t.int({ description: 'Passengers covered for passenger legal liability' }),
    insurerIds: t.intList({
      description: 'Limit to these insurers; null or an empty list: every insurer on the panel',
    }),
    startDate: t.string({ description: 'Y-m-d; a past date starts today' }),
  }),
});

builder.queryField('motorQuote', (t) =>
  t.field({
    type: MotorQuoteRef,
    authScopes: { quote: true },
    errors: { types: [ValidationError, NoQuoteError], directResult: true, union: { name: 'MotorQuoteResult' } },
    description: 'Prices motor cover with every insurer that rates it. Nothing is stored.',
    args: {
      input: t.arg({ description: 'The vehicle and cover to price.', type: MotorQuoteInputRef, required: true }),
    },
    resolve: (_root, { input }, ctx) => motorQuoteService.quote(ctx, input),
  }),
);
