/**
 * Selection plans kept across requests.
 *
 * For every field that loads rows through Prisma (a `prismaField`, a `prismaConnection`, a node), the Pothos Prisma
 * plugin walks the field's selection set on every request to plan one Prisma query (`Plan.fromInfo` of
 * @pothos/selection-mapper: every field's `select`, every relation's `query`, fragments, directives) and plays the
 * plan into a query. For a document it has seen before, the walk finds what it found last time, unless something
 * it read differs: the values of the variables used beneath the field (arguments, `@include`/`@skip`), or the
 * request's context (a `select` or relation `query` function, or an argument mapper, may read it). A tenth of a
 * policy record's CPU went on that walk (docs/performance.md).
 *
 * So a walk is kept and reused when that is exact:
 *
 * - the key is the document's field node (graphql-jit and Yoga's parse cache hand the same AST to every request of
 *   one document; WeakMaps, so a document dropped from those caches takes its plans with it), its parent type, the
 *   entry point's options (type, paths, initial selection, deferred setting) and the values of every variable
 *   referenced anywhere beneath the field (collected from the AST once, fragments followed);
 * - a plan is kept only when its walk never touched the context: the first time a key is met, the request is
 *   planned as before with its own context, and the walk is repeated with a stand-in context that notes any read.
 *   If something read it, or a selection was asynchronous, or the walk threw, the key is marked and every later
 *   request walks afresh as before;
 * - a kept plan is handed to each request as a view of it with that request's context and info: playing it records
 *   the loader mappings on that request's context (setLoaderMappings) and builds a fresh query object, so nothing a
 *   request receives is shared with another.
 *
 * Bounded: at most PLANS_PER_FIELD keys per field node (the variables beneath a field are rarely any, and values past
 * that many walk afresh), at most PLANS_KEPT_MAX in the process, and a key past KEY_LIMIT characters is never kept.
 */
import { Plan } from '@pothos/selection-mapper';
import { markKeptSelection } from '../db/selection-sql.ts';
import { type ASTNode, type FieldNode, type FragmentDefinitionNode, type GraphQLResolveInfo, Kind } from 'graphql';

type EntryOptions = Parameters<typeof Plan.fromInfo>[1];
type AnyPlan = ReturnType<typeof Plan.fromInfo>;

const PLANS_PER_FIELD = 32;
const KEY_LIMIT = 2048;

/** A key that is not to be kept: its walk read the context, was asynchronous or threw. */
const WALKS_AFRESH = Symbol('walks afresh');

interface FieldPlans {
  /** The variables referenced beneath the field node, in document order. */
  variables: readonly string[];
  plans: Map<string, AnyPlan | typeof WALKS_AFRESH>;
}

const byFieldNode = new WeakMap<FieldNode, FieldPlans>();

/**
 * How many keys are kept in the whole process, across documents: a caller sending ever new documents (each with a
 * few variable values beneath a field) must not grow the heap that every organisation shares. A document's keys are
 * counted off when its AST is collected (dropped from graphql-jit's and Yoga's caches); past the bound, new keys walk
 * afresh, as before this cache.
 */
const PLANS_KEPT_MAX = 2_000;
let plansKept = 0;
const released = new FinalizationRegistry<Map<string, unknown>>((plans) => {
  plansKept -= plans.size;
});
/** A stable number for each initial selection object (a connection's cursor selection), for the key. */
const initialIds = new WeakMap<object, number>();
let nextInitialId = 1;

/** How the cache has served, for tests and the metrics. */
export const planCacheStats = {
  walked: 0,
  reused: 0,
  uncacheable: 0,
  /** Keys kept now, across the process (at most PLANS_KEPT_MAX). */
  get kept(): number {
    return plansKept;
  },
};

/** Every variable named in `node`'s subtree, fragments followed once each. */
function variablesBeneath(nodes: readonly ASTNode[], fragments: Record<string, FragmentDefinitionNode>): string[] {
  const names = new Set<string>();
  const seenFragments = new Set<string>();
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const n of node) visit(n);
      return;
    }
    const n = node as { kind?: string; name?: { value: string } } & Record<string, unknown>;
    if (n.kind === Kind.VARIABLE && n.name) {
      names.add(n.name.value);
      return;
    }
    if (n.kind === Kind.FRAGMENT_SPREAD && n.name && !seenFragments.has(n.name.value)) {
      seenFragments.add(n.name.value);
      visit(n.directives);
      visit(fragments[n.name.value]);
      return;
    }
    for (const key of ['arguments', 'directives', 'selectionSet', 'selections', 'value', 'values', 'fields'])
      if (key in n) visit(n[key]);
  };
  for (const node of nodes) visit(node);
  return [...names];
}

function fieldPlans(info: GraphQLResolveInfo): FieldPlans {
  const node = info.fieldNodes[0];
  let found = byFieldNode.get(node);
  if (!found) {
    // The field's own arguments are its resolver's, not the walk's: only what is beneath it.
    const beneath = info.fieldNodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
    found = { variables: variablesBeneath(beneath, info.fragments), plans: new Map() };
    byFieldNode.set(node, found);
    released.register(node, found.plans);
  }
  return found;
}

function initialId(initial: unknown): string {
  if (!initial || typeof initial !== 'object') return '';
  // `queryFromInfo` wraps the field's constant selection in a fresh `{ select }` or `{ include }` per call.
  const { select, include } = initial as { select?: object; include?: object };
  const inner = select ?? include ?? initial;
  let id = initialIds.get(inner);
  if (id === undefined) initialIds.set(inner, (id = nextInitialId++));
  return `${select ? 'select' : 'include'}${id}`;
}

