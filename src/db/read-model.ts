import { Prisma } from './client.ts';
import { prismaFieldType } from './datamodel.ts';
import { epochMs, jsonRow, type RowColumn, rowPrototype, toBigInt, toDate } from './selection-sql.ts';

/**
 * Read models (issue 28): a hot read's fixed statement, written by the module that owns the table, for the selections
 * it can answer, beside the Prisma query it stands in for.
 *
 * A Prisma query builds its statement afresh for every call (serialising the query into Prisma's JSON protocol,
 * finding its plan, rendering it), and maps each row it returns field by field: about a third of the node CPU of a
 * client's record under load (docs/performance.md). A read model's statement is constant text with bound values, sent
 * with Prisma's `$queryRaw` inside the same unit of work (the same BEGIN READ ONLY carrying the tenant, row-level
 * security as for any statement; a replica's unit on the replica), and its rows come back with the columns already
 * named as Prisma names the fields. It answers only what it declares: `answers` says whether a Prisma selection (the
 * Pothos plugin's, planned from the GraphQL selection) asks for nothing else, and the module falls back to its Prisma
 * query for any selection it does not cover, so GraphQL callers asking for more (a relation, a field the model does not
 * have) are served as before, from the same rules.
 *
 * The module's test compares the model's rows with its Prisma query's for the same callers (the naive second
 * implementation), so the two cannot drift apart unseen.
 */
export interface ReadModel<F extends string> {
  /**
   * The select list: every field the model answers (always all of them: one statement text) as one JSON array per
   * row (`… AS r`, selection-sql.ts jsonRow), each relation in it as one JSON object of its fields (null when the row
   * has none).
   */
  readonly columns: Prisma.Sql;
  /** The joins of the model's to-one relations (empty when it has none), after `FROM table alias`. */
  readonly joins: Prisma.Sql;
  /** The Prisma field names the model answers. */
  readonly fields: ReadonlySet<F>;
  /**
   * The rows its statement returned, as Prisma's query returns them: each array made an object of the fields, its
   * timestamps and dates (read as milliseconds since the epoch) made Dates and its BIGINTs (read as text) bigints.
   */
  rows<T>(rows: unknown[]): T[];
  /**
   * Whether a Prisma query asks for fields of the model and nothing else: a `select` naming only fields of the model
   * (as `true`) and only its relations (each as `{ select }` of that relation's fields), no `include` (which means
   * every column, and relations). Pagination and filters are the caller's to check.
   */
  answers(query: { select?: unknown; include?: unknown }): boolean;
}

/**
 * A to-one relation of a read model: its table joined under `alias` (`on` the parent's key: the join is a LEFT JOIN,
 * so an optional relation's absence is a null), and its fields as the model's are. The relation comes back as JSON,
 * so its fields must be ones JSON carries as Prisma returns them: text and integers (no dates, no BIGINT).
 */
export interface ReadRelation {
  table: string;
  alias: string;
  on: string;
  fields: Record<string, string>;
}

