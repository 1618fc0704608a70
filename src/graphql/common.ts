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

export interface MoneyShape {
  cents: bigint;
}

/** Money in GraphQL: cents are the truth; `amount` is whole shillings derived by the one rounding rule (src/lib/money.ts). */
export const MoneyRef = builder.objectRef<MoneyShape>('Money').implement({
  description:
    'An amount in KES. `amountMinor` (cents) is exact; `amount` is whole shillings, rounded half away from zero.',
  fields: (t) => ({
    amount: t.field({ type: 'Shillings', resolve: (m) => roundedShillings(m.cents) }),
    amountMinor: t.field({ type: 'Cents', resolve: (m) => m.cents }),
    currency: t.string({ resolve: () => 'KES' }),
  }),
});

export const money = (cents: bigint | null | undefined): MoneyShape | null => (cents == null ? null : { cents });

export const FieldErrorRef = builder.objectRef<FieldError>('FieldError').implement({
  fields: (t) => ({
    field: t.exposeString('field', { description: 'Dotted path of the offending input field.' }),
    message: t.exposeString('message'),
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
    code: t.exposeString('code'),
    status: t.exposeInt('status'),
    title: t.exposeString('title'),
    detail: t.exposeString('detail'),
    fieldErrors: t.field({ type: [FieldErrorRef], resolve: (e) => e.errors ?? [] }),
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

for (const [cls, name] of [
  [DomainRuleError, 'DomainRuleProblem'],
  [PriceChangedError, 'PriceChangedProblem'],
] as const) {
  builder.objectType(cls, { name, interfaces: [ProblemRef], ...syncTypeCheck(cls), fields: () => ({}) });
}

builder.objectType(ValidationError, {
  name: 'ValidationProblem',
  interfaces: [ProblemRef],
  ...syncTypeCheck(ValidationError),
  fields: () => ({}),
});

const DuplicateMatchRef = builder.objectRef<DuplicateMatch>('ClientMatch').implement({
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
  name: 'DuplicateClientProblem',
  interfaces: [ProblemRef],
  ...syncTypeCheck(DuplicateClientError),
  fields: (t) => ({
    matches: t.field({ type: [DuplicateMatchRef], resolve: (e) => e.matches }),
  }),
});
