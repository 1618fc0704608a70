import {
  AppError,
  DomainRuleError,
  DuplicateClientError,
  PriceChangedError,
  type DuplicateMatch,
  type FieldError,
  ValidationError,
  InvalidStateError,
  PreviewStaleError,
  PreviewExpiredError,
} from '../lib/problem.ts';
import { roundedShillings } from '../lib/money.ts';
import { builder } from './builder.ts';

/**
 * A Money value: its fields read as properties (`amount` rounded when read), so the Money type's fields have no
 * resolvers and graphql-jit reads them inline rather than calling a resolver for each (a policy's record holds a
 * hundred amounts; issue 28).
 */
class MoneyValue {
  constructor(readonly cents: bigint) {}
  get amount(): bigint {
    return roundedShillings(this.cents);
  }
  get amountMinor(): bigint {
    return this.cents;
  }
  get currency(): 'KES' {
    return 'KES';
  }
}

/** Money in GraphQL: cents are the truth; `amount` is whole shillings derived by the one rounding rule (src/lib/money.ts). */
export const MoneyRef = builder.objectRef<MoneyValue>('Money').implement({
  description:
    'An amount in KES. `amountMinor` (cents) is exact; `amount` is whole shillings, rounded half away from zero.',
  fields: (t) => ({
    amount: t.expose('amount', {
      description:
        'Whole shillings, rounded half away from zero from amountMinor; for display. Sums of rounded amounts may differ from the rounded sum: add amountMinor.',
      type: 'Shillings',
    }),
    amountMinor: t.expose('amountMinor', {
      description: 'The exact amount in cents (1/100 KES), a JSON integer: the value to compute with.',
      type: 'Cents',
    }),
    currency: t.exposeString('currency', { description: 'Always KES.' }),
  }),
});

/** What a Money field resolves to: made by `money`. */
export type MoneyShape = MoneyValue;

export const money = (cents: bigint | null | undefined): MoneyValue | null =>
  cents == null ? null : new MoneyValue(cents);

export const FieldErrorRef = builder.objectRef<FieldError>('FieldError').implement({
  description:
    "One refused input field of a ValidationProblem (or of a 422 validation_failed error's extensions.errors).",
  fields: (t) => ({
    field: t.exposeString('field', {
      description:
        "Dotted path of the offending field from the operation's argument, in GraphQL spelling (`input.vehicle.regNo`, `input.scopes.0`); a refusal about no input field in particular names what it is about (`otp`).",
    }),
    message: t.exposeString('message', {
      description: 'Plain words for a person (e.g. "must be at least 1"): show it, never parse it; use code to branch.',
    }),
    code: t.string({
      nullable: true,
      description:
        'What kind of refusal, when the value was refused for its shape or bounds (required, not_one_of, too_large …); ' +
        'null for a rule worded in its own terms.',
      resolve: (e) => e.code ?? null,
    }),
  }),
});

/** Every typed failure result carries the same `code` and `status` the REST problem document shows. */
/**
 * The `isTypeOf` of a problem type: a synchronous `instanceof` that needs no context. The extension tells the REST
 * facade's compiler (rest-compat/executor.ts jitSafe) that graphql-jit, which calls `isTypeOf` with the value alone
 * and does not await it, may run operations that reach this type.
 */
export function syncTypeCheck(cls: abstract new (...args: never[]) => unknown) {
  return { isTypeOf: (v: unknown) => v instanceof cls, extensions: { syncIsTypeOf: true } };
}

export const ProblemRef = builder.interfaceRef<AppError>('Problem').implement({
  description: 'An expected failure, mirroring the RFC 9457 problem document of the REST API.',
  fields: (t) => ({
    code: t.exposeString('code', {
      description:
        'Stable machine code of the REST problem catalogue (validation_failed, invalid_state, duplicate_client …): branch on this.',
    }),
    status: t.exposeInt('status', {
      description: 'The HTTP status the REST facade answers for the same failure (409, 422 …).',
    }),
    title: t.exposeString('title', {
      description: 'Short summary of the kind of failure, the same for every occurrence of the code.',
    }),
    detail: t.exposeString('detail', {
      description: 'What went wrong in this occurrence, in plain words for a person; never parse it.',
    }),
    fieldErrors: t.field({
      description:
        'The refused input fields, each with its path and (for a refusal of shape or bounds) a code; empty when the failure is not about one field.',
      type: [FieldErrorRef],
      resolve: (e) => e.errors ?? [],
    }),
  }),
});

