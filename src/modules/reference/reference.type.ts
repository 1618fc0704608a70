import { access, ANY_SCOPE, nodeAccess } from '../../graphql/access.ts';
import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { PRODUCT_LINES, productLines, referenceService } from './reference.service.ts';
import { references } from './references.ts';

/** Reference data: every key of the organisation reads it (a quote needs insurers, a client form needs staff). */
export const InsurerRef = builder.prismaNode('Insurer', {
  select: { id: true },
  description: "An insurance company on the organisation's panel.",
  ...nodeAccess({ scopes: ANY_SCOPE }),
  id: { field: 'id' },
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer id the REST API and quote inputs use.' }),
    name: t.exposeString('name', { description: 'Short name shown to people.' }),
    legalName: t.exposeString('legalName', { description: 'Registered company name, as on policy documents.' }),
    registryMemberId: t.exposeInt('registryMemberId', {
      description: 'Member company id at the motor certificate registry.',
    }),
    commissionRateBps: t.exposeInt('commissionRateBps', {
      description: "The organisation's commission on this insurer's premiums, in basis points (1250 = 12.5%).",
    }),
    status: t.exposeString('status', {
      description: 'active: its products are quoted and sold; any other value: they are not.',
    }),
    monogram: t.exposeString('monogram', { description: 'Short letters for an avatar or badge.' }),
  }),
});

export const BranchRef = builder.prismaNode('Branch', {
  select: { id: true },
  description: 'A branch office of the organisation.',
  ...nodeAccess({ scopes: ANY_SCOPE }),
  id: { field: 'id' },
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer id (send as branchId).' }),
    code: t.exposeString('code', { description: 'Short branch code.' }),
    name: t.exposeString('name', { description: 'Branch name.' }),
    city: t.exposeString('city', { description: 'Town or city.' }),
  }),
});

export const StaffMemberRef = builder.prismaNode('User', {
  select: { id: true },
  description: 'A user of the organisation: staff or an agent.',
  ...nodeAccess({ scopes: ANY_SCOPE }),
  name: 'StaffMember',
  id: { field: 'id' },
  fields: (t) => ({
    databaseId: t.exposeInt('id', {
      description: 'The integer id of the user (send as riskManagerId, salesPersonId, assigneeId …).',
    }),
    name: t.exposeString('name', { description: 'Full name.' }),
    email: t.exposeString('email', { description: 'Work email.' }),
    phone: t.exposeString('phone', { description: 'Phone, normalised (2547…/2541…).' }),
    role: t.exposeString('role', { description: 'admin, account_exec, agent or viewer.' }),
    code: t.exposeString('agentCode', { nullable: true, description: 'Agent code, what X-Agent-Code expects.' }),
    branchId: t.exposeInt('branchId', {
      description: "The user's branch (databaseId); null when none.",
      nullable: true,
    }),
    branch: t.field({
      type: BranchRef,
      select: { branchId: true },
      description: "The user's branch; null when none.",
      nullable: true,
      resolve: (u, _a, ctx) => references.branch(ctx, u.branchId),
    }),
  }),
});

builder.prismaNode('Levy', {
  select: { id: true },
  ...nodeAccess({ scopes: ANY_SCOPE }),
  id: { field: 'id' },
  description: "A levy or duty added to every premium, from the organisation's levy table.",
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer id of the levy.' }),
    code: t.exposeString('code', { description: 'Stable code of the levy.' }),
    name: t.exposeString('name', { description: 'Its name as printed on documents.' }),
    basis: t.exposeString('basis', {
      description: 'percent (rateBps of the basic premium) or flat (amount per policy).',
    }),
    rateBps: t.exposeInt('rateBps', {
      description: 'Percent levies: basis points of the basic premium (20 = 0.2%); null for flat levies.',
      nullable: true,
    }),
    ratePercent: t.float({
      select: { rateBps: true },
      description: 'rateBps as a percentage (0.2); null for flat levies.',
      nullable: true,
      resolve: (l) => (l.rateBps == null ? null : l.rateBps / 100),
    }),
    amount: t.field({
      select: { amountMinor: true },
      description: 'Flat levies: the amount per policy; null for percent levies.',
      type: MoneyRef,
      nullable: true,
      resolve: (l) => money(l.amountMinor),
    }),
  }),
});

