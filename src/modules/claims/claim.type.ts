import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef, offsetQuery } from '../../graphql/common.ts';
import { access, ANY_SCOPE, nodeAccess, KEEPS_REACH, visibleOrNull } from '../../graphql/access.ts';
import { PLANNED_ROWS } from '../../graphql/column-fields.ts';
import { reachableClient } from '../clients/client.type.ts';
import { ClaimStatus } from '../../generated/prisma/enums.ts';
import { now as clockNow } from '../../lib/clock.ts';
import { fromDbDate } from '../../lib/dates.ts';
import { CLAIM_SCOPES, claimReach, oneClaim } from '../access/claim.visibility.ts';
import { policyReach } from '../access/policy.visibility.ts';
import { PolicyRef } from '../policies/policy.type.ts';
import { OPEN_CLAIM_STATES } from './claim-state.ts';
import { claimService } from './claim.service.ts';
import './claim.subscriptions.ts';
import type { Insurer } from '../../generated/prisma/client.ts';
import { InsurerRef, StaffMemberRef } from '../reference/reference.type.ts';
import { inHandReference, references } from '../reference/references.ts';

const CLAIM_STATUS_DESCRIPTIONS: Record<ClaimStatus, string> = {
  registered: 'First notice of loss recorded: numbered and reserved.',
  documents_pending: 'Acknowledged; the documents checklist is open.',
  with_underwriter: 'Every required document received or waived; the underwriter checks cover.',
  under_assessment: 'Cover confirmed and an assessor appointed (or reopened after closing).',
  approved: 'Approved amount, excess and net payable recorded; awaiting payment.',
  settled: 'The net payable is paid in full.',
  repudiated: 'Declined by the underwriter, with a reason.',
  closed: 'Finished after settlement or repudiation; may be reopened within 90 days.',
  withdrawn: 'Withdrawn by the claimant before any money was instructed.',
};

export const ClaimStatusEnum = builder.enumType('ClaimStatus', {
  description:
    'The states of a claim. Open: registered, documents_pending, with_underwriter, under_assessment, approved. ' +
    'Done: settled, repudiated, closed (reopened within 90 days to under_assessment), withdrawn.',
  values: Object.fromEntries(
    Object.values(ClaimStatus).map((s) => [s, { description: CLAIM_STATUS_DESCRIPTIONS[s] }]),
  ) as Record<ClaimStatus, { description: string }>,
});

builder.prismaObject('ClaimCause', {
  select: { id: true },
  ...access({ scopes: ANY_SCOPE }),
  description: 'A cause of loss the organisation accepts for a product line, with its documents checklist.',
  fields: (t) => ({
    productLine: t.exposeString('productLine', { description: 'motor, medical, travel or standard.' }),
    code: t.exposeString('code', { description: 'Stable code of the cause (send as cause when registering a claim).' }),
    name: t.exposeString('name', { description: 'The cause in plain words.' }),
    documents: t.exposeStringList('documents', { description: 'Document kinds required, in checklist order' }),
    excessTerm: t.exposeString('excessTerm', { description: "Which of the product's excess terms applies" }),
  }),
});

builder.prismaObject('ClaimStatusChange', {
  select: { id: true, claimId: true },
  description: "One move of a claim's state, with who made it and why.",
  ...oneClaim,
  fields: (t) => ({
    from: t.expose('fromStatus', {
      description: 'The state before; null for the first row (registration).',
      type: ClaimStatusEnum,
      nullable: true,
    }),
    to: t.expose('toStatus', { description: 'The state after.', type: ClaimStatusEnum }),
    source: t.exposeString('source', { description: 'api, payment, schedule or system' }),
    reason: t.exposeString('reason', {
      description: 'Why, as given with the move (a repudiation reason, a withdrawal note …); null when none.',
      nullable: true,
    }),
    actorName: t.exposeString('actorName', {
      description: 'Who made the move, as recorded then; null for a system move.',
      nullable: true,
    }),
    actorUserId: t.exposeInt('actorUserId', {
      description: 'The user who made the move (databaseId); null for a key without a user or a system move.',
      nullable: true,
    }),
    at: t.expose('at', { description: 'When.', type: 'DateTime' }),
  }),
});

const ClaimInsuredRef = builder.objectRef<{ id: number; kind: string; name: string }>('ClaimInsured').implement({
  description: "The insured a non-motor claim is about, as the claim records it (the policy's insured[])",
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: "The insured's databaseId on the policy (Policy.insured)." }),
    kind: t.exposeString('kind', { description: 'member, traveller or item' }),
    name: t.exposeString('name', { description: "The person's name or the item's description." }),
  }),
});

