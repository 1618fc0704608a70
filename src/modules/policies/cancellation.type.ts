import type { Context } from '../../context.ts';
import { KEEPS_REACH } from '../../graphql/access.ts';
import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { fromDbDate } from '../../lib/dates.ts';
import { InvalidStateError, PreviewExpiredError, PreviewStaleError, ValidationError } from '../../lib/problem.ts';
import { DoubleInsuranceError } from '../certificates/certificate.service.ts';
import {
  CANCELLATION_REASONS,
  cancellationService,
  displayStatus,
  type CancellationReason,
  type RefundJson,
} from './cancellation.service.ts';
import { onePolicy } from '../access/policy.visibility.ts';

type Line = { code: string; name: string; amount_minor: string };
const LevyShareRef = builder.objectRef<Line>('CancellationLevyShare').implement({
  description: "One percent levy's share of the refund (term by term).",
  fields: (t) => ({
    code: t.exposeString('code', { description: 'The levy code (Levy.code in Query.levies).' }),
    name: t.exposeString('name', { description: 'The levy as printed on the credit note.' }),
    amount: t.field({
      type: MoneyRef,
      description: "This levy's share of the refund: its rate applied to the unearned basic premium.",
      resolve: (l) => money(BigInt(l.amount_minor))!,
    }),
  }),
});
const NonRefundableRef = builder
  .objectRef<RefundJson['non_refundable'][number]>('CancellationNonRefundable')
  .implement({
    description: 'A charge kept by the insurer (flat duties such as stamp duty).',
    fields: (t) => ({
      code: t.exposeString('code', { description: 'The code of the flat levy kept (Levy.code).' }),
      name: t.exposeString('name', { description: 'The charge as printed.' }),
      amount: t.field({
        type: MoneyRef,
        description: 'The amount kept (as charged on the policy), not part of the credit.',
        resolve: (l) => money(BigInt(l.amount_minor))!,
      }),
      reason: t.exposeString('reason', {
        description: 'Why it is kept, in words (a flat duty is not pro-rated or refunded).',
      }),
    }),
  });
const AppliedRef = builder
  .objectRef<RefundJson['applied_to_debit_notes'][number]>('CancellationApplication')
  .implement({
    description: 'Part of the credit written off an open debit note (instalment).',
    fields: (t) => ({
      debitNoteNo: t.string({
        description: 'The debit note (instalment) number written off.',
        resolve: (a) => a.number,
      }),
      amount: t.field({
        type: MoneyRef,
        description: 'How much of the credit went to this debit note (at most what was unpaid on it).',
        resolve: (a) => money(BigInt(a.amount_minor))!,
      }),
    }),
  });
const DaysRef = builder.objectRef<RefundJson['days']>('CancellationDays').implement({
  description: 'The day count behind the pro-rata refund: unearned days over days in the period.',
  fields: (t) => ({
    inPeriod: t.int({ resolve: (d) => d.in_period, description: 'Days in the policy period (start to end inclusive)' }),
    covered: t.exposeInt('covered', { description: 'Days on cover before the effective date' }),
    unearned: t.exposeInt('unearned', { description: 'Days from the effective date to the end inclusive' }),
  }),
});
const ItemRef = builder.objectRef<RefundJson['items'][number]>('CancellationItem').implement({
  description:
    "A premium item (one vehicle's, insured person's, traveller's or item's annual basic premium; or a standard cover's) ended by the cancellation.",
  fields: (t) => ({
    regNo: t.string({
      nullable: true,
      description: "Motor: the vehicle's registration number; null for other lines (see insured).",
      resolve: (i) => i.regno,
    }),
    insured: t.string({
      nullable: true,
      description: 'Non-motor lines: the insured person, traveller or item',
      resolve: (i) => i.insured ?? null,
    }),
    annualBasicPremium: t.field({
      type: MoneyRef,
      description: "The item's annual basic premium (before levies) on the policy.",
      resolve: (i) => money(BigInt(i.annual_basic_minor))!,
    }),
    from: t.exposeString('from', { description: 'Y-m-d: first day on cover' }),
    to: t.exposeString('to', { description: 'Y-m-d: last day on cover before the cancellation' }),
    unearnedBasicPremium: t.field({
      type: MoneyRef,
      description: "The part of the item's basic premium refunded: pro rata to the unearned days.",
      resolve: (i) => money(BigInt(i.unearned_minor))!,
    }),
  }),
});
const m = (s: string) => money(BigInt(s))!;
const RefundRef = builder.objectRef<RefundJson>('CancellationRefund').implement({
  description:
    "The itemised refund: unearned basic premium pro rata to the day, each percent levy's share, what is kept, and where the credit goes.",
  fields: (t) => ({
    days: t.field({ type: DaysRef, description: 'The day count the refund is pro-rated on.', resolve: (r) => r.days }),
    basicPremium: t.field({ type: MoneyRef, description: 'Unearned basic premium', resolve: (r) => m(r.basic_minor) }),
    levies: t.field({
      type: [LevyShareRef],
      description: "Each percent levy's share of the refund (their sum is taxes).",
      resolve: (r) => r.levies,
    }),
    taxes: t.field({ type: MoneyRef, description: 'Sum of the levy shares', resolve: (r) => m(r.taxes_minor) }),
    nonRefundable: t.field({
      type: [NonRefundableRef],
      description: 'Charges kept (flat duties), listed for the record; not part of the credit.',
      resolve: (r) => r.non_refundable,
    }),
    creditTotal: t.field({
      type: MoneyRef,
      description: 'The credit note: basic premium plus levy shares',
      resolve: (r) => m(r.credit_total_minor),
    }),
    appliedToDebitNotes: t.field({
      type: [AppliedRef],
      description: 'Open debit notes written off, oldest due first',
      resolve: (r) => r.applied_to_debit_notes,
    }),
    appliedTotal: t.field({
      type: MoneyRef,
      description: 'Sum of appliedToDebitNotes: the part of the credit that wrote off open debit notes.',
      resolve: (r) => m(r.applied_total_minor),
    }),
    refundToClient: t.field({
      type: MoneyRef,
      description: "The rest of the credit, added to the client's credit balance (0 when refundPayee is lender)",
      resolve: (r) => m(r.refund_to_client_minor),
    }),
    refundPayee: t.string({
      description:
        'Who the rest of the credit goes to: client (credit balance) or lender (the premium-finance lender that paid the premium: policy refunds_to)',
      resolve: (r) => r.refund_payee ?? 'client',
    }),
    refundToLender: t.field({
      type: MoneyRef,
      description: 'The rest of the credit, owed to the premium-finance lender (0 when refundPayee is client)',
      resolve: (r) => m(r.refund_to_lender_minor ?? '0'),
    }),
    outstandingAfter: t.field({
      type: MoneyRef,
      description: 'What the client still owes on this policy after the credit',
      resolve: (r) => m(r.outstanding_after_minor),
    }),
    items: t.field({
      type: [ItemRef],
      description: 'The premium items ended and the unearned basic premium of each.',
      resolve: (r) => r.items,
    }),
  }),
});

