import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { ValidationError } from '../../lib/problem.ts';
import type { IpfLenderTerms, ScheduleLine } from '../reference/ipf-terms.ts';
import { offeredLenders } from './lenders.ts';
import { type IpfQuote, ipfQuote, type QuotedIpfOffer } from './quote.ts';

/**
 * The lender panel and the premium-finance quote in GraphQL (docs/premium-finance.md "Premium finance: quote, lenders and loans").
 * Lenders are served from the cached rating data; the quote stores nothing.
 */

type Tenor = IpfLenderTerms['tenors'][number];
type FeeBand = IpfLenderTerms['feeBands'][number];

const IpfTenorRef = builder.objectRef<Tenor>('IpfTenor').implement({
  description: 'A repayment period a lender offers, with its charge (rate_per_tenor lenders).',
  fields: (t) => ({
    months: t.exposeInt('months', { description: 'The tenor in months (3–10).' }),
    chargeBps: t.exposeInt('chargeBps', { description: 'rate_per_tenor: the charge, basis points of the premium' }),
  }),
});

const IpfFeeBandRef = builder.objectRef<FeeBand>('IpfFeeBand').implement({
  description: 'A premium band of a flat_fee_by_band lender and the fee charged within it.',
  fields: (t) => ({
    upToPremium: t.field({
      type: MoneyRef,
      nullable: true,
      description: 'Inclusive upper bound; null: and above',
      resolve: (b) => money(b.upToPremiumMinor),
    }),
    fee: t.field({
      description: 'The flat charge for a premium in this band.',
      type: MoneyRef,
      resolve: (b) => money(b.feeMinor)!,
    }),
  }),
});

const IpfLenderRef = builder.objectRef<IpfLenderTerms>('IpfLender').implement({
  description: 'A lender on the organisation’s premium-finance panel, with the terms the quote prices by.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The lender id (send as lenderId).' }),
    name: t.exposeString('name', { description: 'The lender’s name.' }),
    pricing: t.exposeString('pricing', { description: 'rate_per_tenor or flat_fee_by_band' }),
    depositRule: t.exposeString('depositRule', { description: 'one_instalment or percent' }),
    depositBps: t.exposeInt('depositBps', { nullable: true, description: 'percent: the deposit, bps of the total' }),
    minPremium: t.field({
      description: 'The smallest premium the lender finances.',
      type: MoneyRef,
      resolve: (l) => money(l.minPremiumMinor)!,
    }),
    maxPremium: t.field({
      description: 'The largest premium the lender finances; null: no upper limit.',
      type: MoneyRef,
      nullable: true,
      resolve: (l) => money(l.maxPremiumMinor),
    }),
    graceDays: t.exposeInt('defaultGraceDays', { description: 'Days past a due date before the loan defaults' }),
    tenors: t.field({ type: [IpfTenorRef], description: '3–10 months, shortest first', resolve: (l) => l.tenors }),
    feeBands: t.field({
      description: 'flat_fee_by_band lenders: the fee bands, lowest first; empty for rate_per_tenor.',
      type: [IpfFeeBandRef],
      resolve: (l) => l.feeBands,
    }),
  }),
});

const IpfScheduleLineRef = builder.objectRef<ScheduleLine>('IpfScheduleLine').implement({
  description: 'One payment of a quoted repayment schedule; line 1 is the deposit.',
  fields: (t) => ({
    instalment: t.exposeInt('seq', { description: '1 is the deposit' }),
    dueOn: t.exposeString('dueOn', { description: 'Y-m-d' }),
    amount: t.field({ description: 'The payment.', type: MoneyRef, resolve: (l) => money(l.amountMinor)! }),
  }),
});

const IpfQuoteOfferRef = builder.objectRef<QuotedIpfOffer>('IpfQuoteOffer').implement({
  description: 'What financing the premium with one lender over one tenor costs, and its schedule.',
  fields: (t) => ({
    lenderId: t.exposeInt('lenderId', { description: 'The lender (IpfLender id).' }),
    lenderName: t.exposeString('lenderName', { description: 'The lender’s name.' }),
    tenorMonths: t.exposeInt('tenorMonths', { description: 'The tenor in months.' }),
    deposit: t.field({
      description: 'The first payment, due on the start date (schedule line 1).',
      type: MoneyRef,
      resolve: (o) => money(o.depositMinor)!,
    }),
    instalment: t.field({
      type: MoneyRef,
      description: 'Each payment after the deposit',
      resolve: (o) => money(o.instalmentMinor)!,
    }),
    charge: t.field({ type: MoneyRef, description: 'The cost of credit', resolve: (o) => money(o.chargeMinor)! }),
    totalRepayable: t.field({
      description: 'Premium + charge: what the schedule adds up to.',
      type: MoneyRef,
      resolve: (o) => money(o.totalRepayableMinor)!,
    }),
    aprBps: t.exposeInt('aprBps', { description: 'The flat rate annualised, basis points' }),
    schedule: t.field({
      description: 'The payments, deposit first, monthly from the start date.',
      type: [IpfScheduleLineRef],
      resolve: (o) => o.schedule,
    }),
  }),
});

const IpfQuoteRef = builder.objectRef<IpfQuote>('IpfQuote').implement({
  description: 'Premium-finance offers for a premium, by lender and tenor; nothing is stored.',
  fields: (t) => ({
    premium: t.field({
      description: 'The premium financed (as given, or the policy’s gross premium).',
      type: MoneyRef,
      resolve: (q) => money(q.premiumMinor)!,
    }),
    startDate: t.exposeString('startDate', {
      description: 'The deposit’s due date; the schedule runs monthly from it',
    }),
    offers: t.field({ type: [IpfQuoteOfferRef], description: 'By lender, then tenor', resolve: (q) => q.offers }),
    ipfReason: t.exposeString('reason', { nullable: true, description: 'Why nothing is offered' }),
  }),
});

const IpfQuoteInputRef = builder.inputType('IpfQuoteInput', {
  description: 'The premium to finance (premium or policyUuid) and, optionally, the lender, tenor and start date.',
  fields: (t) => ({
    premium: t.float({ description: 'Whole shillings; or policyUuid' }),
    policyUuid: t.string({ description: 'A policy pending payment: its gross premium' }),
    lenderId: t.int({ description: 'Only this lender' }),
    tenorMonths: t.int({ description: 'Only this tenor, 3–10 months' }),
    startDate: t.string({ description: 'Y-m-d; the schedule’s first due date (default, and at the earliest, today)' }),
  }),
});

builder.queryFields((t) => ({
  ipfLenders: t.field({
    type: [IpfLenderRef],
    authScopes: { read: true, quote: true },
    description: 'The organisation’s premium-finance lenders and their terms.',
    resolve: (_root, _args, ctx) => offeredLenders(ctx),
  }),
  ipfQuote: t.field({
    type: IpfQuoteRef,
    authScopes: { quote: true },
    errors: { types: [ValidationError], directResult: true, union: { name: 'IpfQuoteResult' } },
    description: 'Premium-finance offers for a premium or a policy pending payment, with schedules. Nothing is stored.',
    args: {
      input: t.arg({
        description: 'The premium to finance and the terms asked.',
        type: IpfQuoteInputRef,
        required: true,
      }),
    },
    resolve: (_root, { input }, ctx) => ipfQuote(ctx, input),
  }),
}));
