import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef, ProblemRef } from '../../graphql/common.ts';
import { DuplicateClientError, ValidationError } from '../../lib/problem.ts';
import { bindService, DomainRuleError, PriceChangedError } from './bind.service.ts';
import { NoQuoteError } from './quote.service.ts';
import { PremiumMismatchError, saveQuoteService } from './save-quote.service.ts';

const ServerFigures = builder.objectRef<PremiumMismatchError['server'][number]>('ServerPremium').implement({
  fields: (t) => ({
    insurerId: t.exposeInt('insurerId'),
    basicPremium: t.field({ type: MoneyRef, resolve: (s) => money(s.basicMinor)! }),
    taxes: t.field({ type: MoneyRef, resolve: (s) => money(s.taxesMinor)! }),
    total: t.field({ type: MoneyRef, resolve: (s) => money(s.totalMinor)! }),
  }),
});

builder.objectType(PremiumMismatchError, {
  name: 'PremiumMismatchProblem',
  interfaces: [ProblemRef],
  isTypeOf: (v) => v instanceof PremiumMismatchError,
  fields: (t) => ({
    server: t.field({ type: [ServerFigures], description: "The server's figures.", resolve: (e) => e.server }),
  }),
});
for (const [cls, name] of [
  [DomainRuleError, 'DomainRuleProblem'],
  [PriceChangedError, 'PriceChangedProblem'],
] as const) {
  builder.objectType(cls, { name, interfaces: [ProblemRef], isTypeOf: (v) => v instanceof cls, fields: () => ({}) });
}

const InsuredInput = builder.inputType('InsuredInput', {
  fields: (t) => ({
    name: t.string(),
    phone: t.string({ description: 'Kenyan mobile, any format' }),
    email: t.string(),
    idNo: t.string(),
    kraPin: t.string(),
    riskManagerId: t.int(),
    branchId: t.int(),
    salesPersonId: t.int(),
    agentCode: t.string({ description: 'Instead of salesPersonId' }),
    clientNo: t.string({ description: 'Link an existing client the caller can see' }),
    force: t.boolean({ description: 'Add a new client despite duplicate_client matches' }),
    type: t.string(),
  }),
});

const QuotedFiguresInput = builder.inputType('QuotedFiguresInput', {
  fields: (t) => ({
    insurerId: t.int({ required: true }),
    rate: t.float(),
    basic: t.float({ description: 'Whole shillings' }),
    taxes: t.float({ description: 'Whole shillings' }),
    total: t.float({ description: 'Whole shillings' }),
    benefits: t.field({ type: 'JSON' }),
  }),
});

const SaveQuoteVehicleInput = builder.inputType('SaveQuoteVehicleInput', {
  fields: (t) => ({
    regNo: t.string(),
    make: t.string(),
    model: t.string(),
    class: t.string({ description: 'Motor (default), Tuktuk, Motorcycle' }),
    coverage: t.string(),
    scope: t.string({ required: true }),
    coverPeriod: t.string(),
    days: t.int(),
    year: t.int({ required: true }),
    value: t.float(),
    tonnage: t.float(),
    pll: t.int(),
    startDate: t.string(),
  }),
});

type SavedQuote = Awaited<ReturnType<typeof saveQuoteService.save>>;
const SavedQuoteOption = builder.objectRef<SavedQuote['options'][number]>('SavedQuoteOption').implement({
  fields: (t) => ({
    optionId: t.exposeInt('optionId'),
    insurerId: t.exposeInt('insurerId'),
    insurerName: t.exposeString('insurerName'),
    rate: t.float({ nullable: true, resolve: (o) => (o.rateBps == null ? null : o.rateBps / 100) }),
    total: t.field({ type: MoneyRef, resolve: (o) => money(o.totalMinor)! }),
  }),
});
const SavedQuoteRef = builder.objectRef<SavedQuote>('SavedQuote').implement({
  fields: (t) => ({
    databaseId: t.int({ resolve: (q) => q.quote.id }),
    uuid: t.string({ resolve: (q) => q.quote.uuid }),
    quoteNo: t.string({ resolve: (q) => q.quote.quoteNo }),
    clientNo: t.exposeString('clientNo'),
    validUntil: t.exposeString('validUntil', { description: 'Y-m-d, 14 days after saving' }),
    status: t.string({ resolve: (q) => q.quote.status }),
    productLine: t.string({ resolve: (q) => q.quote.productLine }),
    options: t.field({ type: [SavedQuoteOption], resolve: (q) => q.options }),
  }),
});

