import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import {
  type DocumentNode,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  Kind,
  type OperationDefinitionNode,
  print,
  visit,
} from 'graphql';
import type { Context } from '../context.ts';
import { defineRowGetter, WHOLE_SELECTION } from '../db/selection-sql.ts';
import { AsyncSlot } from '../lib/async-slot.ts';

/**
 * A field of a Prisma type in select mode that reads only columns of its own row — an exposed column
 * (`t.exposeString('clientNo')`) or a field computed from a few (`select: { lossMinor: true }` beside its resolver) —
 * or columns of a row one relation away (`select: { policy: { select: { policyNo: true } } }`, read as
 * `c.policy.policyNo`) resolves straight from the row. The Prisma plugin still plans those columns into the row's
 * query (the field's select), but its per-field wrapper, which looks up the row's loader mapping by the response path
 * on every such field of every row (15 % of a page of clients' CPU, docs/performance.md), is passed over whenever the
 * row carries every column the field reads. A row that does not (loaded elsewhere with a narrower select) still goes through the
 * wrapper, which loads them: the answer is the same either way. A relation's row counts as carried when it is an
 * object holding every column the field reads of it, or null (a to-one relation loaded and absent); a list, or
 * anything missing, goes through the wrapper.
 *
 * Listed after the scope-auth and errors plugins and just before Prisma's, so their wrappers still run: only the
 * Prisma plugin's wrapper and Relay's inside it are passed over, and only for a field that takes no arguments, is not
 * an ID, and declares nothing either would act on.
 */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    interface Plugins<Types extends SchemaTypes> {
      columnFields: ColumnFieldsPlugin<Types>;
    }
  }
}

/**
 * Marks the resolver of an exposed column (`t.exposeString('clientNo')`): the column it reads. When no plugin listed
 * before this one wrapped it (the field's final `resolve` is still the marked function), a caller that knows every
 * row carries the column may read the property instead of calling the resolver: `columnRead`.
 */
const COLUMN_READ = Symbol('columnRead');

/**
 * The relation fields (`t.relation`, no `onNull`) that fromPlannedRow lets resolve straight from a planned row, by
 * `Type.field`: the relation each reads. Such a field's own resolver is its row's property of that name and nothing
 * else, so a caller that knows every row it meets was loaded with the relation as the field's selection asked (the
 * facade's compiled operations, below a root field marked PLANNED_ROWS: rest-compat/executor.ts) may read the
 * property instead: `relationRead`.
 */
const RELATION_READS = new Map<string, string>();

/** The relation a relation field of `type` reads as its row's property (see RELATION_READS), or undefined. */
export function relationRead(type: string, field: string): string | undefined {
  return RELATION_READS.get(`${type}.${field}`);
}

/**
 * Spread into a root field's options: the rows it answers (directly, or as a connection's nodes) are those of the
 * field's own Prisma selection, read by a selection's plan or a read model (src/db/selection-sql.ts,
 * src/db/read-model.ts) or by a Prisma query given that selection whole and its rows passed through shapedAsPlanned, so
 * each carries every relation the selection named, as it asked, and its model's row prototype. The facade's compiled
 * operations read such relations, and derived fields' getters, as properties (rest-compat/executor.ts plannedRowReads);
 * under FACADE_JIT_COLUMNS=checked a row without them is refused.
 */
export const PLANNED_ROWS = { extensions: { plannedRows: true } } as const;

/**
 * Marks the resolver of a field computed from its own row's columns alone (ownColumns, not an exposed column) by a
 * synchronous resolver taking the row and nothing else (`resolve: (p) => money(p.totalMinor)`): the getter of the
 * row prototype a plan's rows carry (src/db/selection-sql.ts defineRowGetter) that answers what the resolver would,
 * and the columns it reads. When no plugin listed before this one wrapped it, a caller that knows every row it meets
 * was planned (or shaped by shapeRows) may read the getter instead of calling the resolver: `derivedRead`.
 */
const DERIVED_READ = Symbol('derivedRead');

/**
 * What a derived field's marked resolver carries: the getter's key, the columns it reads, and, for a field read from
 * what the request holds in hand (InHandRead), the holding its getter needs.
 */
export interface DerivedRead {
  key: string;
  paths: readonly ColumnPath[];
  inHand?: InHand<unknown>;
}

