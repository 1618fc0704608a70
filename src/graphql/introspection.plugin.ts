import { type ExecutionResult, getNamedType, GraphQLError, isIntrospectionType, type ValidationRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../lib/problem.ts';
import { toGraphQLError } from './errors.ts';

/**
 * With introspection off (the production default, GRAPHQL_INTROSPECTION), `__schema` and `__type` are refused at
 * validation. HTTP and WebSocket operations both validate through Yoga's envelop, so one plugin covers both; the REST
 * facade validates its own fixed operations with graphql-js directly and is unaffected. `__typename` stays: clients
 * need it to read unions. "Did you mean …?" hints go too, or a caller could rebuild the schema one guess at a time.
 */
export function introspectionPlugin(allowed: boolean): Plugin {
  if (allowed) return {};
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(refuseIntrospection);
      return ({ result, setResult }) => {
        if (result.some(hasHint)) setResult(result.map(withoutHint));
      };
    },
    onExecute() {
      return {
        // Variable coercion errors ("Value "X" does not exist in "E" enum. Did you mean …") are raised at execution.
        onExecuteDone({ result, setResult }) {
          const r = result as ExecutionResult;
          if (r.errors?.some(hasHint)) setResult({ ...r, errors: r.errors.map(withoutHint) });
        },
      };
    },
  };
}

const refuseIntrospection: ValidationRule = (context) => ({
  Field(node) {
    const type = getNamedType(context.getType());
    if (type && isIntrospectionType(type)) {
      const detail = `Introspection is disabled on this server (field "${node.name.value}")`;
      context.reportError(
        toGraphQLError(new AppError('invalid_request', { detail }), new GraphQLError(detail, { nodes: node })),
      );
    }
  },
});

const HINT = / ?Did you mean .*$/s;
const hasHint = (e: Error) => HINT.test(e.message);

function withoutHint<E extends Error>(e: E): E | GraphQLError {
  if (!(e instanceof GraphQLError) || !hasHint(e)) return e;
  return new GraphQLError(e.message.replace(HINT, ''), {
    nodes: e.nodes,
    source: e.source,
    positions: e.positions,
    path: e.path,
    originalError: e.originalError,
    extensions: e.extensions,
  });
}
