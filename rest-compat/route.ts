import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { DocumentNode } from 'graphql';
import type { HeaderObject, ParameterObject } from 'openapi3-ts/oas31';
import type { z } from 'zod';
import type { Scope } from '../src/auth/scopes.ts';
import type { FormBody } from '../src/http/body.ts';
import type { Config } from '../src/lib/config.ts';
import type { CsvCell } from '../src/lib/csv.ts';
import type { ProblemCode } from '../src/lib/problem.ts';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RestInput {
  /** The request URL (for links such as `links.next`). */
  url: URL;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  /** The Idempotency-Key header, for an operation that keeps its own exactly-once record (`idempotent: 'operation'`). */
  idempotencyKey?: string;
}

/**
 * A response body of bytes (a downloaded document) instead of JSON: sent as is, with its content type and headers.
 * Not for `idempotent` routes, whose stored answers are JSON.
 */
export class BinaryBody {
  constructor(
    readonly bytes: Uint8Array,
    readonly contentType: string,
    readonly headers: Record<string, string> = {},
    /** The whole answer's length when `bytes` is one range of it (a route with `ranges`); else `bytes`' own. */
    readonly length?: number,
  ) {}
}

export interface RestOutput<B = unknown> {
  status: number;
  body: B;
  /** The answer repeats an earlier request with the same Idempotency-Key (`idempotent: 'operation'`). */
  replayed?: boolean;
}

declare const asSentBrand: unique symbol;
/** A request value handed to GraphQL as the caller sent it (see `asSent`). */
export interface AsSent {
  readonly [asSentBrand]: true;
}
/**
 * Passes a request value to GraphQL unchecked where an input object or a list belongs, so that a junk value (a string
 * for `vehicle`) is refused by variable coercion and reported on its field, as for any other value.
 */
export const asSent = (v: unknown): AsSent => v as AsSent;

/**
 * A GraphQL input type as the REST body fills it: the field names are the operation's (checked at compile time,
 * required ones included), the scalar values stay as sent (`unknown`): GraphQL's variable coercion checks them and
 * names the field of a bad one. An input object or list may also be passed `asSent`.
 */
export type Sent<T> = T extends null | undefined
  ? T
  : T extends readonly (infer U)[]
    ? [NonNullable<U>] extends [object]
      ? readonly Sent<U>[] | AsSent
      : unknown
    : T extends object
      ? { [K in keyof T]: Sent<T[K]> } | AsSent
      : unknown;

/** An operation's variables, or the fields of an input object, as a route fills them from the request (see `Sent`). */
export type SentInput<T> = { [K in keyof T]: Sent<T[K]> };

/**
 * `T` with every key that `S` lacks, at any depth, typed `never`: TypeScript does not check a contextually typed
 * function's returned object literal for unknown keys, so `toVariables` is checked against `T & NoExtraKeys<T, S>`.
 * A misspelt variable or input field then reads "Type '…' is not assignable to type 'never'" on that key.
 */
export type NoExtraKeys<T, S> = T extends AsSent | null | undefined
  ? unknown
  : T extends readonly (infer U)[]
    ? Exclude<NonNullable<S>, AsSent> extends readonly (infer SU)[]
      ? readonly NoExtraKeys<U, SU>[]
      : unknown
    : T extends object
      ? {
          [K in keyof T]: K extends keyof NonNullable<S>
            ? NoExtraKeys<T[K], Exclude<NonNullable<S>[K], AsSent>>
            : never;
        }
      : unknown;

type NotAProblem<T> = T extends { __typename: `${string}Problem` } ? never : T;
/**
 * An operation's result once the executor has answered every typed failure (a root field whose `__typename` is a
 * Problem) with its problem document: what a route's `toResponse` maps.
 */
export type Resolved<R> = { [K in keyof R]: NotAProblem<R[K]> };

/**
 * A CSV variant of a read (`Accept: text/csv`), streamed: the transport (src/http/csv-stream.ts) runs the operation
 * batch after batch, writing each batch's rows as it is read, so the whole answer is never held in memory. `next`
 * gives the variables of the following batch from the batch just read (null at the end); `headers` are taken from
 * the first batch (they go out before the rows). Pure mappings only: what a batch holds is the operation's business.
 */
export interface CsvVariant<R> {
  filename: string;
  columns: readonly string[];
  rows(data: R): CsvCell[][];
  next(data: R, variables: Record<string, unknown>): Record<string, unknown> | null;
  headers?(data: R): Record<string, string>;
  /** For the OpenAPI document. */
  description: string;
}

