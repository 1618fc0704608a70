import { Kind, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { compileRoutes } from '../../rest-compat/executor.ts';
import { ROUTES } from '../../rest-compat/routes/index.ts';
import { schema } from '../../src/graphql/schema.ts';

describe('the route table', () => {
  it("validates every route's generated operation against the schema, as the boot does", () => {
    const compiled = compileRoutes(schema, ROUTES);
    expect(compiled).toHaveLength(ROUTES.length);
    // Each document carries the shared fragments it spreads.
    const getPolicy = compiled.find((c) => c.route.operationId === 'getPolicy')!;
    expect(getPolicy.operationName).toBe('Policy');
    const fragments = getPolicy.document.definitions.flatMap((d) =>
      d.kind === Kind.FRAGMENT_DEFINITION ? [d.name.value] : [],
    );
    expect(fragments).toEqual(expect.arrayContaining(['PolicyRecord', 'EndorsementFields', 'CancellationFields']));
  });

  it('an operation the schema no longer answers fails the boot, naming the route', () => {
    const me = ROUTES.find((r) => r.operationId === 'getMe')!;
    const stale = { ...me, operation: parse('query Me { me { requestID } }') };
    expect(() => compileRoutes(schema, [stale])).toThrow(
      /^REST route GET \/me: operation Me is invalid: Cannot query field "requestID"/,
    );
  });
});
