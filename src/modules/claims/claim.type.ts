import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { access, ANY_SCOPE, nodeAccess } from '../../graphql/access.ts';
import { ClaimStatus } from '../../generated/prisma/enums.ts';
import { now as clockNow } from '../../lib/clock.ts';
import { fromDbDate } from '../../lib/dates.ts';
import { CLAIM_SCOPES, claimReach, oneClaim } from '../access/claim.visibility.ts';
import { OPEN_CLAIM_STATES } from './claim-state.ts';
import { claimService } from './claim.service.ts';
import './claim.subscriptions.ts';

export const ClaimStatusEnum = builder.enumType('ClaimStatus', {
  values: Object.values(ClaimStatus) as [ClaimStatus, ...ClaimStatus[]],
});

builder.prismaObject('ClaimCause', {
  ...access({ scopes: ANY_SCOPE }),
  description: 'A cause of loss the organisation accepts for a product line, with its documents checklist.',
  fields: (t) => ({
    productLine: t.exposeString('productLine'),
    code: t.exposeString('code'),
    name: t.exposeString('name'),
    documents: t.exposeStringList('documents', { description: 'Document kinds required, in checklist order' }),
    excessTerm: t.exposeString('excessTerm', { description: "Which of the product's excess terms applies" }),
  }),
});

builder.prismaObject('ClaimStatusChange', {
  ...oneClaim,
  fields: (t) => ({
    from: t.expose('fromStatus', { type: ClaimStatusEnum, nullable: true }),
    to: t.expose('toStatus', { type: ClaimStatusEnum }),
    source: t.exposeString('source', { description: 'api, payment, schedule or system' }),
    reason: t.exposeString('reason', { nullable: true }),
    actorName: t.exposeString('actorName', { nullable: true }),
    actorUserId: t.exposeInt('actorUserId', { nullable: true }),
    at: t.expose('at', { type: 'DateTime' }),
  }),
});

const ClaimInsuredRef = builder.objectRef<{ id: number; kind: string; name: string }>('ClaimInsured').implement({
  description: "The insured a non-motor claim is about, as the claim records it (the policy's insured[])",
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    kind: t.exposeString('kind', { description: 'member, traveller or item' }),
    name: t.exposeString('name'),
  }),
});

