/**
 * The one error tree. Every expected failure is an AppError with a stable `code`; REST renders it as an RFC 9457
 * problem document, GraphQL as `extensions.code` (or a typed result for business failures). Anything that is not an
 * AppError is a bug: it is logged and masked as `internal_error`.
 */
export interface FieldError {
  /** Dotted path of the offending field in the caller's own spelling, e.g. `client.phone`. */
  field: string;
  message: string;
  /**
   * What kind of refusal, when the value's shape was refused before any rule ran (`required`, `not_one_of`,
   * `not_a_whole_number` …: src/graphql/variable-errors.ts). Clients branch on this, never on `message`.
   */
  code?: string;
}

export const PROBLEM_CATALOGUE = {
  invalid_request: { status: 400, title: 'Invalid request' },
  invalid_scope: { status: 400, title: 'Requested scope is not allowed' },
  unsupported_grant_type: { status: 400, title: 'Unsupported grant type' },
  idempotency_key_required: { status: 400, title: 'Idempotency-Key header required' },
  idempotency_key_invalid: { status: 400, title: 'Idempotency-Key header invalid' },
  invalid_client: { status: 401, title: 'Client authentication failed' },
  unauthenticated: { status: 401, title: 'Authentication required' },
  invalid_token: { status: 401, title: 'Access token invalid or expired' },
  tenant_inactive: { status: 401, title: 'Organisation is not active' },
  actor_disabled: { status: 401, title: 'Acting user is disabled' },
  invalid_client_key: { status: 401, title: 'Client-area credentials rejected' },
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  actor_forbidden: { status: 403, title: 'Acting user may not perform this action' },
  agent_denied: { status: 403, title: 'Agent credentials rejected' },
  ipf_not_offered: { status: 403, title: 'Premium finance is not offered to this organisation' },
  sandbox_only: { status: 403, title: 'Only a sandbox organisation has a clock of its own' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  request_timeout: { status: 408, title: 'Request not received in time' },
  duplicate_client: { status: 409, title: 'Client already exists' },
  price_changed: { status: 409, title: 'Rates changed during the save' },
  invalid_state: { status: 409, title: "The record's state does not allow this" },
  preview_stale: { status: 409, title: 'The policy changed since this was priced' },
  preview_expired: { status: 409, title: 'This preview has expired' },
  double_insurance: { status: 409, title: 'The vehicle is already insured for these dates' },
  phone_recently_changed: { status: 409, title: 'The phone was changed recently: no code can be sent yet' },
  registry_refused: { status: 422, title: 'The certificate registry refused the request' },
  payload_too_large: { status: 413, title: 'Request body too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  headers_too_large: { status: 431, title: 'Request headers too large' },
  validation_failed: { status: 422, title: 'Validation failed' },
  idempotency_key_reused: { status: 422, title: 'Idempotency-Key reused with a different request' },
  premium_mismatch: { status: 422, title: 'Premium does not match the server price' },
  no_quote: { status: 422, title: 'No insurer rates this risk' },
  domain_rule: { status: 422, title: 'A business rule refuses the request' },
  query_too_complex: { status: 400, title: 'GraphQL query too deep or too costly' },
  rate_limited: { status: 429, title: 'Rate limit exceeded' },
  internal_error: { status: 500, title: 'Internal server error' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEM_CATALOGUE;

export interface AppErrorOptions {
  detail?: string;
  errors?: FieldError[];
  /** Extra members of the problem document (e.g. `matches`, server figures). Must be safe to show the caller. */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Overrides the catalogue status where the spec gives one code two statuses (tenant_inactive: 403 at /oauth/token). */
  status?: number;
}

export class AppError extends Error {
  readonly code: ProblemCode;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly errors?: FieldError[];
  readonly extra?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: ProblemCode, opts: AppErrorOptions = {}) {
    const entry = PROBLEM_CATALOGUE[code];
    // A refusal is an answer, not a fault: it carries no stack trace. graphql-js copies the stack of every error a
    // resolver throws into its GraphQLError, which formats it, and with Node's source maps on (NODE_OPTIONS=
    // --enable-source-maps; npm start leaves them off) formatting maps each frame through the bundle's map, decoding
    // the whole map the first time (~50 MB held for good). Faults (any other error) keep theirs.
    const message = opts.detail ?? entry.title;
    const frames = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = frames;
    }
    this.name = 'AppError';
    this.code = code;
    this.status = opts.status ?? entry.status;
    this.title = entry.title;
    this.detail = opts.detail ?? entry.title;
    this.errors = opts.errors;
    this.extra = opts.extra;
    this.headers = opts.headers;
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

/**
 * The record's state does not allow the call (409 invalid_state): a policy that is not active, a preview already
 * confirmed, a certificate not issued. One class (one GraphQL type, InvalidStateProblem) for every module.
 */
export class InvalidStateError extends AppError {
  constructor(detail: string, extra?: Record<string, unknown>) {
    super('invalid_state', { detail, extra });
  }
}

/** A two-phase preview (endorsement, cancellation, renewal quote) priced on an older policy revision (409). */
export class PreviewStaleError extends AppError {
  constructor(detail: string) {
    super('preview_stale', { detail });
  }
}

/** A business rule refuses the call (422 domain_rule): cover too far ahead, a vehicle the insurer will not take. */
export class DomainRuleError extends AppError {
  constructor(detail: string) {
    super('domain_rule', { detail });
  }
}

/** The insurer's rates changed since the price the caller saw (409 price_changed). */
export class PriceChangedError extends AppError {
  constructor(detail: string) {
    super('price_changed', { detail });
  }
}

/** A two-phase preview past its validity (409). */
export class PreviewExpiredError extends AppError {
  constructor(detail: string) {
    super('preview_expired', { detail });
  }
}

export function validationFailed(errors: FieldError[], detail?: string): AppError {
  return new ValidationError(errors, detail);
}

export function notFound(what = 'Resource'): AppError {
  return new AppError('not_found', { detail: `${what} not found` });
}

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  request_id: string;
  errors?: FieldError[];
  [extra: string]: unknown;
}

export function problemType(code: string): string {
  return `https://docs.bima-gateway.dev/problems/${code}`;
}

export function toProblemDocument(err: AppError, requestId: string, instance?: string): ProblemDocument {
  return {
    type: problemType(err.code),
    title: err.title,
    status: err.status,
    detail: err.detail,
    code: err.code,
    ...(instance ? { instance } : {}),
    request_id: requestId,
    ...(err.errors ? { errors: err.errors } : {}),
    ...(err.extra ?? {}),
  };
}

/** The detail a validation failure gets when none is given, built from its field errors. */
export function validationDetail(errors: readonly FieldError[]): string {
  return errors.length === 1 ? `${errors[0].field}: ${errors[0].message}` : `${errors.length} fields are invalid`;
}

/** Validation failures are a typed GraphQL result (ValidationProblem) as well as a 422 problem document. */
export class ValidationError extends AppError {
  constructor(errors: FieldError[], detail?: string) {
    super('validation_failed', { errors, detail: detail ?? validationDetail(errors) });
  }
}

export interface DuplicateMatch {
  clientNo: string | null;
  name: string | null;
  /** Which identifiers matched: phone, id_no, kra_pin. */
  matched: string[];
  /** True when the caller may not see that client: number and name are then null. */
  redacted: boolean;
  /** What matched: a client (the default) or a prospect (prospect checks only; docs/motor-and-clients.md "Prospects"). */
  kind?: 'client' | 'prospect';
  /** A matching prospect's number (null when redacted); absent for a client. */
  prospectNo?: string | null;
}

/** 409 duplicate_client: the request matches existing clients; resolve with an explicit client number or force. */
export class DuplicateClientError extends AppError {
  readonly matches: DuplicateMatch[];
  constructor(matches: DuplicateMatch[], detail?: string) {
    super('duplicate_client', {
      detail:
        detail ??
        `${matches.length === 1 ? 'An existing client matches' : `${matches.length} existing clients match`} this phone, ID number or tax PIN; link one with client_no or send force: true to add anyway`,
    });
    this.matches = matches;
  }
}

/**
 * The database pool had no connection to give in time (Prisma P2028, or pg's DB_POOL_WAIT_MS timeout, possibly wrapped
 * by Prisma's driver adapter): the service is overloaded, not broken and not the caller's fault. 503 with Retry-After,
 * so clients back off and retry.
 */
export function overloadError(err: unknown): AppError | null {
  if (isPoolExhaustion(err))
    return new AppError('service_unavailable', {
      detail: 'The service is busy; retry shortly',
      headers: { 'Retry-After': '1' },
    });
  // The database (or the pooler in front of it) not answering is the service's outage, not the caller's mistake nor a
  // fault of ours: 503 with a time to come back, as a busy pool is, rather than a 500.
  if (isDatabaseUnreachable(err))
    return new AppError('service_unavailable', {
      detail: 'The database cannot be reached; retry shortly',
      headers: { 'Retry-After': '5' },
    });
  return null;
}

/**
 * Prisma's "Can't reach database server" (P1001, or the pg adapter's DatabaseNotReachable under another code, as a raw
 * query reports it), a refused connection, or a server not accepting connections yet. Read from the errors' codes and
 * kinds, never their wording.
 */
const isDatabaseUnreachable = (err: unknown) =>
  someCause(
    err,
    (e) => e.code === 'P1001' || e.code === 'ECONNREFUSED' || e.code === '57P03' || e.kind === 'DatabaseNotReachable',
  );

const isPoolExhaustion = (err: unknown) =>
  someCause(
    err,
    (e) =>
      e.code === 'P2028' ||
      (typeof e.message === 'string' && e.message.includes('timeout exceeded when trying to connect')),
  );

interface ErrorLink {
  code?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

/** Whether `err` or an error under it (its `cause`, a Prisma error's driver adapter error) passes `test`. */
function someCause(err: unknown, test: (e: ErrorLink) => boolean, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  const e = err as ErrorLink;
  if (test(e)) return true;
  const adapter = e.meta && typeof e.meta === 'object' ? e.meta.driverAdapterError : undefined;
  return someCause(e.cause, test, depth + 1) || someCause(adapter, test, depth + 1);
}
