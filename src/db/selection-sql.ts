import { Prisma, type Tx } from './client.ts';
import { prismaDatamodel } from './datamodel.ts';

/**
 * A Prisma selection as one fixed statement (issue 28): the rows a `findFirst` / `findMany` with this `select` would
 * return, read with `$queryRaw` in the caller's unit of work, for the hot reads whose selection nests many relations
 * (a policy's record holds fifteen lists, some nesting their own). Prisma answers such a selection with one statement
 * too (relationJoins), but builds it afresh on every call and maps its nested JSON field by field through its generic
 * result layer: most of a policy read's node CPU (docs/performance.md). Here the statement is planned once per shape
 * of selection and kept; each relation is a correlated subquery building its JSON in PostgreSQL (a list as an ordered
 * `json_agg`, a to-one as one object), and node turns the few values JSON cannot carry (BIGINT, timestamps, dates)
 * back into what Prisma returns for them, by a plan made with the statement.
 *
 * It covers what the Pothos plugin's selections use: scalar fields, to-one and to-many relations by a single foreign
 * key referencing `id`, a relation's `orderBy` on its scalar fields and a `where` of equalities and `in` lists on them.
 * `plan` answers null for anything else (an `include`, a count, a relation's `take`, a filter on a relation, a
 * many-to-many), and the caller reads with Prisma as before. test/policy-read-model.test.ts compares the rows with
 * Prisma's for the selections the REST facade makes (the naive second implementation).
 *
 * Row-level security applies to every subquery as to any statement of the unit, and the caller's where (its
 * visibility rule, in SQL) restricts the top rows exactly as its Prisma where-fragment does.
 */

interface Column {
  kind: 'scalar' | 'enum' | 'object';
  type: string;
  column: string;
  isList: boolean;
  /** A relation: its foreign key fields on this model (empty when the key is on the other side). */
  from: readonly string[];
  relationName?: string;
}

interface Model {
  table: string;
  fields: Map<string, Column>;
}

type RuntimeModels = Record<string, { dbName: string | null; fields: { name: string; dbName?: string | null }[] }>;

let models: Map<string, Model> | undefined;

/** The data model: relations from the Pothos plugin's copy of it, table and column names from Prisma's runtime one. */
function modelsOf(tx: Tx): Map<string, Model> {
  if (models) return models;
  const runtime = (tx as unknown as { _runtimeDataModel?: { models: RuntimeModels } })._runtimeDataModel?.models;
  if (!runtime) throw new Error('selection-sql: the Prisma client has no runtime data model');
  const out = new Map<string, Model>();
  for (const [name, m] of Object.entries(prismaDatamodel().models)) {
    const r = runtime[name];
    if (!r) continue;
    const columns = new Map(r.fields.map((f) => [f.name, f.dbName ?? f.name]));
    const fields = new Map<string, Column>();
    for (const f of m.fields as readonly {
      name: string;
      kind: string;
      type: string;
      isList: boolean;
      relationName?: string;
      relationFromFields?: readonly string[];
    }[]) {
      if (f.kind !== 'scalar' && f.kind !== 'enum' && f.kind !== 'object') continue;
      fields.set(f.name, {
        kind: f.kind,
        type: f.type,
        column: columns.get(f.name) ?? f.name,
        isList: f.isList,
        from: f.relationFromFields ?? [],
        relationName: f.relationName,
      });
    }
    out.set(name, { table: r.dbName ?? name, fields });
  }
  return (models = out);
}

const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** How one value of a row comes back from JSON to the value Prisma gives. */
export type Convert = (v: unknown) => unknown;
export const toBigInt: Convert = (v) => (v == null ? v : BigInt(v as string));
export const toDate: Convert = (v) => (v == null ? v : new Date(v as number));

interface Shape {
  /** Fields to convert in each object of this level (relations and BIGINT/DateTime scalars). */
  converts: [string, Convert][];
  /** The model's row prototype (rowPrototype), when it has one. */
  proto: object | undefined;
}

/**
 * Per model, the prototype every row a plan answers of it is given (top-level and related rows alike), holding the
 * getters defineRowGetter defined: values a field computes from the row's own columns (a Money made from its cents, a
 * date formatted), read as properties by the facade's compiled operations (graphql/column-fields.ts derivedRead)
 * rather than through a resolver call each. A model without getters keeps plain objects. shapeRows gives rows Prisma
 * read the same prototypes.
 */
