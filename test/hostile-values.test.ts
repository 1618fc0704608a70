import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DATE_TIME_MESSAGE, parseDateTime } from '../src/lib/dates.ts';
import { motorNotice } from './kit/approved-claim.ts';
import { expectProblem, INSTANT_RAIL, useKit } from './kit.ts';

/**
 * Hostile values that reached a 500 or were silently rolled over (issue 26, items 6 and 9), each on the path it was
 * found on; the whole class is swept by test/security/fuzz-list-filters.test.ts. The one date-time rule
 * (src/lib/dates.ts parseDateTime; docs/api-conventions.md "Dates and date-times"): RFC 3339 with its offset, a real
 * calendar date in 1900–2199, a real time.
 */

describe('the date-time rule (pure)', () => {
  it('takes RFC 3339 instants with Z or an offset, and gives the instant they name', () => {
    expect(parseDateTime('2026-06-15T09:00:00+03:00')?.toISOString()).toBe('2026-06-15T06:00:00.000Z');
    expect(parseDateTime('2026-06-15T06:00:00Z')?.toISOString()).toBe('2026-06-15T06:00:00.000Z');
    expect(parseDateTime('2024-02-29T23:59:59.999-01:30')?.toISOString()).toBe('2024-03-01T01:29:59.999Z');
    expect(parseDateTime('1900-01-01T00:00:00Z')?.toISOString()).toBe('1900-01-01T00:00:00.000Z');
    expect(parseDateTime('2199-12-31T23:59:59Z')?.toISOString()).toBe('2199-12-31T23:59:59.000Z');
  });

  it('refuses what is not a real instant in range, or not RFC 3339', () => {
    for (const s of [
      '2027-02-30T00:00:00Z', // rolled over to 2 March by Date.parse
      '2025-02-29T00:00:00Z',
      '0000-01-01T00:00:00Z',
      '0000-01-01',
      '1899-12-31T23:59:59Z',
      '2200-01-01T00:00:00Z',
      '9999-12-31T24:00:00Z',
      '2026-06-15T24:00:00Z',
      '2026-06-15T23:60:00Z',
      '2026-06-15T23:59:60Z',
      '2026-06-15T09:00:00+24:00',
      '2026-06-15T09:00:00+03:60',
      '2026-06-15T09:00:00', // no offset
      '2026-06-15T09:00Z', // no seconds
      '2026-06-15', // a date, not a date-time
      '+275760-09-13T00:00:00Z',
      '2026-06-15T09:00:00+03:00 ',
      '2026-06-15 09:00:00Z',
      'yesterday',
      '',
      '\\',
    ])
      expect(parseDateTime(s), s).toBeNull();
    for (const v of [null, undefined, 1_781_000_000_000, new Date(), ['2026-06-15T09:00:00Z']])
      expect(parseDateTime(v)).toBeNull();
  });
});

const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, sb] = t.useOrgs([{ fast: true }, { fast: true, sandbox: true }]);
const get = (path: string) => o.as('staff').get(path);

const ERP = ['/erp/clients', '/erp/policies', '/erp/claims', '/erp/receipts', '/erp/credit-notes'];

describe('dates and date-times in queries', () => {
  it('GET /claims: reported_from/reported_to out of range or rolled over are 422 naming the parameter', async () => {
    for (const [q, field] of [
      ['reported_from=0000-01-01', 'reported_from'],
      ['reported_to=0000-01-01T00:00:00Z', 'reported_to'],
      ['reported_from=2027-02-30T00:00:00Z', 'reported_from'],
      ['reported_to=9999-12-31T24:00:00Z', 'reported_to'],
      ['loss_from=0000-01-01', 'loss_from'],
      ['loss_to=2027-02-30', 'loss_to'],
    ])
      expectProblem(await get(`/claims?${q}`), 422, 'validation_failed', field);
    expect((await get('/claims?reported_from=2026-06-01T00:00:00%2B03:00')).status).toBe(200);
  });

  it('every ERP export: updated_since and until of 0000-01-01, 2027-02-30T…, 9999-12-31T24:00:00Z are 422', async () => {
    for (const path of ERP)
      for (const field of ['updated_since', 'until'])
        for (const v of ['0000-01-01', '2027-02-30T00:00:00Z', '9999-12-31T24:00:00Z'])
          expectProblem(await get(`${path}?${field}=${encodeURIComponent(v)}`), 422, 'validation_failed', field);
  });

  it('the ERP window is what was asked, never a rolled-over date', async () => {
    const r = await get('/erp/clients?updated_since=2026-02-28T00:00:00Z');
    expect(r.status, r.text).toBe(200);
    expect(r.body.meta.updated_since).toBe('2026-02-28T00:00:00.000Z');
    const g = await o.as('staff').gql(`{ erpClients(updatedSince: "2027-02-30T00:00:00Z") { meta { updatedSince } } }`);
    expect(g.body.data ?? null).toBeNull();
    expect(g.body.errors?.[0]?.message).toContain(DATE_TIME_MESSAGE);
  });

  it('GraphQL claims(reportedFrom:) refuses year 0 as a variable too', async () => {
    const g = await o.as('staff').gql(`query($f: DateTime) { claims(reportedFrom: $f) { edges { node { uuid } } } }`, {
      f: '0000-01-01T00:00:00Z',
    });
    expect(g.body.data ?? null).toBeNull();
    expect(g.body.errors?.[0]?.message).toContain(DATE_TIME_MESSAGE);
  });
});

