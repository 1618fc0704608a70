import {
  defaultFieldResolver,
  type DocumentNode,
  execute,
  type FragmentDefinitionNode,
  Kind,
  type SelectionSetNode,
  type ExecutionResult,
  getNamedType,
  getOperationAST,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLField,
  type GraphQLSchema,
  isAbstractType,
  isEnumType,
  isSpecifiedScalarType,
  OperationTypeNode,
  isObjectType,
  type GraphQLLeafType,
  TypeInfo,
  validate,
  type VariableDefinitionNode,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { compileQuery, type CompiledQuery, isCompiledQuery } from 'graphql-jit';
import type { Principal } from '../src/auth/principal.ts';
import type { Context } from '../src/context.ts';
import { type AccessRule, seesWholeType, seesWithinReach } from '../src/graphql/access.ts';
import {
  argumentsAgree,
  carries,
  columnRead,
  type DerivedRead,
  derivedRead,
  type InHand,
  relationRead,
  runHoldingInHand,
} from '../src/graphql/column-fields.ts';
import { runsCompiled } from '../src/graphql/compiled-paths.ts';
import { variableErrors } from '../src/graphql/variable-errors.ts';
import {
  AppError,
  type FieldError,
  isAppError,
  overloadError,
  ValidationError,
  validationDetail,
} from '../src/lib/problem.ts';
import { parseInput } from '../src/lib/validate.ts';
import { type AnyRoute, type RestInput, snake } from './route.ts';

export interface CompiledRoute {
  route: AnyRoute;
  document: DocumentNode;
  /** The operation's name, for logs. */
  operationName: string;
  matcher: RegExp;
  paramNames: string[];
  /**
   * The operation compiled to JavaScript (graphql-jit), when every type it can reach allows it (see jitSafe). Compiled
   * on first use (this and wholeTypes): a route nobody calls costs no generated code (each holds its source, up to
   * 0.7 MB, for the life of the process).
   */
  readonly jit: CompiledQuery | null;
  /**
   * A read compiled without its types' access rules, for a caller every one of those rules lets see the whole type
   * (seesWholeType: staff holding the scopes), to whom each rule would say yes for every row. Null when the operation
   * is not a query, or reaches an abstract type or a type check that is neither an access rule nor synchronous.
   */
  readonly wholeTypes: WholeTypes | null;
  /** The operation's variable definitions, checked before any run (graphql/variable-errors.ts). */
  variableDefinitions: readonly VariableDefinitionNode[];
}

/**
 * A read compiled without its types' access rules (compileForWholeTypes), and for whom it may run: a caller every
 * rule lets see the whole type (staff), and, when every record the operation reaches comes through fields that keep
 * reach (`reachKept`: reachGaps found none), an agent holding the rules' scopes (access.ts seesWithinReach).
 */
export interface WholeTypes {
  query: CompiledQuery;
  rules: AccessRule<never>[];
  reachKept: boolean;
}

/**
 * Validates every route's operation once, at start: a broken mapping fails the boot, not a request. The documents are
 * generated (scripts/generate-artifacts.ts) from rest-compat/operations/, shared fragments included; `npm run
 * check:drift` keeps them in step with the .graphql files and the schema.
 */
export function compileRoutes(
  schema: GraphQLSchema,
  routes: AnyRoute[],
  opts: { jit?: boolean; columns?: ColumnReads } = {},
): CompiledRoute[] {
  return routes.map((route) => {
    const document = route.operation;
    const operationName = getOperationAST(document)?.name?.value ?? '(anonymous)';
    const errors = validate(schema, document);
    if (errors.length)
      throw new Error(
        `REST route ${route.method} ${route.path}: operation ${operationName} is invalid: ${errors[0].message}`,
      );
    // Validated above: the walk both compilers judge from is made once per route.
    const reached = opts.jit === false ? null : reachableTypes(schema, document);
    const paramNames: string[] = [];
    const pattern = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
      paramNames.push(name);
      return '([^/]+)';
    });
    const columns = opts.columns ?? 'inline';
    const jit = once(() => (reached ? compileForFacade(schema, document, reached, columns) : null));
    const wholeTypes = once(() => (reached ? compileForWholeTypes(schema, document, reached, columns) : null));
    return {
      route,
      document,
      operationName,
      matcher: new RegExp(`^${pattern}/?$`),
      paramNames,
      get jit() {
        return jit();
      },
      get wholeTypes() {
        return wholeTypes();
      },
      variableDefinitions: getOperationAST(document)?.variableDefinitions ?? [],
    };
  });
}