const FIELD = /^[A-Za-z][A-Za-z0-9]*$/;
const COLUMN = /^[a-z_][a-z0-9_]*(::[a-z_]+)?$/;
const NAME = /^[a-z_][a-z0-9_]*$/;
const ON = /^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]* = [a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$/;

/**
 * A read model of the Prisma model `model` over `alias`'s columns: `columns` maps each of its fields to its column,
 * cast where Prisma returns the field as another type (an enum as `::text`); `relations` its to-one relations, by
 * Prisma relation name (each with its `id`, which the model always reads). A field of type DateTime (a timestamp or a
 * date) is read as milliseconds since the epoch and made a Date by `rows`: a number and `new Date(n)` cost a fifth of
 * the driver's text reshaped by the adapter and parsed by Prisma.
 */
export function readModel<F extends string>(
  model: string,
  alias: string,
  columns: Record<F, string>,
  relations: Record<string, ReadRelation> = {},
): ReadModel<F> {
  const check = (what: string, ok: boolean) => {
    if (!ok) throw new Error(`read model: ${what}`);
  };
  const entries = Object.entries(columns) as [F, string][];
  // The row as one JSON array (selection-sql.ts jsonRow), each value as JSON carries it: a BIGINT as its text, a
  // timestamp or date as milliseconds since the epoch, made a bigint and a Date by `rows`.
  const columnsRead: RowColumn[] = [];
  for (const [field, expr] of entries) {
    check(`field ${field} is not a Prisma field name`, FIELD.test(field));
    check(`${expr} (${field}) is not a column`, COLUMN.test(expr));
    const type = prismaFieldType(model, field);
    check(`${model}.${field} is not a field of the Prisma model`, type !== undefined);
    check(`${model}.${field} is a ${type}, which the model does not read`, type !== 'Decimal' && type !== 'Bytes');
    if (type === 'DateTime') {
      check(`${model}.${field} is a DateTime read with a cast`, !expr.includes('::'));
      columnsRead.push({ sql: Prisma.raw(epochMs(`${alias}.${expr}`)), name: field, convert: toDate });
    } else if (type === 'BigInt') {
      check(`${model}.${field} is a BigInt read with a cast`, !expr.includes('::'));
      columnsRead.push({ sql: Prisma.raw(`${alias}.${expr}::text`), name: field, convert: toBigInt });
    } else columnsRead.push({ sql: Prisma.raw(`${alias}.${expr}`), name: field, convert: null });
  }
  const joins: string[] = [];
  const nested = Object.entries(relations).map(([name, r]) => {
    check(`relation ${name}`, FIELD.test(name) && NAME.test(r.table) && NAME.test(r.alias) && ON.test(r.on));
    const fields = Object.entries({ id: 'id', ...r.fields });
    const pairs: string[] = [];
    for (const [field, expr] of fields) {
      check(`field ${name}.${field}`, FIELD.test(field) && COLUMN.test(expr));
      pairs.push(`'${field}', ${r.alias}.${expr}`);
    }
    // The relation as one JSON object built by PostgreSQL (null when the row has none).
    columnsRead.push({
      sql: Prisma.raw(`CASE WHEN ${r.alias}.id IS NULL THEN NULL ELSE json_build_object(${pairs.join(', ')}) END`),
      name,
      convert: null,
    });
    joins.push(`LEFT JOIN ${r.table} ${r.alias} ON ${r.on}`);
    return { name, fields: new Set(fields.map(([f]) => f)) };
  });
  const fields = new Set(entries.map(([field]) => field));
  const relationsByName = new Map(nested.map((r) => [r.name, r]));
  // Rows carry the model's row prototype (selection-sql.ts defineRowGetter), as a plan's rows do.
  const row = jsonRow(columnsRead, undefined, () => rowPrototype(model));
  return {
    columns: Prisma.sql`${row.sql} AS r`,
    joins: Prisma.raw(joins.join(' ')),
    fields,
    rows: row.rows,
    answers(query) {
      if (query.include || !query.select || typeof query.select !== 'object') return false;
      for (const [key, value] of Object.entries(query.select)) {
        if (value === true && fields.has(key as F)) continue;
        const relation = relationsByName.get(key);
        if (!relation || !value || typeof value !== 'object') return false;
        const { select, ...rest } = value as { select?: unknown };
        if (Object.keys(rest).length || !select || typeof select !== 'object') return false;
        for (const [k, v] of Object.entries(select)) if (v !== true || !relation.fields.has(k)) return false;
      }
      return true;
    },
  };
}

/**
 * A newest-first list's Prisma query (ordered by `id` descending, as every list of this API is) paged from its cursor
 * as a range of ids: the rows after the cursor's id (`lt`; before it, `gt`, for a backward page), whether or not the
 * cursor's own row is in the list. Prisma's own cursor starts at the cursor's row and the connection skips that row
 * (`skip: 1`), so a cursor on a row the filters or the caller's reach leave out skipped the next row instead, and a
 * cursor on a row that is not there at all answered an empty page, which told an agent whether an id out of its
 * reach existed (an outside check, 2026-12-02). `query` without its cursor, the skip the cursor's row took given back,
 * and the range for the caller to add to its where; unchanged (`id` null) without a cursor on `id`.
 */
export function keyset<Q extends { cursor?: unknown; skip?: number; take?: number }>(
  query: Q,
): { query: Omit<Q, 'cursor'>; id: { lt: number } | { gt: number } | null } {
  const { cursor, ...rest } = query;
  const id = (cursor as { id?: unknown } | undefined)?.id;
  if (cursor == null || Object.keys(cursor).length !== 1 || typeof id !== 'number' || !Number.isSafeInteger(id))
    return { query, id: null };
  const skip = Math.max(0, (query.skip ?? 0) - 1);
  return { query: { ...rest, skip }, id: (query.take ?? 0) < 0 ? { gt: id } : { lt: id } };
}

/** A list's Prisma where with keyset's range of ids added (unchanged without one). */
export function keysetWhere<W extends object>(
  where: W,
  id: { lt: number } | { gt: number } | null,
): W | { AND: (W | { id: { lt: number } | { gt: number } })[] } {
  return id ? { AND: [where, { id }] } : where;
}

/** The connection arguments a list's filters object carries beside its filters: the query's paging says them. */
const PAGING = new Set(['first', 'after', 'last', 'before', 'offset']);

/**
 * Whether a read model applies every filter the caller set: each one set (anything but null, an empty or blank
 * text, an empty list; `false` is set) is among `applied` or is paging. A filter the model does not know, including
 * one added to the list later, sends the page to Prisma rather than being left out of the statement.
 */
export function appliesEvery<F extends object>(filters: F, applied: readonly (keyof F & string)[]): boolean {
  for (const [key, value] of Object.entries(filters)) {
    if (value == null || PAGING.has(key) || (applied as readonly string[]).includes(key)) continue;
    if (typeof value === 'string' && !value.trim()) continue;
    if (Array.isArray(value) && !value.length) continue;
    return false;
  }
  return true;
}

/** A list's paging as a read model takes it: forward only, after an id (keyset) or from an offset. */
export interface ForwardPage {
  take: number;
  skip: number;
  /** The page holds ids below this one (keyset's `lt`), when paging from a cursor. */
  below: number | null;
}

/**
 * The paging of a Prisma findMany (the Pothos plugin's connection arguments, through keyset) when a read model can
 * page as Prisma does: `take` ≥ 0, `skip` ≥ 0, at most an `lt` range of ids, and nothing else beside the selection.
 * Null for anything else (a backward page, a cursor keyset could not read, an order or filter of Prisma's own), which
 * stays with Prisma.
 */
export function forwardPage(
  query: Record<string, unknown>,
  id: { lt: number } | { gt: number } | null,
): ForwardPage | null {
  const { select: _select, include: _include, take, skip, ...rest } = query;
  if (Object.keys(rest).length || (id && !('lt' in id))) return null;
  if (typeof take !== 'number' || !Number.isSafeInteger(take) || take < 0) return null;
  if (skip != null && (typeof skip !== 'number' || !Number.isSafeInteger(skip) || skip < 0)) return null;
  return { take, skip: skip ?? 0, below: id ? id.lt : null };
}

/** The WHERE conditions and the tail of a newest-first page aliased `alias`: the keyset range, the order, the size. */
export function newestFirst(
  alias: string,
  page: ForwardPage,
  where: Prisma.Sql[],
): { where: Prisma.Sql; tail: Prisma.Sql } {
  if (!NAME.test(alias)) throw new Error(`read model: ${alias}`);
  const a = Prisma.raw(alias);
  const conditions = page.below === null ? where : [...where, Prisma.sql`${a}.id < ${page.below}`];
  return {
    where: Prisma.join(conditions, ' AND '),
    tail: Prisma.sql`ORDER BY ${a}.id DESC LIMIT ${page.take} OFFSET ${page.skip}`,
  };
}