builder.prismaNode('StandardProduct', {
  select: { id: true },
  description:
    'A standard (non-motor, non-medical, non-travel) product an insurer offers, such as personal accident or domestic package.',
  ...nodeAccess({ scopes: ANY_SCOPE }),
  id: { field: 'id' },
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer id of the product.' }),
    code: t.exposeString('code', { description: 'Stable product code (PA, DOMESTIC …).' }),
    name: t.exposeString('name', { description: 'Product name.' }),
    description: t.exposeString('description', { description: 'What the product covers, in plain words.' }),
    brochureUrl: t.exposeString('brochureUrl', {
      description: "Link to the insurer's brochure; null when none.",
      nullable: true,
    }),
    productLine: t.exposeString('productLine', { description: 'standard.' }),
  }),
});

const MotorBenefitRef = builder.objectRef<{ id: string; name: string }>('MotorBenefit').implement({
  description: "A benefit included in one or more of the organisation's motor products.",
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Stable hash of the benefit name; survives re-seeding.' }),
    name: t.exposeString('name', { description: "The benefit's name." }),
  }),
});

const ProductLineRef = builder.objectRef<(typeof PRODUCT_LINES)[number]>('ProductLine').implement({
  description: 'A product line the organisation sells.',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'motor, medical, travel or standard.' }),
    name: t.exposeString('name', { description: 'Name shown to people.' }),
    quoteEndpoint: t.exposeString('quoteEndpoint', { description: 'REST path that prices this line.' }),
  }),
});

const ProductsRef = builder.objectRef<object>('Products').implement({
  description: 'What the organisation sells.',
  fields: (t) => ({
    lines: t.field({
      description: 'The lines with at least one product of an active insurer.',
      type: [ProductLineRef],
      resolve: (_p, _a, ctx) => productLines(ctx),
    }),
    standardProducts: t.prismaField({
      description: "The standard products of the organisation's insurers.",
      type: ['StandardProduct'],
      resolve: (query, _p, _a, ctx) => referenceService.standardProducts(ctx, query),
    }),
  }),
});

export const BusinessSourceRef = builder.prismaObject('BusinessSource', {
  select: { id: true },
  description:
    'A channel the organisation records a client as coming through (walk-in, referral …), from its reference list.',
  ...access({ scopes: ANY_SCOPE }),
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The REST id of the business source (send as businessSourceId).' }),
    name: t.exposeString('name', { description: 'The name shown to people.' }),
  }),
});
export const ProspectTypeRef = builder.prismaObject('ProspectType', {
  select: { id: true },
  description: 'A kind of prospect or client the organisation tracks, from its reference list.',
  ...access({ scopes: ANY_SCOPE }),
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The REST id (send as prospectTypeId).' }),
    code: t.exposeString('code', { description: 'Short stable code.' }),
    name: t.exposeString('name', { description: 'The name shown to people.' }),
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
  branches: t.prismaField({
    description: "The organisation's branches.",
    type: ['Branch'],
    authScopes: { read: true },
    resolve: (query, _root, _args, ctx) => referenceService.branches(ctx, query),
  }),
  businessSources: t.prismaField({
    description:
      "The organisation's business sources (the channels a client comes through), by name: a client's businessSourceId.",
    type: ['BusinessSource'],
    authScopes: { read: true },
    resolve: (query, _root, _args, ctx) => referenceService.businessSources(ctx, query),
  }),
  prospectTypes: t.prismaField({
    description: "The organisation's prospect types, by name: a client's prospectTypeId.",
    type: ['ProspectType'],
    authScopes: { read: true },
    resolve: (query, _root, _args, ctx) => referenceService.prospectTypes(ctx, query),
  }),
  riskManagers: t.prismaField({
    description: "The organisation's account executives (users who may be a client's risk manager).",
    type: ['User'],
    authScopes: { read: true },
    resolve: (query, _root, _args, ctx) => referenceService.staff(ctx, 'risk_managers', query),
  }),
  salesPeople: t.prismaField({
    description: "The organisation's sales people (agents who may be credited with a client or policy).",
    type: ['User'],
    authScopes: { read: true },
    resolve: (query, _root, _args, ctx) => referenceService.staff(ctx, 'sales_people', query),
  }),
  levies: t.prismaField({
    description: 'The levies and duties added to every premium.',
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
  products: t.field({
    description:
      "What the organisation sells: the product lines it has active insurers' products for, and its standard products.",
    type: ProductsRef,
    authScopes: { read: true },
    resolve: () => ({}),
  }),
}));