/** `make`'s answer, made on the first call and kept. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/**
 * The named types a valid operation's fields and inline fragments reach, fragments included. Both ways of compiling
 * a route are judged from this one walk (jitSafe, accessRulesOf).
 */
function reachableTypes(schema: GraphQLSchema, document: DocumentNode): Set<GraphQLNamedType> {
  const typeInfo = new TypeInfo(schema);
  const types = new Set<GraphQLNamedType>();
  const reach = () => {
    const t = getNamedType(typeInfo.getType());
    if (t) types.add(t);
  };
  visit(document, visitWithTypeInfo(typeInfo, { Field: reach, InlineFragment: reach }));
  return types;
}

/** reachableTypes of a document that validates; null for one that does not. */
function reachedIfValid(schema: GraphQLSchema, document: DocumentNode): Set<GraphQLNamedType> | null {
  return validate(schema, document).length ? null : reachableTypes(schema, document);
}

/**
 * Whether graphql-jit may run an operation. It calls a type's `isTypeOf` with the value alone and takes any truthy
 * answer (a Promise included) as yes, so a type whose `isTypeOf` is an authorization rule (graphql/access.ts: it
 * needs the context and may be async) must stay with graphql-js, which awaits it. Only an `isTypeOf` marked
 * synchronous and context-free (graphql/common.ts syncTypeCheck: the problem types' `instanceof`) is safe. Every
 * object type the operation can reach is checked, fragments included; a document that does not validate is refused.
 */
export function jitSafe(
  schema: GraphQLSchema,
  document: DocumentNode,
  reached = reachedIfValid(schema, document),
): boolean {
  if (!reached) return false;
  for (const t of reached) {
    const objects = isAbstractType(t) ? schema.getPossibleTypes(t) : isObjectType(t) ? [t] : [];
    for (const o of objects) if (o.isTypeOf && o.extensions.syncIsTypeOf !== true) return false;
  }
  return true;
}

function compileForFacade(
  schema: GraphQLSchema,
  document: DocumentNode,
  reached: Set<GraphQLNamedType>,
  columns: ColumnReads,
) {
  if (!jitSafe(schema, document, reached)) return null;
  const compiled = compileWithColumnReads(schema, document, reached, columns);
  return isCompiledQuery(compiled) ? compiled : null;
}

/**
 * How a compiled operation reads an exposed column of a Prisma type (column-fields.ts `columnRead`): `inline`, as a
 * property of the row in the object graphql-jit builds; `checked` (the tests' default), through a resolver that
 * refuses a row without the column, so the whole suite proves every row the facade's compiled operations meet carries
 * what their selection asked.
 */
export type ColumnReads = 'inline' | 'checked';

/**
 * graphql-jit compiles a field without a resolver to a property read inside the object literal it builds for the
 * record, and a field with one to a call: a fresh resolve-info object, a response path and three closures per field
 * per row (a page of 25 clients: 575 calls, about a third of what the request allocated, docs/performance.md). An
 * exposed column's resolver reads the row's property and, only when the row lacks it, loads it; the facade's compiled
 * operations read rows their own selection planned, which carry every column it asked. So each such field of the
 * types the operation reaches is compiled without its resolver: set aside while graphql-jit compiles (synchronously,
 * put back at once, as compileForWholeTypes does with `isTypeOf`), so graphql-js, and every other compile, still
 * sees it. Its answer is the same either way.
 */
