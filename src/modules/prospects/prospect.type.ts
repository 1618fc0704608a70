import { access, nodeAccess } from '../../graphql/access.ts';
import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { ownsClient } from '../access/client.visibility.ts';
import { prospectReach } from '../access/prospect.visibility.ts';
import { PROSPECT_RULES } from './prospect-state.ts';
import { prospectService } from './prospect.service.ts';

/** Prospects and their timelines: keys that read or manage the CRM; agents only those they created or are assigned. */
const PROSPECT_SCOPES = ['read', 'crm'] as const;

export const ProspectStatusEnum = builder.enumType('ProspectStatus', {
  values: ['new', 'contacted', 'qualified', 'quoted', 'won', 'lost'] as const,
});
export const ProspectSourceEnum = builder.enumType('ProspectSource', { values: PROSPECT_RULES.sources });
export const ProspectInterestEnum = builder.enumType('ProspectInterest', {
  description: 'A product line the prospect is interested in.',
  values: PROSPECT_RULES.interests,
});
export const ProspectLostReasonEnum = builder.enumType('ProspectLostReason', { values: PROSPECT_RULES.lostReasons });

builder.prismaObject('ProspectNote', {
  ...access<{ prospectId: number }>({
    scopes: PROSPECT_SCOPES,
    reach: { via: prospectReach, id: (n) => n.prospectId },
  }),
  description: "One row of a prospect's timeline: a note, or a status move with who and why.",
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    kind: t.exposeString('kind', {
      description: 'note, created, status_changed, converted, quote_saved or policy_bound',
    }),
    body: t.exposeString('body', { nullable: true, description: 'The note, or why the status moved' }),
    fromStatus: t.expose('fromStatus', { type: ProspectStatusEnum, nullable: true }),
    toStatus: t.expose('toStatus', { type: ProspectStatusEnum, nullable: true }),
    actorId: t.exposeInt('actorUserId', { nullable: true, description: 'The user who wrote or moved it' }),
    at: t.expose('at', { type: 'DateTime' }),
  }),
});

builder.prismaNode('Prospect', {
  ...nodeAccess<{ id: number }>(
    { scopes: PROSPECT_SCOPES, reach: { via: prospectReach, id: (r) => r.id } },
    prospectReach,
  ),
  id: { field: 'id' },
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    uuid: t.exposeString('uuid'),
    prospectNo: t.exposeString('prospectNo', { description: 'P-NNNNNN, sequential per organisation' }),
    type: t.exposeString('type', { description: 'individual or business' }),
    name: t.exposeString('name'),
    phone: t.exposeString('phone', { nullable: true, description: 'Normalised like a client’s: 2547XXXXXXXX' }),
    email: t.exposeString('email', { nullable: true }),
    idNo: t.exposeString('idNo', { nullable: true }),
    kraPin: t.exposeString('kraPin', { nullable: true }),
    source: t.exposeString('source', { nullable: true }),
    interests: t.exposeStringList('interests'),
    estimatedPremium: t.field({
      type: MoneyRef,
      nullable: true,
      resolve: (r) => money(r.estimatedPremiumMinor),
    }),
    status: t.expose('status', { type: ProspectStatusEnum }),
    lostReason: t.exposeString('lostReason', { nullable: true }),
    assignee: t.relation('assignee', { nullable: true }),
    createdBy: t.relation('createdByUser', { nullable: true }),
    nextFollowUpOn: t.expose('nextFollowUpOn', { type: 'Date', nullable: true }),
    clientNo: t.string({
      nullable: true,
      description: 'The client it became or was linked to; null before, or when the caller may not see that client.',
      select: { client: { select: { clientNo: true, createdByUserId: true, salesPersonId: true } } },
      resolve: (r, _a, ctx) => (r.client && ownsClient(ctx.principal!, r.client) ? r.client.clientNo : null),
    }),
    client: t.relation('client', { nullable: true }),
    timeline: t.relation('timeline', {
      description: 'Notes and every move, oldest first.',
      query: { orderBy: { id: 'asc' } },
    }),
    statusChangedAt: t.expose('statusChangedAt', { type: 'DateTime' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  prospects: t.prismaConnection({
    type: 'Prospect',
    cursor: 'id',
    authScopes: { $any: { read: true, crm: true } },
    description:
      'Prospects the caller may see, newest first. `offset` serves page-number pagination when `after` is absent.',
    args: {
      status: t.arg({ description: 'Only prospects in this state.', type: ProspectStatusEnum }),
      assigneeId: t.arg.int({ description: 'Only prospects assigned to this user (databaseId).' }),
      source: t.arg({ description: 'Only prospects that came through this source.', type: ProspectSourceEnum }),
      interest: t.arg({ description: 'Only prospects interested in this line.', type: ProspectInterestEnum }),
      followUpDue: t.arg.boolean({ description: 'Open prospects whose follow-up date is today (Nairobi) or past' }),
      search: t.arg.string({ description: 'Name, prospect number, phone, ID number or tax PIN' }),
      offset: t.arg.int({ description: 'Page-number pagination: skip this many prospects (used only when after is absent).' }),
    },
    resolve: (query, _root, args, ctx) => {
      const paged = args.offset && !args.after ? { ...query, skip: Math.max(0, args.offset) } : query;
      return prospectService.list(ctx, args, paged);
    },
  }),
  prospectFollowUps: t.prismaConnection({
    type: 'Prospect',
    cursor: 'id',
    authScopes: { $any: { read: true, crm: true } },
    description: 'Open prospects due for a follow-up (date today or past, Nairobi), the oldest date first.',
    args: { assigneeId: t.arg.int({ description: 'Only follow-ups of prospects assigned to this user (databaseId).' }) },
    resolve: (query, _root, args, ctx) => prospectService.followUps(ctx, args, query),
  }),
  prospect: t.prismaField({
    type: 'Prospect',
    authScopes: { $any: { read: true, crm: true } },
    description: 'A prospect by uuid; not_found when missing or not visible to the caller.',
    args: { uuid: t.arg.string({ description: 'The prospect (its uuid).', required: true }) },
    resolve: (query, _root, args, ctx) => prospectService.get(ctx, args.uuid, query),
  }),
}));