/** Claims: keys that read or manage the CRM; agents only the claims within their reach (claimVisibility). */
builder.prismaNode('Claim', {
  ...nodeAccess<{ id: number }>({ scopes: CLAIM_SCOPES, reach: { via: claimReach, id: (c) => c.id } }, claimReach),
  id: { field: 'id' },
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    uuid: t.exposeString('uuid'),
    claimNo: t.exposeString('claimNo'),
    status: t.expose('status', { type: ClaimStatusEnum }),
    // A claims handler may be assigned a claim on a policy outside their own reach: the claim carries the policy's
    // and client's identifiers itself, and the records behind them keep their own rules (null, with not_found, there).
    policy: t.relation('policy', { nullable: true }),
    client: t.relation('client', { nullable: true }),
    policyNo: t.string({ select: { policy: { select: { policyNo: true } } }, resolve: (c) => c.policy.policyNo }),
    policyUuid: t.string({ select: { policy: { select: { uuid: true } } }, resolve: (c) => c.policy.uuid }),
    clientNo: t.string({ select: { client: { select: { clientNo: true } } }, resolve: (c) => c.client.clientNo }),
    clientName: t.string({ select: { client: { select: { name: true } } }, resolve: (c) => c.client.name }),
    insurer: t.relation('insurer'),
    registration: t.exposeString('regNo', { nullable: true }),
    insured: t.field({
      type: ClaimInsuredRef,
      nullable: true,
      description: 'Medical, travel and standard policies: the insured person, traveller or item the loss is about',
      select: { risk: { select: { id: true, kind: true, name: true } } },
      resolve: (c) => c.risk,
    }),
    productLine: t.exposeString('productLine'),
    cause: t.exposeString('causeCode'),
    lossDate: t.string({ resolve: (c) => fromDbDate(c.lossDate) }),
    lossTime: t.exposeString('lossTime', { nullable: true }),
    lossPlace: t.exposeString('lossPlace'),
    description: t.exposeString('description'),
    thirdParties: t.expose('thirdParties', { type: 'JSON' }),
    witnesses: t.expose('witnesses', { type: 'JSON' }),
    policeAbstractNo: t.exposeString('policeAbstractNo', { nullable: true }),
    antiTheftDevice: t.exposeBoolean('antiTheftDevice', { nullable: true }),
    reporterName: t.exposeString('reporterName'),
    reporterPhone: t.exposeString('reporterPhone', { nullable: true }),
    reporterRelationship: t.exposeString('reporterRelationship', { nullable: true }),
    channel: t.exposeString('channel'),
    reportedAt: t.expose('reportedAt', { type: 'DateTime' }),
    lateNotification: t.exposeBoolean('lateNotification'),
    estimatedLoss: t.field({ type: MoneyRef, nullable: true, resolve: (c) => money(c.estimatedLossMinor) }),
    sumInsured: t.field({ type: MoneyRef, nullable: true, resolve: (c) => money(c.sumInsuredMinor) }),
    reserve: t.field({ type: MoneyRef, resolve: (c) => money(c.reserveMinor)! }),
    assessorName: t.exposeString('assessorName', { nullable: true }),
    assessorPhone: t.exposeString('assessorPhone', { nullable: true }),
    assessorFirm: t.exposeString('assessorFirm', { nullable: true }),
    assessorAppointedAt: t.expose('assessorAppointedAt', { type: 'DateTime', nullable: true }),
    assessedAmount: t.field({ type: MoneyRef, nullable: true, resolve: (c) => money(c.assessedAmountMinor) }),
    salvage: t.field({ type: MoneyRef, nullable: true, resolve: (c) => money(c.salvageMinor) }),
    assessmentNotes: t.exposeString('assessmentNotes', { nullable: true }),
    assessedAt: t.expose('assessedAt', { type: 'DateTime', nullable: true }),
    approvedAmount: t.field({ type: MoneyRef, nullable: true, resolve: (c) => money(c.approvedAmountMinor) }),
    excess: t.field({ type: MoneyRef, nullable: true, resolve: (c) => money(c.excessMinor) }),
    netPayable: t.field({ type: MoneyRef, nullable: true, resolve: (c) => money(c.netPayableMinor) }),
    approvedAt: t.expose('approvedAt', { type: 'DateTime', nullable: true }),
    paid: t.field({ type: MoneyRef, resolve: (c) => money(c.paidMinor)! }),
    outstanding: t.field({
      type: MoneyRef,
      nullable: true,
      description: 'Net payable not yet paid (null before approval)',
      resolve: (c) => (c.netPayableMinor == null ? null : money(c.netPayableMinor - c.paidMinor)),
    }),
    repudiationReason: t.exposeString('repudiationReason', { nullable: true }),
    repudiationNote: t.exposeString('repudiationNote', { nullable: true }),
    assignee: t.relation('assignee', { nullable: true }),
    statusChangedAt: t.expose('statusChangedAt', { type: 'DateTime' }),
    slaDueAt: t.expose('slaDueAt', { type: 'DateTime', nullable: true }),
    slaBreached: t.boolean({
      description: 'Open and past the service level of its current status',
      resolve: (c) => OPEN_CLAIM_STATES.includes(c.status) && c.slaDueAt != null && c.slaDueAt < clockNow(),
    }),
    closedAt: t.expose('closedAt', { type: 'DateTime', nullable: true }),
    history: t.relation('history', { query: { orderBy: { id: 'asc' } } }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const ClaimStatusCountRef = builder
  .objectRef<Awaited<ReturnType<typeof claimService.counts>>[number]>('ClaimStatusCount')
  .implement({
    fields: (t) => ({
      status: t.expose('status', { type: ClaimStatusEnum }),
      count: t.exposeInt('count'),
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
    type: 'Claim',
    cursor: 'id',
    authScopes: { read: true, crm: true },
    description:
      'Claims the caller may see, newest first. `offset` serves page-number pagination when `after` is absent.',
    args: {
      status: t.arg({ description: 'Only claims in one of these states.', type: [ClaimStatusEnum] }),
      policyUuid: t.arg.string({ description: 'Only this policy\'s claims (its uuid).' }),
      clientNo: t.arg.string({ description: 'Only this client\'s claims (client number).' }),
      insurerId: t.arg.int({ description: 'Only claims on this insurer\'s policies (insurer databaseId).' }),
      assigneeId: t.arg.int({ description: 'Only claims assigned to this user (databaseId).' }),
      reportedFrom: t.arg({ description: 'Only claims reported at or after this moment.', type: 'DateTime' }),
      reportedTo: t.arg({ description: 'Only claims reported at or before this moment.', type: 'DateTime' }),
      lossFrom: t.arg.string({ description: 'Y-m-d' }),
      lossTo: t.arg.string({ description: 'Y-m-d' }),
      slaBreached: t.arg.boolean({ description: 'true: only claims past their service-level deadline; false: only those within it.' }),
      search: t.arg.string({ description: 'Claim number or vehicle registration' }),
      offset: t.arg.int({ description: 'Page-number pagination: skip this many claims (used only when after is absent).' }),
    },
    resolve: (query, _root, args, ctx) => {
      const paged = args.offset && !args.after ? { ...query, skip: Math.max(0, args.offset) } : query;
      return claimService.list(ctx, { ...args, policyId: args.policyUuid }, paged);
    },
  }),
  claim: t.prismaField({
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
    args: { productLine: t.arg.string({ description: 'Only the causes of this line: motor, medical, travel or standard; all when absent.' }) },
    resolve: (_query, _root, args, ctx) => claimService.causes(ctx, args.productLine),
  }),
}));

/** The policy record lists its claims (the claims module extends the Policy type; the policy module knows nothing of claims). */
builder.prismaObjectField('Policy', 'claims', (t) =>
  t.relation('claims', {
    description: 'Claims registered against this policy, newest first',
    query: { orderBy: { id: 'desc' } },
  }),
);