function compileWithColumnReads(
  schema: GraphQLSchema,
  document: DocumentNode,
  reached: Set<GraphQLNamedType>,
  columns: ColumnReads,
): CompiledQuery | ExecutionResult {
  const saved: [GraphQLField<unknown, unknown>, GraphQLField<unknown, unknown>['resolve'], string][] = [];
  const needs = new Set<InHand<unknown>>();
  const relations = plannedRowReads(schema, document);
  const asked = new Set<string>();
  visit(document, { Field: (node) => void asked.add(node.name.value) });
  for (const t of reached) {
    if (!isObjectType(t)) continue;
    const fields = t.getFields();
    for (const f of Object.values(fields)) {
      const column = columnRead(f.resolve) ?? relations.get(`${t.name}.${f.name}`);
      if (column === undefined) continue;
      // Read under the name of another field of the type that the operation asks for too (a policy's `levies` are
      // its relation `taxes`, beside its `taxes` field), graphql-jit would mistake one for the other (the code it
      // generates is named by field): such a field keeps its resolver.
      if (column !== f.name && fields[column] !== undefined && asked.has(column)) continue;
      saved.push([f, f.resolve, f.name]);
      const derived = derivedRead(f.resolve);
      if (derived?.key === column && derived.inHand) needs.add(derived.inHand);
      f.resolve =
        columns === 'inline'
          ? undefined
          : derived?.key === column
            ? checkedDerived(t.name, f.name, derived)
            : checkedColumn(t.name, column);
      // graphql-jit reads a field without a resolver as the parent's property named as the field (its response key
      // is the selection's own, alias or name): a column exposed under another name (`databaseId` for `id`) is read
      // by the column's name for the compile. The field is found in its type's map by the selection's name.
      (f as { name: string }).name = column;
    }
  }
  if (columns === 'checked')
    for (const t of reached) {
      if (!isObjectType(t)) continue;
      for (const f of Object.values(t.getFields())) {
        const leaf = getNamedType(f.type);
        if (!isWrittenAsIs(leaf)) continue;
        saved.push([f, f.resolve, f.name]);
        f.resolve = checkedLeaf(`${t.name}.${f.name}`, leaf, f.resolve);
      }
    }
  try {
    const compiled = compileQuery(schema, document, undefined, {
      disablingCapturingStackErrors: true,
      disableLeafSerialization: true,
    });
    return needs.size && isCompiledQuery(compiled) ? holdingInHand(compiled, needs, schema, document) : compiled;
  } finally {
    // Last change first: a field both read as a column and checked as a leaf is saved twice.
    for (const [f, resolve, name] of saved.reverse()) {
      f.resolve = resolve;
      (f as { name: string }).name = name;
    }
  }
}

/**
 * A compiled operation reading fields from what the request holds in hand (column-fields.ts InHandRead: a record's
 * directory references): each run holds them first, and a run whose reads missed a row (one the holding lacks, read by
 * id by the field's resolver) answers by graphql-js instead, as an operation that cannot be compiled would.
 */
function holdingInHand(
  compiled: CompiledQuery,
  needs: ReadonlySet<InHand<unknown>>,
  schema: GraphQLSchema,
  document: DocumentNode,
): CompiledQuery {
  const run = compiled.query;
  const query: CompiledQuery['query'] = (root, ctx, variables) =>
    runHoldingInHand(
      needs,
      ctx as Context,
      () => run(root, ctx, variables),
      () => {
        // Response paths afresh: none of the compiled run's loader mappings (compiled-paths.ts) is met again.
        runsCompiled(ctx as Context);
        return execute({ schema, document, rootValue: root, contextValue: ctx, variableValues: variables });
      },
    );
  return Object.assign(compiled, { query });
}

/**
 * The fields a query may read as its rows' properties because they are planned rows, by `Type.field`, with the
 * property each reads: relation fields (column-fields.ts relationRead), read as the relation; and fields computed from
 * the row's own columns (column-fields.ts derivedRead), read through the getter of the row prototype a planned row
 * carries. Each counts when the document asks for it only on rows loaded with its relations as the fields' selection
 * asked, and given their model's row prototype: a root field's marked PLANNED_ROWS (through its connection's `edges`
 * and `node`), whose resolver answers a plan's rows or Prisma's given the selection whole and shaped alike
 * (selection-sql.ts shapeRows), and the rows of a relation read inline from such a row. A record made otherwise (a
 * claim's document checklist, built in code), or loaded apart (a relation asked twice with different arguments), may
 * lack both. A relation counts only when the document asks for it with one set of arguments (the row carries one).
 * Anything the walk cannot judge (an abstract type) leaves none.
 */