const rowPrototypes = new Map<string, object>();

/**
 * Defines on `model`'s row prototype a getter `key` answering `get(row)`. Keys are the caller's to keep apart from
 * column names (column-fields.ts spells them `$Type$field`). Called while the schema is built, before any row is read.
 */
export function defineRowGetter(model: string, key: string, get: (row: never) => unknown): void {
  let proto = rowPrototypes.get(model);
  if (!proto) rowPrototypes.set(model, (proto = {}));
  Object.defineProperty(proto, key, {
    get(this: never) {
      return get(this);
    },
    enumerable: false,
    configurable: true,
  });
}

/** The row prototype of `model` (see defineRowGetter), or undefined when it has no getters. */
export function rowPrototype(model: string): object | undefined {
  return rowPrototypes.get(model);
}

/**
 * Gives rows Prisma answered for `select` over `modelName` (a caller's fallback when no plan covers its selection) the
 * row prototypes a plan's rows get, related rows included, following the selection: the same rows either way for the
 * facade's compiled operations. Prisma's rows are plain objects built for this call alone.
 */
export function shapeRows(tx: Tx, modelName: string, select: unknown, rows: unknown): void {
  if (rows == null || !rowPrototypes.size) return;
  const all = modelsOf(tx);
  const walk = (model: string, sel: unknown, v: unknown): void => {
    if (v == null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const one of v) walk(model, sel, one);
      return;
    }
    const proto = rowPrototypes.get(model);
    if (proto && Object.getPrototypeOf(v) === Object.prototype) Object.setPrototypeOf(v, proto);
    if (!sel || typeof sel !== 'object') return;
    const fields = all.get(model)?.fields;
    for (const [name, value] of Object.entries(sel)) {
      const f = fields?.get(name);
      if (f?.kind !== 'object' || !value) continue;
      const args = value as { select?: unknown; include?: unknown };
      walk(
        f.type,
        typeof value === 'object' ? (args.select ?? args.include) : undefined,
        (v as Record<string, unknown>)[name],
      );
    }
  };
  walk(modelName, select, rows);
}

/**
 * `rows` Prisma read over `modelName` for a caller's query (`{ select }` or `{ include }`, a Pothos selection), given
 * the row prototypes its plan's rows would have (shapeRows), and returned: a root field marked PLANNED_ROWS
 * (graphql/column-fields.ts) answers rows shaped alike whichever read them.
 */
export function shapedAsPlanned<R>(tx: Tx, modelName: string, query: unknown, rows: R): R {
  const q = query as { select?: unknown; include?: unknown } | undefined;
  if (q?.select || q?.include) shapeRows(tx, modelName, q.select ?? q.include, rows);
  return rows;
}

/**
 * Set on every object a plan's statement answered, top-level rows and related rows alike: it carries each relation its
 * selection named, filtered and ordered as the selection asked, so a relation field of the GraphQL selection the plan
 * was made from may resolve straight from it (graphql/column-fields.ts) rather than look up what its parent's query
 * preloaded. A symbol: JSON, Object.keys and Prisma never see it.
 */
export const WHOLE_SELECTION = Symbol('bima.wholeSelection');

const convertObject = (shape: Shape): Convert => {
  const { converts, proto } = shape;
  return (v) => {
    if (v == null) return v;
    const o = v as Record<string | symbol, unknown>;
    for (let i = 0; i < converts.length; i++) {
      const [k, c] = converts[i];
      o[k] = c(o[k]);
    }
    o[WHOLE_SELECTION] = true;
    if (proto) Object.setPrototypeOf(o, proto);
    return o;
  };
};

const convertList =
  (one: Convert): Convert =>
  (v) => {
    if (v == null) return [];
    const list = v as unknown[];
    for (let i = 0; i < list.length; i++) list[i] = one(list[i]);
    return list;
  };

class Unsupported extends Error {}
const no = (why: string): never => {
  throw new Unsupported(why);
};

interface Built {
  /** SQL text pieces and the values between them (Prisma.Sql's shape), for the statement's select list. */
  sql: Prisma.Sql;
  convert: Convert;
}

let aliases = 0;

