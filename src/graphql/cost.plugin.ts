import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getNamedType,
  getOperationAST,
  type GraphQLNamedType,
  type GraphQLSchema,
  isInterfaceType,
  isObjectType,
  Kind,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../lib/problem.ts';
import { ERP_PAGE_SIZE } from '../modules/erp/erp-window.ts';
import { MAX_NODES, PAGE_SIZE } from './builder.ts';
import { toGraphQLError } from './errors.ts';
import { refusingBeforeRunning } from './variables.plugin.ts';

const SCALAR = 1;
const OBJECT = 2;
const PER_LEVEL = 1.5;

/**
 * What an operation costs, with the variables it runs with: 1 a scalar, 2 an object, ×1.5 per level of nesting, and a
 * list's selection × the records it can answer: a connection's page size (`first` or `last`, a literal or a variable;
 * 25 when absent, at most 100, as many as the connection reads), `nodes`' ids, an ERP export's `perPage`. Fragments
 * count as the fields inside them, wherever they are spread; `__schema` (introspection) costs nothing.
 *
 * Reckoned when the operation runs, not at validation: graphql-armor's cost limit (which this replaces) took a
 * variable's `first: $n` and an absent `first` as a page of one, so a page of 100 records through a variable counted
 * as one record (outside check, 2026-12-02).
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): number {
  const op = getOperationAST(document, operationName ?? undefined);
  if (!op) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const root = schema.getRootType(op.operation);
  if (!root) return 0;
  // A fragment spread inside itself is a validation error; `entered` keeps this walk finite whatever it is handed.
  const entered: string[] = [];

  const selectionCost = (set: SelectionSetNode, parent: GraphQLNamedType | undefined): number => {
    let cost = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        cost += fieldCost(sel, parent);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const on = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : parent;
        cost += selectionCost(sel.selectionSet, on ?? parent);
      } else {
        const f = fragments.get(sel.name.value);
        if (!f || entered.includes(f.name.value)) continue;
        entered.push(f.name.value);
        cost += selectionCost(f.selectionSet, schema.getType(f.typeCondition.name.value) ?? parent);
        entered.pop();
      }
    }
    return cost;
  };

  const fieldCost = (field: FieldNode, parent: GraphQLNamedType | undefined): number => {
    if (field.name.value === '__schema') return 0;
    if (!field.selectionSet) return SCALAR;
    const def =
      parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[field.name.value] : undefined;
    const type = def ? getNamedType(def.type) : undefined;
    const inner = OBJECT + PER_LEVEL * selectionCost(field.selectionSet, type);
    return inner * recordsAnswered(field, def?.args.map((a) => a.name) ?? [], variables);
  };

  return selectionCost(op.selectionSet, root);
}

/** How many records a field's selection can be answered for, from its arguments (1 for a field that is not a list). */
function recordsAnswered(
  field: FieldNode,
  argNames: readonly string[],
  variables: Readonly<Record<string, unknown>> | null | undefined,
): number {
  const given = (name: string): unknown => {
    const arg = field.arguments?.find((a) => a.name.value === name);
    return arg ? valueOf(arg.value, variables) : undefined;
  };
  if (argNames.includes('first') && argNames.includes('last')) {
    const sizes = [given('first'), given('last')].filter((v): v is number => typeof v === 'number');
    if (!sizes.length) return PAGE_SIZE.default;
    return clamp(Math.max(...sizes), PAGE_SIZE.max);
  }
  if (field.name.value === 'nodes' && argNames.includes('ids')) {
    const ids = given('ids');
    return clamp(Array.isArray(ids) ? ids.length : 1, MAX_NODES);
  }
  if (argNames.includes('perPage')) {
    const n = given('perPage');
    // Larger than the export's maximum is refused when it runs; counted as asked, it is refused here first.
    return typeof n === 'number' && Number.isFinite(n) ? Math.max(1, Math.trunc(n)) : ERP_PAGE_SIZE.default;
  }
  return 1;
}

const clamp = (n: number, max: number) => (Number.isFinite(n) ? Math.min(max, Math.max(1, Math.trunc(n))) : max);

function valueOf(v: ValueNode, variables: Readonly<Record<string, unknown>> | null | undefined): unknown {
  switch (v.kind) {
    case Kind.VARIABLE:
      return variables?.[v.name.value];
    case Kind.INT:
      return Number(v.value);
    case Kind.LIST:
      return v.values;
    default:
      return undefined;
  }
}

/**
 * Refuses an operation costing more than `maxCost` before it runs (HTTP and WebSocket alike), as 400
 * query_too_complex. Runs in onExecute/onSubscribe because the page sizes may be variables.
 */
export function costLimitPlugin(maxCost: number): Plugin {
  return refusingBeforeRunning((args) => {
    const cost = operationCost(
      args.schema as GraphQLSchema,
      args.document as DocumentNode,
      args.operationName,
      args.variableValues as Record<string, unknown> | undefined,
    );
    if (cost <= maxCost) return null;
    const detail = `Query Cost limit of ${maxCost} exceeded, found ${Math.round(cost)}.`;
    return { errors: [toGraphQLError(new AppError('query_too_complex', { detail }))] };
  });
}