export function plannedRowReads(schema: GraphQLSchema, document: DocumentNode): Map<string, string> {
  const operation = getOperationAST(document);
  const root = schema.getQueryType();
  const none = new Map<string, string>();
  if (operation?.operation !== OperationTypeNode.QUERY || !root) return none;
  const fragments = fragmentsOf(document);
  const agree = { operation, fragments };
  const onPlanned = new Map<string, boolean>();
  const walk = (set: SelectionSetNode, type: GraphQLObjectType, planned: boolean): boolean => {
    for (const sel of set.selections) {
      if (sel.kind !== Kind.FIELD) {
        const on =
          sel.kind === Kind.FRAGMENT_SPREAD ? fragments[sel.name.value]?.typeCondition : (sel.typeCondition ?? null);
        const inner = sel.kind === Kind.FRAGMENT_SPREAD ? fragments[sel.name.value]?.selectionSet : sel.selectionSet;
        if (on === undefined || !inner) return false;
        if (on !== null && schema.getType(on.name.value) !== type) return false;
        if (!walk(inner, type, planned)) return false;
        continue;
      }
      if (sel.name.value.startsWith('__')) continue;
      const def = type.getFields()[sel.name.value];
      if (!def) return false;
      const key = `${type.name}.${def.name}`;
      const relation = relationRead(type.name, def.name);
      if (relation !== undefined || derivedRead(def.resolve))
        onPlanned.set(key, (onPlanned.get(key) ?? true) && planned);
      if (!sel.selectionSet) continue;
      const named = getNamedType(def.type);
      if (!isObjectType(named)) return false;
      const wrapper = !type.extensions.pothosPrismaModel && (def.name === 'edges' || def.name === 'node');
      // A relation's rows are the row's own only when it is asked with one set of arguments (else loaded apart).
      const inline = relation !== undefined && (!def.args.length || argumentsAgree(agree, def.name));
      const next = type === root ? def.extensions.plannedRows === true : inline || wrapper ? planned : false;
      if (!walk(sel.selectionSet, named, next)) return false;
    }
    return true;
  };
  if (!walk(operation.selectionSet, root, false)) return none;
  const out = new Map<string, string>();
  for (const [key, planned] of onPlanned) {
    const [type, field] = key.split('.') as [string, string];
    const def = (schema.getType(type) as GraphQLObjectType).getFields()[field];
    if (!planned) continue;
    const relation = relationRead(type, field);
    if (relation === undefined) out.set(key, derivedRead(def.resolve)!.key);
    else if (!def.args.length || argumentsAgree(agree, field)) out.set(key, relation);
  }
  return out;
}

/** The document's fragment definitions by name (a resolve info's `fragments`). */
function fragmentsOf(document: DocumentNode): Record<string, FragmentDefinitionNode> {
  const out: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) out[d.name.value] = d;
  return out;
}

/**
 * A derived field's read that refuses a row without its model's row prototype or the columns the field reads, or a
 * getter answering a promise (ColumnReads `checked`): what a compiled operation reads inline must be there.
 */
function checkedDerived(type: string, field: string, derived: DerivedRead) {
  return (parent: unknown) => {
    const row = parent as Record<string, unknown>;
    if (!(derived.key in row) || !carries(row, derived.paths))
      throw new Error(`${type}.${field}: a compiled operation met a row without its getter or its columns`);
    const value = row[derived.key];
    if (value && typeof (value as { then?: unknown }).then === 'function')
      throw new Error(`${type}.${field}: a derived field's getter answered a promise`);
    return value;
  };
}

/**
 * The leaves graphql-jit writes as they come when its leaf serialization is off (compileWithColumnReads): the
 * specified scalars (String, Int, Float, Boolean, ID) and enums. With it on, each such field of each row was a call
 * to the type's serializer, passed the field's response path as two fresh arrays for an error it almost never
 * raised: a page of 25 clients built ~1,100 of them (a quarter of what the request allocated, docs/performance.md).
 * Off, the answer is the same only when every value is already what its serializer would write: a string for a
 * String or an ID, an Int in range, an enum's own name. `checked` mode (the tests') holds every such field to that.
 */
function isWrittenAsIs(t: GraphQLNamedType): t is GraphQLLeafType {
  return isEnumType(t) || isSpecifiedScalarType(t);
}

/**
 * A leaf written as it comes (isWrittenAsIs), in ColumnReads `checked`: its value (each item of a list) must be what
 * the type's serializer would write, or the operation fails, so the suite proves the compiled answers unchanged.
 */
