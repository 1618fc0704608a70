import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef, ProblemRef, syncTypeCheck } from '../../graphql/common.ts';
import { DomainRuleError, DuplicateClientError, PriceChangedError, ValidationError } from '../../lib/problem.ts';
import { InsuredInputRef } from '../clients/insured.input.ts';
import { NoQuoteError } from './quote.service.ts';
import { PremiumMismatchError, saveQuoteService } from './save-quote.service.ts';

const ServerFigures = builder.objectRef<PremiumMismatchError['server'][number]>('ServerPremium').implement({
  description: "The server's price for one insurer, as a premium_mismatch shows it.",
  fields: (t) => ({
    insurerId: t.exposeInt('insurerId', { description: 'The insurer (databaseId).' }),
    basicPremium: t.field({
      description: 'Premium before levies and duties.',
      type: MoneyRef,
      resolve: (s) => money(s.basicMinor)!,
    }),
    taxes: t.field({ description: 'Levies and duties.', type: MoneyRef, resolve: (s) => money(s.taxesMinor)! }),
    total: t.field({ description: 'What the client would pay.', type: MoneyRef, resolve: (s) => money(s.totalMinor)! }),
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
  description: "The figures the caller showed the client for one insurer, checked against the server's price.",
  fields: (t) => ({
    insurerId: t.int({ description: 'The insurer (databaseId) these figures are for.', required: true }),
    rate: t.float({ description: 'Rate in percent, as shown; informational.' }),
    basic: t.float({ description: 'Whole shillings' }),
    taxes: t.float({ description: 'Whole shillings' }),
    total: t.float({ description: 'Whole shillings' }),
    benefits: t.field({
      description: "Benefits as shown (informational; the server's product decides what is included).",
      type: 'JSON',
    }),
  }),
});

const SaveQuoteVehicleInput = builder.inputType('SaveQuoteVehicleInput', {
  description: 'The vehicle and cover of a motor quote to save.',
  fields: (t) => ({
    regNo: t.string({ description: 'Registration, any spacing; stored upper case without spaces.' }),
    make: t.string({ description: 'Vehicle make.' }),
    model: t.string({ description: 'Vehicle model.' }),
    class: t.string({ description: 'Motor (default), Tuktuk, Motorcycle' }),
    coverage: t.string({ description: 'Private (default), a commercial class or a PSV class.' }),
    scope: t.string({ description: 'Comprehensive or TPO (or "third party only").', required: true }),
    coverPeriod: t.string({ description: 'annual (default) or tor.' }),
    days: t.int({ description: 'Time on risk, 1–364 (with coverPeriod tor).' }),
    year: t.int({ description: 'Year of manufacture.', required: true }),
    value: t.float({ description: 'Whole shillings; required for comprehensive.' }),
    tonnage: t.float({ description: 'Commercial vehicles: tonnage.' }),
    pll: t.int({ description: 'Passengers covered for passenger legal liability.' }),
    startDate: t.string({ description: 'Y-m-d; a past date starts today.' }),
  }),
});

type SavedQuote = Awaited<ReturnType<typeof saveQuoteService.save>>;
const SavedQuoteOption = builder.objectRef<SavedQuote['options'][number]>('SavedQuoteOption').implement({
  description: "One insurer's option stored with a saved quote.",
  fields: (t) => ({
    optionId: t.exposeInt('optionId', { description: "The stored option's id." }),
    insurerId: t.exposeInt('insurerId', { description: 'The insurer (databaseId).' }),
    insurerName: t.exposeString('insurerName', { description: "The insurer's short name." }),
    rate: t.float({
      description: 'Rate on the vehicle value in percent; null for a flat premium.',
      nullable: true,
      resolve: (o) => (o.rateBps == null ? null : o.rateBps / 100),
    }),
    total: t.field({
      description: 'What the client pays with this insurer.',
      type: MoneyRef,
      resolve: (o) => money(o.totalMinor)!,
    }),
  }),
});
export const SavedQuoteRef = builder.objectRef<SavedQuote>('SavedQuote').implement({
  description: "A stored quote: the client, and one option per insurer at the server's price, valid 14 days.",
  fields: (t) => ({
    databaseId: t.int({ description: 'The integer id of the quote.', resolve: (q) => q.quote.id }),
    uuid: t.string({ description: "The quote's UUID.", resolve: (q) => q.quote.uuid }),
    quoteNo: t.string({ description: 'The quote number, Q-<year>-<sequence>.', resolve: (q) => q.quote.quoteNo }),
    clientNo: t.exposeString('clientNo', { description: 'The client the quote is for (matched or added).' }),
    validUntil: t.exposeString('validUntil', { description: 'Y-m-d, 14 days after saving' }),
    status: t.string({
      description: 'presented when saved, accepted once bound, expired after validUntil.',
      resolve: (q) => q.quote.status,
    }),
    productLine: t.string({ description: 'motor, medical, travel or standard.', resolve: (q) => q.quote.productLine }),
    options: t.field({
      description: 'One per insurer that rates the risk.',
      type: [SavedQuoteOption],
      resolve: (q) => q.options,
    }),
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
      client: t.arg({
        description: 'The client the quote is for: an existing one by clientNo, or the details of one to match or add.',
        type: InsuredInputRef,
        required: true,
      }),
      vehicle: t.arg({ description: 'The vehicle and cover to price.', type: SaveQuoteVehicleInput, required: true }),
      quotes: t.arg({
        description:
          "The figures the caller was shown, per insurer; each must be within KES 1 of the server's price (premium_mismatch otherwise).",
        type: [QuotedFiguresInput],
      }),
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
