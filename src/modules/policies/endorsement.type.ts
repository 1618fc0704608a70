import { now as clockNow } from '../../lib/clock.ts';
import { KEEPS_REACH } from '../../graphql/access.ts';
import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { fromDbDate } from '../../lib/dates.ts';
import { toShillings } from '../../lib/money.ts';
import {
  InvalidStateError,
  PreviewExpiredError,
  PreviewStaleError,
  ValidationError,
  DomainRuleError,
} from '../../lib/problem.ts';
import { endorsementService, type StoredEffect } from './endorsement.service.ts';
import { onePolicy } from '../access/policy.visibility.ts';
import { NoteLevyRef } from './notes.type.ts';

const EffectRef = builder.objectRef<StoredEffect>('EndorsementPremiumEffect').implement({
  description: 'What the change costs for the rest of the period: Σ ±U(B, e) (proration.ts); negative is a credit.',
  fields: (t) => ({
    basicPremium: t.field({
      type: MoneyRef,
      description: 'Basic premium for the remaining days: annual after minus before, pro rata; negative is a credit.',
      resolve: (e) => money(BigInt(e.basic_minor))!,
    }),
    taxes: t.field({
      type: MoneyRef,
      description: 'Percent levies, term by term; flat levies are never pro-rated.',
      resolve: (e) => money(BigInt(e.taxes_minor))!,
    }),
    total: t.field({
      type: MoneyRef,
      description:
        'basicPremium plus taxes: the debit note (positive) or credit note (negative) raised on confirmation; 0 raises none.',
      resolve: (e) => money(BigInt(e.total_minor))!,
    }),
    levies: t.field({
      type: [NoteLevyRef],
      description: "Each percent levy's part of taxes (signed like basicPremium).",
      resolve: (e) => e.levies.map((l) => ({ code: l.code, name: l.name, amountMinor: BigInt(l.amount_minor) })),
    }),
  }),
});

const DaysRef = builder.objectRef<StoredEffect['days']>('EndorsementDays').implement({
  description: 'The day count the premium effect is pro-rated on: remaining days over days in the period.',
  fields: (t) => ({
    inPeriod: t.exposeInt('in_period', { description: 'D: days in the policy period, start to end inclusive.' }),
    remaining: t.exposeInt('remaining', { description: 'R(e): days from the effective date to the end inclusive.' }),
  }),
});

const ItemRef = builder.objectRef<StoredEffect['items'][number]>('EndorsementItem').implement({
  description:
    'A vehicle, insured person or item (or a standard cover as a whole) the change touches, with its annual basic premium (PLL included) before and after.',
  fields: (t) => ({
    regNo: t.exposeString('regno', { nullable: true, description: 'Motor: the vehicle; null for other lines' }),
    insured: t.string({
      nullable: true,
      description:
        'Medical and standard policies: the insured person or item (null: a standard cover priced as a whole)',
      resolve: (i) => i.insured ?? null,
    }),
    annualBasicBefore: t.field({
      type: MoneyRef,
      nullable: true,
      description:
        'Annual basic premium before the change; null when the item is added (or for change_details, no premium).',
      resolve: (i) => money(i.annual_basic_before_minor == null ? null : BigInt(i.annual_basic_before_minor)),
    }),
    annualBasicAfter: t.field({
      type: MoneyRef,
      nullable: true,
      description:
        'Annual basic premium after the change; null when the item is removed (or for change_details, no premium).',
      resolve: (i) => money(i.annual_basic_after_minor == null ? null : BigInt(i.annual_basic_after_minor)),
    }),
  }),
});

/** The caller's limits of liability, kept as given (never read for amounts). */
const AS_GIVEN = new Set(['limits_of_liability', 'previous_limits_of_liability']);

/** Stored changes with each cents amount `x_minor` preceded by its whole shillings `x`, by the one rounding rule. */
function withShillings(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withShillings);
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (k.endsWith('_minor') && (x === null || (typeof x === 'number' && Number.isSafeInteger(x))))
      out[k.slice(0, -6)] = x === null ? null : toShillings(BigInt(x));
    out[k] = AS_GIVEN.has(k) ? x : withShillings(x);
  }
  return out;
}

