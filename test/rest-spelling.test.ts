import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../rest-compat/routes/index.ts';
import { TODAY, useKit } from './kit.ts';
import { COVER_RISKS, coverQuote, type CoverLineName, newClient, RISK_KEY } from './kit/cover-bind.ts';

/**
 * Every REST field is snake_case, at any depth (the spec's legacy spellings — `idno`, `regno`, `risknote`, `yom` … — are
 * lower case too), including the JSON the service keeps as it was understood (a cover's `cover`, an option's `terms`,
 * an insured's `details`): the cover flows' bodies, and every GET of the route table that needs no path parameter.
 */
const t = useKit({ bindRateLimit: 10_000, mpesaSimDelayMs: 0 });
const o = t.useOrg({ fast: true });

const SNAKE = /^[a-z0-9_]+$/;

/** Every object key at any depth that is not snake_case, with its path (`quote.cover.coverPeriod`). */
function badKeys(v: unknown, path = '$'): string[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => badKeys(x, `${path}.${i}`));
  if (v === null || typeof v !== 'object') return [];
  return Object.entries(v).flatMap(([k, x]) => [
    ...(SNAKE.test(k) ? [] : [`${path}.${k}`]),
    ...badKeys(x, `${path}.${k}`),
  ]);
}

/** The property names a JSON Schema declares, at any depth. */
function propertyNames(schema: unknown): string[] {
  if (Array.isArray(schema)) return schema.flatMap(propertyNames);
  if (schema === null || typeof schema !== 'object') return [];
  const own = 'properties' in schema ? Object.keys(schema.properties as object) : [];
  return [...own, ...Object.values(schema).flatMap(propertyNames)];
}

const expectSnake = (what: string, body: unknown) => expect(badKeys(body), what).toEqual([]);
const LINES: CoverLineName[] = ['medical', 'travel', 'standard'];
const POLICY_GETS = ROUTES.filter(
  (r) => r.method === 'GET' && r.path.startsWith('/policies/{uuid}/') && r.path.split('{').length === 2,
).map((r) => r.path);
const bound: Record<string, { uuid: string }> = {};

describe('cover flows: every key snake_case', () => {
  it.each(LINES)('%s: quote, save_quote, save and GET /policies/{uuid}', async (line) => {
    const risk = COVER_RISKS[line];
    const staff = o.tokens.staff;
    const quote = await o.api.post(`/${line}/quote`, { token: staff, body: risk });
    expect(quote.status, quote.text).toBe(200);
    expectSnake(`POST /${line}/quote`, quote.body);

    const { options } = await coverQuote(o.api, staff, line);
    const cheapest = options[0];
    const saved = await o.api.post(`/${line}/save_quote`, {
      token: staff,
      idempotencyKey: randomUUID(),
      body: {
        client: newClient(line),
        [RISK_KEY[line]]: risk,
        quotes: [{ insurer_id: cheapest.insurer_id, total: cheapest.total }],
      },
    });
    expect(saved.status, saved.text).toBe(201);
    expectSnake(`POST /${line}/save_quote`, saved.body);

    const save = await o.api.post(`/${line}/save`, {
      token: staff,
      idempotencyKey: randomUUID(),
      body: {
        client: newClient(line),
        policy: {
          ...(line === 'travel' ? {} : { start_date: TODAY }),
          insurer_id: cheapest.insurer_id,
          premium: cheapest.total,
          product_version: cheapest.product_version,
        },
        [RISK_KEY[line]]: risk,
      },
    });
    expect(save.status, save.text).toBe(201);
    expectSnake(`POST /${line}/save`, save.body);
    bound[line] = save.body;

    const policy = await o.api.get(`/policies/${save.body.uuid}`, { token: staff });
    expect(policy.status, policy.text).toBe(200);
    expect(policy.body.data.cover).toEqual(expect.any(Object));
    expectSnake(`GET /policies/{uuid} (${line})`, policy.body);
    // Every other read of the policy (renewal quote, endorsements, cancellations, certificates), whatever it answers.
    expect(POLICY_GETS).toEqual(
      expect.arrayContaining(['/policies/{uuid}/endorsements', '/policies/{uuid}/cancellations']),
    );
    for (const path of POLICY_GETS) {
      const r = await o.api.get(path.replace('{uuid}', save.body.uuid), { token: staff });
      expectSnake(`GET ${path} (${line}, ${r.status})`, r.body);
    }
  });

  it('the standard cover as echoed spells its fields in snake_case', async () => {
    const q = await o.api.post('/standard/quote', {
      token: o.tokens.staff,
      body: {
        ...COVER_RISKS.standard,
        items: [{ description: 'Contents', sum_insured: 1_500_000, id_no: '12345678' }],
      },
    });
    expect(q.status, q.text).toBe(200);
    expect(q.body.quote.cover).toMatchObject({
      product: 'DOMESTIC',
      cover_period: 'annual',
      start_date: TODAY,
      total_sum_insured_minor: 150_000_000,
      items: [{ description: 'Contents', sum_insured_minor: 150_000_000, id_no: '12345678' }],
    });
  });
});

describe('GET endpoints without path parameters: every key snake_case', () => {
  beforeAll(async () => {
    // Something on every list: the cover policies above may not have run when this file is filtered.
    if (!Object.keys(bound).length) await o.pendingPolicy();
  }, 60_000);

  const paths = ROUTES.filter((r) => r.method === 'GET' && !r.path.includes('{')).map((r) => r.path);

  it('GET /policies (the full record per item)', async () => {
    const r = await o.api.get('/policies?limit=100', { token: o.tokens.staff });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.length).toBeGreaterThan(0);
    expectSnake('GET /policies', r.body);
  });

  it.each(paths)('GET %s', async (path) => {
    const r = await o.api.get(path, { token: o.tokens.admin });
    // Some need a query parameter or another scope: what they answer (a problem document) must be snake_case too.
    if (!(r.headers.get('content-type') ?? '').includes('json')) return;
    if (path !== '/events/catalogue') return expectSnake(`GET ${path} (${r.status})`, r.body);
    // The event catalogue carries each payload's JSON Schema: its keywords ($schema, additionalProperties) are the
    // standard's, not our fields; the payload's property names (every `properties` map inside it) are ours.
    const schemas = r.body.data.map((e: { schema: unknown }) => e.schema);
    expectSnake('GET /events/catalogue', { ...r.body, data: r.body.data.map(({ schema: _, ...e }: any) => e) });
    expect(schemas.flatMap((x: unknown) => propertyNames(x)).filter((k: string) => !SNAKE.test(k))).toEqual([]);
  });
});
