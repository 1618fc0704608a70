import { type DocumentNode, type ExecutionArgs, type ExecutionResult, getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { MetricsPort } from '../ports/metrics.ts';

/**
 * Counts every operation over /graphql, HTTP and WebSocket alike (both run through Yoga's envelop), by type, name
 * and outcome: `error` when the answer carries errors (refused at validation, or failed in part or whole), `ok`
 * otherwise. A subscription counts once, when its stream starts. The REST facade's own operations are not counted
 * here: they are REST requests.
 */
export function metricsPlugin(metrics: MetricsPort): Plugin {
  const record = (document: DocumentNode, operationName: string | null | undefined, ok: boolean) => {
    const op = getOperationAST(document, operationName);
    metrics.graphqlOperation({
      type: op?.operation ?? 'unknown',
      name: op?.name?.value ?? 'anonymous',
      outcome: ok ? 'ok' : 'error',
    });
  };
  const ended = (args: unknown, result: unknown) => {
    const { document, operationName } = args as ExecutionArgs;
    const errors = isAsyncIterable(result) ? undefined : (result as ExecutionResult).errors;
    record(document, operationName, !errors?.length);
  };
  return {
    onValidate({ params }) {
      return ({ valid }) => {
        if (!valid) record(params.documentAST as DocumentNode, undefined, false);
      };
    },
    onExecute({ args }) {
      return { onExecuteDone: ({ result }) => ended(args, result) };
    },
    onSubscribe({ args }) {
      return {
        onSubscribeResult: ({ result }) => ended(args, result),
        onSubscribeError: () => ended(args, { errors: [null] }),
      };
    },
  };
}

const isAsyncIterable = (v: unknown): v is AsyncIterable<unknown> =>
  typeof v === 'object' && v !== null && Symbol.asyncIterator in v;