/**
 * A binary answer read range by range (a document download), streamed by the transport (src/http/binary-stream.ts):
 * the operation runs once per range, `toResponse` maps each run to a BinaryBody (the first one's `length` is the
 * whole answer's Content-Length, its headers the answer's), and `next` gives the variables of the following range
 * from the run just read (null at the end). Pure mappings only.
 */
export interface BinaryRanges<R> {
  next(data: R, variables: Record<string, unknown>): Record<string, unknown> | null;
}

/** A route's description, for the router and the OpenAPI document. */
interface RouteInfo {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI-style path relative to /api/v1, e.g. `/clients/{client_no}`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** Any one of these scopes is enough. */
  scopes: Scope[];
  /**
   * Idempotency-Key header required (write calls marked so in the spec). `true`: the facade stores the response in
   * the operation's transaction and replays it. `'operation'`: the operation is exactly-once by itself (it calls a
   * rail, so it cannot run inside one transaction): the key is handed to it as `input.idempotencyKey`, and an answer
   * with `replayed: true` gets the Idempotent-Replayed header. `'outside-transaction'`: the facade stores and replays
   * the response, but the operation runs with no transaction open (it calls a rail; src/http/idempotency.ts).
   */
  idempotent: boolean | 'operation' | 'outside-transaction';
  serviceOnly?: boolean;
  /** Served only while a rail is its simulator and never in production (`x-simulator-only` in the OpenAPI document). */
  simulatorOnly?: boolean;
  /** Their schemas may be zod (converted when the document is built). */
  queryParams?: (ParameterObject | (Omit<ParameterObject, 'schema'> & { schema: z.ZodType }))[];
  /**
   * The request body's definition (JSON, or the form's parts when `multipart`): the OpenAPI document's schema and,
   * with `parseBody`, the check the body passes before `toVariables` sees it (builders.ts).
   */
  requestBody?: z.ZodType;
  /**
   * The body is parsed with `requestBody` first: a body it refuses is 422 validation_failed naming each field (the
   * one message table, src/lib/zod-issues.ts), and `toVariables` gets the parsed body (coerced, unknown keys dropped).
   */
  parseBody?: boolean;
  /**
   * The body is multipart/form-data (an upload) instead of JSON: read up to `maxBytes` of the configuration (413
   * beyond), any other content type 415, and handed to the route as a FormBody (`asForm`).
   */
  multipart?: { maxBytes(config: Config): number };
  response: {
    status: number;
    description: string;
    schema: z.ZodType;
    /** The answer is bytes (a BinaryBody) in one of these media types, not JSON. */
    mediaTypes?: string[];
    /** Headers of the answer worth documenting beyond the common ones. */
    headers?: Record<string, HeaderObject>;
    /** Other success statuses the operation answers with the same body (each documented). */
    alsoStatuses?: { status: number; description: string }[];
  };
  /** Problem codes this path can answer with, beyond the common 401/403/429 ones (for the OpenAPI document). */
  errors: ProblemCode[];
  /** Field-error paths to rename after snake_casing (e.g. `client.id_no` → `client.idno` where the legacy body says so). */
  fieldNames?: Record<string, string>;
  /** Reshapes the extra members of a problem (already snake_cased) into the legacy body. */
  mapProblemExtra?(
    extra: Record<string, unknown>,
    problem: { code: string; detail: string; status: number },
  ): Record<string, unknown>;
  /** Run `mapProblemExtra` on every problem of the operation, not only those with extra members (certificates). */
  mapEveryProblem?: boolean;
}

/**
 * One legacy path: which GraphQL operation it runs (a typed document generated from rest-compat/operations/) and how
 * its spellings map both ways, typed by that operation: `R` its result, `V` its variables (`TV`: what `toVariables`
 * returns, inferred), `B` the REST body. Mappers are pure functions: no I/O, no business rules (those live in
 * src/modules/<domain>/ services).
 */
export interface RestRoute<R, V, B, TV extends SentInput<V> = SentInput<V>> extends RouteInfo {
  operation: TypedDocumentNode<R, V>;
  /** The operation's variables from the request: its names (none missing, none unknown), values as sent. */
  toVariables(input: RestInput): TV & NoExtraKeys<TV, SentInput<NoInfer<V>>>;
  toResponse(data: Resolved<NoInfer<R>>, input: RestInput): RestOutput<B>;
  /** What an Idempotency-Key replay returns instead of the first body (secrets are shown once). */
  redactForReplay?(body: NoInfer<B>): unknown;
  csv?: CsvVariant<Resolved<NoInfer<R>>>;
  ranges?: BinaryRanges<Resolved<NoInfer<R>>>;
}