describe('sizes and page numbers past 32 bits', () => {
  it('are 422 out_of_range naming the parameter and its own range, not GraphQL’s Int range', async () => {
    const big = '99999999999';
    for (const [path, field, range] of [
      ['/erp/policies?per_page=', 'per_page', 'from 1 to 1000'],
      ['/erp/clients?per_page=-', 'per_page', 'from 1 to 1000'],
      ['/erp/claims?page=', 'page', 'from 1 to '],
      ['/policies/renewals-due?within_days=', 'within_days', ''],
    ]) {
      const r = await get(`${path}${big}`);
      expectProblem(r, 422, 'validation_failed', field);
      expect(JSON.stringify(r.body), path).not.toContain('2147483647');
      expect(r.body.errors.find((x: { field: string }) => x.field === field)?.code, path).toBe('out_of_range');
      expect(r.body.errors.find((x: { field: string }) => x.field === field)?.message, path).toContain(range);
    }
  });
});

describe('dates and date-times in bodies', () => {
  it('POST /claims: reported_at rolled over or in year 0 is 422 on reported_at, and nothing is registered', async () => {
    const pol = await o.activePolicy();
    const before = await t.db.tenant(o.id, (tx) => tx.claim.count());
    for (const v of ['2026-02-30T10:00:00+03:00', '0000-01-01T00:00:00Z', '2026-06-15T24:00:00+03:00'])
      expectProblem(
        await o
          .as('staff')
          .post('/claims', { body: motorNotice(pol, { reported_at: v }), idempotencyKey: randomUUID() }),
        422,
        'validation_failed',
        'reported_at',
      );
    expect(await t.db.tenant(o.id, (tx) => tx.claim.count())).toBe(before);
  });
});

describe('POST /sandbox/clock/advance', () => {
  const advance = (body: unknown) =>
    sb.as('admin').post('/sandbox/clock/advance', { body, idempotencyKey: randomUUID() });

  it('refuses days beyond any date and a target in year 0 with 422 naming the field', async () => {
    expectProblem(await advance({ days: 1_000_000_000 }), 422, 'validation_failed', 'days');
    expectProblem(await advance({ days: -1_000_000_000 }), 422, 'validation_failed', 'days');
    expectProblem(await advance({ to: '0000-01-01T00:00:00Z' }), 422, 'validation_failed', 'to');
    expectProblem(await advance({ to: '2027-02-30T00:00:00+03:00' }), 422, 'validation_failed', 'to');
    expect(await t.db.tenant(sb.id, (tx) => tx.sandboxClockRun.count())).toBe(0);
  });

  it('three first advances at once on a never-advanced clock: one 202, the others 409 invalid_state', async () => {
    expect(await t.db.tenant(sb.id, (tx) => tx.sandboxClock.count())).toBe(0);
    const answers = await Promise.all([1, 2, 3].map(() => advance({ days: 1 })));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses, answers.map((r) => r.text).join('\n')).toEqual([202, 409, 409]);
    for (const r of answers.filter((a) => a.status === 409)) expectProblem(r, 409, 'invalid_state');
    expect(await t.db.tenant(sb.id, (tx) => tx.sandboxClockRun.count())).toBe(1);
  });
});
