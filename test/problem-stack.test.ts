import { describe, expect, it } from 'vitest';
import { toGraphQLError } from '../src/graphql/errors.ts';
import { AppError, InvalidStateError, notFound, ValidationError } from '../src/lib/problem.ts';

/**
 * Issue 28 (memory): a refusal is an answer, not a fault, and carries no stack trace. graphql-js reads the stack of
 * every error a resolver throws; with Node's source maps on, each read mapped every frame through the bundle's map,
 * and the first decoded all of it (~50 MB held for good): a load of 404s grew the heap by that much. `npm start` now
 * leaves them off (scripts/start.mjs), and formatting frames is still work a refusal need not do.
 */
describe('refusals carry no stack trace', () => {
  it('an AppError and its kinds have their message line and no frames', () => {
    for (const e of [
      notFound('Client'),
      new AppError('actor_forbidden'),
      new ValidationError([{ field: 'phone', code: 'invalid_format', message: 'not a phone number' }]),
      new InvalidStateError('the policy is cancelled'),
    ]) {
      expect(e.stack).not.toMatch(/\n\s+at /);
      expect(e.stack?.split('\n')[0]).toContain(e.message);
    }
  });

  it('nor does the GraphQL error made of one (V8 formats the frames it captured when graphql-js redefines its stack)', () => {
    const before = Error.stackTraceLimit;
    const g = toGraphQLError(notFound('Client'));
    expect(Error.stackTraceLimit).toBe(before);
    expect(g.stack).not.toMatch(/\n\s+at /);
    expect(g.message).toBe('Client not found');
    expect(g.extensions.code).toBe('not_found');
  });

  it('leaves the process-wide frame limit as it was, and a fault keeps its frames', () => {
    const before = Error.stackTraceLimit;
    notFound('Policy');
    expect(Error.stackTraceLimit).toBe(before);
    expect(() => new AppError('no_such_code' as never)).toThrow(TypeError);
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error('a fault').stack).toMatch(/\n\s+at /);
  });
});
