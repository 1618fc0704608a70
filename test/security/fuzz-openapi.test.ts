/**
 * An OpenAPI-driven fuzzer (issue 9, Deliver 8): every operation of /api/v1/openapi.json gets hostile requests —
 * wrong types, JSON nested thousands deep, huge strings, junk cursors, impossible dates, bad UUIDs, unknown fields,
 * no body, the wrong media type, NUL characters, negative and huge numbers, odd percent-encoded path parameters —
 * mostly with a valid token, some with none, an agent's or a read-only one. Seeded (reproducible) and bounded.
 *
 * The defence it proves is the sum of the others: no 5xx, a problem document with a string `code` on every 4xx,
 * X-Request-Id on every answer, and no stack trace, SQL, file path or ORM text in any body. What it found (all
 * fixed, each with its own test in fuzz-findings.test.ts): deep JSON → 500 on every write, junk and forged cursors →
 * 500 on every list, impossible dates → 500 or silently accepted, U+0000 in a token request and an unpaired surrogate
 * in a webhook test message → 500, `"reason_id": null` → 500, `%zz` in the payment callback URL → 500, two deletes
 * of one webhook endpoint → 500.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { THIS_YEAR, TODAY, useKit } from '../kit.ts';
import { COVER_RISKS, RISK_KEY } from '../kit/cover-bind.ts';

const SEED = 0x5eed_0009;
const PER_OPERATION = 18;

/** mulberry32: a small seeded PRNG, so a failure names a request that can be replayed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] };
}

const deepArray = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const b64 = (s: string) => Buffer.from(s).toString('base64');
/** Raw JSON texts put in place of one value of an otherwise plausible body. */
const HOSTILE_JSON = [
  deepArray(5000),
  `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`,
  `"${'a'.repeat(100_000)}"`,
  '""',
  '"\\u0000"',
  '"x\\u0000y"',
  '"\\ud800"',
  '"%zz"',
  '"9999-99-99"',
  '"2026-02-30"',
  '"2026-13-45"',
  '"0000-00-00"',
  '"abc"',
  '"00000000-0000-0000-0000-00000000000g"',
  '"99999999999999999999"',
  `"${'💥'.repeat(500)}"`,
  '"<script>x</script>"',
  '"\' OR 1=1 --"',
  '-1',
  '0',
  '1.5',
  '1e308',
  '1e309',
  '-1e308',
  '9007199254740993',
  '9223372036854775808',
  '-2147483649',
  '1e-300',
  'null',
  'true',
  '[]',
  '{}',
  '[1,"a",null]',
  `[${Array(10_000).fill('1').join(',')}]`,
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"x":1}}}',
];
const HOSTILE_TEXT = [
  'abc',
  '-1',
  '0',
  '1.5',
  '1e309',
  '99999999999999999999',
  '',
  ' ',
  '%zz',
  '%00',
  '\u0000',
  'a'.repeat(5000),
  '9999-99-99',
  '2026-02-30',
  '2026-13-45',
  'true',
  '[]',
  '💥',
  b64('GPC:S:abc'),
  b64('GPC:N:1.5'),
  b64('GPC:N:1e30'),
  b64('GPC:I:5'),
  b64('GPC:O:{}'),
  b64('GPC:T:[1]'),
];
const HOSTILE_PATH = [
  'abc',
  '%zz',
  '%00',
  '%2e%2e',
  '..%2F..%2Fhealthz',
  'a'.repeat(3000),
  '-1',
  '0',
  '99999999999999999999',
  '%20',
  '%C3%A9',
  '%F0%9F%92%A5',
  randomUUIDish(),
  '%u0000',
  '1e3',
  '*',
];
const WHOLE_BODIES: (string | Buffer | undefined)[] = [
  undefined,
  '',
  deepArray(5000),
  '[]',
  '"x"',
  '1',
  'null',
  '{',
  '{"a":',
  '{"a":1}}',
  Buffer.from([0xff, 0xfe, 0x7b, 0x7d]),
  `{"pad":"${'a'.repeat(1_100_000)}"}`,
];
const MEDIA_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/merge-patch+json',
  'application/json;;;',
  '*/*',
];
function randomUUIDish() {
  return '123e4567-e89b-12d3-a456-42661417400Z';
}

const LEAKS: [string, RegExp][] = [
  ['stack trace', /\bat [^\s"]+ \(|\bat [^\s"]*\.(?:ts|js|mjs|cjs):\d+/],
  ['file path', /\/work\/|node_modules|\/src\/[\w/.-]+\.ts/],
  ['ORM text', /prisma/i],
  ['SQL', /\bSELECT\s|\bINSERT INTO\b|\bUPDATE\s+"?\w+"?\s+SET\b|\bDELETE FROM\b|\bviolates\b/],
];

