import { PothosValidationError } from '@pothos/core';
import { GraphQLError } from 'graphql';
import { allowHeader } from '../http/cors.ts';
import { currentRequestId } from '../http/respond.ts';
import { AppError, isAppError, overloadError } from '../lib/problem.ts';
import type { Logger } from '../lib/logger.ts';

/** AppError → GraphQL error with `extensions.code` (and the HTTP status Yoga should answer with). */
export function toGraphQLError(err: AppError, base?: GraphQLError): GraphQLError {
  // A refusal carries no stack trace (AppError): graphql-js redefines the new error's stack as the AppError's, and
  // V8 formats the frames it captured first when that happens. Captured with none, there is nothing to format.
  const frames = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return located(err, base);
  } finally {
    Error.stackTraceLimit = frames;
  }
}

function located(err: AppError, base?: GraphQLError): GraphQLError {
  return new GraphQLError(err.detail, {
    nodes: base?.nodes,
    source: base?.source,
    positions: base?.positions,
    path: base?.path,
    originalError: err,
    extensions: {
      code: err.code,
      status: err.status,
      title: err.title,
      ...(err.errors ? { errors: err.errors } : {}),
      ...(err.extra ?? {}),
      http: { status: err.status, headers: err.headers ?? {} },
    },
  });
}

const YOGA_REQUEST_CODES: Record<string, 'payload_too_large' | 'invalid_request'> = {
  REQUEST_ENTITY_TOO_LARGE: 'payload_too_large',
  BAD_REQUEST: 'invalid_request',
  // A GET or POST whose document holds several operations and names none (or one it lacks).
  OPERATION_RESOLUTION_FAILURE: 'invalid_request',
};

/** Expected errors keep their code; anything else is a bug: logged in full, shown as internal_error. */
export function maskError(log: Logger) {
  return (error: unknown, message: string): Error => {
    const gqlError = error instanceof GraphQLError ? error : undefined;
    const original = gqlError?.originalError ?? error;
    if (isAppError(original)) return toGraphQLError(original, gqlError);
    const overload = overloadError(original);
    if (overload) {
      log.warn({ err: original, request_id: currentRequestId() }, 'database pool exhausted');
      return toGraphQLError(overload, gqlError);
    }
    // A caller mistake that surfaces from the library rather than our services (a malformed global id or connection
    // argument) is not a bug to log as one. (node/nodes answer null for an id out of reach: src/graphql/access.ts.)
    if (original instanceof PothosValidationError)
      return toGraphQLError(new AppError('invalid_request', { detail: original.message }), gqlError);
    // Yoga's refusal of a method (PUT, or a mutation sent by GET): 405 with its Allow, as the REST facade answers.
    const http = original instanceof GraphQLError ? original.extensions?.http : undefined;
    if (http?.status === 405) {
      const allow = allowHeader(String(http.headers?.Allow ?? http.headers?.allow ?? 'POST').split(/,\s*/));
      return toGraphQLError(
        new AppError('method_not_allowed', { detail: (original as GraphQLError).message, headers: { allow } }),
        gqlError,
      );
    }
    // Yoga's own refusals of an HTTP request (body too large, not JSON, a batch): the catalogue's codes, not Yoga's.
    const yogaCode =
      original instanceof GraphQLError ? YOGA_REQUEST_CODES[String(original.extensions?.code)] : undefined;
    if (yogaCode)
      return toGraphQLError(new AppError(yogaCode, { detail: (original as GraphQLError).message }), gqlError);
    // graphql-js refusing a variable's value (a scalar's parseValue: `$n: Int` given "abc") before anything ran: the
    // caller's mistake. Such errors have no path; one raised while completing a field's value (with a path) is ours.
    // graphql-js wraps the scalar's error in one naming the variable and field: that one is shown, whatever code the
    // scalar's own error carries (the money scalars' validation_failed is for the REST facade's field errors).
    const refusedVariable = original instanceof GraphQLError && !!gqlError && gqlError !== original && !gqlError.path;
    if (original instanceof GraphQLError && original.extensions?.code && !refusedVariable) return original;
    if (original instanceof GraphQLError && !gqlError?.path)
      return toGraphQLError(
        new AppError('invalid_request', { detail: gqlError?.message ?? original.message }),
        gqlError,
      );
    if (gqlError && !gqlError.originalError) return gqlError; // parse/validation errors: safe, caller-made
    log.error({ err: original, request_id: currentRequestId() }, 'unhandled error in GraphQL operation');
    return new GraphQLError(message || 'Unexpected error', {
      nodes: gqlError?.nodes,
      path: gqlError?.path,
      extensions: { code: 'internal_error', status: 500 },
    });
  };
}
