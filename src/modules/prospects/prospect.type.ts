import { access, nodeAccess, KEEPS_REACH } from '../../graphql/access.ts';
import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef, offsetQuery } from '../../graphql/common.ts';
import { reachableClient } from '../clients/client.type.ts';
import { ownsClient } from '../access/client.visibility.ts';
import { prospectReach } from '../access/prospect.visibility.ts';
import { PROSPECT_RULES } from './prospect-state.ts';
import { prospectService } from './prospect.service.ts';

/** Prospects and their timelines: keys that read or manage the CRM; agents only those they created or are assigned. */
const PROSPECT_SCOPES = ['read', 'crm'] as const;

/** Enum values with their descriptions, from a list of names. */
const described = <T extends string>(names: readonly T[], words: Record<T, string>) =>
  Object.fromEntries(names.map((n) => [n, { description: words[n] }])) as Record<T, { description: string }>;

export const ProspectStatusEnum = builder.enumType('ProspectStatus', {
  description:
    'Where a prospect stands. new → contacted, qualified or lost; contacted → qualified or lost; qualified → quoted or ' +
    'lost; quoted → won, lost or back to qualified; lost → contacted (revived); won is final.',
  values: described(['new', 'contacted', 'qualified', 'quoted', 'won', 'lost'] as const, {
    new: 'Recorded; nobody has spoken to them yet.',
    contacted: 'Spoken to.',
    qualified: 'Has a need the organisation can meet.',
    quoted: 'A quote was saved for them (or moved by hand).',
    won: 'A policy was bound for them (or moved by hand): the sale is made.',
    lost: 'No sale, with a lostReason; may be revived to contacted.',
  }),
});
export const ProspectSourceEnum = builder.enumType('ProspectSource', {
  description: 'How a prospect came to the organisation.',
  values: described(PROSPECT_RULES.sources, {
    walk_in: 'Walked into a branch.',
    referral: 'Referred by someone.',
    website: 'Through the website.',
    social_media: 'Through social media.',
    event: 'Met at an event.',
    cold_call: 'Reached by a cold call.',
    bancassurance: 'Through a bank partner.',
    other: 'Any other way.',
  }),
});
export const ProspectInterestEnum = builder.enumType('ProspectInterest', {
  description: 'A product line the prospect is interested in.',
  values: described(PROSPECT_RULES.interests, {
    motor: 'Motor insurance.',
    medical: 'Medical cover.',
    travel: 'Travel cover.',
    standard: 'A standard product (personal accident, domestic …).',
    ipf: 'Premium finance (paying a premium by monthly instalments through a lender).',
  }),
});
export const ProspectLostReasonEnum = builder.enumType('ProspectLostReason', {
  description: 'Why a prospect was lost (required when the status becomes lost).',
  values: described(PROSPECT_RULES.lostReasons, {
    price: 'The price was too high.',
    competitor: 'Went to a competitor.',
    no_need: 'Has no need for cover.',
    unreachable: 'Could not be reached.',
    not_eligible: 'Not eligible for the cover.',
    duplicate: 'A duplicate of another prospect or client.',
    other: 'Any other reason (say which in the note).',
  }),
});

builder.prismaObject('ProspectNote', {
  ...access<{ prospectId: number }>({
    scopes: PROSPECT_SCOPES,
    reach: { via: prospectReach, id: (n) => n.prospectId },
  }),
  description: "One row of a prospect's timeline: a note, or a status move with who and why.",
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer id of the timeline row.' }),
    kind: t.exposeString('kind', {
      description: 'note, created, status_changed, converted, quote_saved or policy_bound',
    }),
    body: t.exposeString('body', { nullable: true, description: 'The note, or why the status moved' }),
    fromStatus: t.expose('fromStatus', {
      description: 'Status moves: the status before; null for other rows.',
      type: ProspectStatusEnum,
      nullable: true,
    }),
    toStatus: t.expose('toStatus', {
      description: 'Status moves: the status after; null for other rows.',
      type: ProspectStatusEnum,
      nullable: true,
    }),
    actorId: t.exposeInt('actorUserId', { nullable: true, description: 'The user who wrote or moved it' }),
    at: t.expose('at', { description: 'When.', type: 'DateTime' }),
  }),
});

