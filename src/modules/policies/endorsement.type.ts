import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef, ProblemRef } from '../../graphql/common.ts';
import { fromDbDate } from '../../lib/dates.ts';
import { InvalidStateError, PreviewExpiredError, PreviewStaleError, ValidationError } from '../../lib/problem.ts';
import { DomainRuleError } from '../motor/bind.service.ts';
import { endorsementService, type StoredEffect } from './endorsement.service.ts';
import { onePolicy } from './policy.policy.ts';

interface LevyLine {
  code: string;
  name: string;
  amountMinor: bigint;
}

const NoteLevyRef = builder.objectRef<LevyLine>('NoteLevyLine').implement({
  description: "One percent levy's share of a mid-term change (signed on an endorsement effect).",
  fields: (t) => ({
    code: t.exposeString('code'),
    name: t.exposeString('name'),
    amount: t.field({ type: MoneyRef, resolve: (l) => money(l.amountMinor)! }),
  }),
});

const EffectRef = builder.objectRef<StoredEffect>('EndorsementPremiumEffect').implement({
  description: 'What the change costs for the rest of the period: Σ ±U(B, e) (proration.ts); negative is a credit.',
  fields: (t) => ({
    basicPremium: t.field({ type: MoneyRef, resolve: (e) => money(BigInt(e.basic_minor))! }),
    taxes: t.field({
      type: MoneyRef,
      description: 'Percent levies, term by term; flat levies are never pro-rated.',
      resolve: (e) => money(BigInt(e.taxes_minor))!,
    }),
    total: t.field({ type: MoneyRef, resolve: (e) => money(BigInt(e.total_minor))! }),
    levies: t.field({
      type: [NoteLevyRef],
      resolve: (e) => e.levies.map((l) => ({ code: l.code, name: l.name, amountMinor: BigInt(l.amount_minor) })),
    }),
  }),
});

const DaysRef = builder.objectRef<StoredEffect['days']>('EndorsementDays').implement({
  fields: (t) => ({
    inPeriod: t.exposeInt('in_period', { description: 'D: days in the policy period, start to end inclusive.' }),
    remaining: t.exposeInt('remaining', { description: 'R(e): days from the effective date to the end inclusive.' }),
  }),
});

const ItemRef = builder.objectRef<StoredEffect['items'][number]>('EndorsementItem').implement({
  description: 'A vehicle the change touches, with its annual basic premium (PLL included) before and after.',
  fields: (t) => ({
    regNo: t.exposeString('regno'),
    annualBasicBefore: t.field({
      type: MoneyRef,
      nullable: true,
      resolve: (i) => money(i.annual_basic_before_minor == null ? null : BigInt(i.annual_basic_before_minor)),
    }),
    annualBasicAfter: t.field({
      type: MoneyRef,
      nullable: true,
      resolve: (i) => money(i.annual_basic_after_minor == null ? null : BigInt(i.annual_basic_after_minor)),
    }),
  }),
});

export const EndorsementRef = builder.prismaObject('Endorsement', {
  ...onePolicy,
  description: 'A mid-term change, two-phase: `pending` (priced), then `confirmed` or `discarded` (or `expired`).',
  fields: (t) => ({
    uuid: t.exposeString('uuid'),
    number: t.exposeString('number', { description: 'END-<policy_no>-<n>' }),
    operation: t.exposeString('operation', {
      description: 'add_vehicle, remove_vehicle, change_value or change_details',
    }),
    status: t.string({
      description: 'pending, confirmed, discarded or expired (a pending one past its expiry reads expired).',
      resolve: (e) => (e.status === 'pending' && e.expiresAt.getTime() <= Date.now() ? 'expired' : e.status),
    }),
    effectiveDate: t.string({
      description: 'Y-m-d: the first day the change applies.',
      resolve: (e) => fromDbDate(e.effectiveDate),
    }),
    changes: t.field({
      type: 'JSON',
      description: 'The requested change, normalised (snake_case, money in cents).',
      resolve: (e) => e.changes,
    }),
    premiumEffect: t.field({ type: EffectRef, resolve: (e) => e.effect as unknown as StoredEffect }),
    days: t.field({ type: DaysRef, resolve: (e) => (e.effect as unknown as StoredEffect).days }),
    items: t.field({ type: [ItemRef], resolve: (e) => (e.effect as unknown as StoredEffect).items }),
    remark: t.string({
      nullable: true,
      description: "The caller's note on the request.",
      resolve: (e) => ((e.changes as Record<string, unknown> | null)?.remark as string | undefined) ?? null,
    }),
    basedOnRevision: t.exposeInt('basedOnRevision', { description: 'The policy revision it was priced on.' }),
    debitNote: t.relation('debitNote', {
      nullable: true,
      description: 'Raised on confirmation for a positive effect.',
    }),
    creditNote: t.relation('creditNote', {
      nullable: true,
      description: 'Raised on confirmation for a negative effect.',
    }),
    policy: t.relation('policy'),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    confirmedAt: t.expose('confirmedAt', { type: 'DateTime', nullable: true }),
    discardedAt: t.expose('discardedAt', { type: 'DateTime', nullable: true }),
  }),
});