export const EndorsementRef = builder.prismaObject('Endorsement', {
  select: { id: true, policyId: true },
  ...onePolicy,
  description: 'A mid-term change, two-phase: `pending` (priced), then `confirmed` or `discarded` (or `expired`).',
  fields: (t) => ({
    uuid: t.exposeString('uuid', { description: 'The endorsement id to confirm or discard (REST endorsement uuid).' }),
    number: t.exposeString('number', { description: 'END-<policy_no>-<n>' }),
    operation: t.exposeString('operation', {
      description:
        'add_vehicle, remove_vehicle, change_value (motor), add_member, remove_member (medical), change_sum_insured (standard) or change_details',
    }),
    status: t.string({
      select: { expiresAt: true, status: true },
      description: 'pending, confirmed, discarded or expired (a pending one past its expiry reads expired).',
      resolve: (e) => (e.status === 'pending' && e.expiresAt.getTime() <= clockNow().getTime() ? 'expired' : e.status),
    }),
    effectiveDate: t.string({
      select: { effectiveDate: true },
      description: 'Y-m-d: the first day the change applies.',
      resolve: (e) => fromDbDate(e.effectiveDate),
    }),
    changes: t.field({
      select: { changes: true },
      type: 'JSON',
      description: 'The requested change, normalised (snake_case, money in cents).',
      resolve: (e) => e.changes,
    }),
    changesWithShillings: t.field({
      select: { changes: true },
      type: 'JSON',
      description:
        '`changes` with each cents amount `x_minor` preceded by its whole shillings `x` (rounded half away from zero); limits of liability as given.',
      resolve: (e) => withShillings(e.changes),
    }),
    premiumEffect: t.field({
      select: { effect: true },
      type: EffectRef,
      description: 'What the change costs (or credits) for the rest of the period, as priced.',
      resolve: (e) => e.effect as unknown as StoredEffect,
    }),
    days: t.field({
      select: { effect: true },
      type: DaysRef,
      description: 'The day count the effect is pro-rated on.',
      resolve: (e) => (e.effect as unknown as StoredEffect).days,
    }),
    items: t.field({
      select: { effect: true },
      type: [ItemRef],
      description: 'The vehicles, insured persons or items the change touches, annual basic premium before and after.',
      resolve: (e) => (e.effect as unknown as StoredEffect).items,
    }),
    remark: t.string({
      select: { changes: true },
      nullable: true,
      description: "The caller's note on the request.",
      resolve: (e) => ((e.changes as Record<string, unknown> | null)?.remark as string | undefined) ?? null,
    }),
    basedOnRevision: t.exposeInt('basedOnRevision', { description: 'The policy revision it was priced on.' }),
    debitNote: t.relation('debitNote', {
      ...KEEPS_REACH,
      nullable: true,
      description: 'Raised on confirmation for a positive effect.',
    }),
    creditNote: t.relation('creditNote', {
      ...KEEPS_REACH,
      nullable: true,
      description: 'Raised on confirmation for a negative effect.',
    }),
    policy: t.relation('policy', { ...KEEPS_REACH, description: 'The policy endorsed.' }),
    expiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      description: 'When a pending endorsement stops being confirmable (72 hours after it was priced).',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was priced (endorsePolicy).' }),
    confirmedAt: t.expose('confirmedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was confirmed and applied; null unless confirmed.',
    }),
    discardedAt: t.expose('discardedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was discarded; null unless discarded.',
    }),
  }),
});

// A relation, so Pothos folds it into the policy's query (no query per policy).
builder.prismaObjectFields('Policy', (t) => ({
  endorsements: t.relation('endorsements', {
    ...KEEPS_REACH,
    description:
      'Endorsements of this policy, newest first: the confirmed ones (its changes); `all: true` adds previews (pending, discarded, expired).',
    args: {
      all: t.arg.boolean({
        defaultValue: false,
        description: 'true: also previews (pending, discarded, expired); false: confirmed ones only.',
      }),
    },
    query: (args) => ({
      where: args.all ? {} : { status: 'confirmed' },
      orderBy: { id: 'desc' },
    }),
  }),
}));

