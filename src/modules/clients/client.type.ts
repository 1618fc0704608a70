import { builder } from '../../graphql/builder.ts';
import { PLANNED_ROWS } from '../../graphql/column-fields.ts';
import { offsetQuery } from '../../graphql/common.ts';
import { clientReach } from '../access/client.visibility.ts';
import { inHandReference, references } from '../reference/references.ts';
import { BranchRef, BusinessSourceRef, ProspectTypeRef, StaffMemberRef } from '../reference/reference.type.ts';
import { clientService } from './client.service.ts';
import { nodeAccess, KEEPS_REACH, visibleOrNull } from '../../graphql/access.ts';
import type { Context } from '../../context.ts';

const ClientTypeEnum = builder.enumType('ClientType', {
  description: 'Whether a client is a person or an organisation.',
  values: {
    individual: { description: 'A person.' },
    corporate: { description: 'A company or other organisation.' },
  } as const,
});

/** Clients: keys that read, manage the CRM or bind; agents only the clients within their reach (clientVisibility). */
export const ClientRef = builder.prismaNode('Client', {
  select: { id: true },
  description: 'A policyholder of the organisation: a person or a company, with its contacts and who looks after it.',
  ...nodeAccess<{ id: number }>(
    { scopes: ['read', 'crm', 'bind'], reach: { via: clientReach, id: (c) => c.id } },
    clientReach,
  ),
  id: { field: 'id' },
  fields: (t) => ({
    databaseId: t.exposeInt('id', {
      description: 'The REST id of the client (an integer); REST paths use clientNo instead.',
    }),
    clientNo: t.exposeString('clientNo', {
      description: 'The client number (C-000123): the key REST paths and most arguments use.',
    }),
    type: t.exposeString('type', { description: 'individual or corporate.' }),
    name: t.exposeString('name', { description: "Full name of the person or the company's registered name." }),
    idNo: t.exposeString('idNo', {
      description: 'National ID or passport number, normalised (upper case, no spaces); null when not given.',
      nullable: true,
    }),
    kraPin: t.exposeString('kraPin', {
      description: 'KRA PIN (A or P, 9 digits, a letter), upper case; null when not given.',
      nullable: true,
    }),
    phone: t.exposeString('phone', { description: 'Normalised: 2547XXXXXXXX or 2541XXXXXXXX.' }),
    email: t.exposeString('email', { description: 'Email address, lower case; null when not given.', nullable: true }),
    dateOfBirth: t.expose('dateOfBirth', {
      description: 'Date of birth (people); null when not given.',
      type: 'Date',
      nullable: true,
    }),
    physicalAddress: t.exposeString('physicalAddress', {
      description: 'Postal or physical address as given; null when not given.',
      nullable: true,
    }),
    // The reference rows a client points at come from the organisation's directory in memory, not joined into the
    // clients' statement (issue 28).
    branch: t.field({
      type: BranchRef,
      select: { branchId: true },
      description:
        "The branch the client belongs to (the creating user's branch unless one was given); null when none.",
      nullable: true,
      resolve: (c, _a, ctx) => references.branch(ctx, c.branchId),
      extensions: inHandReference.branch('branchId'),
    }),
    riskManager: t.field({
      type: StaffMemberRef,
      select: { riskManagerId: true },
      description: 'The account executive responsible; null when none.',
      nullable: true,
      resolve: (c, _a, ctx) => references.person(ctx, c.riskManagerId),
      extensions: inHandReference.person('riskManagerId'),
    }),
    salesPerson: t.field({
      type: StaffMemberRef,
      select: { salesPersonId: true },
      description:
        'The sales person (agent) credited with the client, who then sees its policies and claims; null when none.',
      nullable: true,
      resolve: (c, _a, ctx) => references.person(ctx, c.salesPersonId),
      extensions: inHandReference.person('salesPersonId'),
    }),
    businessSource: t.field({
      type: BusinessSourceRef,
      select: { businessSourceId: true },
      description: 'How the client came to the organisation; null when not recorded.',
      nullable: true,
      resolve: (c, _a, ctx) => references.businessSource(ctx, c.businessSourceId),
      extensions: inHandReference.businessSource('businessSourceId'),
    }),
    prospectType: t.field({
      type: ProspectTypeRef,
      select: { prospectTypeId: true },
      description: 'The kind of prospect the client was recorded as; null when not recorded.',
      nullable: true,
      resolve: (c, _a, ctx) => references.prospectType(ctx, c.prospectTypeId),
      extensions: inHandReference.prospectType('prospectTypeId'),
    }),
    sector: t.exposeString('sector', {
      description: 'Business sector (corporate clients), as given; null when not given.',
      nullable: true,
    }),
    altName: t.exposeString('altName', {
      description: "An alternative contact person's name; null when none.",
      nullable: true,
    }),
    altPhone: t.exposeString('altPhone', {
      description: 'An alternative phone, normalised as phone (2547…/2541…); null when none.',
      nullable: true,
    }),
    altEmail: t.exposeString('altEmail', {
      description: 'An alternative email, lower case; null when none.',
      nullable: true,
    }),
    kycStatus: t.exposeString('kycStatus', {
      description: 'Know-your-customer state; unverified unless the organisation has verified the client.',
    }),
    onboardedVia: t.exposeString('onboardedVia', {
      description:
        'Where the client was first recorded: api (a create or a bind), prospect (a converted prospect) or client_area (self-registration).',
    }),
    createdAt: t.expose('createdAt', { description: 'When the client was recorded.', type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { description: 'When any field last changed.', type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  clients: t.prismaConnection({
    // Its rows are listClients': the read model's, or Prisma's given the selection whole, shaped alike.
    extensions: { ...KEEPS_REACH.extensions, ...PLANNED_ROWS.extensions },
    type: 'Client',
    cursor: 'id',
    authScopes: { read: true },
    description:
      'Clients the caller may see, newest first. `offset` serves page-number pagination when `after` is absent.',
    args: {
      search: t.arg.string({ description: 'Name, client number, phone, ID number or tax PIN.' }),
      type: t.arg({ description: 'individual or corporate only; all when absent.', type: ClientTypeEnum }),
      salesPersonId: t.arg.int({ description: 'Only clients of this sales person (user databaseId).' }),
      riskManagerId: t.arg.int({ description: 'Only clients of this account executive (user databaseId).' }),
      offset: t.arg.int({
        description: 'Page-number pagination: skip this many clients (used only when after is absent); at least 0.',
      }),
    },
    resolve: (query, _root, args, ctx) => {
      const paged = offsetQuery(query, args);
      return clientService.list(ctx, args, paged);
    },
  }),
  client: t.prismaField({
    // Its row is getClient's: the read model's, or Prisma's given the selection whole, shaped alike.
    extensions: { ...KEEPS_REACH.extensions, ...PLANNED_ROWS.extensions },
    type: 'Client',
    authScopes: { read: true },
    description: 'A client by number; not_found when missing or not visible to the caller.',
    args: { clientNo: t.arg.string({ description: 'The client number, e.g. C-000123.', required: true }) },
    resolve: (query, _root, args, ctx) => clientService.get(ctx, args.clientNo, query),
  }),
}));

/**
 * A record's client where the client may be out of the caller's reach when the record is not (a claim, a prospect, a
 * premium-finance application or loan): null then, where a plain relation answered not_found for the whole
 * operation. `client: t.field({ ...reachableClient, description })` on a Prisma type with a `client` relation.
 */
export const reachableClient = {
  type: ClientRef,
  nullable: true,
  // Read straight from a planned row (graphql/column-fields.ts fromPlannedRow), which carries the relation.
  extensions: { readsRelation: 'client' },
  select: <T>(_args: unknown, _ctx: unknown, nested: (selection: { select: { id: true } }) => T) => ({
    client: nested({ select: { id: true } }),
  }),
  resolve: (r: { client: { id: number } | null }, _args: unknown, ctx: Context) =>
    visibleOrNull(ctx, clientReach, r.client),
} as const;