/** Claims: keys that read or manage the CRM; agents only the claims within their reach (claimVisibility). */
builder.prismaNode('Claim', {
  select: { id: true },
  description:
    'A claim against a policy: the loss, its assessment, the approved amount and what has been paid, through its states.',
  ...nodeAccess<{ id: number }>({ scopes: CLAIM_SCOPES, reach: { via: claimReach, id: (c) => c.id } }, claimReach),
  id: { field: 'id' },
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer id of the claim; REST paths use uuid.' }),
    uuid: t.exposeString('uuid', {
      description: "The claim's UUID: the key of REST paths (/claims/{uuid}) and of claim mutations.",
    }),
    claimNo: t.exposeString('claimNo', {
      description: 'The claim number, CLM-<year>-<sequence> (gap-free per organisation and year).',
    }),
    status: t.expose('status', { description: "The claim's state (see ClaimStatus).", type: ClaimStatusEnum }),
    // A claims handler may be assigned a claim on a policy outside their own reach: the claim carries the policy's
    // and client's identifiers itself, and the records behind them keep their own rules (null, with not_found, there).
    // Not a plain relation: a claim within an agent's reach (registered by or assigned to them) may be on a policy out
    // of it, which a relation answered with not_found for the whole operation (an outside check, 2026-12-02).
    policy: t.field({
      type: PolicyRef,
      nullable: true,
      description:
        'The policy claimed on; null when the caller may not see it (policyNo and policyUuid still say which).',
      extensions: { readsRelation: 'policy' },
      select: (_args, _ctx, nested) => ({ policy: nested({ select: { id: true } }) }),
      resolve: (c, _args, ctx) => visibleOrNull(ctx, policyReach, c.policy),
    }),
    client: t.field({
      ...reachableClient,
      description: 'The claimant client; null when the caller may not see it (clientNo and clientName still say who).',
    }),
    policyNo: t.string({
      description: 'The policy number claimed on.',
      select: { policy: { select: { policyNo: true } } },
      resolve: (c) => c.policy.policyNo,
    }),
    policyUuid: t.string({
      description: 'The uuid of the policy claimed on.',
      select: { policy: { select: { uuid: true } } },
      resolve: (c) => c.policy.uuid,
    }),
    clientNo: t.string({
      description: "The claimant's client number.",
      select: { client: { select: { clientNo: true } } },
      resolve: (c) => c.client.clientNo,
    }),
    clientName: t.string({
      description: "The claimant's name.",
      select: { client: { select: { name: true } } },
      resolve: (c) => c.client.name,
    }),
    insurer: t.field({
      type: InsurerRef,
      select: { insurerId: true },
      description: 'The insurer of the policy.',
      resolve: (c, _a, ctx) => references.insurer(ctx, c.insurerId) as Promise<Insurer> | Insurer,
      extensions: inHandReference.insurer('insurerId'),
    }),
    registration: t.exposeString('regNo', {
      description: 'Motor: the registration of the vehicle in the loss; null for other lines.',
      nullable: true,
    }),
    insured: t.field({
      type: ClaimInsuredRef,
      nullable: true,
      description: 'Medical, travel and standard policies: the insured person, traveller or item the loss is about',
      select: { risk: { select: { id: true, kind: true, name: true } } },
      resolve: (c) => c.risk,
    }),
    productLine: t.exposeString('productLine', {
      description: "motor, medical, travel or standard (the policy's line).",
    }),
    cause: t.exposeString('causeCode', { description: 'The cause of loss code (see claimCauses).' }),
    lossDate: t.string({
      description: 'The day of the loss, Y-m-d.',
      select: { lossDate: true },
      resolve: (c) => fromDbDate(c.lossDate),
    }),
    lossTime: t.exposeString('lossTime', {
      description: 'The time of the loss, HH:MM, as given; null when not given.',
      nullable: true,
    }),
    lossPlace: t.exposeString('lossPlace', { description: 'Where the loss happened, as given.' }),
    description: t.exposeString('description', { description: 'What happened, as reported.' }),
    thirdParties: t.expose('thirdParties', {
      description: 'The third parties involved, as recorded at registration (a JSON list; empty when none).',
      type: 'JSON',
    }),
    witnesses: t.expose('witnesses', {
      description: 'The witnesses, as recorded at registration (a JSON list; empty when none).',
      type: 'JSON',
    }),
    policeAbstractNo: t.exposeString('policeAbstractNo', {
      description: 'The police abstract number; null when not given.',
      nullable: true,
    }),
    antiTheftDevice: t.exposeBoolean('antiTheftDevice', {
      description: 'Motor theft claims: whether an anti-theft device was fitted; null when not given.',
      nullable: true,
    }),
    reporterName: t.exposeString('reporterName', { description: 'Who reported the loss.' }),
    reporterPhone: t.exposeString('reporterPhone', {
      description: "The reporter's phone, normalised; null when not given.",
      nullable: true,
    }),
    reporterRelationship: t.exposeString('reporterRelationship', {
      description: "The reporter's relationship to the insured (self, driver …); null when not given.",
      nullable: true,
    }),
    channel: t.exposeString('channel', {
      description: 'How the claim was reported: api, phone, email, walk_in, agent or client_area.',
    }),
    reportedAt: t.expose('reportedAt', { description: 'When the loss was reported (registration).', type: 'DateTime' }),
    lateNotification: t.exposeBoolean('lateNotification', {
      description: 'True when reported more than 48 hours after the loss.',
    }),
    estimatedLoss: t.field({
      select: { estimatedLossMinor: true },
      description: "The reporter's estimate of the loss; null when not given.",
      type: MoneyRef,
      nullable: true,
      resolve: (c) => money(c.estimatedLossMinor),
    }),
    sumInsured: t.field({
      select: { sumInsuredMinor: true },
      description: 'The sum insured of what is claimed on, as recorded at registration; null when none.',
      type: MoneyRef,
      nullable: true,
      resolve: (c) => money(c.sumInsuredMinor),
    }),
    reserve: t.field({
      select: { reserveMinor: true },
      description: 'The amount currently reserved for the claim (see reserveMovements).',
      type: MoneyRef,
      resolve: (c) => money(c.reserveMinor)!,
    }),
    assessorName: t.exposeString('assessorName', {
      description: 'The appointed assessor; null before appointment.',
      nullable: true,
    }),
    assessorPhone: t.exposeString('assessorPhone', {
      description: "The assessor's phone; null before appointment or when not given.",
      nullable: true,
    }),
    assessorFirm: t.exposeString('assessorFirm', {
      description: "The assessor's firm; null when not given.",
      nullable: true,
    }),
    assessorAppointedAt: t.expose('assessorAppointedAt', {
      description: 'When the assessor was appointed; null before.',
      type: 'DateTime',
      nullable: true,
    }),
    assessedAmount: t.field({
      select: { assessedAmountMinor: true },
      description: 'The loss as assessed; null before the assessment.',
      type: MoneyRef,
      nullable: true,
      resolve: (c) => money(c.assessedAmountMinor),
    }),
    salvage: t.field({
      select: { salvageMinor: true },
      description: 'The salvage value the assessment recorded; null when none.',
      type: MoneyRef,
      nullable: true,
      resolve: (c) => money(c.salvageMinor),
    }),
    assessmentNotes: t.exposeString('assessmentNotes', {
      description: "The assessor's notes; null when none.",
      nullable: true,
    }),
    assessedAt: t.expose('assessedAt', {
      description: 'When the assessment was recorded; null before.',
      type: 'DateTime',
      nullable: true,
    }),
    approvedAmount: t.field({
      select: { approvedAmountMinor: true },
      description: 'The amount approved; null before approval.',
      type: MoneyRef,
      nullable: true,
      resolve: (c) => money(c.approvedAmountMinor),
    }),
    excess: t.field({
      select: { excessMinor: true },
      description: 'The policy excess deducted on approval; null before approval.',
      type: MoneyRef,
      nullable: true,
      resolve: (c) => money(c.excessMinor),
    }),
    netPayable: t.field({
      select: { netPayableMinor: true },
      description: 'What is payable after the excess; null before approval.',
      type: MoneyRef,
      nullable: true,
      resolve: (c) => money(c.netPayableMinor),
    }),
    approvedAt: t.expose('approvedAt', {
      description: 'When the claim was approved; null before.',
      type: 'DateTime',
      nullable: true,
    }),
    paid: t.field({
      select: { paidMinor: true },
      description: 'What has been paid out on the claim so far.',
      type: MoneyRef,
      resolve: (c) => money(c.paidMinor)!,
    }),
    outstanding: t.field({
      select: { netPayableMinor: true, paidMinor: true },
      type: MoneyRef,
      nullable: true,
      description: 'Net payable not yet paid (null before approval)',
      resolve: (c) => (c.netPayableMinor == null ? null : money(c.netPayableMinor - c.paidMinor)),
    }),
    repudiationReason: t.exposeString('repudiationReason', {
      description:
        "Why the claim was repudiated (a code of the organisation's repudiation reasons); null unless repudiated.",
      nullable: true,
    }),
    repudiationNote: t.exposeString('repudiationNote', {
      description: "The underwriter's words on the repudiation; null when none.",
      nullable: true,
    }),
    assignee: t.field({
      type: StaffMemberRef,
      select: { assigneeUserId: true },
      description: 'The claims handler assigned; null when unassigned.',
      nullable: true,
      resolve: (c, _a, ctx) => references.person(ctx, c.assigneeUserId),
      extensions: inHandReference.person('assigneeUserId'),
    }),
    statusChangedAt: t.expose('statusChangedAt', {
      description: 'When the claim entered its current state (its service level counts from here).',
      type: 'DateTime',
    }),
    slaDueAt: t.expose('slaDueAt', {
      description: "When the current state's service level runs out; null for a state without one.",
      type: 'DateTime',
      nullable: true,
    }),
    slaBreached: t.boolean({
      select: { slaDueAt: true, status: true },
      description: 'Open and past the service level of its current status',
      resolve: (c) => OPEN_CLAIM_STATES.includes(c.status) && c.slaDueAt != null && c.slaDueAt < clockNow(),
    }),
    closedAt: t.expose('closedAt', {
      description: 'When the claim was closed; null while not closed.',
      type: 'DateTime',
      nullable: true,
    }),
    history: t.relation('history', {
      ...KEEPS_REACH,
      description: 'Every state the claim has had, oldest first.',
      query: { orderBy: { id: 'asc' } },
    }),
    createdAt: t.expose('createdAt', { description: 'When the claim was registered.', type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { description: 'When the claim last changed.', type: 'DateTime' }),
  }),
});