interface Application {
  debit_note_id: number;
  number: string;
  amount_minor: string;
}

const CreditApplicationRef = builder.objectRef<Application>('CreditNoteApplication').implement({
  description: 'Part of a credit note applied to one open debit note.',
  fields: (t) => ({
    debitNoteNo: t.exposeString('number'),
    amount: t.field({ type: MoneyRef, resolve: (a) => money(BigInt(a.amount_minor))! }),
  }),
});

builder.prismaObject('CreditNote', {
  ...onePolicy,
  description:
    "Money owed back on a policy (endorsement or cancellation): applied first to open debit notes, the rest refunded to the client's credit.",
  fields: (t) => ({
    number: t.exposeString('number', { description: 'CN-<policy_no>-<n>' }),
    kind: t.exposeString('kind', { description: 'endorsement or cancellation' }),
    amount: t.field({ type: MoneyRef, resolve: (c) => money(c.amountMinor)! }),
    basicPremium: t.field({ type: MoneyRef, resolve: (c) => money(c.basicMinor)! }),
    taxes: t.field({ type: MoneyRef, resolve: (c) => money(c.taxesMinor)! }),
    levies: t.field({
      type: [NoteLevyRef],
      resolve: (c) =>
        ((c.breakdown as { levies?: { code: string; name: string; amount_minor: string }[] } | null)?.levies ?? []).map(
          (l) => ({
            code: l.code,
            name: l.name,
            amountMinor: BigInt(l.amount_minor),
          }),
        ),
    }),
    applied: t.field({
      type: MoneyRef,
      description: "Applied to the policy's open debit notes.",
      resolve: (c) => money(c.appliedMinor)!,
    }),
    applications: t.field({
      type: [CreditApplicationRef],
      resolve: (c) => (c.applications as unknown as Application[]) ?? [],
    }),
    refunded: t.field({
      type: MoneyRef,
      description: "Credited to the client's balance.",
      resolve: (c) => money(c.refundedMinor)!,
    }),
    breakdown: t.field({ type: 'JSON', resolve: (c) => c.breakdown }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.prismaObjectFields('DebitNote', (t) => ({
  kind: t.exposeString('kind', { description: 'instalment (bind or renewal), endorsement or reinstatement' }),
  credited: t.field({
    type: MoneyRef,
    description: 'Settled by credit notes rather than payment.',
    resolve: (d) => money(d.creditedMinor)!,
  }),
  breakdown: t.field({
    type: 'JSON',
    nullable: true,
    description: 'Itemised basic and levies of an endorsement or reinstatement note.',
    resolve: (d) => d.breakdown ?? null,
  }),
}));

// Relations, so Pothos folds them into the policy's query (no query per policy).
builder.prismaObjectFields('Policy', (t) => ({
  endorsements: t.relation('endorsements', {
    description:
      'Endorsements of this policy, newest first: the confirmed ones (its changes); `all: true` adds previews (pending, discarded, expired).',
    args: { all: t.arg.boolean({ defaultValue: false }) },
    query: (args) => ({
      where: args.all ? {} : { status: 'confirmed' },
      orderBy: { id: 'desc' },
    }),
  }),
  creditNotes: t.relation('creditNotes', {
    description: 'Credit notes (endorsements and cancellations), oldest first.',
    query: { orderBy: { id: 'asc' } },
  }),
}));

const EndorsementVehicleInput = builder.inputType('EndorsementVehicleInput', {
  fields: (t) => ({
    regNo: t.string({ description: 'Required' }),
    chassisNo: t.string({ description: 'Required: the registry certificate needs it' }),
    engineNo: t.string(),
    make: t.string(),
    model: t.string(),
    yom: t.int(),
    value: t.float({ description: 'Sum insured, whole shillings (comprehensive cover)' }),
    bodyType: t.string(),
    tonnage: t.float(),
    pll: t.int({ description: 'Passengers (PLL), priced per seat' }),
    coverage: t.string({ description: "Defaults to the first vehicle's coverage; must rate in the policy's class" }),
  }),
});

const EndorsementDetailsInput = builder.inputType('EndorsementDetailsInput', {
  fields: (t) => ({
    chassisNo: t.string(),
    engineNo: t.string(),
    make: t.string(),
    model: t.string(),
    bodyType: t.string(),
    limitsOfLiability: t.field({ type: 'JSON', description: "The policy's limits of liability, replaced whole" }),
  }),
});

const EndorsePolicyInput = builder.inputType('EndorsePolicyInput', {
  fields: (t) => ({
    operation: t.string({ required: true, description: 'add_vehicle, remove_vehicle, change_value or change_details' }),
    effectiveDate: t.string({
      description: 'Y-m-d, default today (Nairobi); within the period, not before the latest confirmed endorsement',
    }),
    regNo: t.string({
      description: 'The vehicle on cover (remove_vehicle, change_value, change_details of a vehicle)',
    }),
    vehicle: t.field({ type: EndorsementVehicleInput, description: 'add_vehicle' }),
    value: t.float({ description: 'change_value: the new sum insured, whole shillings' }),
    details: t.field({ type: EndorsementDetailsInput, description: 'change_details' }),
    note: t.string({ description: 'Free text kept with the endorsement (remark)' }),
  }),
});

const problems = [ValidationError, DomainRuleError, InvalidStateError, PreviewStaleError, PreviewExpiredError];

builder.mutationFields((t) => ({
  endorsePolicy: t.field({
    type: EndorsementRef,
    authScopes: { bind: true },
    errors: { types: problems, directResult: true, union: { name: 'EndorsePolicyResult' } },
    description:
      'Prices a mid-term change of an active policy and stores it pending (valid 72 hours); nothing changes until confirmEndorsement.',
    args: { policyUuid: t.arg.string({ required: true }), input: t.arg({ type: EndorsePolicyInput, required: true }) },
    resolve: (_r, a, ctx) => endorsementService.endorse(ctx, a.policyUuid, a.input),
  }),
  confirmEndorsement: t.field({
    type: EndorsementRef,
    authScopes: { bind: true },
    errors: { types: problems, directResult: true, union: { name: 'ConfirmEndorsementResult' } },
    description: 'Applies a pending endorsement: cover, a debit or credit note, policy totals; emits policy.endorsed.',
    args: {
      uuid: t.arg.string({ required: true }),
      policyUuid: t.arg.string({ description: 'When given, the endorsement must belong to this policy' }),
    },
    resolve: (_r, a, ctx) => endorsementService.confirm(ctx, a.uuid, a.policyUuid),
  }),
  discardEndorsement: t.field({
    type: EndorsementRef,
    authScopes: { bind: true },
    errors: { types: problems, directResult: true, union: { name: 'DiscardEndorsementResult' } },
    description: 'Drops a pending endorsement.',
    args: {
      uuid: t.arg.string({ required: true }),
      policyUuid: t.arg.string({ description: 'When given, the endorsement must belong to this policy' }),
    },
    resolve: (_r, a, ctx) => endorsementService.discard(ctx, a.uuid, a.policyUuid),
  }),
}));
