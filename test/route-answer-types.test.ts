/**
 * A route's mapper is typed by the route's response definition (rest-compat/route.ts `route`): an answer the
 * definition does not describe does not compile. The cases below are checked by `tsc` (CI's typecheck step): each
 * `@ts-expect-error` fails the typecheck if the mismatch it marks were ever accepted.
 */
import { describe, expect, it } from 'vitest';
import { MeDocument } from '../rest-compat/generated/operations.ts';
import { meToRest } from '../rest-compat/mappers/identity.ts';
import { type AnyRoute, route } from '../rest-compat/route.ts';
import { int, obj, str } from '../rest-compat/schemas/builders.ts';
import { meResponse } from '../rest-compat/schemas/identity.ts';

const base = {
  operationId: 'typeCheckOnly',
  method: 'GET' as const,
  path: '/type-check-only',
  summary: 'Never served',
  tag: 'Identity',
  scopes: ['read' as const],
  idempotent: false,
  operation: MeDocument,
  toVariables: () => ({}),
  errors: [],
};

describe("a route's answer is typed by its response definition", () => {
  it('compiles when the mapper answers what the definition says', () => {
    const ok: AnyRoute[] = [
      route({
        ...base,
        toResponse: ({ me }) => ({ status: 200, body: { data: meToRest(me) } }),
        response: { status: 200, description: 'x', schema: meResponse },
      }),
    ];
    expect(ok).toHaveLength(1);
  });

  it('does not compile when a field is missing, of another type or null where the definition says not', () => {
    const wrong: AnyRoute[] = [
      // @ts-expect-error -- `count` is missing
      route({
        ...base,
        toResponse: () => ({ status: 200, body: { name: 'x' } }),
        response: { status: 200, description: 'x', schema: obj({ name: str(), count: int() }) },
      }),
      // @ts-expect-error -- `count` is text where the definition says an integer
      route({
        ...base,
        toResponse: () => ({ status: 200, body: { name: 'x', count: '1' } }),
        response: { status: 200, description: 'x', schema: obj({ name: str(), count: int() }) },
      }),
      // @ts-expect-error -- `name` may be null where the definition says text
      route({
        ...base,
        toResponse: () => ({ status: 200, body: { name: null as string | null, count: 1 } }),
        response: { status: 200, description: 'x', schema: obj({ name: str(), count: int() }) },
      }),
    ];
    expect(wrong).toHaveLength(3);
  });
});
