import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { fromDbDate } from '../../lib/dates.ts';
import {
  InvalidStateError,
  PreviewExpiredError,
  PreviewStaleError,
  ValidationError,
  DomainRuleError,
  PriceChangedError,
} from '../../lib/problem.ts';
import { NoQuoteError } from '../motor/quote.service.ts';
import { PremiumMismatchError } from '../motor/save-quote.service.ts';
import { policyService } from './policy.service.ts';
import { figuresOf, renewalService } from './renewal.service.ts';
import { onePolicy } from '../access/policy.visibility.ts';

type Figures = ReturnType<typeof figuresOf>;

const RenewalVehicleRef = builder.objectRef<Figures['vehicles'][number]>('RenewalVehicle').implement({
  fields: (t) => ({
    regNo: t.exposeString('regNo'),
    value: t.field({
      type: MoneyRef,
      nullable: true,
      description: 'Sum insured for the renewal period',
      resolve: (v) => money(v.valueMinor == null ? null : BigInt(v.valueMinor)),
    }),
    previousAnnualBasic: t.field({
      type: MoneyRef,
      description: 'Annual basic premium (PLL included) of the expiring period',
      resolve: (v) => money(BigInt(v.previousAnnualBasicMinor))!,
    }),
    renewalAnnualBasic: t.field({
      type: MoneyRef,
      description: 'Annual basic premium on current rates',
      resolve: (v) => money(BigInt(v.renewalAnnualBasicMinor))!,
    }),
  }),
});

const optMoney = (v: string | null | undefined) => money(v == null ? null : BigInt(v));

const RenewalInsuredRef = builder.objectRef<NonNullable<Figures['insured']>[number]>('RenewalInsured').implement({
  description: 'Medical and standard policies: an insured person or item renewed, with their premium before and after.',
  fields: (t) => ({
    databaseId: t.exposeInt('riskId', { description: "The insured on the expiring policy (its insured's databaseId)" }),
    kind: t.exposeString('kind'),
    name: t.exposeString('name'),
    age: t.exposeInt('ageYears', { nullable: true, description: 'Medical: age at the start of the renewal period' }),
    sumInsured: t.field({ type: MoneyRef, nullable: true, resolve: (r) => optMoney(r.sumInsuredMinor) }),
    previousAnnualBasic: t.field({
      type: MoneyRef,
      nullable: true,
      description: 'Their own annual basic premium of the expiring period (null: a cover priced as a whole)',
      resolve: (r) => optMoney(r.previousAnnualBasicMinor),
    }),
    renewalAnnualBasic: t.field({
      type: MoneyRef,
      nullable: true,
      description: 'Their annual basic premium on current rates (null: a cover priced as a whole)',
      resolve: (r) => optMoney(r.renewalAnnualBasicMinor),
    }),
  }),
});

const RenewalCoverPremiumRef = builder
  .objectRef<NonNullable<Figures['policyPremium']>>('RenewalCoverPremium')
  .implement({
    description: 'A standard cover priced as a whole: its annual basic premium before and after.',
    fields: (t) => ({
      previousAnnualBasic: t.field({ type: MoneyRef, nullable: true, resolve: (p) => optMoney(p.previousMinor) }),
      renewalAnnualBasic: t.field({ type: MoneyRef, resolve: (p) => money(BigInt(p.renewalMinor))! }),
    }),
  });

const RenewalLevyRef = builder.objectRef<Figures['levies'][number]>('RenewalLevy').implement({
  fields: (t) => ({
    code: t.exposeString('code'),
    name: t.exposeString('name'),
    amount: t.field({ type: MoneyRef, resolve: (l) => money(BigInt(l.amountMinor))! }),
  }),
});

const RenewalInstalmentRef = builder.objectRef<Figures['instalments'][number]>('RenewalInstalmentOption').implement({
  fields: (t) => ({
    parts: t.exposeInt('parts'),
    amounts: t.field({ type: [MoneyRef], resolve: (o) => o.amountsMinor.map((a) => money(BigInt(a))!) }),
  }),
});

const PreviousPeriodRef = builder.objectRef<Figures['previous']>('RenewalPreviousPeriod').implement({
  fields: (t) => ({
    basicPremium: t.field({ type: MoneyRef, resolve: (x) => money(BigInt(x.basicMinor))! }),
    taxes: t.field({ type: MoneyRef, resolve: (x) => money(BigInt(x.taxesMinor))! }),
    total: t.field({ type: MoneyRef, resolve: (x) => money(BigInt(x.totalMinor))! }),
  }),
});