/**
 * Something a request holds in hand while a compiled operation reads its rows (the organisation's directory rows a
 * record's reference columns point at: src/modules/reference/references.ts): `hold` makes it (from memory, or loaded)
 * before the operation runs.
 */
export interface InHand<H> {
  readonly name: string;
  hold(ctx: Context): H | Promise<H>;
}

/**
 * Spread into a field's `extensions`: on a planned row, the field's answer is `read(row, held)`, synchronous, from
 * what `inHand` holds for the request, or MISSING when that lacks it (a row read by id otherwise: a user past the
 * directory's copy, a row committed an instant ago). The field keeps its own resolver for every other caller. The
 * facade's compiled operations read it as a getter of the row prototype (no resolver call per row), inside
 * runHoldingInHand, which runs the operation again by graphql-js, through the resolvers, when any read missed.
 */
export interface InHandRead<H> {
  inHand: InHand<H>;
  read: (row: never, held: H) => unknown;
}

/** What an InHandRead answers when the holding lacks the row: the operation is run again through its resolvers. */
export const MISSING = Symbol('missing in hand');

/** A compiled operation's holdings while it runs, and whether any read found its row missing. */
interface Holdings {
  held: Map<InHand<unknown>, unknown>;
  missed: boolean;
}

const holdings = new AsyncSlot<Holdings>();

/**
 * Runs `run` (a compiled operation reading InHandReads of `needs`) with each holding made first; when a read missed,
 * the answer is `again()`'s (the operation by graphql-js, whose resolvers read what was missing by id) instead. So is
 * it when a holding cannot be made (its load failed): the resolvers meet that failure as they did before, and it is
 * answered as any failure inside an operation is (a pool's exhaustion as 503).
 */
export async function runHoldingInHand<R>(
  needs: ReadonlySet<InHand<unknown>>,
  ctx: Context,
  run: () => R | Promise<R>,
  again: () => R | Promise<R>,
): Promise<R> {
  const frame: Holdings = { held: new Map(), missed: false };
  try {
    for (const h of needs) {
      const held = h.hold(ctx);
      frame.held.set(h, held instanceof Promise ? await held : held);
    }
  } catch {
    return again();
  }
  const result = await holdings.run(frame, run);
  return frame.missed ? again() : result;
}

function inHandGetter<H>(spec: InHandRead<H>, where: string) {
  return (row: never) => {
    const frame = holdings.getStore();
    if (!frame?.held.has(spec.inHand)) throw new Error(`${where}: read outside runHoldingInHand`);
    const value = spec.read(row, frame.held.get(spec.inHand) as H);
    if (value !== MISSING) return value;
    frame.missed = true;
    return null;
  };
}

/** The getter a field's final resolver may be read through (see DERIVED_READ), or undefined. */
export function derivedRead(resolve: unknown): DerivedRead | undefined {
  return typeof resolve === 'function' ? (resolve as { [DERIVED_READ]?: DerivedRead })[DERIVED_READ] : undefined;
}

/** The column a field's final resolver reads and nothing else (see COLUMN_READ), or undefined. */
export function columnRead(resolve: unknown): string | undefined {
  return typeof resolve === 'function' ? (resolve as { [COLUMN_READ]?: string })[COLUMN_READ] : undefined;
}

/** What such a field's options may hold for it to resolve straight from its row. */
const PLAIN_OPTIONS = new Set([
  'description',
  'nullable',
  'type',
  'extensions',
  'resolve',
  'deprecationReason',
  'select',
]);

/** What a relation field's options may hold for it to resolve straight from a whole selection's row. */
const RELATION_OPTIONS = new Set([...PLAIN_OPTIONS, 'query', 'onNull']);

/** The arguments a derived field's resolver is called with from its getter: it takes none. */
const NO_ARGS = Object.freeze({});

type Resolver<Types extends SchemaTypes> = GraphQLFieldResolver<unknown, Types['Context'], object>;

/** A column a field reads: of its own row (`[column]`), or of a row one relation away (`[relation, column]`). */
export type ColumnPath = readonly [string] | readonly [string, string];

/** The row carries every column of `paths` (a relation loaded as null counts: there is nothing more to load). */
export function carries(row: Record<string, unknown>, paths: readonly ColumnPath[]): boolean {
  for (const [c, leaf] of paths) {
    const v = row[c];
    if (v === undefined) return false;
    if (leaf === undefined || v === null) continue;
    if (typeof v !== 'object' || Array.isArray(v) || (v as Record<string, unknown>)[leaf] === undefined) return false;
  }
  return true;
}

