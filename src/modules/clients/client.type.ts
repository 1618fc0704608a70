import { builder } from '../../graphql/builder.ts';
import { clientReach } from '../access/client.visibility.ts';
import { clientService } from './client.service.ts';
import { access, ANY_SCOPE, nodeAccess } from '../../graphql/access.ts';

builder.prismaObject('BusinessSource', {
  ...access({ scopes: ANY_SCOPE }),
  fields: (t) => ({ databaseId: t.exposeInt('id'), name: t.exposeString('name') }),
});
builder.prismaObject('ProspectType', {
  ...access({ scopes: ANY_SCOPE }),
  fields: (t) => ({ databaseId: t.exposeInt('id'), code: t.exposeString('code'), name: t.exposeString('name') }),
});

const ClientTypeEnum = builder.enumType('ClientType', { values: ['individual', 'corporate'] as const });

/** Clients: keys that read, manage the CRM or bind; agents only the clients within their reach (clientVisibility). */
builder.prismaNode('Client', {
  ...nodeAccess<{ id: number }>(
    { scopes: ['read', 'crm', 'bind'], reach: { via: clientReach, id: (c) => c.id } },
    clientReach,
  ),
  id: { field: 'id' },
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    clientNo: t.exposeString('clientNo'),
    type: t.exposeString('type'),
    name: t.exposeString('name'),
    idNo: t.exposeString('idNo', { nullable: true }),
    kraPin: t.exposeString('kraPin', { nullable: true }),
    phone: t.exposeString('phone', { description: 'Normalised: 2547XXXXXXXX or 2541XXXXXXXX.' }),
    email: t.exposeString('email', { nullable: true }),
    dateOfBirth: t.expose('dateOfBirth', { type: 'Date', nullable: true }),
    physicalAddress: t.exposeString('physicalAddress', { nullable: true }),
    branch: t.relation('branch', { nullable: true }),
    riskManager: t.relation('riskManager', { nullable: true }),
    salesPerson: t.relation('salesPerson', { nullable: true }),
    businessSource: t.relation('businessSource', { nullable: true }),
    prospectType: t.relation('prospectType', { nullable: true }),
    sector: t.exposeString('sector', { nullable: true }),
    altName: t.exposeString('altName', { nullable: true }),
    altPhone: t.exposeString('altPhone', { nullable: true }),
    altEmail: t.exposeString('altEmail', { nullable: true }),
    kycStatus: t.exposeString('kycStatus'),
    onboardedVia: t.exposeString('onboardedVia'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  clients: t.prismaConnection({
    type: 'Client',
    cursor: 'id',
    authScopes: { read: true },
    description:
      'Clients the caller may see, newest first. `offset` serves page-number pagination when `after` is absent.',
    args: {
      search: t.arg.string({ description: 'Name, client number, phone, ID number or tax PIN.' }),
      type: t.arg({ type: ClientTypeEnum }),
      salesPersonId: t.arg.int(),
      riskManagerId: t.arg.int(),
      offset: t.arg.int(),
    },
    resolve: (query, _root, args, ctx) => {
      const paged = args.offset && !args.after ? { ...query, skip: Math.max(0, args.offset) } : query;
      return clientService.list(ctx, args, paged);
    },
  }),
  client: t.prismaField({
    type: 'Client',
    authScopes: { read: true },
    description: 'A client by number; not_found when missing or not visible to the caller.',
    args: { clientNo: t.arg.string({ required: true }) },
    resolve: (query, _root, args, ctx) => clientService.get(ctx, args.clientNo, query),
  }),
}));
