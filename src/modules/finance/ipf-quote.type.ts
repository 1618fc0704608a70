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
  fields: (t) => ({
    months: t.exposeInt('months'),
    chargeBps: t.exposeInt('chargeBps', { description: 'rate_per_tenor: the charge, basis points of the premium' }),
  }),
});

const IpfFeeBandRef = builder.objectRef<FeeBand>('IpfFeeBand').implement({
  fields: (t) => ({
    upToPremium: t.field({
      type: MoneyRef,
      nullable: true,
      description: 'Inclusive upper bound; null: and above',
      resolve: (b) => money(b.upToPremiumMinor),
    }),
    fee: t.field({ type: MoneyRef, resolve: (b) => money(b.feeMinor)! }),
  }),
});

const IpfLenderRef = builder.objectRef<IpfLenderTerms>('IpfLender').implement({
  description: 'A lender on the organisation’s premium-finance panel, with the terms the quote prices by.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    pricing: t.exposeString('pricing', { description: 'rate_per_tenor or flat_fee_by_band' }),
    depositRule: t.exposeString('depositRule', { description: 'one_instalment or percent' }),
    depositBps: t.exposeInt('depositBps', { nullable: true, description: 'percent: the deposit, bps of the total' }),
    minPremium: t.field({ type: MoneyRef, resolve: (l) => money(l.minPremiumMinor)! }),
    maxPremium: t.field({ type: MoneyRef, nullable: true, resolve: (l) => money(l.maxPremiumMinor) }),
    graceDays: t.exposeInt('defaultGraceDays', { description: 'Days past a due date before the loan defaults' }),
    tenors: t.field({ type: [IpfTenorRef], description: '3–10 months, shortest first', resolve: (l) => l.tenors }),
    feeBands: t.field({ type: [IpfFeeBandRef], resolve: (l) => l.feeBands }),
  }),
});

const IpfScheduleLineRef = builder.objectRef<ScheduleLine>('IpfScheduleLine').implement({
  fields: (t) => ({
    instalment: t.exposeInt('seq', { description: '1 is the deposit' }),
    dueOn: t.exposeString('dueOn', { description: 'Y-m-d' }),
    amount: t.field({ type: MoneyRef, resolve: (l) => money(l.amountMinor)! }),
  }),
});

const IpfQuoteOfferRef = builder.objectRef<QuotedIpfOffer>('IpfQuoteOffer').implement({
  fields: (t) => ({
    lenderId: t.exposeInt('lenderId'),
    lenderName: t.exposeString('lenderName'),
    tenorMonths: t.exposeInt('tenorMonths'),
    deposit: t.field({ type: MoneyRef, resolve: (o) => money(o.depositMinor)! }),
    instalment: t.field({
      type: MoneyRef,
      description: 'Each payment after the deposit',
      resolve: (o) => money(o.instalmentMinor)!,
    }),
    charge: t.field({ type: MoneyRef, description: 'The cost of credit', resolve: (o) => money(o.chargeMinor)! }),
    totalRepayable: t.field({ type: MoneyRef, resolve: (o) => money(o.totalRepayableMinor)! }),
    aprBps: t.exposeInt('aprBps', { description: 'The flat rate annualised, basis points' }),
    schedule: t.field({ type: [IpfScheduleLineRef], resolve: (o) => o.schedule }),
  }),
});

const IpfQuoteRef = builder.objectRef<IpfQuote>('IpfQuote').implement({
  fields: (t) => ({
    premium: t.field({ type: MoneyRef, resolve: (q) => money(q.premiumMinor)! }),
    startDate: t.exposeString('startDate', {
      description: 'The deposit’s due date; the schedule runs monthly from it',
    }),
    offers: t.field({ type: [IpfQuoteOfferRef], description: 'By lender, then tenor', resolve: (q) => q.offers }),
    ipfReason: t.exposeString('reason', { nullable: true, description: 'Why nothing is offered' }),
  }),
});

const IpfQuoteInputRef = builder.inputType('IpfQuoteInput', {
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
