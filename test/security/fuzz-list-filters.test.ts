/**
 * Hostile values in every filter of every GET list of the facade (issue 26, item 6), property-style with fast-check:
 * the route table (rest-compat/routes/) gives the lists and their query parameters, and each run sends one list a
 * few of its parameters set to hostile text — LIKE's `\` `%` `_`, quotes, NUL, very long strings, impossible or
 * out-of-range dates and date-times (0000-01-01, 2027-02-30T00:00:00Z, 9999-12-31T24:00:00Z), huge and negative
 * integers, a parameter given twice (an array for a scalar) — alongside arbitrary Unicode, every byte percent-encoded.
 *
 * The property: never a 5xx; every 4xx is a problem document (application/problem+json) with a string `code`; a
 * refused value is never a bare 400 but a 422 that names a field for each of its errors, each one of the list's own query parameters (as the caller spells it:
 * `cursor`, not `after`; `until` when a cursor comes without it). Seeded: a failure prints the request to replay.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../rest-compat/routes/index.ts';
import { motorNotice } from '../kit/approved-claim.ts';
import { INSTANT_RAIL, useKit } from '../kit.ts';

const SEED = 0x26_0006;
const RUNS = 1_000;

const HOSTILE = [
  '\\',
  '%',
  '_',
  '%_\\',
  'C-%',
  "'",
  "' OR 1=1 --",
  '"',
  '\u0000',
  'a\u0000b',
  'x'.repeat(5_000),
  '%'.repeat(2_000),
  '',
  ' ',
  '0000-01-01',
  '0000-01-01T00:00:00Z',
  '9999-12-31',
  '9999-12-31T24:00:00Z',
  '9999-12-31T23:59:59Z',
  '2027-02-30',
  '2027-02-30T00:00:00Z',
  '2026-06-15T25:61:61+03:00',
  '2026-06-15T09:00:00+99:99',
  '2026-06-15',
  '+275760-09-13T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '99999999999999999999',
  '9223372036854775808',
  '2147483648',
  '-2147483649',
  '-1',
  '0',
  '1e309',
  '1.5',
  'NaN',
  'Infinity',
  'true',
  'null',
  '[]',
  '{}',
  '💥',
  '\uFFFF',
];

/** Every byte percent-encoded: lone surrogates become U+FFFD, NUL and `%` travel as data. */
const enc = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

interface ListRoute {
  path: string;
  params: string[];
}

const LISTS: ListRoute[] = ROUTES.filter((r) => r.method === 'GET' && !r.path.includes('{') && r.queryParams?.length)
  .map((r) => ({ path: r.path, params: r.queryParams!.map((q) => q.name) }))
  .sort((a, b) => a.path.localeCompare(b.path));
const PARAMS = new Map(LISTS.map((l) => [l.path, l.params]));

const value = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String) },
);
/** One parameter: a single value, or the same name given twice (an array where a scalar belongs). */
const setting = fc.oneof(
  { weight: 4, arbitrary: value.map((v) => [v]) },
  { weight: 1, arbitrary: fc.tuple(value, value) },
);
const request = fc.constantFrom(...LISTS).chain((l) =>
  fc.record({
    path: fc.constant(l.path),
    params: fc.uniqueArray(fc.tuple(fc.constantFrom(...l.params), setting), {
      minLength: 1,
      maxLength: 3,
      selector: ([name]) => name,
    }),
  }),
);

const t = useKit(INSTANT_RAIL, { jobs: true });
const fast = { rateLimitPerMinute: 1_000_000 };
const o = t.useOrg({ fast: true, clientOverrides: { staff: fast } });

beforeAll(async () => {
  // A record in each list the filters read, so a hostile value reaches the rows and not only an empty table.
  const pol = await o.activePolicy();
  const c = await o.as('staff').post('/claims', { body: motorNotice(pol), idempotencyKey: 'fuzz-claim' });
  expect(c.status, c.text).toBe(201);
  const p = await o.as('staff').post('/prospects', { body: { name: 'Fuzz Prospect Achieng' }, idempotencyKey: 'fz-p' });
  expect(p.status, p.text).toBe(201);
}, 120_000);

describe('hostile values in the filters of every GET list', () => {
  it('reads the lists and their filters from the route table', () => {
    const paths = LISTS.map((l) => l.path);
    for (const p of ['/claims', '/clients', '/policies', '/prospects', '/erp/claims', '/erp/credit-notes', '/sms'])
      expect(paths).toContain(p);
  });

  it('never answers 5xx; every 4xx is a problem document, and a 422 names one of the list parameters', async () => {
    await fc.assert(
      fc.asyncProperty(request, async ({ path, params }) => {
        const qs = params.flatMap(([name, vs]) => vs.map((v) => `${name}=${enc(v)}`)).join('&');
        const r = await o.as('staff').get(`${path}?${qs}`);
        const what = `GET ${path}?${qs.slice(0, 300)} → ${r.status} ${r.text.slice(0, 300)}`;
        expect(r.status, what).toBeLessThan(500);
        if (r.status < 400) return;
        expect(r.headers.get('content-type'), what).toMatch(/^application\/problem\+json/);
        expect(typeof r.body.code, what).toBe('string');
        // A refusal of a value (NUL included) names it: a 400 without errors[].field hid which parameter it was.
        expect(r.status, what).not.toBe(400);
        if (r.status !== 422) return;
        const fields: string[] = (r.body.errors ?? []).map((e: { field: string }) => e.field);
        expect(fields.length, what).toBeGreaterThan(0);
        // A list parameter's error may name its item (`status.0` of `status=a,b`).
        for (const f of fields) expect(PARAMS.get(path), what).toContain(f.split('.')[0]);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  }, 600_000);
});
