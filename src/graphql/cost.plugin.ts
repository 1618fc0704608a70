import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  getNamedType,
  getNullableType,
  getOperationAST,
  type GraphQLNamedType,
  type GraphQLSchema,
  getVariableValues,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  SchemaMetaFieldDef,
  type SelectionSetNode,
  TypeMetaFieldDef,
  type ValueNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../lib/problem.ts';
import { ERP_PAGE_SIZE } from '../modules/erp/erp-window.ts';
import { MAX_NODES, PAGE_SIZE } from './builder.ts';
import { toGraphQLError } from './errors.ts';
import { limitRecords, recordsExceeded, recordsRefusal } from './record-budget.ts';
import { refusingBeforeRunning } from './variables.plugin.ts';

const SCALAR = 1;
const OBJECT = 2;
const PER_LEVEL = 1.5;

/**
 * What an operation costs, with the variables it runs with (a variable's default when it is not given): 1 a scalar,
 * 2 an object, ×1.5 per level of nesting, and a list's selection × the records it can answer: a connection's page
 * size (`first` or `last`, a literal or a variable; 25 when absent, at most 100, as many as the connection reads),
 * another list's `first` or `last` as given (a ledger's lines), `nodes`' ids, an ERP export's `perPage`; a list that
 * takes no size (a record's receipts, the levy table) counts once, and a page (25) where it is selected again inside
 * itself (a policy's claims' policy's claims); introspection costs nothing (introspectionProblem bounds it).
 * Fragments count as the fields inside them, wherever they are spread, each reckoned once (a fragment spread twice
 * in a fragment spread twice … is not walked 2^n times: an outside check, 2026-12-03, held the process for minutes
 * with 40 of them).
 *
 * Reckoned when the operation runs, not at validation: graphql-armor's cost limit (which this replaces) took a
 * variable's `first: $n` and an absent `first` as a page of one, so a page of 100 records through a variable counted
 * as one record (outside check, 2026-12-02).
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  given: Readonly<Record<string, unknown>> | null | undefined,
): number {
  const op = getOperationAST(document, operationName ?? undefined);
  const root = op ? schema.getRootType(op.operation) : undefined;
  if (!op || !root) return 0;
  const coerced = getVariableValues(schema, op.variableDefinitions ?? [], { ...given });
  // A variable refused here is refused when the operation runs; until then, count it as given.
  const variables = coerced.coerced ?? given;
  const fragments = fragmentsOf(document);
  // Each fragment's cost, reckoned once. A fragment spread inside itself is a validation error; one being reckoned
  // counts nothing where it is spread again, which keeps this walk finite whatever it is handed.
  const reckoned = new Map<string, number>();

  // `lists`: the lists that take no size on the path to the selection (`|Policy.claims|Claim.payments|`).
  const selectionCost = (set: SelectionSetNode, parent: GraphQLNamedType | undefined, lists: string): number => {
    let cost = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        cost += fieldCost(sel, parent, lists);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const on = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : parent;
        cost += selectionCost(sel.selectionSet, on ?? parent, lists);
      } else {
        const f = fragments.get(sel.name.value);
        if (!f) continue;
        const key = `${f.name.value}\u0000${lists}`;
        let known = reckoned.get(key);
        if (known === undefined) {
          reckoned.set(key, 0);
          known = selectionCost(f.selectionSet, schema.getType(f.typeCondition.name.value) ?? parent, lists);
          reckoned.set(key, known);
        }
        cost += known;
      }
    }
    return cost;
  };

  const fieldCost = (field: FieldNode, parent: GraphQLNamedType | undefined, lists: string): number => {
    // Introspection answers from the schema, and its shape is held instead (introspectionProblem).
    if (field.name.value === '__schema' || field.name.value === '__type') return 0;
    if (!field.selectionSet) return SCALAR;
    const def = fieldDef(parent, field.name.value);
    let records = recordsAnswered(field, def?.args.map((a) => a.name) ?? [], variables);
    let below = lists;
    if (records === null) {
      records = 1;
      if (def && parent && isListType(getNullableType(def.type)) && !isConnection(parent)) {
        // A list that takes no size holds what its parent holds: once. Selected again inside itself (a policy's
        // claims' policy's claims: an outside check, 2026-12-03, answered 21 MB for 1.6 KB), it holds what every
        // one of the outer list's records holds: a page.
        const key = `${parent.name}.${field.name.value}|`;
        if (lists.includes(`|${key}`)) records = PAGE_SIZE.default;
        below = `${lists}${key}`;
      }
    }
    const inner =
      OBJECT + PER_LEVEL * selectionCost(field.selectionSet, def ? getNamedType(def.type) : undefined, below);
    return inner * records;
  };

  return selectionCost(op.selectionSet, root, '|');
}

function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  return fragments;
}

/** A field's definition on `parent`, introspection's `__schema` and `__type` included. */
function fieldDef(parent: GraphQLNamedType | undefined, name: string): GraphQLField<unknown, unknown> | undefined {
  if (name === '__schema') return SchemaMetaFieldDef;
  if (name === '__type') return TypeMetaFieldDef;
  return parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[name] : undefined;
}