interface Fuzz {
  op: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

// Jobs on: the payment rail's simulator runs in the worker process (without it STK pushes answer 503).
const t = useKit({ bindRateLimit: 100_000, webhookTimeoutMs: 300 }, { jobs: true });
const api = t.api;
const fast = { rateLimitPerMinute: 1_000_000 };
const org = t.useOrg({ clientOverrides: { staff: fast, agent: fast, readonly: fast, admin: fast } });
const tokens: Record<string, string> = {};
const fixtures: Record<string, string> = {};
let doc: any;

beforeAll(async () => {
  Object.assign(tokens, org.tokens);
  doc = (await api.get('/openapi.json')).body;
  // Real records, so hostile requests reach the code behind the lookups, not only the 404.
  const insurer = await t.db.tenant(org.id, (tx) => tx.insurer.findFirstOrThrow({ where: { name: 'Simba General' } }));
  fixtures.insurer_id = String(insurer.id);
  const q = await api.post('/motor/quote', { token: tokens.staff, body: quoteBody() });
  expect(q.status, q.text).toBe(200);
  fixtures.premium = String(q.body.options[0].total);
  const bound = await api.post('/motor/save', { token: tokens.staff, idempotencyKey: randomUUID(), body: bindBody() });
  expect(bound.status, bound.text).toBe(201);
  Object.assign(fixtures, {
    uuid: bound.body.uuid,
    client_no: bound.body.client_no,
    policy_no: bound.body.policy_no,
    sales_person: String(org.users.agent1.id),
  });
  for (const k of ['endpoint', 'endpointToDelete']) {
    const w = await api.post('/webhooks/endpoints', {
      token: tokens.staff,
      idempotencyKey: randomUUID(),
      body: { url: 'http://127.0.0.1:9/hook', events: ['*'] },
    });
    expect(w.status, w.text).toBe(201);
    fixtures[k] = w.body.data.id;
  }
  const c = await api.post('/api-clients', {
    token: tokens.admin,
    idempotencyKey: randomUUID(),
    body: { name: 'Fuzz target', scopes: ['read'] },
  });
  expect(c.status, c.text).toBe(201);
  fixtures.api_client = c.body.data.client_id;
}, 60_000);

const quoteBody = () => ({
  class: 'Motor',
  coverage: 'Private',
  scope: 'Comprehensive',
  year: THIS_YEAR - 3,
  value: 1_500_000,
  insurer_id: Number(fixtures.insurer_id),
});
function bindBody(): Record<string, unknown> {
  const n = String(Math.floor(Math.random() * 1e6)).padStart(6, '0');
  return {
    client: { name: `Fuzz ${n} Wanjiru`, phone: `0712${n}`, idno: `88${n}` },
    policy: {
      start_date: TODAY,
      insurer_id: Number(fixtures.insurer_id),
      class: 'Motor',
      coverage: 'Private',
      scope: 'Comprehensive',
      cover_period: 'annual',
      premium: Number(fixtures.premium),
    },
    vehicles: [
      {
        regno: `KFZ ${n.slice(0, 3)}F`,
        make: 'Toyota',
        model: 'Axio',
        yom: Number(TODAY.slice(0, 4)) - 3,
        value: 1_500_000,
      },
    ],
  };
}
/** A bind of a medical, travel or standard cover for a new client (its premium need not match: fuzzing mutates it). */
function coverBody(line: 'medical' | 'travel' | 'standard') {
  const n = String(Math.floor(Math.random() * 1e6)).padStart(6, '0');
  return {
    client: { name: `Fuzz ${n} Akinyi`, phone: `0722${n}`, idno: `77${n}` },
    policy: {
      ...(line === 'travel' ? {} : { start_date: TODAY }),
      insurer_id: Number(fixtures.insurer_id),
      premium: 10_000,
    },
    [RISK_KEY[line]]: COVER_RISKS[line],
  };
}
/** Plausible bodies for the operations whose schema alone would be refused before any interesting code runs. */
const BASELINES: Record<string, () => unknown> = {
  motorQuote: quoteBody,
  saveMotorPolicy: bindBody,
  medicalQuote: () => COVER_RISKS.medical,
  travelQuote: () => COVER_RISKS.travel,
  standardQuote: () => COVER_RISKS.standard,
  saveMedicalPolicy: () => coverBody('medical'),
  saveTravelPolicy: () => coverBody('travel'),
  saveStandardPolicy: () => coverBody('standard'),
  createClient: () => ({ name: 'Fuzz Client Achieng', phone: '0733000111', id_no: '31000111' }),
  stkPush: () => ({ phone: '0708374149', amount: 10, account: fixtures.policy_no }),
  createWebhookEndpoint: () => ({ url: 'http://127.0.0.1:9/hook', events: ['*'] }),
};

function deref(s: any): any {
  return s?.$ref
    ? deref(
        s.$ref
          .split('/')
          .slice(1)
          .reduce((o: any, k: string) => o[k], doc),
      )
    : s;
}
/** A plausible value for a JSON schema: the first enum value, today's date, a local URL, the minimum number. */
function sample(schema: any, depth = 0): unknown {
  const s = deref(schema) ?? {};
  if (s.enum) return s.enum[0];
  if (s.oneOf || s.anyOf) return sample((s.oneOf ?? s.anyOf)[0], depth);
  const type = Array.isArray(s.type) ? s.type.find((x: string) => x !== 'null') : s.type;
  if (type === 'object' || s.properties) {
    if (depth > 4) return {};
    return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, sample(v, depth + 1)]));
  }
  if (type === 'array') return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => sample(s.items, depth + 1));
  if (type === 'integer' || type === 'number') return s.minimum ?? 1;
  if (type === 'boolean') return false;
  if (s.format === 'date') return TODAY;
  return s.format === 'uri' ? 'http://127.0.0.1:9/hook' : 'fuzz';
}
function fixtureFor(op: string, path: string, name: string): string {
  if (name === 'id')
    return path.startsWith('/sales-people')
      ? fixtures.sales_person
      : op === 'deleteWebhookEndpoint'
        ? fixtures.endpointToDelete
        : fixtures.endpoint;
  return (
    { uuid: fixtures.uuid, client_no: fixtures.client_no, client_id: fixtures.api_client, receipt_no: 'R-000001' }[
      name
    ] ?? randomUUID()
  );
}
/** Every leaf path of a value, walked with an explicit stack. */
function leaves(v: unknown): (string | number)[][] {
  const out: (string | number)[][] = [];
  const stack: [unknown, (string | number)[]][] = [[v, []]];
  while (stack.length) {
    const [x, p] = stack.pop()!;
    const kids: [unknown, (string | number)[]][] = Array.isArray(x)
      ? x.map((c, i) => [c, [...p, i]])
      : x && typeof x === 'object'
        ? Object.entries(x).map(([k, c]) => [c, [...p, k]])
        : [];
    if (p.length) out.push(p);
    for (const [c, cp] of kids) stack.push([c, cp]);
  }
  return out;
}
/** `body` as JSON text with the value at `path` replaced by a raw JSON text (deep nesting cannot go through stringify). */
function withRaw(body: unknown, path: (string | number)[], raw: string): string {
  const copy = structuredClone(body) as any;
  let o = copy;
  for (const k of path.slice(0, -1)) o = o[k];
  o[path.at(-1)!] = '\u0001HOSTILE\u0001';
  return JSON.stringify(copy).replace('"\\u0001HOSTILE\\u0001"', () => raw);
}

