import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { utf8OrRefuse } from '../http/body.ts';
import { checkQueryEncoding } from '../http/query-encoding.ts';
import { AppError, isAppError } from '../lib/problem.ts';
import { toGraphQLError } from './errors.ts';

/**
 * How an operation is read from an HTTP request, held to the REST facade's rules (400 invalid_request, in the GraphQL
 * error shape):
 * - GET: the query string's percent-encoding as REST's (`%FF` was read as U+FFFD), and `variables` and `extensions`
 *   as JSON objects (malformed JSON there was a SyntaxError out of Yoga's parser, answered as internal_error);
 * - POST: the body as UTF-8 that is JSON (a malformed byte was read as U+FFFD, as REST read it until 2026-12-01).
 * The body stays under Yoga's size limit, which wraps whatever parser is set here (its useLimitRequestBodySize runs
 * after every plugin's onRequestParse).
 */
export function httpParamsPlugin(): Plugin {
  return {
    onRequestParse({ request, setRequestParser }) {
      if (request.method === 'GET') setRequestParser(asGraphQLErrors(parseGet));
      // What a POST may carry is responseHeadersPlugin's (415 otherwise): JSON.
      else if (request.method === 'POST') setRequestParser(asGraphQLErrors(parsePostJson));
    },
  };
}

/**
 * Yoga takes any thrown object with an `errors` member for an aggregate of errors, as an AppError is (its field
 * errors), and failed with a 500: a parser's refusal leaves as the GraphQL error it would become anyway.
 */
function asGraphQLErrors<A extends unknown[], R>(parse: (...a: A) => R | Promise<R>) {
  return async (...a: A): Promise<R> => {
    try {
      return await parse(...a);
    } catch (e) {
      throw isAppError(e) ? toGraphQLError(e) : e;
    }
  };
}

const refuse = (detail: string) => new AppError('invalid_request', { detail });

function jsonParam(params: URLSearchParams, name: string): Record<string, unknown> | undefined {
  const raw = params.get(name);
  if (!raw) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw refuse(`The query parameter ${name} must be a JSON object`);
  }
  if (v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw refuse(`The query parameter ${name} must be a JSON object`);
  return v as Record<string, unknown>;
}

function parseGet(request: Request) {
  const at = request.url.indexOf('?');
  const search = at < 0 ? '' : request.url.slice(at);
  checkQueryEncoding(search);
  const params = new URLSearchParams(search);
  return {
    operationName: params.get('operationName') || undefined,
    query: params.get('query') || undefined,
    variables: jsonParam(params, 'variables'),
    extensions: jsonParam(params, 'extensions'),
  };
}

async function parsePostJson(request: Request) {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await request.arrayBuffer());
  } catch (e) {
    // The size limit's own refusal (413) passes through as Yoga raised it; a body cut short is the caller's.
    if (e instanceof GraphQLError || isAppError(e)) throw e;
    throw refuse('The request body could not be read');
  }
  const text = utf8OrRefuse(bytes, 'The JSON body is not valid UTF-8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw refuse('POST body sent invalid JSON.');
  }
  if (body === null || typeof body !== 'object') throw refuse('POST body must be a JSON object');
  return body as Record<string, unknown>;
}