function relationJoin(
  modelName: string,
  field: Column,
  parentAlias: string,
  childAlias: string,
  all: Map<string, Model>,
): string {
  const child = all.get(field.type) ?? no(`model ${field.type}`);
  const parent = all.get(modelName)!;
  if (field.from.length === 1) {
    // The key is on this side: child.id = parent.<fk>.
    if (!child.fields.get('id') || child.fields.get('id')!.kind !== 'scalar') no(`${field.type} has no id`);
    const fk = parent.fields.get(field.from[0]) ?? no(`field ${field.from[0]}`);
    return `${childAlias}.${ident(child.fields.get('id')!.column)} = ${parentAlias}.${ident(fk.column)}`;
  }
  if (field.from.length) no('a compound key');
  // The key is on the other side: the field of the child naming this relation, with its key.
  const back = [...child.fields.values()].find(
    (f) => f.kind === 'object' && f.relationName === field.relationName && f.type === modelName && f.from.length,
  );
  if (!back || back.from.length !== 1) no(`relation ${field.relationName}`);
  if (!parent.fields.get('id')) no(`${modelName} has no id`);
  const fk = child.fields.get(back!.from[0]) ?? no(`field ${back!.from[0]}`);
  return `${childAlias}.${ident(fk.column)} = ${parentAlias}.${ident(parent.fields.get('id')!.column)}`;
}

function orderBy(model: Model, alias: string, order: unknown): string {
  if (order == null) return '';
  const list = Array.isArray(order) ? order : [order];
  const parts: string[] = [];
  for (const o of list) {
    if (!o || typeof o !== 'object') no('orderBy');
    for (const [k, dir] of Object.entries(o as object)) {
      const f = model.fields.get(k);
      if (!f || f.kind === 'object' || f.isList || (dir !== 'asc' && dir !== 'desc')) no(`orderBy ${k}`);
      parts.push(`${alias}.${ident(f!.column)} ${dir === 'asc' ? 'ASC' : 'DESC'}`);
    }
  }
  return parts.length ? ` ORDER BY ${parts.join(', ')}` : '';
}

const SCALAR_VALUE = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

function whereOf(model: Model, alias: string, where: unknown): Prisma.Sql[] {
  if (where == null) return [];
  if (typeof where !== 'object') return no('where');
  const out: Prisma.Sql[] = [];
  for (const [k, cond] of Object.entries(where as Record<string, unknown>)) {
    const f = model.fields.get(k);
    if (!f || f.kind === 'object' || f.isList) no(`where ${k}`);
    const col = Prisma.raw(`${alias}.${ident(f!.column)}${f!.kind === 'enum' ? '::text' : ''}`);
    if (SCALAR_VALUE(cond)) out.push(Prisma.sql`${col} = ${cond}`);
    else if (cond && typeof cond === 'object' && Object.keys(cond).length === 1 && 'in' in cond) {
      const values = cond.in;
      if (!Array.isArray(values) || !values.length || !values.every(SCALAR_VALUE)) no(`where ${k}`);
      out.push(Prisma.sql`${col} IN (${Prisma.join(values as unknown[])})`);
    } else no(`where ${k}`);
  }
  return out;
}

const NESTED_KEYS = new Set(['select', 'where', 'orderBy']);

/**
 * One object of `modelName` as JSON built by PostgreSQL from the row aliased `alias`: each selected scalar, each
 * relation a subquery of its own.
 */
function jsonObject(all: Map<string, Model>, modelName: string, alias: string, select: object): Built {
  const model = all.get(modelName) ?? no(`model ${modelName}`);
  const parts: Prisma.Sql[] = [];
  const converts: [string, Convert][] = [];
  const entries = Object.entries(select).filter(([, v]) => v);
  if (entries.length > 50) no('more than 50 fields'); // json_build_object takes 100 arguments
  for (const [name, value] of entries) {
    const f = model.fields.get(name) ?? no(`field ${modelName}.${name}`);
    const key = Prisma.raw(`'${name}', `);
    if (f.kind !== 'object') {
      if (value !== true) no(`field ${name}`);
      parts.push(Prisma.sql`${key}${Prisma.raw(scalarJson(f, alias))}`);
      const c = scalarConvert(f);
      if (c) converts.push([name, c]);
      continue;
    }
    const rel = relationSql(all, modelName, alias, f, value);
    parts.push(Prisma.sql`${key}${rel.sql}`);
    converts.push([name, rel.convert]);
  }
  if (!parts.length) no('an empty selection');
  return {
    sql: Prisma.sql`json_build_object(${Prisma.join(parts, ', ')})`,
    convert: convertObject({ converts, proto: rowPrototypes.get(modelName) }),
  };
}

