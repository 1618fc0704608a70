import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { policyService } from './policy.service.ts';
import { onePolicy } from '../access/policy.visibility.ts';

const PolicyStatusEnum = builder.enumType('PolicyStatus', {
  values: ['pending_payment', 'active', 'cancelled', 'expired', 'lapsed', 'renewed', 'not_taken_up'] as const,
});

builder.prismaObject('PolicyVehicle', {
  ...onePolicy,
  fields: (t) => ({
    regNo: t.exposeString('regNo', { description: 'Normalised: no spaces, upper case.' }),
    chassisNo: t.exposeString('chassisNo', { nullable: true }),
    engineNo: t.exposeString('engineNo', { nullable: true }),
    make: t.exposeString('make', { nullable: true }),
    model: t.exposeString('model', { nullable: true }),
    yearOfManufacture: t.exposeInt('yearOfManufacture'),
    value: t.field({ type: MoneyRef, nullable: true, resolve: (v) => money(v.valueMinor) }),
    bodyType: t.exposeString('bodyType', { nullable: true }),
    coverage: t.exposeString('coverage', { nullable: true }),
  }),
});

builder.prismaObject('PolicyTax', {
  ...onePolicy,
  description: 'One levy or duty line of the premium.',
  fields: (t) => ({
    code: t.exposeString('code'),
    name: t.exposeString('name'),
    amount: t.field({ type: MoneyRef, resolve: (x) => money(x.amountMinor)! }),
  }),
});

builder.prismaObjectFields('DebitNote', (t) => ({
  outstanding: t.field({
    type: MoneyRef,
    description: 'amount − paid − credited (settled by a credit note), never below zero.',
    select: { amountMinor: true, paidMinor: true, creditedMinor: true },
    resolve: (d) => {
      const open = d.amountMinor - d.paidMinor - d.creditedMinor;
      return money(open > 0n ? open : 0n)!;
    },
  }),
  allocations: t.relation('allocations', { query: { orderBy: { id: 'asc' } } }),
}));

// Relations (not plain resolvers) so Pothos folds them into the parent's Prisma query: no query per policy.
builder.prismaObjectFields('Policy', (t) => ({
  vehicles: t.relation('vehicles', { query: { orderBy: { id: 'asc' } } }),
  levies: t.relation('taxes', {
    description: 'The levy and duty lines that make up `taxes`.',
    query: { orderBy: { id: 'asc' } },
  }),
  receipts: t.relation('receipts', {
    description: 'Receipts raised for this policy, with their allocations.',
    query: { orderBy: { id: 'asc' } },
  }),
  salesPerson: t.relation('salesPerson', { nullable: true }),
}));

builder.prismaObject('PolicyStatusChange', {
  ...onePolicy,
  description: 'One transition of the policy state machine.',
  fields: (t) => ({
    fromStatus: t.exposeString('fromStatus', { nullable: true, description: 'Null for the first row (bind)' }),
    toStatus: t.exposeString('toStatus'),
    source: t.exposeString('source', { description: 'bind, payment, schedule, api, renewal or reinstatement' }),
    reason: t.exposeString('reason', { nullable: true }),
    at: t.expose('at', { type: 'DateTime' }),
  }),
});

builder.prismaObjectFields('Policy', (t) => ({
  statusHistory: t.relation('statusHistory', {
    description: 'Every status the policy has had, oldest first.',
    query: { orderBy: { id: 'asc' } },
  }),
  renewalOf: t.relation('renewalOf', { nullable: true, description: 'The policy this one renews.' }),
  renewal: t.relation('renewal', { nullable: true, description: 'The policy that renews this one, once bound.' }),
}));

const PolicyStatusCountRef = builder
  .objectRef<Awaited<ReturnType<typeof policyService.counts>>[number]>('PolicyStatusCount')
  .implement({
    fields: (t) => ({ status: t.expose('status', { type: PolicyStatusEnum }), count: t.exposeInt('count') }),
  });

builder.queryFields((t) => ({
  policyCounts: t.field({
    type: [PolicyStatusCountRef],
    authScopes: { read: true },
    description: 'How many policies the caller may see are in each state (states with none are left out).',
    resolve: (_root, _args, ctx) => policyService.counts(ctx),
  }),
  policies: t.prismaConnection({
    type: 'Policy',
    cursor: 'id',
    authScopes: { read: true },
    description:
      'Policies the caller may see, newest first. `offset` serves page-number pagination when `after` is absent.',
    args: {
      status: t.arg({ type: PolicyStatusEnum }),
      clientNo: t.arg.string(),
      productLine: t.arg.string(),
      insurerId: t.arg.int(),
      salesPersonId: t.arg.int(),
      startFrom: t.arg.string({ description: 'Start date on or after (Y-m-d).' }),
      startTo: t.arg.string({ description: 'Start date on or before (Y-m-d).' }),
      search: t.arg.string({ description: 'Policy number or vehicle registration (any spacing).' }),
      offset: t.arg.int(),
    },
    resolve: (query, _root, args, ctx) => {
      const paged = args.offset && !args.after ? { ...query, skip: Math.max(0, args.offset) } : query;
      return policyService.list(ctx, args, paged);
    },
  }),
  policy: t.prismaField({
    type: 'Policy',
    authScopes: { read: true },
    description: 'A policy by UUID; not_found when missing or not visible to the caller.',
    args: { uuid: t.arg.string({ required: true }) },
    resolve: (query, _root, args, ctx) => policyService.get(ctx, args.uuid, query),
  }),
}));
