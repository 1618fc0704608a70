import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { isAppError } from '../lib/problem.ts';

/**
 * A refusal at validation that carries one of this API's codes (a written-out argument's `validation_failed`,
 * `query_too_complex` from the depth, cost and root-field limits, introspection's `invalid_request`) answers its own
 * status whatever the request's Accept, as every other error with one of our codes does. Yoga marks every validation
 * error as the GraphQL-over-HTTP spec's (`extensions.http.spec`), which an `application/json` answer turns into 200:
 * `query_too_complex` was 200 there and 400 under `application/graphql-response+json` (outside check, 2026-12-01).
 * graphql-js's own validation errors keep the spec's statuses.
 */
export function ownStatusPlugin(): Plugin {
  return {
    onValidate() {
      return ({ result }) => {
        for (const e of result as readonly unknown[]) {
          if (!(e instanceof GraphQLError) || !isAppError(e.originalError)) continue;
          const http = e.extensions.http;
          if (http) http.spec = false;
        }
      };
    },
  };
}
