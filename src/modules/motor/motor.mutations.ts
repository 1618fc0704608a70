import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef, ProblemRef, syncTypeCheck } from '../../graphql/common.ts';
import { DomainRuleError, DuplicateClientError, PriceChangedError, ValidationError } from '../../lib/problem.ts';
import { InsuredInputRef } from '../clients/insured.input.ts';
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
  description:
    "premium_mismatch (422): the premium sent differs from what the server prices today; server lists the server's figures per insurer.",
  name: 'PremiumMismatchProblem',
  interfaces: [ProblemRef],
  ...syncTypeCheck(PremiumMismatchError),
  fields: (t) => ({
    server: t.field({ type: [ServerFigures], description: "The server's figures.", resolve: (e) => e.server }),
  }),
});

export const QuotedFiguresInput = builder.inputType('QuotedFiguresInput', {
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
export const SavedQuoteRef = builder.objectRef<SavedQuote>('SavedQuote').implement({
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

/** The typed problems of a save or a bind (the bind mutation lives in src/modules/policies/bind.mutations.ts). */
export const saveOrBindProblems = [
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
    errors: { types: saveOrBindProblems, directResult: true, union: { name: 'SaveMotorQuoteResult' } },
    description: "Matches or creates the client and stores the quote with every insurer's option (valid 14 days).",
    args: {
      client: t.arg({ description: 'The client the quote is for: an existing one by clientNo, or the details of one to match or add.', type: InsuredInputRef, required: true }),
      vehicle: t.arg({ description: 'The vehicle and cover to price.', type: SaveQuoteVehicleInput, required: true }),
      quotes: t.arg({ description: 'The figures the caller was shown, per insurer; each must be within KES 1 of the server\'s price (premium_mismatch otherwise).', type: [QuotedFiguresInput] }),
      prospectUuid: t.arg.string({ description: 'The prospect this quote is for: it moves to quoted' }),
    },
    resolve: (_r, args, ctx) =>
      saveQuoteService.save(ctx, {
        client: args.client,
        vehicle: { ...args.vehicle, class: args.vehicle.class ?? 'Motor' },
        quotes: args.quotes,
        prospectUuid: args.prospectUuid,
      }),
  }),
}));