/** A relation of the row aliased `alias` as a subquery: a JSON list (ordered, filtered) or one object or null. */
function relationSql(all: Map<string, Model>, modelName: string, alias: string, f: Column, value: unknown): Built {
  const args = value === true ? no('a relation without select') : (value as Record<string, unknown>);
  if (!args || typeof args !== 'object' || !args.select) no('a relation without select');
  for (const k of Object.keys(args)) if (!NESTED_KEYS.has(k)) no(`relation argument ${k}`);
  const child = all.get(f.type) ?? no(`model ${f.type}`);
  const a = `r${++aliases}`;
  const on = relationJoin(modelName, f, alias, a, all);
  const inner = jsonObject(all, f.type, a, args.select as object);
  const where = whereOf(child, a, args.where);
  const cond = Prisma.join([Prisma.raw(on), ...where], ' AND ');
  const from = Prisma.raw(`FROM ${ident(child.table)} ${a}`);
  if (f.isList) {
    const order = Prisma.raw(orderBy(child, a, args.orderBy));
    return {
      sql: Prisma.sql`(SELECT coalesce(json_agg(${inner.sql}${order}), '[]') ${from} WHERE ${cond})`,
      convert: convertList(inner.convert),
    };
  }
  if (args.where || args.orderBy) no('a to-one relation with where or orderBy');
  return { sql: Prisma.sql`(SELECT ${inner.sql} ${from} WHERE ${cond})`, convert: inner.convert };
}

/**
 * A timestamp or date column as milliseconds since the epoch (a date as its midnight UTC, a timestamp as its instant,
 * as Prisma reads them), a float8 whose fraction (microseconds) `new Date` drops as Prisma's parse of the text does.
 */
export const epochMs = (col: string): string => `(extract(epoch from ${col}) * 1000)::float8`;

function scalarJson(f: Column, alias: string): string {
  const col = `${alias}.${ident(f.column)}`;
  if (f.isList && (f.type === 'BigInt' || f.type === 'DateTime')) no(`a list of ${f.type}`);
  switch (f.type) {
    case 'BigInt':
      return `${col}::text`;
    case 'DateTime':
      return epochMs(col);
    case 'Decimal':
    case 'Bytes':
      return no(`a ${f.type} field`);
    default:
      return col;
  }
}

function scalarConvert(f: Column): Convert | null {
  if (f.type === 'BigInt') return toBigInt;
  if (f.type === 'DateTime') return toDate;
  return null;
}

/** A planned selection: its select list and FROM (`alias` names the model's table) and the conversion of its rows. */
export interface SelectionPlan {
  /** `SELECT …select list… FROM table alias`: the caller adds WHERE and the rest. */
  readonly head: Prisma.Sql;
  /** Turns rows as $queryRaw returns them into the rows Prisma's query returns (in place). */
  rows<T>(rows: unknown[]): T[];
  /**
   * Runs `head` then `rest` (the caller's WHERE, ORDER BY …) in `tx` and answers rows as `rows` does. The statement's
   * text is made once per `shape` and kept: a string the caller makes from everything `rest`'s text depends on (which
   * conditions it holds, never their values). Handed the same string every time, the prepared statement's lookup
   * (client.ts preparedName) and pg's check of it compare one string with itself rather than a fresh copy of tens of
   * kilobytes. Under NODE_ENV=test every call checks the kept text against the one made afresh.
   */
  query<T>(tx: Tx, shape: string, rest: Prisma.Sql): Promise<T[]>;
}

const CHECK_KEPT_TEXTS = process.env.NODE_ENV === 'test';
/** Texts kept per plan: the shapes of its callers' conditions are a handful (filters set or not, staff or agent). */
const TEXTS_PER_PLAN = 64;

const plans = new Map<string, SelectionPlan | null>();
const PLANS_MAX = 200;

/** json_build_array takes at most 100 arguments (PostgreSQL's FUNC_MAX_ARGS): a longer row is built in chunks. */
const ARRAY_ARGS = 100;