const extraList = (e: AppError, key: string): string[] | null => {
  const v = e.extra?.[key];
  return Array.isArray(v) ? v.map(String) : null;
};

builder.objectType(InvalidStateError, {
  name: 'InvalidStateProblem',
  description: "invalid_state (409): the record's state does not allow this.",
  interfaces: [ProblemRef],
  ...syncTypeCheck(InvalidStateError),
  fields: (t) => ({
    allowed: t.stringList({
      nullable: true,
      description: "The states the record's state machine allows from its current state, where one refused the move.",
      resolve: (e) => extraList(e, 'allowed'),
    }),
    missingDocuments: t.stringList({
      nullable: true,
      description: 'Claims: the required documents still pending (a claim leaves documents_pending only without any).',
      resolve: (e) => extraList(e, 'missing_documents'),
    }),
  }),
});

for (const [cls, name, description] of [
  [
    PreviewStaleError,
    'PreviewStaleProblem',
    'preview_stale (409): the policy changed since this was priced; price it again.',
  ],
  [
    PreviewExpiredError,
    'PreviewExpiredProblem',
    'preview_expired (409): the preview is past its validity; price it again.',
  ],
] as const) {
  builder.objectType(cls, {
    name,
    description,
    interfaces: [ProblemRef],
    ...syncTypeCheck(cls),
    fields: () => ({}),
  });
}

for (const [cls, name, description] of [
  [
    DomainRuleError,
    'DomainRuleProblem',
    'domain_rule (422): a business rule refuses the call (cover starting too far ahead, a risk the insurer will not take); detail says which.',
  ],
  [
    PriceChangedError,
    'PriceChangedProblem',
    "price_changed (409): the insurer's rates changed since the price the caller saw; quote again and resend.",
  ],
] as const) {
  builder.objectType(cls, { name, description, interfaces: [ProblemRef], ...syncTypeCheck(cls), fields: () => ({}) });
}

builder.objectType(ValidationError, {
  description:
    'validation_failed (422): input fields were refused; fieldErrors lists each with its path and code. Nothing was written.',
  name: 'ValidationProblem',
  interfaces: [ProblemRef],
  ...syncTypeCheck(ValidationError),
  fields: () => ({}),
});

const DuplicateMatchRef = builder.objectRef<DuplicateMatch>('ClientMatch').implement({
  description: 'One existing client (or prospect) that a new or changed record matches by phone, ID number or tax PIN.',
  fields: (t) => ({
    clientNo: t.exposeString('clientNo', {
      nullable: true,
      description: 'Null when the caller may not see that client.',
    }),
    name: t.exposeString('name', { nullable: true, description: 'Null when the caller may not see that client.' }),
    matched: t.exposeStringList('matched', { description: 'Which identifiers matched: phone, id_no, kra_pin.' }),
    redacted: t.exposeBoolean('redacted', {
      description: 'True when the caller may not see that client: clientNo and name are then null.',
    }),
    kind: t.string({
      description: 'client, or prospect (only prospect checks match prospects).',
      resolve: (m) => m.kind ?? 'client',
    }),
    prospectNo: t.string({
      nullable: true,
      description: "A matching prospect's number; null for a client or a prospect the caller may not see.",
      resolve: (m) => m.prospectNo ?? null,
    }),
  }),
});

builder.objectType(DuplicateClientError, {
  description:
    'duplicate_client (409): the client matches existing clients; link one by its number or send force: true to save anyway.',
  name: 'DuplicateClientProblem',
  interfaces: [ProblemRef],
  ...syncTypeCheck(DuplicateClientError),
  fields: (t) => ({
    matches: t.field({
      description: "Each matching record; those out of the caller's reach are redacted.",
      type: [DuplicateMatchRef],
      resolve: (e) => e.matches,
    }),
  }),
});

/**
 * A list's Prisma query with `offset` applied (page-number pagination, used only when `after` is absent, as each
 * list's `offset` argument says). A negative offset is refused, naming the argument, rather than read as 0.
 */
export function offsetQuery<Q extends object>(
  query: Q,
  args: { offset?: number | null; after?: string | null },
): Q | (Q & { skip: number }) {
  if (args.offset != null && args.offset < 0)
    throw new ValidationError([{ field: 'offset', code: 'too_small', message: 'must be at least 0' }]);
  return args.offset && !args.after ? { ...query, skip: args.offset } : query;
}
