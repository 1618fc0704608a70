import { Prisma } from './client.ts';

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
   * `expression AS "field", …` for every field the model answers (always all of them: one statement text), a
   * relation's fields as `"relation.field"` (`rows` nests them).
   */
  readonly columns: Prisma.Sql;
  /** The joins of the model's to-one relations (empty when it has none), after `FROM table alias`. */
  readonly joins: Prisma.Sql;
  /** The Prisma field names the model answers. */
  readonly fields: ReadonlySet<F>;
  /**
   * Whether a Prisma query asks for fields of the model and nothing else: a `select` naming only fields of the model
   * (as `true`) and only its relations (each as `{ select }` of that relation's fields), no `include` (which means
   * every column, and relations). Pagination and filters are the caller's to check.
   */
  answers(query: { select?: unknown; include?: unknown }): boolean;
  /** The statement's rows as Prisma shapes them: each relation's fields nested, null when the row has none. */
  rows<R>(flat: Record<string, unknown>[]): R[];
}

/**
 * A to-one relation of a read model: its table joined under `alias` (`on` the parent's key: the join is a LEFT JOIN,
 * so an optional relation's absence is a null), and its fields as the model's are.
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
 * A read model over `alias`'s columns: `columns` maps each Prisma field name to its column, cast where Prisma returns
 * the field as another type (an enum as `::text`); `relations` its to-one relations, by Prisma relation name. Each
 * relation's rows are told apart from none by its `id`, which the model always reads.
 */
export function readModel<F extends string>(
  alias: string,
  columns: Record<F, string>,
  relations: Record<string, ReadRelation> = {},
): ReadModel<F> {
  const check = (what: string, ok: boolean) => {
    if (!ok) throw new Error(`read model: ${what}`);
  };
  const entries = Object.entries(columns) as [F, string][];
  const parts: string[] = [];
  for (const [field, expr] of entries) {
    check(`field ${field} is not a Prisma field name`, FIELD.test(field));
    check(`${expr} (${field}) is not a column`, COLUMN.test(expr));
    parts.push(`${alias}.${expr} AS "${field}"`);
  }
  const joins: string[] = [];
  const nested = Object.entries(relations).map(([name, r]) => {
    check(`relation ${name}`, FIELD.test(name) && NAME.test(r.table) && NAME.test(r.alias) && ON.test(r.on));
    const fields = Object.entries({ id: 'id', ...r.fields });
    for (const [field, expr] of fields) {
      check(`field ${name}.${field}`, FIELD.test(field) && COLUMN.test(expr));
      parts.push(`${r.alias}.${expr} AS "${name}.${field}"`);
    }
    joins.push(`LEFT JOIN ${r.table} ${r.alias} ON ${r.on}`);
    return { name, fields: new Set(fields.map(([f]) => f)), keys: fields.map(([f]) => [f, `${name}.${f}`] as const) };
  });
  const fields = new Set(entries.map(([field]) => field));
  const relationsByName = new Map(nested.map((r) => [r.name, r]));
  return {
    columns: Prisma.raw(parts.join(', ')),
    joins: Prisma.raw(joins.join(' ')),
    fields,
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
    rows<R>(flat: Record<string, unknown>[]): R[] {
      if (!nested.length) return flat as R[];
      for (const row of flat) {
        for (const r of nested) {
          const present = row[`${r.name}.id`] != null;
          const value: Record<string, unknown> | null = present ? {} : null;
          // The flat "relation.field" keys stay on the row (deleting them would cost more than they do): nothing reads
          // a field it did not select.
          if (value) for (const [field, key] of r.keys) value[field] = row[key];
          row[r.name] = value;
        }
      }
      return flat as R[];
    },
  };
}
