import { builder } from '../../graphql/builder.ts';
import { KEEPS_REACH } from '../../graphql/access.ts';
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
  description: 'Motor: a vehicle renewed, with its annual basic premium before and after.',
  fields: (t) => ({
    regNo: t.exposeString('regNo', { description: 'Registration number (upper case, no spaces).' }),
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
    kind: t.exposeString('kind', {
      description: 'member (medical), traveller (travel) or item (standard: an item or an insured person).',
    }),
    name: t.exposeString('name', { description: "The person's name or the item's description." }),
    age: t.exposeInt('ageYears', { nullable: true, description: 'Medical: age at the start of the renewal period' }),
    sumInsured: t.field({
      type: MoneyRef,
      nullable: true,
      description: 'Sum insured carried into the renewal; null when the cover has none (e.g. medical members).',
      resolve: (r) => optMoney(r.sumInsuredMinor),
    }),
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
      previousAnnualBasic: t.field({
        type: MoneyRef,
        nullable: true,
        description:
          'Annual basic premium of the expiring period; null when the policy carries no whole-cover premium item.',
        resolve: (p) => optMoney(p.previousMinor),
      }),
      renewalAnnualBasic: t.field({
        type: MoneyRef,
        description: 'Annual basic premium on current rates.',
        resolve: (p) => money(BigInt(p.renewalMinor))!,
      }),
    }),
  });

const RenewalLevyRef = builder.objectRef<Figures['levies'][number]>('RenewalLevy').implement({
  description: 'One levy or duty on the renewal premium.',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'The levy code (Levy.code in Query.levies).' }),
    name: t.exposeString('name', { description: 'The levy as printed on the debit note.' }),
    amount: t.field({
      type: MoneyRef,
      description: 'The levy on the renewal premium (its sum over levies is taxes).',
      resolve: (l) => money(BigInt(l.amountMinor))!,
    }),
  }),
});

const RenewalInstalmentRef = builder.objectRef<Figures['instalments'][number]>('RenewalInstalmentOption').implement({
  description:
    "A way to pay the renewal total in parts, as the insurer allows (send parts as renewPolicy's premiumInstalments).",
  fields: (t) => ({
    parts: t.exposeInt('parts', { description: 'Number of instalments, 1–4.' }),
    amounts: t.field({
      type: [MoneyRef],
      description: 'The instalment amounts in order; they add up to the total.',
      resolve: (o) => o.amountsMinor.map((a) => money(BigInt(a))!),
    }),
  }),
});

const PreviousPeriodRef = builder.objectRef<Figures['previous']>('RenewalPreviousPeriod').implement({
  description: "The expiring period's premium, for comparison with the renewal.",
  fields: (t) => ({
    basicPremium: t.field({
      type: MoneyRef,
      description: 'Basic premium of the expiring period (before levies).',
      resolve: (x) => money(BigInt(x.basicMinor))!,
    }),
    taxes: t.field({
      type: MoneyRef,
      description: 'Levies and duties of the expiring period.',
      resolve: (x) => money(BigInt(x.taxesMinor))!,
    }),
    total: t.field({
      type: MoneyRef,
      description: 'basicPremium plus taxes of the expiring period.',
      resolve: (x) => money(BigInt(x.totalMinor))!,
    }),
  }),
});