/**
 * A route of the table with its operation's types erased, as the router and the OpenAPI generator hold it. Only
 * `route()` makes one, from a `RestRoute` checked against its operation (methods compare their parameters both ways,
 * which is what lets the typed route stand for this one); the executor hands `toResponse` what execute() returned for
 * that very document, with the typed failures already thrown as problems.
 */
export interface AnyRoute extends RouteInfo {
  operation: DocumentNode;
  toVariables(input: RestInput): Record<string, unknown>;
  toResponse(data: unknown, input: RestInput): RestOutput;
  redactForReplay?(body: unknown): unknown;
  csv?: CsvVariant<unknown>;
  ranges?: BinaryRanges<unknown>;
}

/**
 * The answer a route's mapper builds must be what its response definition says goes over the wire (`Wire`, z.input):
 * else `route()` returns an error type naming the answer and the definition, which the route table (AnyRoute[])
 * refuses to compile. A body that is bytes (BinaryBody) is described by its media type instead.
 */
type Checked<B, S> = [Exclude<B, BinaryBody>] extends [never]
  ? AnyRoute
  : [Exclude<B, BinaryBody>] extends [z.input<S>]
    ? AnyRoute
    : { error: 'toResponse answers what response.schema does not say'; answer: B; schema: z.input<S> };

export const route = <R, V, B, TV extends SentInput<V>, S extends z.ZodType>(
  r: RestRoute<R, V, B, TV> & { response: { schema: S } },
): Checked<B, S> => r as unknown as Checked<B, S>;

/**
 * The body of a `parseBody` route, as its `requestBody` parsed it (the facade parsed it before `toVariables` runs, so
 * the type is what the definition outputs): `bodyOf(input, SaveQuoteRequest)`.
 */
export const bodyOf = <S extends z.ZodType>(input: RestInput, _schema: S): z.output<S> => input.body as z.output<S>;

/** A JSON body as an object (anything else reads as empty, so field validation reports what is missing). */
export function asObject(b: unknown): Record<string, unknown> {
  return b && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>) : {};
}

/** A multipart route's body (its `multipart` option guarantees the shape; anything else reads as empty). */
export function asForm(b: unknown): FormBody {
  return b && typeof b === 'object' && !Array.isArray(b) ? (b as FormBody) : {};
}

/**
 * An input object from a JSON object; anything else passes `asSent`, for GraphQL coercion to refuse on its field. Give
 * `f` its return type (`(o): SentInput<XInput> => …`): a callback's object literal is otherwise not checked for
 * misspelt fields.
 */
export function objectOrAsSent<R>(v: unknown, f: (o: Record<string, unknown>) => R): R | AsSent {
  return v && typeof v === 'object' && !Array.isArray(v) ? f(v as Record<string, unknown>) : asSent(v);
}

/** A list input from a JSON array, item by item (type `f`'s return as for `objectOrAsSent`); anything else `asSent`. */
export function listOrAsSent<R>(v: unknown, f: (item: unknown) => R): R[] | AsSent {
  return Array.isArray(v) ? v.map((item: unknown) => f(item)) : asSent(v);
}

/** camelCase → snake_case: GraphQL spellings back to the REST ones (field-error paths, problem members). */
export function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A true/false query flag: absent or empty is undefined; anything else but true/false is passed on for GraphQL to refuse. */
export function boolParam(v: string | null | undefined): boolean | string | undefined {
  if (v == null || v === '') return undefined;
  return v === 'true' ? true : v === 'false' ? false : v;
}

/** A whole number as the API writes one: digits, a minus sign before any but zero, no leading zero, nothing else. */
const WHOLE = /^(?:0|-?[1-9][0-9]*)$/;

/**
 * Integer from a path or query string, or undefined when absent; NaN for anything else (surrounding space, a leading
 * zero or plus sign, a fraction, junk) so validation refuses it as `not_a_whole_number`.
 */
export function intParam(v: string | null | undefined): number | undefined {
  if (v == null || v === '') return undefined;
  return WHOLE.test(v) ? Number(v) : Number.NaN;
}

const INT32 = 2 ** 31 - 1;

/**
 * A size, count or page number (`per_page`, `page`, `within_days`, `limit`): as {@link intParam}, but a whole number
 * past GraphQL's 32-bit `Int` is passed as the nearest 32-bit bound, which is out of every such parameter's range too,
 * so the refusal names the parameter's own documented range rather than the transport's.
 */
export function sizeParam(v: string | null | undefined): number | undefined {
  const n = intParam(v);
  return n === undefined || Number.isNaN(n) ? n : Math.max(-INT32 - 1, Math.min(INT32, n));
}