const BindVehicleInput = builder.inputType('BindVehicleInput', {
  fields: (t) => ({
    regNo: t.string({ required: true }),
    chassisNo: t.string({ description: 'Needed for the registry certificate' }),
    engineNo: t.string(),
    make: t.string(),
    model: t.string(),
    yom: t.int({ required: true }),
    value: t.float(),
    coverage: t.string(),
    bodyType: t.string(),
    tonnage: t.float(),
    pll: t.int(),
    basicPremium: t.float(),
    rate: t.float(),
    benefits: t.field({ type: 'JSON' }),
  }),
});

const BindPolicyInput = builder.inputType('BindPolicyInput', {
  fields: (t) => ({
    startDate: t.string({ required: true }),
    endDate: t.string(),
    insurerId: t.int({ required: true }),
    class: t.string({ required: true }),
    coverage: t.string(),
    scope: t.string({ required: true }),
    coverPeriod: t.string(),
    days: t.int(),
    totalBasic: t.float(),
    taxes: t.float(),
    premium: t.float({
      required: true,
      description: 'Gross premium, whole shillings; within KES 1 of the server price',
    }),
    premiumInstalments: t.int(),
    paymentMode: t.string({ description: 'full (default) or ipf' }),
    limitsOfLiability: t.field({ type: 'JSON' }),
    productVersion: t.int({ description: 'Rating version priced on; a newer one answers price_changed' }),
  }),
});

type Bound = Awaited<ReturnType<typeof bindService.bind>>;
const BoundPolicyRef = builder.objectRef<Bound>('BoundPolicy').implement({
  fields: (t) => ({
    policy: t.prismaField({
      type: 'Policy',
      resolve: (query, b, _a, ctx) =>
        ctx.tx((tx) => tx.policy.findUniqueOrThrow({ ...query, where: { id: b.policy.id } })),
    }),
    clientNo: t.exposeString('clientNo'),
    clientKey: t.exposeString('clientKey', {
      nullable: true,
      description: 'Issued only when the client had no client-area key; shown once',
    }),
    portalNote: t.string({
      nullable: true,
      resolve: (b) => (b.clientKey ? null : 'The client already has client-area credentials; they keep working.'),
    }),
  }),
});

const problems = [
  ValidationError,
  DuplicateClientError,
  PremiumMismatchError,
  NoQuoteError,
  DomainRuleError,
  PriceChangedError,
];

builder.mutationFields((t) => ({
  saveMotorQuote: t.field({
    type: SavedQuoteRef,
    authScopes: { $any: { quote: true, bind: true } },
    errors: { types: problems, directResult: true, union: { name: 'SaveMotorQuoteResult' } },
    description: "Matches or creates the client and stores the quote with every insurer's option (valid 14 days).",
    args: {
      client: t.arg({ type: InsuredInput, required: true }),
      vehicle: t.arg({ type: SaveQuoteVehicleInput, required: true }),
      quotes: t.arg({ type: [QuotedFiguresInput] }),
    },
    resolve: (_r, args, ctx) =>
      saveQuoteService.save(ctx, {
        client: args.client,
        vehicle: { ...args.vehicle, class: args.vehicle.class ?? 'Motor' },
        quotes: args.quotes,
      }),
  }),
  bindMotorPolicy: t.field({
    type: BoundPolicyRef,
    authScopes: { bind: true },
    errors: { types: problems, directResult: true, union: { name: 'BindMotorPolicyResult' } },
    description:
      'Re-prices with the chosen insurer, matches or creates the client, and raises the policy pending payment with 1–4 debit notes.',
    args: {
      client: t.arg({ type: InsuredInput, required: true }),
      policy: t.arg({ type: BindPolicyInput, required: true }),
      vehicles: t.arg({ type: [BindVehicleInput], required: true }),
    },
    resolve: (_r, args, ctx) => bindService.bind(ctx, args),
  }),
}));