export class ColumnFieldsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(resolver: Resolver<Types>, fieldConfig: PothosOutputFieldConfig<Types>): Resolver<Types> {
    const planned = fromPlannedRow(fieldConfig);
    if (planned) {
      const own = fieldConfig.resolve as Resolver<Types>;
      const relation = (fieldConfig.extensions?.pothosPrismaRelationField as { name?: string } | undefined)?.name;
      if (relation && !('onNull' in fieldConfig.pothosOptions))
        RELATION_READS.set(`${fieldConfig.parentType}.${fieldConfig.name}`, relation);
      // A row the check turns down (not from a plan, without the relation, or an operation asking for the relation
      // twice with different arguments) goes the Prisma plugin's way.
      return (parent, args, context, info) =>
        planned(parent, info) ? own(parent, args, context, info) : resolver(parent, args, context, info);
    }
    const paths = ownColumns(fieldConfig, this.buildCache);
    if (!paths) return resolver;
    const exposed = fieldConfig.extensions?.pothosExposedField;
    if (typeof exposed === 'string' && paths.length === 1 && paths[0].length === 1 && paths[0][0] === exposed) {
      const read: Resolver<Types> = (parent, args, context, info) => {
        const value = (parent as Record<string, unknown>)[exposed];
        return value === undefined ? resolver(parent, args, context, info) : value;
      };
      return Object.assign(read, { [COLUMN_READ]: exposed });
    }
    const own = fieldConfig.resolve as Resolver<Types> | undefined;
    if (!own) return resolver;
    const model = this.buildCache.getTypeConfig(fieldConfig.parentType).extensions?.pothosPrismaModel;
    const key = `$${fieldConfig.parentType}$${fieldConfig.name}`;
    const inHand = fieldConfig.extensions?.inHandRead as InHandRead<unknown> | undefined;
    const wrapped: Resolver<Types> = (parent, args, context, info) =>
      carries(parent as Record<string, unknown>, paths)
        ? own(parent, args, context, info)
        : resolver(parent, args, context, info);
    if (inHand && typeof model === 'string') {
      defineRowGetter(model, key, inHandGetter(inHand, `${fieldConfig.parentType}.${fieldConfig.name}`));
      return Object.assign(wrapped, {
        [DERIVED_READ]: { key, paths, inHand: inHand.inHand } satisfies DerivedRead,
      });
    }
    // Of the row alone: a resolver declaring no more than its parent, and not async (its getter answers a value).
    if (typeof model !== 'string' || own.length > 1 || own.constructor.name === 'AsyncFunction') return wrapped;
    defineRowGetter(model, key, (row: unknown) => own(row, NO_ARGS, undefined as never, undefined as never));
    return Object.assign(wrapped, { [DERIVED_READ]: { key, paths } satisfies DerivedRead });
  }
}

/**
 * Whether a field may resolve straight from the row it hangs off, for a field that reads one relation of a row a
 * selection's plan answered (src/db/selection-sql.ts `WHOLE_SELECTION`), which carries that relation exactly as the
 * field's selection asked: a relation field (`t.relation`), or a field declaring the one relation its own selection
 * reads (`extensions: { readsRelation: 'renewalOf' }` beside `select: (_a, _c, nested) => ({ renewalOf: nested(…) })`),
 * declaring nothing the Prisma or Relay plugins act on beyond that. Null for any other field; else the check of a row.
 *
 * A relation taking arguments (a policy's `endorsements(all:)`) is planned with the arguments its selection has; an
 * operation asking for it twice with different ones (`endorsements` and `all: endorsements(all: true)`) gets one of
 * them in the row and the other loaded apart by the Prisma plugin, so it is read from the row only in an operation
 * that asks for it with one set of arguments wherever it asks (argumentsAgree).
 */
