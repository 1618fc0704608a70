import { ANY_SCOPE, nodeAccess } from '../../graphql/access.ts';
import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { PRODUCT_LINES, productLines, referenceService } from './reference.service.ts';

/** Reference data: every key of the organisation reads it (a quote needs insurers, a client form needs staff). */
builder.prismaNode('Insurer', {
  ...nodeAccess({ scopes: ANY_SCOPE }),
  id: { field: 'id' },
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer id the REST API and quote inputs use.' }),
    name: t.exposeString('name'),
    legalName: t.exposeString('legalName'),
    registryMemberId: t.exposeInt('registryMemberId', {
      description: 'Member company id at the motor certificate registry.',
    }),
    commissionRateBps: t.exposeInt('commissionRateBps'),
    status: t.exposeString('status'),
    monogram: t.exposeString('monogram'),
  }),
});

builder.prismaNode('Branch', {
  ...nodeAccess({ scopes: ANY_SCOPE }),
  id: { field: 'id' },
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    code: t.exposeString('code'),
    name: t.exposeString('name'),
    city: t.exposeString('city'),
  }),
});

builder.prismaNode('User', {
  ...nodeAccess({ scopes: ANY_SCOPE }),
  name: 'StaffMember',
  id: { field: 'id' },
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    name: t.exposeString('name'),
    email: t.exposeString('email'),
    phone: t.exposeString('phone'),
    role: t.exposeString('role'),
    code: t.exposeString('agentCode', { nullable: true, description: 'Agent code, what X-Agent-Code expects.' }),
    branchId: t.exposeInt('branchId', { nullable: true }),
    branch: t.relation('branch', { nullable: true }),
  }),
});

builder.prismaNode('Levy', {
  ...nodeAccess({ scopes: ANY_SCOPE }),
  id: { field: 'id' },
  description: "A levy or duty added to every premium, from the organisation's levy table.",
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    code: t.exposeString('code'),
    name: t.exposeString('name'),
    basis: t.exposeString('basis'),
    rateBps: t.exposeInt('rateBps', { nullable: true }),
    ratePercent: t.float({ nullable: true, resolve: (l) => (l.rateBps == null ? null : l.rateBps / 100) }),
    amount: t.field({ type: MoneyRef, nullable: true, resolve: (l) => money(l.amountMinor) }),
  }),
});

builder.prismaNode('StandardProduct', {
  ...nodeAccess({ scopes: ANY_SCOPE }),
  id: { field: 'id' },
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    code: t.exposeString('code'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    brochureUrl: t.exposeString('brochureUrl', { nullable: true }),
    productLine: t.exposeString('productLine'),
  }),
});

const MotorBenefitRef = builder.objectRef<{ id: string; name: string }>('MotorBenefit').implement({
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Stable hash of the benefit name; survives re-seeding.' }),
    name: t.exposeString('name'),
  }),
});

const ProductLineRef = builder.objectRef<(typeof PRODUCT_LINES)[number]>('ProductLine').implement({
  fields: (t) => ({
    code: t.exposeString('code'),
    name: t.exposeString('name'),
    quoteEndpoint: t.exposeString('quoteEndpoint', { description: 'REST path that prices this line.' }),
  }),
});

const ProductsRef = builder.objectRef<object>('Products').implement({
  fields: (t) => ({
    lines: t.field({ type: [ProductLineRef], resolve: (_p, _a, ctx) => productLines(ctx) }),
    standardProducts: t.prismaField({
      type: ['StandardProduct'],
      resolve: (query, _p, _a, ctx) => referenceService.standardProducts(ctx, query),
    }),
  }),
});

builder.queryFields((t) => ({
  insurers: t.prismaField({
    type: ['Insurer'],
    authScopes: { read: true },
    description: "The insurers on the organisation's panel. `search` matches short or legal name, case-insensitively.",
    args: { search: t.arg.string({ description: 'Part of the short or legal name, any case.', required: false }) },
    resolve: (query, _root, args, ctx) => referenceService.insurers(ctx, args.search, query),
  }),
  branches: t.prismaField({ description: 'The organisation\'s branches.',
    type: ['Branch'],
    authScopes: { read: true },
    resolve: (query, _root, _args, ctx) => referenceService.branches(ctx, query),
  }),
  riskManagers: t.prismaField({ description: 'The organisation\'s account executives (users who may be a client\'s risk manager).',
    type: ['User'],
    authScopes: { read: true },
    resolve: (query, _root, _args, ctx) => referenceService.staff(ctx, 'risk_managers', query),
  }),
  salesPeople: t.prismaField({ description: 'The organisation\'s sales people (agents who may be credited with a client or policy).',
    type: ['User'],
    authScopes: { read: true },
    resolve: (query, _root, _args, ctx) => referenceService.staff(ctx, 'sales_people', query),
  }),
  levies: t.prismaField({
    type: ['Levy'],
    authScopes: { read: true },
    resolve: (query, _root, _args, ctx) => referenceService.levies(ctx, query),
  }),
  motorBenefits: t.field({
    type: [MotorBenefitRef],
    authScopes: { read: true },
    description: "Distinct benefit names across the organisation's motor products.",
    resolve: (_root, _args, ctx) => referenceService.motorBenefits(ctx),
  }),
  products: t.field({ description: 'What the organisation sells: motor classes and covers, and the medical, travel and standard products of its insurers.',
    type: ProductsRef,
    authScopes: { read: true },
    resolve: () => ({}),
  }),
}));