function checkedLeaf(
  where: string,
  leaf: GraphQLLeafType,
  resolve: GraphQLField<unknown, unknown>['resolve'],
): GraphQLField<unknown, unknown>['resolve'] {
  const check = (value: unknown): unknown => {
    if (value === null || value === undefined || value instanceof Error) return value;
    if (Array.isArray(value)) {
      for (const item of value) check(item);
      return value;
    }
    const written = leaf.serialize(value);
    if (written !== value)
      throw new Error(
        `${where}: a compiled operation met ${shown(value)}, which ${leaf.name} writes as ${shown(written)}`,
      );
    return value;
  };
  return (parent, args, ctx, info) => {
    const value = (resolve ?? defaultFieldResolver)(parent, args, ctx, info);
    return value && typeof (value as { then?: unknown }).then === 'function'
      ? (value as Promise<unknown>).then(check)
      : check(value);
  };
}

const shown = (v: unknown) => (typeof v === 'bigint' ? `${v}n` : JSON.stringify(v));

/** A column read that refuses a row without the column (ColumnReads `checked`). */
function checkedColumn(type: string, column: string) {
  return (parent: unknown) => {
    const value = (parent as Record<string, unknown>)[column];
    if (value === undefined) throw new Error(`${type}.${column}: a compiled operation met a row without its column`);
    return value;
  };
}

/**
 * The access rules of every object type a query can reach (graphql/access.ts), or null when it may not be compiled
 * without them: not a query, invalid, or reaching an abstract type (whose members graphql-jit tells apart by their
 * `isTypeOf`) or an `isTypeOf` that is neither an access rule nor a synchronous type check.
 */
export function accessRulesOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  reached = reachedIfValid(schema, document),
): { types: GraphQLObjectType[]; rules: AccessRule<never>[] } | null {
  if (getOperationAST(document)?.operation !== OperationTypeNode.QUERY || !reached) return null;
  const types: GraphQLObjectType[] = [];
  for (const t of reached) {
    if (isAbstractType(t)) return null;
    if (!isObjectType(t) || !t.isTypeOf || t.extensions.syncIsTypeOf === true) continue;
    if (!t.extensions.accessRule) return null;
    types.push(t);
  }
  return { types, rules: types.map((t) => t.extensions.accessRule as AccessRule<never>) };
}

/**
 * Where a query reaches records of a type with a reach rule (graphql/access.ts) through a field that does not keep
 * reach: the response paths, empty when there is none, null when the document cannot be judged (invalid, or an
 * abstract type). A field keeps reach (`extensions.keepsReach`, graphql/access.ts `KEEPS_REACH`) when every record
 * it returns, directly or through types without a rule of their own (a connection and its edges), is within the
 * caller's reach whenever its parent is: a root field whose statement applies the visibility fragment, a policy's
 * debit notes, a policy's policyholder. A record reached only through such fields needs no check of its own, so an
 * operation with no gap may run for an agent compiled without the rules, exactly as the rules would have answered.
 */
export function reachGaps(schema: GraphQLSchema, document: DocumentNode): string[] | null {
  const operation = getOperationAST(document);
  const root = schema.getQueryType();
  if (operation?.operation !== OperationTypeNode.QUERY || !root || validate(schema, document).length) return null;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const gaps: string[] = [];
  // cover: a record met here, through types without a rule, is within reach because a field above kept it. The
  // record a field hangs off is taken as within reach: the root is, and a record reached through a gap disqualifies
  // the operation anyway.
  const walk = (set: SelectionSetNode, type: GraphQLObjectType, cover: boolean, at: string) => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.INLINE_FRAGMENT) {
        const on = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : type;
        if (on !== type) return false;
        if (walk(sel.selectionSet, type, cover, at) === false) return false;
        continue;
      }
      if (sel.kind === Kind.FRAGMENT_SPREAD) {
        const f = fragments.get(sel.name.value);
        if (!f || schema.getType(f.typeCondition.name.value) !== type) return false;
        if (walk(f.selectionSet, type, cover, at) === false) return false;
        continue;
      }
      if (sel.name.value.startsWith('__')) continue;
      const def = type.getFields()[sel.name.value];
      const named = getNamedType(def.type);
      if (isAbstractType(named)) return false;
      if (!isObjectType(named) || !sel.selectionSet) continue;
      const path = `${at}${at ? '.' : ''}${sel.name.value}`;
      // A mark counts on a root field or a field of a record type: on a field of a type without a rule (a wrapper
      // some root made), whether its records are within reach depends on how the wrapper was made, so the root
      // that made it is what is marked.
      const marked = def.extensions.keepsReach === true && (type === root || !!type.extensions.accessRule);
      const fieldCover = cover || marked;
      const rule = named.extensions.accessRule as AccessRule<never> | undefined;
      if (rule?.reach && !fieldCover) gaps.push(path);
      const next = walk(sel.selectionSet, named, !rule && fieldCover, path);
      if (next === false) return false;
    }
    return true;
  };
  return walk(operation.selectionSet, root, false, '') ? gaps : null;
}