const RenewalQuoteRef = builder.prismaObject('RenewalQuote', {
  select: { id: true, policyId: true },
  ...onePolicy,
  description:
    'The next annual period priced on current rates, beside the expiring period; bound once into a new policy.',
  fields: (t) => ({
    uuid: t.exposeString('uuid', { description: "The renewal quote's id (send as renewPolicy's renewalQuoteUuid)." }),
    status: t.exposeString('status', { description: 'quoted, bound or expired' }),
    startDate: t.string({
      select: { startDate: true },
      description: 'Y-m-d: first day of the renewal period (the day after the expiring policy ends).',
      resolve: (q) => fromDbDate(q.startDate),
    }),
    endDate: t.string({
      description: 'Y-m-d: last day of the renewal period.',
      select: { endDate: true },
      resolve: (q) => fromDbDate(q.endDate),
    }),
    productVersion: t.exposeInt('productVersion', {
      description: 'Rating version priced on; a newer one at bind answers price_changed',
    }),
    validUntil: t.string({
      select: { validUntil: true },
      description: 'Y-m-d: last day the quote can be bound',
      resolve: (q) => fromDbDate(q.validUntil),
    }),
    basicPremium: t.field({
      select: { basicMinor: true },
      type: MoneyRef,
      description: 'Annual basic premium of the renewal period on current rates (before levies).',
      resolve: (q) => money(q.basicMinor)!,
    }),
    taxes: t.field({
      type: MoneyRef,
      description: 'Sum of the levies.',
      select: { taxesMinor: true },
      resolve: (q) => money(q.taxesMinor)!,
    }),
    total: t.field({
      select: { totalMinor: true },
      type: MoneyRef,
      description: "basicPremium plus taxes: the premium to bind (renewPolicy's premium, in whole shillings).",
      resolve: (q) => money(q.totalMinor)!,
    }),
    levies: t.field({
      type: [RenewalLevyRef],
      description: 'Percent levies term by term, flat levies once',
      select: { figures: true },
      resolve: (q) => figuresOf(q).levies,
    }),
    vehicles: t.field({
      type: [RenewalVehicleRef],
      description: 'Motor: the vehicles renewed (empty for other lines).',
      select: { figures: true },
      resolve: (q) => figuresOf(q).vehicles,
    }),
    insured: t.field({
      type: [RenewalInsuredRef],
      description: 'Medical and standard policies: the insured renewed (empty for motor)',
      select: { figures: true },
      resolve: (q) => figuresOf(q).insured ?? [],
    }),
    coverPremium: t.field({
      type: RenewalCoverPremiumRef,
      nullable: true,
      description: 'A standard cover priced as a whole: its premium before and after (null otherwise)',
      select: { figures: true },
      resolve: (q) => figuresOf(q).policyPremium ?? null,
    }),
    previous: t.field({
      type: PreviousPeriodRef,
      description: "The expiring period's figures",
      select: { figures: true },
      resolve: (q) => figuresOf(q).previous,
    }),
    change: t.field({
      select: { totalMinor: true, figures: true },
      type: MoneyRef,
      description: "Renewal total minus the expiring period's total (may be negative)",
      resolve: (q) => money(q.totalMinor - BigInt(figuresOf(q).previous.totalMinor))!,
    }),
    instalmentOptions: t.field({
      type: [RenewalInstalmentRef],
      description: "The instalment plans allowed: 1 part up to the insurer's maximum (at most 4).",
      select: { figures: true },
      resolve: (q) => figuresOf(q).instalments,
    }),
    policy: t.relation('policy', { description: 'The expiring policy this quote renews.' }),
    newPolicy: t.relation('newPolicy', { nullable: true, description: 'The renewal policy, once bound' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the renewal was priced.' }),
  }),
});

builder.prismaObjectFields('Policy', (t) => ({
  renewalQuotes: t.relation('renewalQuotes', {
    description: 'Renewal quotes given for this policy, oldest first.',
    query: { orderBy: { id: 'asc' } },
  }),
}));

const RenewalVehicleInput = builder.inputType('RenewalVehicleInput', {
  description: 'A new sum insured for one vehicle of the policy, for the renewal period.',
  fields: (t) => ({
    regNo: t.string({ description: 'A registration on cover under the policy (any spacing)' }),
    value: t.float({ description: 'New sum insured, whole shillings' }),
  }),
});

const RenewPolicyInput = builder.inputType('RenewPolicyInput', {
  description: 'The renewal quote to bind, the premium agreed and how many instalments.',
  fields: (t) => ({
    renewalQuoteUuid: t.string({
      description: 'Required: the renewal quote (RenewalQuote.uuid), still quoted and valid.',
    }),
    premium: t.float({ description: "The quote's total, whole shillings; within KES 1" }),
    premiumInstalments: t.int({ description: "1 (default) up to the quote's instalment options" }),
  }),
});

type Renewed = Awaited<ReturnType<typeof renewalService.renew>>;
const RenewedPolicyRef = builder.objectRef<Renewed>('RenewedPolicy').implement({
  description: 'The outcome of renewPolicy: the new policy, pending payment of its first debit note.',
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
    ...KEEPS_REACH,
    type: 'Policy',
    cursor: 'id',
    authScopes: { read: true },
    description:
      'Active policies the caller may see ending within `withinDays` (default 30, at most 120) with no renewal bound, ending soonest first.',
    args: { withinDays: t.arg.int({ description: 'How many days ahead to look: 30 when absent, at most 120.' }) },
    resolve: (query, _root, args, ctx) => renewalService.due(ctx, args.withinDays, query),
  }),
}));