function generate(): Fuzz[] {
  const r = prng(SEED);
  const out: Fuzz[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, o] of Object.entries<any>(item)) {
      if (!o?.operationId) continue;
      const params: any[] = (o.parameters ?? []).map(deref);
      const query = params.filter((p) => p.in === 'query');
      const admin = JSON.stringify(o.security ?? '').includes('admin');
      const schema = o.requestBody?.content?.['application/json']?.schema;
      const baseline = BASELINES[o.operationId]?.() ?? (schema ? sample(schema) : undefined);
      for (let i = 0; i < PER_OPERATION; i++) {
        const kind =
          i < 2 ? 'baseline' : r.pick(['body', 'body', 'whole', 'path', 'query', 'query', 'auth', 'headers']);
        const pathValue = (name: string) =>
          kind === 'path' && r.next() < 0.7
            ? r.pick(HOSTILE_PATH)
            : encodeURIComponent(fixtureFor(o.operationId, path, name));
        const url = new URL(`${t.origin}/api/v1${path.replace(/\{(\w+)\}/g, (_m, n: string) => pathValue(n))}`);
        if (kind === 'query') {
          for (const p of query.length ? query : [{ name: 'unknown_field' }])
            if (r.next() < 0.6) url.searchParams.append(p.name, r.pick(HOSTILE_TEXT));
          if (r.next() < 0.3) url.searchParams.append('cursor', r.pick(HOSTILE_TEXT));
        }
        const headers: Record<string, string> = {
          authorization: `Bearer ${admin ? tokens.admin : tokens.staff}`,
          'idempotency-key': randomUUIDFrom(r.next),
        };
        let body: string | Buffer | undefined = baseline === undefined ? undefined : JSON.stringify(baseline);
        if (kind === 'body' && baseline !== undefined) {
          const targets = leaves(baseline);
          body =
            r.next() < 0.15 || !targets.length
              ? JSON.stringify({ ...(baseline as object), unknown_field: 'x' })
              : withRaw(baseline, r.pick(targets), r.pick(HOSTILE_JSON));
        }
        if (kind === 'whole') body = r.pick(WHOLE_BODIES);
        if (method === 'get') body = undefined; // fetch cannot send one
        if (body !== undefined)
          headers['content-type'] = kind === 'whole' && r.next() < 0.4 ? r.pick(MEDIA_TYPES) : 'application/json';
        if (kind === 'auth') {
          const who = r.pick(['none', 'agent', 'readonly', 'garbage', 'agent-headers']);
          if (who === 'none') delete headers.authorization;
          else if (who === 'garbage')
            headers.authorization = r.pick([
              'Bearer ',
              'Bearer x',
              'Basic !!',
              `Basic ${b64('%zz:x')}`,
              `Basic ${b64('a\u0000:b')}`,
              `Bearer ${'a'.repeat(4000)}`,
              'Bearer %00',
            ]);
          else if (who === 'agent-headers')
            Object.assign(headers, {
              'x-agent-code': r.pick(['%00', 'A'.repeat(1000), org.agents[0].code]),
              'x-agent-key': r.pick(['', 'junk', 'é']),
            });
          else headers.authorization = `Bearer ${tokens[who]}`;
        }
        if (kind === 'headers') {
          const h = r.pick(['idempotency-key', 'x-request-id', 'content-type', 'accept']);
          headers[h] = r.pick(['', 'a'.repeat(300), 'é', '%00', 'application/xml', '../..']);
          if (h === 'idempotency-key' && r.next() < 0.5) delete headers[h];
        }
        out.push({ op: o.operationId, method: method.toUpperCase(), url: url.toString(), headers, body });
      }
    }
  }
  return out;
}
function randomUUIDFrom(next: () => number): string {
  return 'xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx'.replace(/x/g, () => Math.floor(next() * 16).toString(16));
}