const ClaimStatusCountRef = builder
  .objectRef<Awaited<ReturnType<typeof claimService.counts>>[number]>('ClaimStatusCount')
  .implement({
    description: 'How many claims are in one state.',
    fields: (t) => ({
      status: t.expose('status', { description: 'The state.', type: ClaimStatusEnum }),
      count: t.exposeInt('count', { description: 'How many claims the caller may see are in it.' }),
      slaBreached: t.exposeInt('slaBreached', { description: 'Of these, open and past their service level' }),
    }),
  });

builder.queryFields((t) => ({
  claimCounts: t.field({
    type: [ClaimStatusCountRef],
    authScopes: { read: true, crm: true },
    description: 'How many claims the caller may see are in each state, with service-level breaches.',
    resolve: (_root, _args, ctx) => claimService.counts(ctx),
  }),
  claims: t.prismaConnection({
    // Its rows are listClaims': the read model's, or Prisma's given the selection whole, shaped alike.
    extensions: { ...KEEPS_REACH.extensions, ...PLANNED_ROWS.extensions },
    type: 'Claim',
    cursor: 'id',
    authScopes: { read: true, crm: true },
    description:
      'Claims the caller may see, newest first. `offset` serves page-number pagination when `after` is absent.',
    args: {
      status: t.arg({ description: 'Only claims in one of these states.', type: [ClaimStatusEnum] }),
      policyUuid: t.arg.string({ description: "Only this policy's claims (its uuid)." }),
      clientNo: t.arg.string({ description: "Only this client's claims (client number)." }),
      insurerId: t.arg.int({ description: "Only claims on this insurer's policies (insurer databaseId)." }),
      assigneeId: t.arg.int({ description: 'Only claims assigned to this user (databaseId).' }),
      reportedFrom: t.arg({ description: 'Only claims reported at or after this moment.', type: 'DateTime' }),
      reportedTo: t.arg({ description: 'Only claims reported at or before this moment.', type: 'DateTime' }),
      lossFrom: t.arg.string({ description: 'Y-m-d' }),
      lossTo: t.arg.string({ description: 'Y-m-d' }),
      slaBreached: t.arg.boolean({
        description: 'true: only claims past their service-level deadline; false: only those within it.',
      }),
      search: t.arg.string({ description: 'Claim number or vehicle registration' }),
      offset: t.arg.int({
        description: 'Page-number pagination: skip this many claims (used only when after is absent); at least 0.',
      }),
    },
    resolve: (query, _root, args, ctx) => {
      const paged = offsetQuery(query, args);
      return claimService.list(ctx, { ...args, policyId: args.policyUuid }, paged);
    },
  }),
  claim: t.prismaField({
    ...KEEPS_REACH,
    type: 'Claim',
    authScopes: { read: true, crm: true },
    description: 'A claim by uuid; not_found when missing or not visible to the caller.',
    args: { uuid: t.arg.string({ description: 'The claim (its uuid).', required: true }) },
    resolve: (query, _root, args, ctx) => claimService.get(ctx, args.uuid, query),
  }),
  claimCauses: t.prismaField({
    type: ['ClaimCause'],
    authScopes: { read: true, crm: true },
    description: 'The causes of loss the organisation accepts, per product line, with their document checklists.',
    args: {
      productLine: t.arg.string({
        description: 'Only the causes of this line: motor, medical, travel or standard; all when absent.',
      }),
    },
    resolve: (_query, _root, args, ctx) => claimService.causes(ctx, args.productLine),
  }),
}));

/** The policy record lists its claims (the claims module extends the Policy type; the policy module knows nothing of claims). */
builder.prismaObjectField('Policy', 'claims', (t) =>
  t.relation('claims', {
    ...KEEPS_REACH,
    description: 'Claims registered against this policy, newest first',
    query: { orderBy: { id: 'desc' } },
  }),
);