/** One value of a row read by jsonRow: its SQL, the field it fills and how its JSON becomes Prisma's value. */
export interface RowColumn {
  sql: Prisma.Sql;
  name: string;
  convert: Convert | null;
}

/**
 * A whole row as one JSON array built by PostgreSQL (`sql`, selected `AS r`): one value per row for the driver, Prisma's
 * adapter and its raw result layer to carry (each converts every column of every row on its own, twice, with an
 * array and an object per row between them), read back by position by `rows`, each object cloned from a template of
 * its final shape (sized once, not grown a field at a time), carrying `mark` when given and given the prototype `proto`
 * answers when given (asked at each call: a caller made before the schema defined its model's getters). A row of more
 * than 100 values is an array of arrays of at most 100.
 */
export function jsonRow(
  columns: RowColumn[],
  mark?: symbol,
  proto?: () => object | undefined,
): { sql: Prisma.Sql; rows: <T>(rows: unknown[]) => T[] } {
  const values = columns.map((c) => c.sql);
  let sql: Prisma.Sql;
  let chunked = false;
  if (values.length <= ARRAY_ARGS) sql = Prisma.sql`json_build_array(${Prisma.join(values, ', ')})`;
  else {
    if (values.length > ARRAY_ARGS * ARRAY_ARGS) no('more than 10,000 values in a row');
    const chunks: Prisma.Sql[] = [];
    for (let i = 0; i < values.length; i += ARRAY_ARGS)
      chunks.push(Prisma.sql`json_build_array(${Prisma.join(values.slice(i, i + ARRAY_ARGS), ', ')})`);
    sql = Prisma.sql`json_build_array(${Prisma.join(chunks, ', ')})`;
    chunked = true;
  }
  const names = columns.map((c) => c.name);
  const converts = columns.map((c) => c.convert);
  const template: Record<string | symbol, unknown> = Object.fromEntries(names.map((n) => [n, null]));
  if (mark) template[mark] = true;
  return {
    sql,
    rows: <T>(rows: unknown[]): T[] => {
      const p = proto?.();
      const out = new Array<unknown>(rows.length);
      for (let i = 0; i < rows.length; i++) {
        const r = (rows[i] as { r: unknown[] }).r;
        const a = chunked ? (r as unknown[][]).flat() : r;
        const o = { ...template };
        for (let j = 0; j < names.length; j++) {
          const c = converts[j];
          o[names[j]] = c ? c(a[j]) : a[j];
        }
        out[i] = p ? Object.setPrototypeOf(o, p) : o;
      }
      return out as T[];
    },
  };
}

/**
 * The plan of `select` over `modelName` aliased `alias`, or null when the selection uses anything the plan does not
 * cover (then read with Prisma). Plans are kept by the selection's shape and values (a few per hot path).
 */
export function planSelection(tx: Tx, modelName: string, alias: string, select: unknown): SelectionPlan | null {
  if (!select || typeof select !== 'object') return null;
  const kept = (select as { [KEPT_SELECTION]?: KeptSelection })[KEPT_SELECTION];
  const byKept = kept && keptPlans.get(kept.owner);
  const keptKey = kept && `${modelName}\u0000${alias}\u0000${kept.seed}`;
  const found = keptKey ? byKept?.get(keptKey) : undefined;
  if (found && !CHECK_KEPT_TEXTS) return found.plan;
  const json = JSON.stringify(select);
  if (found && found.json !== json)
    throw new Error(`selection-sql: a kept selection of ${modelName} gave two different selections`);
  if (found) {
    selectionPlanStats.byMark += 1;
    return found.plan;
  }
  const key = `${modelName}\u0000${alias}\u0000${json}`;
  let known = plans.get(key);
  if (known === undefined) known = planned(tx, key, modelName, alias, select);
  if (kept && keptKey) {
    let m = byKept;
    if (!m) keptPlans.set(kept.owner, (m = new Map<string, KeptPlan>()));
    if (m.size < TEXTS_PER_PLAN) m.set(keptKey, { plan: known, json: CHECK_KEPT_TEXTS ? json : '' });
  }
  return known;
}