builder.prismaObject('Cancellation', {
  select: { id: true, policyId: true },
  ...onePolicy,
  description:
    'A cancellation of a policy: quoted (a preview), confirmed, discarded, expired (a quoted preview past expiresAt) or reinstated.',
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The numeric id (REST id).' }),
    uuid: t.exposeString('uuid', {
      description: 'The cancellation id to confirm or discard (REST cancellation uuid).',
    }),
    status: t.string({
      description: 'quoted, confirmed, discarded, expired or reinstated',
      select: { status: true, expiresAt: true },
      resolve: (c) => displayStatus(c),
    }),
    reason: t.exposeString('reason', {
      description: `Why the policy is cancelled: one of ${Object.keys(CANCELLATION_REASONS).join(', ')}.`,
    }),
    registryReasonId: t.int({
      nullable: true,
      description:
        'Registry certificate cancellation reason id (motor); null for other lines (no registry certificates)',
      select: { reason: true, policy: { select: { motorProductId: true } } },
      resolve: (c) =>
        c.policy.motorProductId == null
          ? null
          : (CANCELLATION_REASONS[c.reason as CancellationReason]?.registryReasonId ?? 8),
    }),
    requestedBy: t.exposeString('requestedBy', {
      description: 'Who asked for the cancellation: insured, intermediary, insurer or lender.',
    }),
    note: t.exposeString('note', { nullable: true, description: 'Free text given with the request; null when none.' }),
    effectiveDate: t.string({
      select: { effectiveDate: true },
      description: 'Y-m-d: the first day without cover',
      resolve: (c) => fromDbDate(c.effectiveDate),
    }),
    basedOnRevision: t.exposeInt('basedOnRevision', {
      description:
        'The policy revision the refund was priced on; a policy changed since (another endorsement or cancellation) makes confirmation refuse with preview_stale.',
    }),
    refund: t.field({
      select: { refund: true },
      type: RefundRef,
      description: 'The itemised refund as priced (fixed once confirmed).',
      resolve: (c) => c.refund as unknown as RefundJson,
    }),
    creditNote: t.relation('creditNote', {
      ...KEEPS_REACH,
      nullable: true,
      description: 'The credit note raised on confirmation (none when nothing was unearned).',
    }),
    reinstatementDebitNote: t.relation('reinstatementNote', {
      ...KEEPS_REACH,
      nullable: true,
      description: 'The debit note raised by the reinstatement that reversed this cancellation.',
    }),
    expiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      description: 'When a quoted preview stops being confirmable (72 hours after it was priced).',
    }),
    confirmedAt: t.expose('confirmedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was confirmed; null while quoted, or when discarded or expired.',
    }),
    reinstatedAt: t.expose('reinstatedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the policy was reinstated (reversing this cancellation); null otherwise.',
    }),
    createdAt: t.expose('createdAt', {
      type: 'DateTime',
      description: 'When the cancellation was priced (previewed).',
    }),
    policy: t.relation('policy', { ...KEEPS_REACH, description: 'The policy cancelled.' }),
  }),
});

