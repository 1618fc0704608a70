/**
 * A module's own bounds (zod schemas behind parseInput) refuse in the same terms as variable coercion: a stable
 * `code` and plain words (docs/api-conventions.md "Field refusals are data"), never zod's own wording.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { motorNotice } from './kit/approved-claim.ts';
import { expectProblem, INSTANT_RAIL, useKit } from './kit.ts';

const t = useKit(INSTANT_RAIL, { jobs: true });
const o = t.useOrg({ fast: true });
const post = (path: string, body: unknown, role: 'staff' | 'admin' = 'staff') =>
  o.as(role).post(path, { body, idempotencyKey: randomUUID() });

const ZOD_WORDS = /^(Invalid|Too big|Too small|expected)/i;

let pol: Awaited<ReturnType<typeof o.activePolicy>>;
beforeAll(async () => {
  pol = await o.activePolicy();
}, 120_000);

/** The refusal names `field` with `code` and exactly `message`; no entry is in zod's words or without a code. */
async function refused(r: Promise<Awaited<ReturnType<typeof post>>>, field: string, code: string, message: string) {
  const res = await r;
  expectProblem(res, 422, 'validation_failed', field);
  expect(res.body.errors.find((e: { field: string }) => e.field === field)).toEqual({ field, code, message });
  for (const e of res.body.errors) expect(e.message, res.text).not.toMatch(ZOD_WORDS);
  expect(res.body.detail, res.text).not.toMatch(/Invalid option|Too big|Too small|expected /);
}

describe('module bounds refuse with a code and plain words', () => {
  it('an option not among the allowed ones: not_one_of', async () => {
    await refused(
      post('/clients', { type: 'x', name: 'Achieng Otieno', phone: '0712345678' }),
      'type',
      'not_one_of',
      'must be one of: individual, corporate',
    );
    const claim = post('/claims', { ...motorNotice(pol), channel: 'x' });
    const res = await claim;
    expectProblem(res, 422, 'validation_failed', 'channel');
    const e = res.body.errors.find((x: { field: string }) => x.field === 'channel');
    expect(e).toMatchObject({ code: 'not_one_of', message: expect.stringMatching(/^must be one of: /) });
  });

  it('beyond a bound: too_small / too_large', async () => {
    await refused(
      post('/sms', { to: ['254714000001'], message: 'x'.repeat(2_001) }),
      'message',
      'too_large',
      'must be at most 2000 characters',
    );
    await refused(
      post('/sms/top-ups', { units: -1, reference: 'TOPUP-1' }, 'admin'),
      'units',
      'too_small',
      'must be at least 1',
    );
    const c = await post('/claims', motorNotice(pol));
    expect(c.status, c.text).toBe(201);
    await refused(
      post(`/claims/${c.body.data.uuid}/reserve`, { amount: -5, reason: 'Garage estimate' }),
      'amount',
      'too_small',
      'must be at least 0',
    );
    await refused(
      post('/prospects', { name: 'Wanjiru Kamau', estimated_premium: 20_000_000_000 }),
      'estimated_premium',
      'too_large',
      'must be at most 10000000000',
    );
  });
});