/** The key of this entry within its field node, or undefined when it is not to be kept (see KEY_LIMIT). */
function keyOf(options: EntryOptions, variables: readonly string[]): string | undefined {
  const { info } = options;
  let values = '';
  if (variables.length) {
    try {
      // A variable left out ([]) and one sent as null ([null]) are read differently (an argument's default applies to
      // the first only), so the key tells them apart.
      const given = info.variableValues;
      values = JSON.stringify(variables.map((v) => (Object.hasOwn(given, v) ? [given[v]] : [])));
    } catch {
      return undefined; // a value JSON cannot spell (a BigInt): walk afresh
    }
  }
  const key = [
    info.parentType.name,
    info.fieldNodes.length,
    options.typeName ?? '',
    options.path ? JSON.stringify(options.path) : '',
    options.paths ? JSON.stringify(options.paths) : '',
    initialId(options.initial),
    options.skipDeferredFragments ?? '',
    values,
  ].join('|');
  return key.length <= KEY_LIMIT ? key : undefined;
}

/**
 * What the repeated walk sees in place of the request's: a context that answers nothing and notes that it was
 * asked, and an info whose variables are the ones the key names (any other variable read is noted too: the key
 * would not tell two requests apart by it). Neither holds anything of the request, so a kept plan does not either.
 */
function blindEntry(
  options: EntryOptions,
  variables: readonly string[],
): { options: EntryOptions; read: () => boolean } {
  let read = false;
  const note = () => {
    read = true;
    return undefined;
  };
  const context = new Proxy(Object.create(null) as object, {
    get: note,
    has: () => note() ?? false,
    ownKeys: () => (note(), []),
    getOwnPropertyDescriptor: note,
    set: () => (note(), true),
    defineProperty: () => (note(), true),
    deleteProperty: () => (note(), true),
    getPrototypeOf: () => (note(), null),
  });
  const named = new Set(variables);
  const values = options.info.variableValues;
  const variableValues = new Proxy(
    Object.fromEntries(variables.filter((v) => Object.hasOwn(values, v)).map((v) => [v, values[v]])),
    {
      get: (target, name) => {
        if (typeof name === 'string' && !named.has(name)) note();
        return Reflect.get(target, name) as unknown;
      },
      has: (target, name) => {
        if (typeof name === 'string' && !named.has(name)) note();
        return Reflect.has(target, name);
      },
      getOwnPropertyDescriptor: (target, name) => {
        if (typeof name === 'string' && !named.has(name)) note();
        return Reflect.getOwnPropertyDescriptor(target, name);
      },
    },
  );
  const info = { ...options.info, rootValue: undefined, variableValues } as GraphQLResolveInfo;
  return { options: { ...options, context, info }, read: () => read };
}

/** The kept plan, as this request's: its own context (where the loader mappings are recorded) and info. */
function viewFor(plan: AnyPlan, options: EntryOptions): AnyPlan {
  if (!plan) return plan;
  const kept = plan;
  return Object.create(plan, {
    context: { value: options.context },
    info: { value: options.info },
    // The selection it plays is marked with the kept plan and the seed, which together decide it: a statement planned
    // for it is found by them (src/db/selection-sql.ts KEPT_SELECTION), not by serializing it again.
    query: {
      value(this: NonNullable<AnyPlan>, seed?: unknown, info?: GraphQLResolveInfo) {
        const q = kept.query.call(this, seed as never, info) as { select?: unknown } | undefined;
        const seedKey = seed === undefined ? '' : jsonOrNull(seed);
        if (seedKey !== null) markKeptSelection(q?.select, { owner: kept, seed: seedKey });
        return q;
      },
    },
  }) as AnyPlan;
}

/** JSON of a value, or null when it has none (a BigInt): such a seed's selection is not marked. */
function jsonOrNull(v: unknown): string | null {
  try {
    return JSON.stringify(v);
  } catch {
    return null;
  }
}

let installed = false;

/** Wraps `Plan.fromInfo` once per process; the Prisma plugin calls it by property, so it takes the wrapper. */
export function installPlanCache(): void {
  if (installed) return;
  installed = true;
  const walk = Plan.fromInfo.bind(Plan) as (adapter: unknown, options: EntryOptions) => AnyPlan;
  (Plan as unknown as { fromInfo: typeof walk }).fromInfo = (adapter, options) => {
    const info = options.info;
    if (!info?.fieldNodes?.length || !info.operation) return walk(adapter, options);
    const field = fieldPlans(info);
    const key = keyOf(options, field.variables);
    if (key !== undefined && field.plans.has(key)) {
      const kept = field.plans.get(key);
      if (kept !== WALKS_AFRESH) {
        planCacheStats.reused += 1;
        return viewFor(kept, options);
      }
    }
    // This request is planned as before; the first time a key is met, the walk is repeated blind to the request.
    planCacheStats.walked += 1;
    const own = walk(adapter, options);
    if (key === undefined || field.plans.has(key) || field.plans.size >= PLANS_PER_FIELD) return own;
    if (plansKept >= PLANS_KEPT_MAX) return own;
    const blindly = blindEntry(options, field.variables);
    let blind: AnyPlan | typeof WALKS_AFRESH;
    try {
      blind = walk(adapter, blindly.options);
      if (blindly.read() || (blind && typeof (blind as { then?: unknown }).then === 'function')) {
        (blind as unknown as Promise<unknown> | undefined)?.then?.(undefined, () => undefined);
        blind = WALKS_AFRESH;
      }
    } catch {
      blind = WALKS_AFRESH;
    }
    if (blind === WALKS_AFRESH) planCacheStats.uncacheable += 1;
    field.plans.set(key, blind);
    plansKept += 1;
    return own;
  };
}