builder.prismaObjectFields('Policy', (t) => ({
  cancellations: t.relation('cancellations', {
    ...KEEPS_REACH,
    description:
      'Cancellations of this policy, newest first: confirmed and reinstated ones; `all: true` adds previews (quoted, discarded, expired).',
    args: {
      all: t.arg.boolean({
        defaultValue: false,
        description: 'true: also previews (quoted, discarded, expired); false: confirmed and reinstated only.',
      }),
    },
    query: (args) => ({
      where: args.all ? {} : { status: { in: ['confirmed', 'reinstated'] } },
      orderBy: { id: 'desc' },
    }),
  }),
}));

builder.queryFields((t) => ({
  cancellations: t.prismaField({
    ...KEEPS_REACH,
    type: ['Cancellation'],
    authScopes: { read: true },
    description:
      "A policy's cancellations (previews included), newest first; not_found when the policy is missing or not visible.",
    args: { policyUuid: t.arg.string({ description: 'The policy (its uuid).', required: true }) },
    resolve: (query, _r, args, ctx) => cancellationService.list(ctx, args.policyUuid, query),
  }),
}));

const CancellationInput = builder.inputType('CancellationInput', {
  description: 'When a cancellation takes effect, why, and who asked for it.',
  fields: (t) => ({
    reason: t.string({ required: true, description: `One of ${Object.keys(CANCELLATION_REASONS).join(', ')}` }),
    requestedBy: t.string({ required: true, description: 'insured, intermediary, insurer or lender' }),
    effectiveDate: t.string({
      description: 'Y-m-d: the first day without cover; default today (Nairobi). A date before the start is the start.',
    }),
    note: t.string({ description: 'Free text kept with the cancellation (e.g. the letter or call it follows).' }),
  }),
});

const problems = [ValidationError, InvalidStateError, PreviewStaleError, PreviewExpiredError, DoubleInsuranceError];

/** The row again with the selections the operation asked for (relations such as the credit note), in one query. */
const reload = (ctx: Context, query: object, row: { id: number }) => cancellationService.byId(ctx, row.id, query);

builder.mutationFields((t) => ({
  previewCancellation: t.prismaField({
    type: 'Cancellation',
    authScopes: { bind: true },
    errors: { types: problems, directResult: true, union: { name: 'PreviewCancellationResult' } },
    description:
      'Prices a cancellation of an active policy: a quoted cancellation with the itemised refund, valid 72 hours.',
    args: {
      policyUuid: t.arg.string({ description: 'The policy to cancel (its uuid).', required: true }),
      input: t.arg({
        description: 'When the cancellation takes effect and why.',
        type: CancellationInput,
        required: true,
      }),
    },
    resolve: async (query, _r, args, ctx) =>
      reload(ctx, query, await cancellationService.preview(ctx, args.policyUuid, args.input)),
  }),
  confirmCancellation: t.prismaField({
    type: 'Cancellation',
    authScopes: { bind: true },
    errors: { types: problems, directResult: true, union: { name: 'ConfirmCancellationResult' } },
    description:
      'Confirms a quoted cancellation: credit note, refund to client credit, policy cancelled, certificates cancelled at the registry.',
    args: {
      uuid: t.arg.string({
        description: 'The cancellation preview to confirm (its uuid from previewCancellation).',
        required: true,
      }),
      policyUuid: t.arg.string({ description: 'When given, the cancellation must belong to this policy' }),
    },
    resolve: async (query, _r, args, ctx) =>
      reload(ctx, query, await cancellationService.confirm(ctx, args.uuid, args.policyUuid)),
  }),
  discardCancellation: t.prismaField({
    type: 'Cancellation',
    authScopes: { bind: true },
    errors: { types: problems, directResult: true, union: { name: 'DiscardCancellationResult' } },
    description: 'Drops a quoted cancellation.',
    args: {
      uuid: t.arg.string({ description: 'The cancellation preview to discard.', required: true }),
      policyUuid: t.arg.string({ description: 'When given, the cancellation must belong to this policy' }),
    },
    resolve: async (query, _r, args, ctx) =>
      reload(ctx, query, await cancellationService.discard(ctx, args.uuid, args.policyUuid)),
  }),
  reinstatePolicy: t.prismaField({
    type: 'Cancellation',
    authScopes: { bind: true },
    errors: { types: problems, directResult: true, union: { name: 'ReinstatePolicyResult' } },
    description:
      'Reverses the latest confirmed cancellation within 30 days of its confirmation; returns that cancellation (status reinstated).',
    args: {
      policyUuid: t.arg.string({ description: 'The cancelled policy (its uuid).', required: true }),
      note: t.arg.string({ description: 'Why the policy is reinstated (recorded with the reinstatement).' }),
    },
    resolve: async (query, _r, args, ctx) =>
      reload(ctx, query, await cancellationService.reinstate(ctx, args.policyUuid, args.note)),
  }),
}));
