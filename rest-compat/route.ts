import type { ParameterObject, SchemaObject } from 'openapi3-ts/oas31';
import type { Scope } from '../src/auth/scopes.ts';
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

export interface RestOutput {
  status: number;
  body: unknown;
  /** The answer repeats an earlier request with the same Idempotency-Key (`idempotent: 'operation'`). */
  replayed?: boolean;
}

/**
 * One legacy path: which GraphQL operation it runs and how its spellings map both ways. Mappers are pure
 * functions: no I/O, no business rules (those live in src/modules/<domain>/ services).
 */
export interface RestRoute {
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
  /** File name (without .graphql) in rest-compat/operations/. */
  operation: string;
  queryParams?: ParameterObject[];
  requestBody?: SchemaObject;
  toVariables(input: RestInput): Record<string, unknown>;
  toResponse(data: any, input: RestInput): RestOutput;
  response: { status: number; description: string; schema: SchemaObject };
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
  /** What an Idempotency-Key replay returns instead of the first body (secrets are shown once). */
  redactForReplay?(body: any): unknown;
}

export const route = (r: RestRoute): RestRoute => r;

/** A JSON body as an object (anything else reads as empty, so field validation reports what is missing). */
export function asObject(b: unknown): Record<string, unknown> {
  return b && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>) : {};
}

/** camelCase → snake_case: GraphQL spellings back to the REST ones (field-error paths, problem members). */
export function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Integer from a path or query string, or undefined when absent; NaN for junk so validation can refuse it. */
export function intParam(v: string | null | undefined): number | undefined {
  if (v == null || v === '') return undefined;
  return /^-?\d+$/.test(v.trim()) ? Number(v) : Number.NaN;
}