const EndorsementVehicleInput = builder.inputType('EndorsementVehicleInput', {
  description: "add_vehicle: the vehicle to add, rated like a quote in the policy's class.",
  fields: (t) => ({
    regNo: t.string({ description: 'Required' }),
    chassisNo: t.string({ description: 'Required: the registry certificate needs it' }),
    engineNo: t.string({ description: 'Engine number; stored upper case.' }),
    make: t.string({ description: 'Required: vehicle make.' }),
    model: t.string({ description: 'Required: vehicle model.' }),
    yom: t.int({ description: 'Required: year of manufacture.' }),
    value: t.float({ description: 'Sum insured, whole shillings (comprehensive cover)' }),
    bodyType: t.string({ description: 'Body type as on the logbook (saloon, pick-up …).' }),
    tonnage: t.float({ description: 'Commercial vehicles: tonnage (rated by tonnage band).' }),
    pll: t.int({ description: 'Passengers (PLL), priced per seat' }),
    coverage: t.string({ description: "Defaults to the first vehicle's coverage; must rate in the policy's class" }),
  }),
});

const EndorsementDetailsInput = builder.inputType('EndorsementDetailsInput', {
  description:
    'change_details: new particulars of the vehicle named by regNo, and/or the limits of liability; at least one; no premium effect. Fields left out stay as they are.',
  fields: (t) => ({
    chassisNo: t.string({ description: "The vehicle's chassis number (replaces the one on cover)." }),
    engineNo: t.string({ description: "The vehicle's engine number." }),
    make: t.string({ description: "The vehicle's make." }),
    model: t.string({ description: "The vehicle's model." }),
    bodyType: t.string({ description: "The vehicle's body type." }),
    limitsOfLiability: t.field({ type: 'JSON', description: "The policy's limits of liability, replaced whole" }),
  }),
});

const EndorsementMemberInput = builder.inputType('EndorsementMemberInput', {
  description: 'add_member: a medical member',
  fields: (t) => ({
    name: t.string({ description: 'Required' }),
    relationship: t.string({
      description: 'principal, spouse or child (family cover); employee, spouse or child (group)',
    }),
    dateOfBirth: t.string({ description: 'Y-m-d; or age' }),
    age: t.int({ description: 'Whole years on the effective date (when no date of birth)' }),
    inSchool: t.boolean({ description: 'A child in school (older children are covered while at school)' }),
    idNo: t.string({ description: "The member's national ID or passport number (optional); at most 50 characters." }),
  }),
});

const EndorsePolicyInput = builder.inputType('EndorsePolicyInput', {
  description: 'A mid-term change: the operation, from when, and the fields that operation reads.',
  fields: (t) => ({
    operation: t.string({
      required: true,
      description:
        'add_vehicle, remove_vehicle, change_value (motor); add_member, remove_member (medical); change_sum_insured (standard); change_details (any)',
    }),
    effectiveDate: t.string({
      description: 'Y-m-d, default today (Nairobi); within the period, not before the latest confirmed endorsement',
    }),
    regNo: t.string({
      description: 'The vehicle on cover (remove_vehicle, change_value, change_details of a vehicle)',
    }),
    vehicle: t.field({ type: EndorsementVehicleInput, description: 'add_vehicle' }),
    value: t.float({ description: 'change_value: the new sum insured, whole shillings' }),
    details: t.field({ type: EndorsementDetailsInput, description: 'change_details' }),
    member: t.field({ type: EndorsementMemberInput, description: 'add_member' }),
    insuredId: t.int({
      description: "remove_member, change_sum_insured: an insured of the policy (Policy.insured's databaseId)",
    }),
    sumInsured: t.float({ description: "change_sum_insured: the item's new sum insured, whole shillings" }),
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
    args: {
      policyUuid: t.arg.string({ description: 'The policy to endorse (its uuid).', required: true }),
      input: t.arg({ description: 'What changes and from when.', type: EndorsePolicyInput, required: true }),
    },
    resolve: (_r, a, ctx) => endorsementService.endorse(ctx, a.policyUuid, a.input),
  }),
  confirmEndorsement: t.field({
    type: EndorsementRef,
    authScopes: { bind: true },
    errors: { types: problems, directResult: true, union: { name: 'ConfirmEndorsementResult' } },
    description: 'Applies a pending endorsement: cover, a debit or credit note, policy totals; emits policy.endorsed.',
    args: {
      uuid: t.arg.string({
        description: 'The endorsement preview to confirm (its uuid from endorsePolicy).',
        required: true,
      }),
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
      uuid: t.arg.string({ description: 'The endorsement preview to discard.', required: true }),
      policyUuid: t.arg.string({ description: 'When given, the endorsement must belong to this policy' }),
    },
    resolve: (_r, a, ctx) => endorsementService.discard(ctx, a.uuid, a.policyUuid),
  }),
}));