export function fromPlannedRow<Types extends SchemaTypes>(
  fieldConfig: PothosOutputFieldConfig<Types>,
): ((parent: unknown, info: GraphQLResolveInfo) => boolean) | null {
  if (fieldConfig.kind !== 'PrismaObject' || typeof fieldConfig.resolve !== 'function') return null;
  const ext = fieldConfig.extensions ?? {};
  const declared = ext.readsRelation;
  const name =
    (ext.pothosPrismaRelationField as { name?: string } | undefined)?.name ??
    (typeof declared === 'string' && typeof ext.pothosPrismaSelect === 'function' ? declared : undefined);
  if (!name) return null;
  for (const key of Object.keys(fieldConfig.pothosOptions))
    if (!RELATION_OPTIONS.has(key) && key !== 'args') return null;
  const row = (parent: unknown) => {
    const r = parent as Record<string | symbol, unknown> | null;
    return !!r && r[WHOLE_SELECTION] === true && r[name] !== undefined;
  };
  if (!Object.keys(fieldConfig.args).length) return row;
  const field = fieldConfig.name;
  return (parent, info) => row(parent) && argumentsAgree(info, field);
}

/** Per operation: the fields it asks for with more than one set of arguments (by name, whatever their type). */
const disagreeing = new WeakMap<OperationDefinitionNode, Set<string>>();

/**
 * Whether the operation `info` belongs to asks for fields named `field` with one set of arguments wherever it does,
 * its fragments included (a variable counts by its name: one value per run). Worked out once per operation document.
 */
export function argumentsAgree(info: Pick<GraphQLResolveInfo, 'operation' | 'fragments'>, field: string): boolean {
  let names = disagreeing.get(info.operation);
  if (!names) {
    const seen = new Map<string, string>();
    names = new Set<string>();
    const doc: DocumentNode = {
      kind: Kind.DOCUMENT,
      definitions: [info.operation, ...Object.values(info.fragments ?? {})],
    };
    const found = names;
    visit(doc, {
      Field(node) {
        const args = (node.arguments ?? [])
          .map((a) => `${a.name.value}:${print(a.value)}`)
          .sort()
          .join(',');
        const before = seen.get(node.name.value);
        if (before === undefined) seen.set(node.name.value, args);
        else if (before !== args) found.add(node.name.value);
      },
    });
    disagreeing.set(info.operation, names);
  }
  return !names.has(field);
}

/**
 * The columns a field reads, when they are all scalar columns of its own row, or of rows one relation away selected
 * column by column (`{ policy: { select: { policyNo: true } } }`), and it declares nothing else.
 */
export function ownColumns<Types extends SchemaTypes>(
  fieldConfig: PothosOutputFieldConfig<Types>,
  buildCache: BasePlugin<Types>['buildCache'],
): ColumnPath[] | null {
  if (fieldConfig.kind !== 'PrismaObject' || Object.keys(fieldConfig.args).length) return null;
  if (fieldConfig.type.kind === 'Scalar' && fieldConfig.type.ref === 'ID') return null;
  const select = fieldConfig.extensions?.pothosPrismaSelect as Record<string, unknown> | undefined;
  if (!select || typeof select !== 'object') return null;
  for (const key of Object.keys(fieldConfig.pothosOptions)) if (!PLAIN_OPTIONS.has(key)) return null;
  const relations = (
    buildCache.getTypeConfig(fieldConfig.parentType).extensions?.pothosPrismaFieldMap as
      { relations: Map<string, unknown> } | undefined
  )?.relations;
  if (!Object.keys(select).length || !relations) return null;
  const paths: ColumnPath[] = [];
  for (const [c, v] of Object.entries(select)) {
    if (c === '_count') return null;
    if (!relations.has(c)) {
      if (v !== true) return null;
      paths.push([c]);
      continue;
    }
    const leaves = relationColumns(v);
    if (!leaves) return null;
    for (const leaf of leaves) paths.push([c, leaf]);
  }
  return paths;
}

/** `{ select: { a: true, b: true } }` and nothing else (no filter, order or nested relation): its columns. */
function relationColumns(v: unknown): string[] | null {
  if (!v || typeof v !== 'object' || Object.keys(v).length !== 1) return null;
  const inner = (v as { select?: unknown }).select;
  if (!inner || typeof inner !== 'object') return null;
  const leaves = Object.entries(inner);
  if (!leaves.length || leaves.some(([k, x]) => x !== true || k === '_count')) return null;
  return leaves.map(([k]) => k);
}

SchemaBuilder.registerPlugin('columnFields', ColumnFieldsPlugin);

export default 'columnFields' as const;
