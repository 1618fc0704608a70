import type { SchemaObject } from 'openapi3-ts/oas31';
import { z } from 'zod';

/**
 * The OpenAPI (JSON Schema 2020-12) form of the REST payloads' zod schemas: zod's own conversion, as the wire sees a
 * payload (`io: 'input'`: what a caller sends, and what a mapper hands the wire before any parse), with each named
 * component (builders.ts registerComponents) as a `$ref` to `#/components/schemas/<name>`.
 */
const COMPONENT = '#/components/schemas/';
/**
 * How a schema that zod cannot write by itself is documented (a number read from its text: builders.ts `numeric`):
 * its JSON Schema, set by `documentAs`.
 */
const DOCUMENTED_AS = new WeakMap<object, () => Record<string, unknown>>();
export function documentAs<S extends z.ZodType>(schema: S, json: () => Record<string, unknown>): S {
  // Keyed by the definition, which a described copy (`.describe()` clones the schema) shares.
  DOCUMENTED_AS.set(schema._zod.def, json);
  return schema;
}

const OPTIONS = {
  target: 'draft-2020-12',
  io: 'input',
  unrepresentable: 'any',
  cycles: 'ref',
  reused: 'inline',
  override: (ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }) => {
    const json = DOCUMENTED_AS.get((ctx.zodSchema as z.ZodType)._zod.def);
    if (!json) return;
    // A described copy's own description (`.describe()` on the documented schema) is kept; the rest is replaced.
    const description = z.globalRegistry.get(ctx.zodSchema as z.ZodType)?.description;
    for (const k of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[k];
    Object.assign(ctx.jsonSchema, json(), description === undefined ? {} : { description });
  },
} as const;

/** Every named component, by name. */
export function componentSchemas(): Record<string, SchemaObject> {
  const { schemas } = z.toJSONSchema(z.globalRegistry, { ...OPTIONS, uri: (id) => `${COMPONENT}${id}` });
  return Object.fromEntries(Object.entries(schemas).map(([name, s]) => [name, tidy(s) as SchemaObject]));
}

/** One schema inline (a route's body or a query parameter), its named components as `$ref`s. */
export function jsonSchemaOf(schema: z.ZodType): SchemaObject {
  const out = z.toJSONSchema(schema, OPTIONS) as Record<string, unknown>;
  const defs = (out.$defs ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(defs))
    if (name.startsWith('__schema'))
      throw new Error(`a schema refers to itself without a component name (${name}): register it (builders.ts)`);
  delete out.$defs;
  return tidy(out) as SchemaObject;
}

const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * What zod writes beyond what a reader needs: `$schema`/`$id` per component, the ±2^53−1 bounds of every integer
 * (the JSON integers we accept anyway), the long regular expressions beside `format: date`/`date-time` (the format
 * says it), and `#/$defs/` references (components live in the document's components).
 */
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!node || typeof node !== 'object') return node;
  const o: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$schema' || k === '$id') continue;
    if (k === '$ref' && typeof v === 'string') {
      o[k] = v.startsWith('#/$defs/') ? `${COMPONENT}${v.slice('#/$defs/'.length)}` : v;
      continue;
    }
    o[k] = tidy(v);
  }
  if (o.type === 'integer') {
    if (o.minimum === -SAFE) delete o.minimum;
    if (o.maximum === SAFE) delete o.maximum;
  }
  if (o.type === 'string' && (o.format === 'date' || o.format === 'date-time') && typeof o.pattern === 'string')
    delete o.pattern;
  return o;
}

/** A part of the document (a path item, a header, a parameter) with every zod schema in it written as JSON Schema. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the caller names the OpenAPI object it builds
export function withJsonSchemas<T = any>(node: unknown): T {
  if (node instanceof z.ZodType) return jsonSchemaOf(node) as T;
  if (Array.isArray(node)) return node.map((n: unknown) => withJsonSchemas<unknown>(n)) as T;
  if (!node || typeof node !== 'object') return node as T;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withJsonSchemas<unknown>(v)])) as T;
}

/** A path item whose schemas may still be zod (converted by `withJsonSchemas` when the document is built). */
export type PathItemWithZod = Record<string, unknown> & { post?: Record<string, unknown> & { responses?: object } };