/**
 * The query compiled as its types would be without their access rules: each rule's `isTypeOf` is set aside while
 * graphql-jit compiles and put back at once. The compile is synchronous (no await between setting aside and putting
 * back), so no other operation ever runs against the schema without its rules, whenever the first call comes. Only
 * ever run for a caller every one of those rules lets see the whole type (executeCompiled).
 */
function compileForWholeTypes(
  schema: GraphQLSchema,
  document: DocumentNode,
  reached: Set<GraphQLNamedType>,
  columns: ColumnReads,
): WholeTypes | null {
  if (jitSafe(schema, document, reached)) return null; // compiled as it is already
  const found = accessRulesOf(schema, document, reached);
  if (!found) return null;
  const saved = found.types.map((t) => [t, t.isTypeOf] as const);
  for (const [t] of saved) t.isTypeOf = undefined;
  try {
    const compiled = compileWithColumnReads(schema, document, reached, columns);
    if (!isCompiledQuery(compiled)) return null;
    return { query: compiled, rules: found.rules, reachKept: reachGaps(schema, document)?.length === 0 };
  } finally {
    for (const [t, isTypeOf] of saved) t.isTypeOf = isTypeOf;
  }
}

/**
 * Rebuilds the AppError of a typed failure result (any root field whose __typename is a Problem): a route's
 * `toResponse` sees only the success members of a result union (`Resolved` in route.ts).
 */
function problemFromResult(value: unknown): AppError | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  if (typeof v.__typename !== 'string' || !v.__typename.endsWith('Problem')) return null;
  if (typeof v.code !== 'string') throw new Error(`${v.__typename} selected without ...ProblemFields`);
  // A field error's code is null in GraphQL when the rule words itself; the problem document leaves it out then.
  const errors = (v.fieldErrors as (FieldError | { field: string; message: string; code: null })[] | undefined)?.map(
    ({ code, ...e }) => (code == null ? e : { ...e, code }),
  );
  if (v.code === 'validation_failed') return new ValidationError(errors ?? [], v.detail as string);
  const { __typename: _typename, code, status, title: _title, detail, fieldErrors: _fieldErrors, ...extra } = v;
  return new AppError(code as never, {
    detail: detail as string,
    status: status as number,
    errors: errors?.length ? errors : undefined,
    // A problem type's optional members (InvalidStateProblem.allowed …) appear only when they say something.
    extra: snakeKeys(Object.fromEntries(Object.entries(extra).filter(([, x]) => x != null))) as Record<string, unknown>,
  });
}

function snakeKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(snakeKeys);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [snake(k), snakeKeys(x)]));
}

/** Applies the route's legacy renames to the longest matching leading part of a path (`insurer_ids.0` → `insurer_id.0`). */
function renameField(field: string, names: Record<string, string>): string {
  const parts = field.split('.');
  for (let n = parts.length; n > 0; n--) {
    const head = parts.slice(0, n).join('.');
    if (names[head]) return [names[head], ...parts.slice(n)].join('.');
  }
  return field;
}

/** Field paths in REST spelling: `input.` dropped, camelCase → snake_case, then the route's own legacy renames. */
function restFieldErrors(err: AppError, route: AnyRoute): AppError {
  if (route.mapProblemExtra && (err.extra || route.mapEveryProblem)) {
    err = new AppError(err.code, {
      detail: err.detail,
      status: err.status,
      errors: err.errors,
      extra: route.mapProblemExtra(err.extra ?? {}, err),
      headers: err.headers,
    });
  }
  if (!err.errors?.length) return err;
  const errors = err.errors.map((e) => {
    const field = e.field
      .replace(/^input\./, '')
      .split('.')
      .map(snake)
      .join('.');
    return { ...e, field: renameField(field, route.fieldNames ?? {}) };
  });
  // A detail built from the field errors (validationDetail: "startFrom: …") is built again from the REST spelling;
  // a detail of the service's own words is kept as it is.
  const detail = err.detail === validationDetail(err.errors) ? validationDetail(errors) : err.detail;
  return err instanceof ValidationError
    ? new ValidationError(errors, detail)
    : new AppError(err.code, { detail, status: err.status, errors, extra: err.extra, headers: err.headers });
}