/**
 * What a selection kept across requests (graphql/plan-cache.ts) is marked with: the kept plan it was played from and
 * its seed. A kept plan played behind the same seed gives the same selection every time, so its statement's plan is
 * found by the two (a lookup) rather than by the selection's JSON (a page of policies: a tenth of a megabyte of it
 * serialized per request). Under NODE_ENV=test each call still serializes it and checks it against the first.
 */
export const KEPT_SELECTION = Symbol('bima.keptSelection');
/** Statements' plans found by a kept selection's mark, counted under NODE_ENV=test (test/plan-cache.test.ts). */
export const selectionPlanStats = { byMark: 0 };
export interface KeptSelection {
  owner: object;
  seed: string;
}
interface KeptPlan {
  plan: SelectionPlan | null;
  /** The selection's JSON, kept under NODE_ENV=test only (the check). */
  json: string;
}
const keptPlans = new WeakMap<object, Map<string, KeptPlan>>();

/** Marks a selection played from a kept plan (see KEPT_SELECTION); a symbol, so Prisma and JSON never see it. */
export function markKeptSelection(select: unknown, mark: KeptSelection): void {
  if (select && typeof select === 'object' && !Object.isFrozen(select))
    Object.defineProperty(select, KEPT_SELECTION, {
      value: mark,
      enumerable: false,
      writable: true,
      configurable: true,
    });
}

function planned(tx: Tx, key: string, modelName: string, alias: string, select: unknown): SelectionPlan | null {
  let plan: SelectionPlan | null;
  try {
    plan = build(modelsOf(tx), modelName, alias, select as Record<string, unknown>);
  } catch (e) {
    if (!(e instanceof Unsupported)) throw e;
    plan = null;
  }
  if (plans.size < PLANS_MAX) plans.set(key, plan);
  return plan;
}

function build(all: Map<string, Model>, modelName: string, alias: string, select: Record<string, unknown>) {
  if (!/^[a-z][a-z0-9_]*$/.test(alias)) throw new Error(`selection-sql: ${alias} is not an alias`);
  aliases = 0; // the subqueries' aliases r1, r2 … numbered afresh: one text for one selection
  const model = all.get(modelName) ?? no(`model ${modelName}`);
  const columns: RowColumn[] = [];
  for (const [name, value] of Object.entries(select)) {
    if (!value) continue;
    const f = model.fields.get(name) ?? no(`field ${modelName}.${name}`);
    if (f.kind !== 'object') {
      if (value !== true) no(`field ${name}`);
      columns.push({ sql: Prisma.raw(scalarJson(f, alias)), name, convert: scalarConvert(f) });
      continue;
    }
    const rel = relationSql(all, modelName, alias, f, value);
    columns.push({ sql: rel.sql, name, convert: rel.convert });
  }
  if (!columns.length) no('an empty selection');
  const proto = rowPrototypes.get(modelName);
  const row = jsonRow(columns, WHOLE_SELECTION, () => proto);
  const head = Prisma.sql`SELECT ${row.sql} AS r FROM ${Prisma.raw(`${ident(model.table)} ${alias}`)}`;
  const rowsOf = row.rows;
  const texts = new Map<string, string>();
  return {
    head,
    rows: rowsOf,
    query<T>(tx: Tx, shape: string, rest: Prisma.Sql): Promise<T[]> {
      const sql = Prisma.sql`${head} ${rest}`;
      let text = texts.get(shape);
      if (text === undefined) {
        text = sql.text;
        if (texts.size < TEXTS_PER_PLAN) texts.set(shape, text);
      } else if (CHECK_KEPT_TEXTS && text !== sql.text) {
        throw new Error(`selection-sql: the shape ${JSON.stringify(shape)} names two statement texts`);
      }
      return tx.$queryRawUnsafe<unknown[]>(text, ...sql.values).then((rows) => rowsOf<T>(rows));
    },
  };
}

/**
 * The plan of a Prisma query's selection when the query is a selection and nothing else (no include, order, paging
 * or cursor of its own: the caller's statement says those), else null.
 */
export function planQuery(tx: Tx, modelName: string, alias: string, query: unknown): SelectionPlan | null {
  if (!query || typeof query !== 'object') return null;
  const { select, ...rest } = query as { select?: unknown };
  for (const v of Object.values(rest)) if (v !== undefined) return null;
  return planSelection(tx, modelName, alias, select);
}
