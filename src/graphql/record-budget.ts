import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { GraphQLFieldResolver } from 'graphql';
import { AppError } from '../lib/problem.ts';

/**
 * How many records one GraphQL operation may answer (GRAPHQL_MAX_RECORDS): every item of every list it resolves,
 * counted as it resolves, the operation refused whole (400 query_too_complex: cost.plugin.ts) once it passes the
 * budget, and every list after that refused at once, so the work stops near the budget. The cost limit reckons a
 * list that takes no size (a policy's claims, a claim's documents) as what its parent holds, which the data decides:
 * 100 policies' 152 claims each answered 44 MB under the cost limit and held the process for seconds (an outside
 * check, 2026-12-03). The budget is what the data turns out to hold.
 *
 * Set per operation by the GraphQL transport (`limitRecords`, HTTP and WebSocket queries and mutations); the REST
 * facade's fixed operations, bounded by their own page sizes, and job workers run without one.
 */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    interface Plugins<Types extends SchemaTypes> {
      recordBudget: RecordBudgetPlugin<Types>;
    }
  }
}

interface Budget {
  max: number;
  spent: number;
}

const budgets = new WeakMap<object, Budget>();

/** From now on, the operation run with `context` may answer at most `max` records. */
export function limitRecords(context: object, max: number): void {
  budgets.set(context, { max, spent: 0 });
}

/** The budget `context`'s operation went past, or null. */
export function recordsExceeded(context: object): number | null {
  const b = budgets.get(context);
  return b && b.spent > b.max ? b.max : null;
}

/** The refusal of an operation that went past its budget of `max` records. */
export const recordsRefusal = (max: number): AppError =>
  new AppError('query_too_complex', {
    detail: `An operation may answer at most ${max} records (GRAPHQL_MAX_RECORDS); ask for fewer, or page`,
  });

function spend(b: Budget, value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  b.spent += value.length;
  if (b.spent > b.max) throw recordsRefusal(b.max);
  return value;
}

type Resolver<Types extends SchemaTypes> = GraphQLFieldResolver<unknown, Types['Context'], object>;

export class RecordBudgetPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(resolver: Resolver<Types>, fieldConfig: PothosOutputFieldConfig<Types>): Resolver<Types> {
    if (fieldConfig.type.kind !== 'List') return resolver;
    return (parent, args, context, info) => {
      const b = budgets.get(context);
      if (!b) return resolver(parent, args, context, info);
      if (b.spent > b.max) throw recordsRefusal(b.max);
      const value = resolver(parent, args, context, info);
      return value instanceof Promise ? value.then((v) => spend(b, v)) : spend(b, value);
    };
  }
}

SchemaBuilder.registerPlugin('recordBudget', RecordBudgetPlugin);

export default 'recordBudget' as const;