const RenewalQuoteRef = builder.prismaObject('RenewalQuote', {
  ...onePolicy,
  description:
    'The next annual period priced on current rates, beside the expiring period; bound once into a new policy.',
  fields: (t) => ({
    uuid: t.exposeString('uuid'),
    status: t.exposeString('status', { description: 'quoted, bound or expired' }),
    startDate: t.string({ resolve: (q) => fromDbDate(q.startDate) }),
    endDate: t.string({ resolve: (q) => fromDbDate(q.endDate) }),
    productVersion: t.exposeInt('productVersion', {
      description: 'Rating version priced on; a newer one at bind answers price_changed',
    }),
    validUntil: t.string({
      description: 'Y-m-d: last day the quote can be bound',
      resolve: (q) => fromDbDate(q.validUntil),
    }),
    basicPremium: t.field({ type: MoneyRef, resolve: (q) => money(q.basicMinor)! }),
    taxes: t.field({ type: MoneyRef, resolve: (q) => money(q.taxesMinor)! }),
    total: t.field({ type: MoneyRef, resolve: (q) => money(q.totalMinor)! }),
    levies: t.field({
      type: [RenewalLevyRef],
      description: 'Percent levies term by term, flat levies once',
      resolve: (q) => figuresOf(q).levies,
    }),
    vehicles: t.field({ type: [RenewalVehicleRef], resolve: (q) => figuresOf(q).vehicles }),
    insured: t.field({
      type: [RenewalInsuredRef],
      description: 'Medical and standard policies: the insured renewed (empty for motor)',
      resolve: (q) => figuresOf(q).insured ?? [],
    }),
    coverPremium: t.field({
      type: RenewalCoverPremiumRef,
      nullable: true,
      description: 'A standard cover priced as a whole: its premium before and after (null otherwise)',
      resolve: (q) => figuresOf(q).policyPremium ?? null,
    }),
    previous: t.field({
      type: PreviousPeriodRef,
      description: "The expiring period's figures",
      resolve: (q) => figuresOf(q).previous,
    }),
    change: t.field({
      type: MoneyRef,
      description: "Renewal total minus the expiring period's total (may be negative)",
      resolve: (q) => money(q.totalMinor - BigInt(figuresOf(q).previous.totalMinor))!,
    }),
    instalmentOptions: t.field({ type: [RenewalInstalmentRef], resolve: (q) => figuresOf(q).instalments }),
    policy: t.relation('policy'),
    newPolicy: t.relation('newPolicy', { nullable: true, description: 'The renewal policy, once bound' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.prismaObjectFields('Policy', (t) => ({
  renewalQuotes: t.relation('renewalQuotes', {
    description: 'Renewal quotes given for this policy, oldest first.',
    query: { orderBy: { id: 'asc' } },
  }),
}));

const RenewalVehicleInput = builder.inputType('RenewalVehicleInput', {
  fields: (t) => ({
    regNo: t.string({ description: 'A registration on cover under the policy (any spacing)' }),
    value: t.float({ description: 'New sum insured, whole shillings' }),
  }),
});

const RenewPolicyInput = builder.inputType('RenewPolicyInput', {
  fields: (t) => ({
    renewalQuoteUuid: t.string(),
    premium: t.float({ description: "The quote's total, whole shillings; within KES 1" }),
    premiumInstalments: t.int({ description: "1 (default) up to the quote's instalment options" }),
  }),
});

type Renewed = Awaited<ReturnType<typeof renewalService.renew>>;
const RenewedPolicyRef = builder.objectRef<Renewed>('RenewedPolicy').implement({
  fields: (t) => ({
    policy: t.prismaField({
      type: 'Policy',
      description: 'The new policy (pending_payment)',
      resolve: (query, r, _a, ctx) => policyService.byId(ctx, r.policy.id, query),
    }),
  }),
});

builder.mutationFields((t) => ({
  renewalQuote: t.field({
    type: RenewalQuoteRef,
    authScopes: { bind: true },
    errors: {
      types: [ValidationError, InvalidStateError, DomainRuleError, NoQuoteError],
      directResult: true,
      union: { name: 'RenewalQuoteResult' },
    },
    description: 'Prices the next annual period of an active (or recently expired) policy on current rates.',
    args: {
      policyUuid: t.arg.string({ description: 'The policy to price a renewal for (its uuid).', required: true }),
      vehicles: t.arg({ type: [RenewalVehicleInput], description: 'New sums insured for some vehicles' }),
    },
    resolve: async (_r, args, ctx) => {
      const q = await renewalService.quote(ctx, args.policyUuid, { vehicles: args.vehicles });
      return renewalService.quoteById(ctx, q.id);
    },
  }),
  renewPolicy: t.field({
    type: RenewedPolicyRef,
    authScopes: { bind: true },
    errors: {
      types: [
        ValidationError,
        InvalidStateError,
        PreviewExpiredError,
        PreviewStaleError,
        PremiumMismatchError,
        PriceChangedError,
        DomainRuleError,
      ],
      directResult: true,
      union: { name: 'RenewPolicyResult' },
    },
    description: 'Binds a renewal quote into a new policy pending payment, linked to the old one.',
    args: {
      policyUuid: t.arg.string({ description: 'The policy to renew (its uuid).', required: true }),
      input: t.arg({
        description: 'The renewal quote to bind and how it is paid.',
        type: RenewPolicyInput,
        required: true,
      }),
    },
    resolve: (_r, args, ctx) => renewalService.renew(ctx, args.policyUuid, args.input),
  }),
}));

builder.queryFields((t) => ({
  renewalsDue: t.prismaConnection({
    type: 'Policy',
    cursor: 'id',
    authScopes: { read: true },
    description:
      'Active policies the caller may see ending within `withinDays` (default 30, at most 120) with no renewal bound, ending soonest first.',
    args: { withinDays: t.arg.int({ description: 'How many days ahead to look: 30 when absent, at most 120.' }) },
    resolve: (query, _root, args, ctx) => renewalService.due(ctx, args.withinDays, query),
  }),
}));