/**
 * The compiled operation when there is one, graphql-js otherwise. The variables are checked first either way
 * (graphql/variable-errors.ts, graphql-js's own coercion), so a caller's mistake is a structured field error, the same
 * whichever engine runs: its field path and code come from the schema, never from an error's wording.
 */
async function executeCompiled(
  schema: GraphQLSchema,
  compiled: CompiledRoute,
  ctx: Context,
  variables: Record<string, unknown>,
): Promise<ExecutionResult> {
  const refused = variableErrors(schema, compiled.variableDefinitions, variables);
  if (refused.length) throw new ValidationError(refused);
  switch (engineFor(compiled, ctx.principal)) {
    case 'compiled':
      return compiled.jit!.query(undefined, ctx, variables);
    case 'compiled without rules':
      runsCompiled(ctx);
      return compiled.wholeTypes!.query.query(undefined, ctx, variables);
    case 'graphql-js':
      return execute({ schema, document: compiled.document, contextValue: ctx, variableValues: variables });
  }
}

/**
 * Which engine runs a route's operation for a caller: compiled as it is when no type it reaches has an access rule;
 * compiled without the rules when every one of them would say yes to every row the operation can meet (staff holding
 * the scopes; an agent holding them, when the operation reaches records only through fields that keep reach); else
 * graphql-js, which asks each rule of each row.
 */
export function engineFor(
  compiled: CompiledRoute,
  p: Principal | undefined,
): 'compiled' | 'compiled without rules' | 'graphql-js' {
  if (compiled.jit) return 'compiled';
  const whole = compiled.wholeTypes;
  if (!whole) return 'graphql-js';
  if (whole.rules.every((r) => seesWholeType(p, r))) return 'compiled without rules';
  if (whole.reachKept && whole.rules.every((r) => seesWithinReach(p, r))) return 'compiled without rules';
  return 'graphql-js';
}

export async function runOperation(
  schema: GraphQLSchema,
  compiled: CompiledRoute,
  ctx: Context,
  variables: Record<string, unknown>,
) {
  try {
    return await execute0(schema, compiled, ctx, variables);
  } catch (e) {
    throw isAppError(e) ? restFieldErrors(e, compiled.route) : e;
  }
}

async function execute0(
  schema: GraphQLSchema,
  compiled: CompiledRoute,
  ctx: Context,
  variables: Record<string, unknown>,
) {
  const result = await executeCompiled(schema, compiled, ctx, variables);
  if (result.errors?.length) {
    const first = result.errors[0];
    if (isAppError(first.originalError)) throw first.originalError;
    const overload = overloadError(first.originalError);
    if (overload) {
      ctx.log.warn({ err: first.originalError, operation: compiled.operationName }, 'database pool exhausted');
      throw overload;
    }
    ctx.log.error({ err: first.originalError ?? first, operation: compiled.operationName }, 'REST operation failed');
    throw new AppError('internal_error');
  }
  const data = (result.data ?? {}) as Record<string, unknown>;
  for (const value of Object.values(data)) {
    const problem = problemFromResult(value);
    if (problem) throw problem;
  }
  return data;
}

/**
 * The request as `toVariables` takes it: with `parseBody`, the body parsed by the route's `requestBody` (its one
 * definition, builders.ts) — refused as 422 validation_failed naming each field in the REST spelling, else coerced
 * and stripped of unknown keys. Without it, the body as sent (GraphQL's coercion checks it).
 */
export function parsedBody(route: AnyRoute, input: RestInput): RestInput {
  if (!route.parseBody || !route.requestBody) return input;
  try {
    return { ...input, body: parseInput(route.requestBody, input.body) };
  } catch (e) {
    // The paths are the wire's already (the definition is written in its spelling): only the route's problem
    // reshaping applies, as it does to the same refusal from the core.
    throw isAppError(e) ? restFieldErrors(e, { ...route, fieldNames: {} }) : e;
  }
}