builder.prismaNode('Prospect', {
  description: 'A possible client the organisation is working towards a sale with, and its timeline.',
  ...nodeAccess<{ id: number }>(
    { scopes: PROSPECT_SCOPES, reach: { via: prospectReach, id: (r) => r.id } },
    prospectReach,
  ),
  id: { field: 'id' },
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer id of the prospect; REST paths use uuid.' }),
    uuid: t.exposeString('uuid', { description: "The prospect's UUID: the key of REST paths and prospect mutations." }),
    prospectNo: t.exposeString('prospectNo', { description: 'P-NNNNNN, sequential per organisation' }),
    type: t.exposeString('type', { description: 'individual or business' }),
    name: t.exposeString('name', { description: 'Name of the person or business.' }),
    phone: t.exposeString('phone', { nullable: true, description: 'Normalised like a client’s: 2547XXXXXXXX' }),
    email: t.exposeString('email', { description: 'Email, lower case; null when not given.', nullable: true }),
    idNo: t.exposeString('idNo', {
      description: 'National ID or passport number, normalised; null when not given.',
      nullable: true,
    }),
    kraPin: t.exposeString('kraPin', { description: 'KRA PIN, upper case; null when not given.', nullable: true }),
    source: t.exposeString('source', {
      description: 'How the prospect came (see ProspectSource); null when not recorded.',
      nullable: true,
    }),
    interests: t.exposeStringList('interests', { description: 'Product lines of interest (see ProspectInterest).' }),
    estimatedPremium: t.field({
      description: 'The premium the organisation expects to write; null when not estimated.',
      type: MoneyRef,
      nullable: true,
      resolve: (r) => money(r.estimatedPremiumMinor),
    }),
    status: t.expose('status', { description: 'Where the prospect stands.', type: ProspectStatusEnum }),
    lostReason: t.exposeString('lostReason', {
      description: 'Why it was lost (see ProspectLostReason); null unless lost.',
      nullable: true,
    }),
    assignee: t.relation('assignee', {
      description: 'The user working the prospect; null when unassigned.',
      nullable: true,
    }),
    createdBy: t.relation('createdByUser', {
      description: 'The user who recorded it; null when recorded by a key without a user.',
      nullable: true,
    }),
    nextFollowUpOn: t.expose('nextFollowUpOn', {
      description: 'When to follow up next, Y-m-d; null when not planned.',
      type: 'Date',
      nullable: true,
    }),
    clientNo: t.string({
      nullable: true,
      description: 'The client it became or was linked to; null before, or when the caller may not see that client.',
      select: { client: { select: { clientNo: true, createdByUserId: true, salesPersonId: true } } },
      resolve: (r, _a, ctx) => (r.client && ownsClient(ctx.principal!, r.client) ? r.client.clientNo : null),
    }),
    client: t.field({
      ...reachableClient,
      description: 'The client it became or was linked to; null before, or when the caller may not see it.',
    }),
    timeline: t.relation('timeline', {
      ...KEEPS_REACH,
      description: 'Notes and every move, oldest first.',
      query: { orderBy: { id: 'asc' } },
    }),
    statusChangedAt: t.expose('statusChangedAt', {
      description: 'When the prospect entered its current status.',
      type: 'DateTime',
    }),
    createdAt: t.expose('createdAt', { description: 'When it was recorded.', type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { description: 'When it last changed.', type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  prospects: t.prismaConnection({
    ...KEEPS_REACH,
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
      offset: t.arg.int({
        description: 'Page-number pagination: skip this many prospects (used only when after is absent); at least 0.',
      }),
    },
    resolve: (query, _root, args, ctx) => {
      const paged = offsetQuery(query, args);
      return prospectService.list(ctx, args, paged);
    },
  }),
  prospectFollowUps: t.prismaConnection({
    ...KEEPS_REACH,
    type: 'Prospect',
    cursor: 'id',
    authScopes: { $any: { read: true, crm: true } },
    description: 'Open prospects due for a follow-up (date today or past, Nairobi), the oldest date first.',
    args: {
      assigneeId: t.arg.int({ description: 'Only follow-ups of prospects assigned to this user (databaseId).' }),
    },
    resolve: (query, _root, args, ctx) => prospectService.followUps(ctx, args, query),
  }),
  prospect: t.prismaField({
    ...KEEPS_REACH,
    type: 'Prospect',
    authScopes: { $any: { read: true, crm: true } },
    description: 'A prospect by uuid; not_found when missing or not visible to the caller.',
    args: { uuid: t.arg.string({ description: 'The prospect (its uuid).', required: true }) },
    resolve: (query, _root, args, ctx) => prospectService.get(ctx, args.uuid, query),
  }),
}));