const parsed = (text: string) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
const show = (f: Fuzz) =>
  `${f.method} ${f.url.slice(0, 300)} ${JSON.stringify(f.headers).slice(0, 300)} body=${f.body === undefined ? '(none)' : String(f.body).slice(0, 300)}`;

describe('OpenAPI-driven fuzzing', () => {
  it(`every operation survives ${PER_OPERATION} hostile requests (seed ${SEED})`, async () => {
    const requests = generate();
    expect(new Set(requests.map((f) => f.op)).size, 'operations fuzzed').toBe(
      Object.values<any>(doc.paths).flatMap((p) => Object.values<any>(p).filter((o) => o?.operationId)).length,
    );
    const failures: string[] = [];
    const send = async (f: Fuzz, n: number) => {
      const res = await fetch(f.url, {
        method: f.method,
        headers: f.headers,
        body: typeof f.body === 'object' ? new Uint8Array(f.body) : f.body,
      });
      const text = await res.text();
      const why: string[] = [];
      if (res.status >= 500) why.push(`status ${res.status}`);
      if (!res.headers.get('x-request-id')) why.push('no X-Request-Id');
      if (res.status >= 400 && res.status < 500) {
        if (!/^application\/problem\+json/.test(res.headers.get('content-type') ?? ''))
          why.push(`4xx as ${res.headers.get('content-type')}`);
        else if (typeof parsed(text)?.code !== 'string') why.push('problem without a string code');
      }
      for (const [what, re] of LEAKS) if (re.test(text)) why.push(`${what} in the body`);
      if (why.length)
        failures.push(`#${n} ${why.join(', ')}\n  request: ${show(f)}\n  answer: ${res.status} ${text.slice(0, 400)}`);
    };
    for (let i = 0; i < requests.length; i += 4)
      await Promise.all(requests.slice(i, i + 4).map((f, j) => send(f, i + j)));
    expect(
      failures,
      `${failures.length} of ${requests.length} answers broke the rules (seed ${SEED}):\n${failures.slice(0, 25).join('\n')}`,
    ).toEqual([]);
  }, 120_000);
});
