/**
 * Every JSON request body is parsed by its one definition (issue 27): the route's `requestBody` is what the document
 * shows and what the facade checks before the core runs (`parseBody`), and it is written in zod all the way down — no
 * transitional `json(…)` object that documents a shape while checking nothing.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ROUTES } from '../rest-compat/routes/index.ts';
import { arr, json, numeric, obj, str } from '../rest-compat/schemas/builders.ts';

const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
const jsonBodyRoutes = ROUTES.filter((r) => r.requestBody && !r.multipart);

const SHAPE_KEYWORDS = ['type', 'properties', 'items', 'anyOf', 'oneOf', 'allOf', 'enum', 'const', 'format', '$ref'];

/** The places in a schema that are `json(…)` (z.unknown() carrying a plain schema as its metadata). */
function unchecked(schema: z.ZodType, at: string, seen = new Set<z.ZodType>()): string[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  const walk = (s: unknown, where: string) => unchecked(s as z.ZodType, where, seen);
  switch (def.type) {
    case 'unknown': {
      // A value taken as it is, described as such ("accepted and ignored") is honest; a plain schema object carried
      // as metadata (json(…)) documents a shape nothing checks.
      const meta = (z.globalRegistry.get(schema) ?? {}) as Record<string, unknown>;
      return SHAPE_KEYWORDS.some((k) => k in meta) ? [at] : [];
    }
    case 'object':
      return Object.entries(def.shape as Record<string, z.ZodType>).flatMap(([k, v]) => walk(v, `${at}.${k}`));
    case 'array':
      return walk(def.element, `${at}[]`);
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return walk(def.innerType, at);
    case 'union':
      return (def.options as z.ZodType[]).flatMap((o) => walk(o, at));
    case 'intersection':
      return [...walk(def.left, at), ...walk(def.right, at)];
    case 'pipe':
      return [...walk(def.in, at), ...walk(def.out, at)];
    case 'lazy':
      return walk((def.getter as () => z.ZodType)(), at);
    case 'record':
      return walk(def.valueType, `${at}{}`);
    default:
      return [];
  }
}

describe('request bodies are parsed by their one definition', () => {
  it('finds the JSON body routes', () => {
    expect(jsonBodyRoutes.length).toBeGreaterThanOrEqual(55);
  });

  it('every JSON body route parses its body with its requestBody before the core runs', () => {
    const notParsed = jsonBodyRoutes.filter((r) => !r.parseBody).map(key);
    expect(notParsed).toEqual([]);
  });

  it('the search finds json(…) at any depth, and takes a described unknown value as honest', () => {
    const s = obj({
      a: json({ type: 'string' }),
      b: arr(obj({ c: json({ type: 'object', properties: {} }) })),
      d: numeric(z.int()),
      e: z.unknown().describe('Accepted and ignored'),
      f: str(),
    });
    expect(unchecked(s, 'x')).toEqual(['x.a', 'x.b[].c']);
  });

  it('no request definition documents a shape it does not check (json(…))', () => {
    const found = jsonBodyRoutes.flatMap((r) => unchecked(r.requestBody!, key(r)));
    expect(found).toEqual([]);
  });
});