/** Introspection's lists, by type and field: what an answer multiplies by when nested in one another. */
const INTROSPECTION_LISTS = [
  '__Schema.types',
  '__Schema.directives',
  '__Type.fields',
  '__Type.interfaces',
  '__Type.possibleTypes',
  '__Type.enumValues',
  '__Type.inputFields',
  '__Field.args',
  '__Directive.args',
];

/**
 * Why an operation's introspection is refused, or null. Introspection answers from the schema, not the database, and
 * costs nothing (operationCost; the depth limit leaves it alone too), so what bounds its answer is its shape: no
 * aliases inside `__schema` or `__type` (500 aliases of `types { fields { … } }` answered 40 MB, 6,000 ran the process
 * out of memory: an outside check, 2026-12-03), and each of its lists at most once on a path (a type's fields' types'
 * fields … multiply). The standard introspection query (graphql-js getIntrospectionQuery, what GraphiQL and code
 * generators send) passes.
 */
export function introspectionProblem(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
): string | null {
  const op = getOperationAST(document, operationName ?? undefined);
  const root = op ? schema.getRootType(op.operation) : undefined;
  if (!op || !root) return null;
  const fragments = fragmentsOf(document);
  // Each fragment's answer, by the lists on the path it is spread at (\u0001 outside introspection), reckoned once.
  const reckoned = new Map<string, string | null>();

  const walk = (set: SelectionSetNode, parent: GraphQLNamedType | undefined, path: string | null): string | null => {
    for (const sel of set.selections) {
      let problem: string | null = null;
      if (sel.kind === Kind.FIELD) {
        const name = sel.name.value;
        const inside = path !== null || name === '__schema' || name === '__type';
        if (inside && sel.alias) return `Introspection takes no aliases (${sel.alias.value}: ${name})`;
        const list = parent ? `${parent.name}.${name}` : name;
        let below = inside ? (path ?? '') : null;
        if (below !== null && INTROSPECTION_LISTS.includes(list)) {
          if (below.split(' ').includes(list)) return `Introspection selects ${list} once on a path`;
          below = `${below} ${list}`;
        }
        if (sel.selectionSet) {
          const def = fieldDef(parent, name);
          problem = walk(sel.selectionSet, def ? getNamedType(def.type) : undefined, below);
        }
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const on = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : parent;
        problem = walk(sel.selectionSet, on ?? parent, path);
      } else {
        const f = fragments.get(sel.name.value);
        if (!f) continue;
        const key = `${f.name.value}\u0000${path ?? '\u0001'}`;
        if (!reckoned.has(key)) {
          reckoned.set(key, null);
          reckoned.set(key, walk(f.selectionSet, schema.getType(f.typeCondition.name.value) ?? parent, path));
        }
        problem = reckoned.get(key)!;
      }
      if (problem) return problem;
    }
    return null;
  };
  return walk(op.selectionSet, root, null);
}

/** A Relay connection type: its lists (`edges`) are the page its field's size already counted. */
const isConnection = (t: GraphQLNamedType): boolean => isObjectType(t) && 'pageInfo' in t.getFields();

/** How many records a field's selection can be answered for, from its arguments (null when none says). */
function recordsAnswered(
  field: FieldNode,
  argNames: readonly string[],
  variables: Readonly<Record<string, unknown>> | null | undefined,
): number | null {
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
  if (argNames.includes('first') || argNames.includes('last')) {
    // A list sized by one of them (a ledger's `last`): as many as asked (its own bound is checked when it runs).
    const n = given('first') ?? given('last');
    return typeof n === 'number' && Number.isFinite(n) ? Math.max(1, Math.trunc(n)) : PAGE_SIZE.default;
  }
  if (argNames.includes('perPage')) {
    const n = given('perPage');
    // Larger than the export's maximum is refused when it runs; counted as asked, it is refused here first.
    return typeof n === 'number' && Number.isFinite(n) ? Math.max(1, Math.trunc(n)) : ERP_PAGE_SIZE.default;
  }
  return null;
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
    const schema = args.schema as GraphQLSchema;
    const document = args.document as DocumentNode;
    const refuse = (detail: string) => ({
      errors: [toGraphQLError(new AppError('query_too_complex', { detail }))],
    });
    const introspection = introspectionProblem(schema, document, args.operationName);
    if (introspection) return refuse(introspection);
    const cost = operationCost(schema, document, args.operationName, args.variableValues as Record<string, unknown>);
    if (cost > maxCost) return refuse(`Query Cost limit of ${maxCost} exceeded, found ${Math.round(cost)}.`);
    return null;
  });
}

/**
 * Gives every GraphQL query and mutation a budget of `maxRecords` records (src/graphql/record-budget.ts) and answers
 * one that went past it with 400 query_too_complex alone, whatever it had answered by then.
 */
export function recordBudgetPlugin(maxRecords: number): Plugin {
  return {
    onExecute({ args }) {
      const context = args.contextValue as object;
      limitRecords(context, maxRecords);
      return {
        onExecuteDone({ setResult }) {
          const max = recordsExceeded(context);
          if (max === null) return;
          setResult({ errors: [toGraphQLError(recordsRefusal(max))] });
        },
      };
    },
  };
}
