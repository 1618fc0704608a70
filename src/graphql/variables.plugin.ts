import { type DocumentNode, type ExecutionResult, getOperationAST, GraphQLError, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { ValidationError } from '../lib/problem.ts';
import { toGraphQLError } from './errors.ts';
import { isCovered, literalErrors } from './literal-errors.ts';
import { nullsWhereRequired, variableErrors } from './variable-errors.ts';

/**
 * A variable graphql-js would refuse is refused first, as 422 validation_failed with `extensions.errors` of
 * `{field, code, message}` (field paths in the operation's spelling, `input.lossPlace`): the same structured refusal
 * the REST facade shows (rest-compat/executor.ts), instead of graphql-js's text, which quotes the value and names
 * types. Runs wherever Yoga's envelop executes or subscribes, graphql-ws included.
 */
export function variablesPlugin(): Plugin {
  const check = (args: OperationArgs) => {
    const op = getOperationAST(args.document as DocumentNode, args.operationName ?? undefined);
    if (!op?.variableDefinitions?.length) return null;
    const inputs = (args.variableValues ?? undefined) as Record<string, unknown> | undefined;
    const errors = variableErrors(args.schema as GraphQLSchema, op.variableDefinitions, inputs);
    if (!errors.length)
      errors.push(...nullsWhereRequired(args.schema as GraphQLSchema, args.document as DocumentNode, op, inputs));
    return errors.length ? { errors: [toGraphQLError(new ValidationError(errors))] } : null;
  };
  return {
    // graphql-js's refusal of an argument written in the document (`first: "abc"`, an input object missing a required
    // field) becomes the same structured refusal; its other validation errors (unknown fields …) stay as they are.
    onValidate({ params }) {
      return ({ result, setResult }) => {
        if (!result.length) return;
        const { errors, covered } = literalErrors(params.schema as GraphQLSchema, params.documentAST as DocumentNode);
        if (!errors.length || !result.some((e) => e instanceof GraphQLError && isCovered(e, covered))) return;
        const others = (result as Error[]).filter((e) => !(e instanceof GraphQLError && isCovered(e, covered)));
        // Answered 422 whatever the Accept, as the same refusal of a variable is (own-status.plugin.ts).
        setResult([toGraphQLError(new ValidationError(errors)), ...others]);
      };
    },
    ...refusingBeforeRunning(check),
  };
}

/** What an operation runs with, as onExecute and onSubscribe both receive it. */
export interface OperationArgs {
  schema: unknown;
  document: unknown;
  operationName?: string | null;
  variableValues?: unknown;
}

/**
 * onExecute and onSubscribe hooks answering `refuse`'s result in place of running the operation, when it gives one
 * (HTTP and graphql-ws alike).
 */
export function refusingBeforeRunning(
  refuse: (args: OperationArgs) => ExecutionResult | null,
): Pick<Plugin, 'onExecute' | 'onSubscribe'> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const refused = refuse(args);
      if (refused) setResultAndStopExecution(refused);
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const refused = refuse(args);
      if (refused) setResultAndStopExecution(refused);
    },
  };
}
