/**
 * What the benchmark measures. A scenario is one request replayed in a closed loop (or, for writes that may not
 * repeat, a fresh variant of it each time: see SetupResult.vary); add one with a single line below. Each gets its
 * own access token (the per-minute limit counts per token), whose client's limit the runner raises first through
 * the admin API.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface DemoClient {
  client_id: string;
  client_secret: string;
  scopes: string[];
}

/** The parts of <DATA_DIR>/demo-credentials.json the benchmark reads (see src/seed/demo.ts). */
export interface DemoCredentials {
  base_url: string;
  tenants: Record<
    string,
    { code: string; api_clients: Record<string, DemoClient>; agents?: { code: string; key: string }[] }
  >;
}

export interface BenchContext {
  origin: string;
  credentials: DemoCredentials;
}

/** What setup may return: overrides of the request, and `vary` for requests that must differ each time. */
export interface SetupResult {
  path?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Called once per request (the n-th, from 0): its body replaces the request's, its headers add to them. */
  vary?: (n: number) => { body?: unknown; headers?: Record<string, string> };
}

export interface SetupContext extends BenchContext {
  token: string | undefined;
  /** A JSON request to the service with the scenario's token, for preparing data. */
  request(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: any; text: string }>;
}

export interface Scenario {
  name: string;
  method: string;
  /** Path with query string, as sent. */
  path: string;
  /** Sent as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Which brokerage demo client's bearer token to send; false for none. Default 'staff'. */
  client?: string | false;
  /** Whether a response counts as a success; default: status 2xx. */
  ok?: (status: number, body: Buffer) => boolean;
  /** Runs once before the scenario (after its token exists): may create data and adjust the request. */
  setup?: (ctx: SetupContext) => Promise<SetupResult | void>;
  /** Settings the service needs for this scenario (one service runs every selected scenario). */
  env?: Record<string, string>;
  /**
   * What it is measured beside: 'replay' (default), a node:http server answering the service's captured bytes;
   * 'quote', the hand-written quote service (quote-baseline.ts), which does the same work and answers the same bytes;
   * 'hand', the hand-written service of the everyday paths (hand/server.ts), likewise.
   */
  baseline?: 'replay' | 'quote' | 'hand';
  /**
   * For a write whose answer carries what each request generates (ids, numbers, times, the varying input): the
   * parsed answer with those values masked, applied to both answers before the byte comparison.
   */
  normalize?: (json: unknown) => unknown;
}

/** GraphQL reports most failures inside a 200. */
const gqlOk = (status: number, body: Buffer) => status >= 200 && status < 300 && !body.includes('"errors"');

const rest = (name: string, path: string, o: Partial<Scenario> = {}): Scenario => ({
  name,
  method: 'GET',
  path: `/api/v1${path}`,
  ...o,
});

const gql = (
  name: string,
  query: string,
  variables?: Record<string, unknown>,
  o: Partial<Scenario> = {},
): Scenario => ({
  name,
  method: 'POST',
  path: '/graphql',
  body: variables ? { query, variables } : { query },
  headers: { 'content-type': 'application/json' },
  ok: gqlOk,
  ...o,
});

/** The medical quote scenario's family: principal, spouse, two children, inpatient KES 1M with outpatient. */
const MEDICAL_RISK = {
  cover_type: 'family',
  inpatient_limit: 1_000_000,
  riders: [{ code: 'outpatient', limit: 100_000 }],
  members: [
    { relationship: 'principal', age: 38 },
    { relationship: 'spouse', age: 36 },
    { relationship: 'child', age: 9 },
    { relationship: 'child', age: 6 },
  ],
};

/** The risk every motor scenario prices: a private car, comprehensive, KES 1.5 m. */
const RISK = { class: 'Motor', scope: 'Comprehensive', year: 2020, value: 1_500_000 };

/** The operation the REST facade itself runs for POST /motor/quote, so both transports ask for the same fields. */
const MOTOR_QUOTE_GQL = readFileSync(
  path.resolve(import.meta.dirname, '../../rest-compat/operations/MotorQuote.graphql'),
  'utf8',
);
const isMotorQuote = (status: number, body: Buffer) =>
  gqlOk(status, body) && body.includes('"__typename":"MotorQuote"');

function expectStatus(r: { status: number; text: string }, status: number, what: string): void {
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 500)}`);
}

/** GET /clients returns a full page of 25: tops the tenant up to 25 clients through POST /clients. */
async function atLeast25Clients(ctx: SetupContext): Promise<void> {
  await loadTenant(ctx);
  const page = await ctx.request('GET', '/api/v1/clients?limit=25');
  expectStatus(page, 200, 'listing clients');
  const tag = Date.now().toString().slice(-7);
  for (let i = page.json.meta.count as number; i < 25; i++) {
    const n = String(i).padStart(2, '0');
    // force: a leftover from an earlier run with the same phone must not answer 409 duplicate_client.
    const body = {
      name: `Bench Client ${tag}${n} Otieno`,
      phone: `07${tag.slice(-6)}${n}`,
      id_no: `9${tag}${n}`,
      force: true,
    };
    expectStatus(
      await ctx.request('POST', '/api/v1/clients', body, { 'idempotency-key': randomUUID() }),
      201,
      'creating a client',
    );
  }
}

/** One client of the tenant, the newest (the first of GET /clients), read whole. */
async function oneClient(ctx: SetupContext): Promise<SetupResult> {
  const page = await ctx.request('GET', '/api/v1/clients?limit=1');
  expectStatus(page, 200, 'listing clients');
  if (!page.json.data.length) throw new Error('the tenant has no client');
  return { path: `/api/v1/clients/${encodeURIComponent(page.json.data[0].client_no as string)}` };
}

/**
 * A bind per request: each needs its own Idempotency-Key (else it replays) and its own registration (else 422
 * domain_rule for overlapping cover on the same vehicle), and gets its own client, as binds for different
 * customers do. The run's tag keeps identifiers apart from earlier runs on the same database. The premium is the
 * server's own quote for the chosen insurer, fetched once.
 */
async function bindEachTime(ctx: SetupContext): Promise<SetupResult> {
  const insurers = await ctx.request('GET', '/api/v1/insurers');
  expectStatus(insurers, 200, 'listing insurers');
  const insurer =
    (insurers.json.data as { id: number; name: string }[]).find((i) => i.name === 'Simba General') ??
    insurers.json.data[0];
  const quote = await ctx.request('POST', '/api/v1/motor/quote', { ...RISK, insurer_id: insurer.id });
  expectStatus(quote, 200, 'pricing the bind');
  const premium = quote.json.options[0].total as number;
  const today = new Date().toISOString().slice(0, 10); // UTC is never ahead of Nairobi; a past date starts today
  const tag = Date.now().toString(36).slice(-5).toUpperCase();
  const ms = Date.now().toString().slice(-8);
  const body = (n: number) => {
    const seq = n.toString(36).toUpperCase().padStart(4, '0');
    return {
      client: {
        name: `Bench Insured ${tag}${seq} Wanjiru`,
        phone: `07${String(n % 1e8).padStart(8, '0')}`,
        idno: `${ms}${String(n).padStart(6, '0')}`,
        force: true,
      },
      policy: {
        start_date: today,
        insurer_id: insurer.id,
        class: RISK.class,
        coverage: 'Private',
        scope: RISK.scope,
        cover_period: 'annual',
        premium,
      },
      vehicles: [
        {
          regno: `B${tag}${seq}`,
          chassis_no: `BENCH${tag}${seq}`,
          make: 'Toyota',
          model: 'Fielder',
          yom: RISK.year,
          value: RISK.value,
          coverage: 'Private',
        },
      ],
    };
  };
  return { body: body(0), vary: (n) => ({ body: body(n), headers: { 'idempotency-key': randomUUID() } }) };
}

const post = { method: 'POST', headers: { 'content-type': 'application/json' } };

/** Binds one policy (bind limit permitting) and returns its uuid and policy number. */
async function bindOne(ctx: SetupContext): Promise<{ uuid: string; policyNo: string; total: number }> {
  const bind = await bindEachTime(ctx);
  const r = await ctx.request('POST', '/api/v1/motor/save', bind.vary!(Date.now() % 1e6).body, {
    'idempotency-key': randomUUID(),
  });
  expectStatus(r, 201, 'binding a policy');
  // M-Pesa collects whole shillings: the total rounded up pays the (single) instalment in full.
  return { uuid: r.json.uuid, policyNo: r.json.policy_no, total: Math.ceil(r.json.premium.total_minor / 100) };
}

/**
 * A motor policy in force today: an active one of the tenant's if there is one, else one bound and paid by the
 * simulated STK push (whose callback activates it). Its uuid and the registration of its first vehicle.
 */
async function policyInForce(ctx: SetupContext): Promise<{ uuid: string; regno: string }> {
  const today = new Date(Date.now() + 3 * 3_600_000).toISOString().slice(0, 10); // Nairobi's calendar day
  const active = await ctx.request('GET', '/api/v1/policies?status=active&limit=100');
  expectStatus(active, 200, 'listing active policies');
  const found = (
    active.json.data as { uuid: string; product_line?: string; start_date?: string; end_date?: string }[]
  ).find(
    (x) =>
      (x.product_line ?? 'motor') === 'motor' &&
      (!x.start_date || x.start_date <= today) &&
      (!x.end_date || x.end_date >= today),
  );
  let uuid = found?.uuid;
  if (!uuid) {
    const p = await bindOne(ctx);
    const push = await ctx.request(
      'POST',
      '/api/v1/payment/stk/push',
      { phone: '254708374149', amount: p.total, account: p.policyNo },
      { 'idempotency-key': randomUUID() },
    );
    expectStatus(push, 202, 'collecting the premium');
    for (let i = 0; ; i++) {
      const r = await ctx.request('GET', `/api/v1/policies/${p.uuid}`);
      if (r.json?.data?.status === 'active') break;
      if (i === 299) throw new Error(`policy ${p.policyNo} did not become active`);
      await new Promise((res) => setTimeout(res, 100));
    }
    uuid = p.uuid;
  }
  const rec = await ctx.request('GET', `/api/v1/policies/${uuid}`);
  expectStatus(rec, 200, 'reading the policy');
  return { uuid, regno: rec.json.data.vehicles[0].regno as string };
}

/** GET /claims returns a full page of 25: registers first notices of loss on a policy in force until there are 25. */
async function atLeast25Claims(ctx: SetupContext): Promise<void> {
  const page = await ctx.request('GET', '/api/v1/claims?limit=25');
  expectStatus(page, 200, 'listing claims');
  if ((page.json.meta.count as number) >= 25) return;
  const policy = await policyInForce(ctx);
  const causes = await ctx.request('GET', '/api/v1/claims/causes?product_line=motor');
  expectStatus(causes, 200, 'listing claim causes');
  const today = new Date(Date.now() + 3 * 3_600_000).toISOString().slice(0, 10);
  for (let i = page.json.meta.count as number; i < 25; i++) {
    const body = {
      policy_uuid: policy.uuid,
      registration: policy.regno,
      cause: causes.json.data[i % causes.json.data.length].code,
      loss_date: today,
      loss_place: 'Mombasa Road, Nairobi',
      description: `Bench claim ${i + 1}: rear-ended in traffic`,
      reporter: { name: 'Bench Reporter', phone: '0712345678', relationship: 'self' },
      estimated_loss: 50_000 + i * 1_000,
    };
    expectStatus(
      await ctx.request('POST', '/api/v1/claims', body, { 'idempotency-key': randomUUID() }),
      201,
      'registering a claim',
    );
  }
}

/**
 * The first page of an ERP policies sync (per_page 25) over a window that ends at a fixed instant, so that every
 * request reads the same records and meta (without `until` the window ends at the moving sync horizon). Binds until
 * 26 policies lie in the window, so the page is full and links to the next.
 */
async function erpPoliciesPage(ctx: SetupContext): Promise<SetupResult> {
  const first = await ctx.request('GET', '/api/v1/erp/policies?per_page=26');
  expectStatus(first, 200, 'reading the ERP policies export');
  for (let i = first.json.meta.count as number; i < 26; i++) await bindOne(ctx);
  // The window's end after every bind above; the requests come once the sync horizon (now less 2 s) has passed it,
  // so `until` holds as given rather than being clamped to a horizon that moves.
  await new Promise((res) => setTimeout(res, 100));
  const until = new Date().toISOString();
  await new Promise((res) => setTimeout(res, 3_000));
  return { path: `/api/v1/erp/policies?per_page=25&until=${encodeURIComponent(until)}` };
}

/** The data volume (issue 28): how many clients and motor policies the brokerage tenant is measured with. */
const TENANT_POLICIES = 300;

/** What a policy of the loaded tenant gets after its bind; `j` counts from the newest (0) down. */
function roleOf(j: number): { pay: boolean; endorse: boolean; cancel: boolean } {
  // A quarter paid; among those, one in four endorsed and one in four cancelled (one in eight endorsed first), so
  // the newest page of 25 holds pending, paid, endorsed, cancelled and endorsed-then-cancelled policies.
  return { pay: j % 4 === 1, endorse: j % 16 === 1 || j % 32 === 9, cancel: j % 16 === 9 };
}

/** Runs `work` over 0..n-1 with `width` at a time. */
async function inParallel(n: number, width: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

/** Pays a bound policy in full by STK push; the simulator's callback (MPESA_SIM_DELAY_MS 0) activates it. */
async function payPolicy(ctx: SetupContext, p: { uuid: string; policyNo: string; total: number }): Promise<void> {
  const push = await ctx.request(
    'POST',
    '/api/v1/payment/stk/push',
    { phone: '254708374149', amount: p.total, account: p.policyNo },
    { 'idempotency-key': randomUUID() },
  );
  expectStatus(push, 202, 'collecting the premium');
}

/**
 * Waits until the policy reads active (the payment's callback has run): up to two minutes, since a data directory
 * kept from an earlier run may still hold that run's owed simulator callbacks (its STK push scenario leaves hundreds),
 * which the rail answers first.
 */
async function untilActive(ctx: SetupContext, p: { uuid: string; policyNo: string }): Promise<any> {
  for (let i = 0; i < 1200; i++) {
    const r = await ctx.request('GET', `/api/v1/policies/${p.uuid}`);
    if (r.json?.data?.status === 'active') return r.json.data;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`policy ${p.policyNo} did not become active`);
}

/** Confirms a change_value endorsement (up or down, so both debit and credit notes appear) on an active policy. */
async function endorsePolicy(ctx: SetupContext, uuid: string, regno: string, up: boolean): Promise<void> {
  const preview = await ctx.request(
    'POST',
    `/api/v1/policies/${uuid}/endorse`,
    { operation: 'change_value', regno, value: up ? 1_650_000 : 1_300_000 },
    { 'idempotency-key': randomUUID() },
  );
  expectStatus(preview, 201, 'pricing an endorsement');
  const confirm = await ctx.request(
    'POST',
    `/api/v1/policies/${uuid}/endorsements/${preview.json.data.uuid}/confirm`,
    undefined,
    { 'idempotency-key': randomUUID() },
  );
  expectStatus(confirm, 200, 'confirming an endorsement');
}

/** Cancels an active policy today at the insured's request (preview, then confirm). */
async function cancelPolicy(ctx: SetupContext, uuid: string): Promise<void> {
  const preview = await ctx.request(
    'POST',
    `/api/v1/policies/${uuid}/cancellation`,
    { reason: 'insured_request', requested_by: 'insured' },
    { 'idempotency-key': randomUUID() },
  );
  expectStatus(preview, 201, 'pricing a cancellation');
  const confirm = await ctx.request(
    'POST',
    `/api/v1/policies/${uuid}/cancellations/${preview.json.data.uuid}/confirm`,
    undefined,
    { 'idempotency-key': randomUUID() },
  );
  expectStatus(confirm, 200, 'confirming a cancellation');
}

/**
 * Binds `n` motor policies through the public API (each for its own new client), then pays, endorses and cancels
 * them by roleOf, counted from the newest: binds four at a time, the rest eight at a time.
 */
async function bindBatch(ctx: SetupContext, n: number): Promise<void> {
  const bind = await bindEachTime(ctx);
  const bound: { uuid: string; policyNo: string; total: number }[] = [];
  await inParallel(n, 4, async (i) => {
    const r = await ctx.request('POST', '/api/v1/motor/save', bind.vary!(i).body, {
      'idempotency-key': randomUUID(),
    });
    expectStatus(r, 201, 'binding a policy');
    bound[i] = { uuid: r.json.uuid, policyNo: r.json.policy_no, total: Math.ceil(r.json.premium.total_minor / 100) };
  });
  // Policy numbers follow the list's order (newest first is the highest): roleOf counts from there.
  bound.sort((a, b) => (a.policyNo < b.policyNo ? -1 : 1));
  const paid = bound.map((p, i) => ({ p, j: n - 1 - i, ...roleOf(n - 1 - i) })).filter((x) => x.pay);
  await inParallel(paid.length, 8, async (k) => {
    const { p, j, endorse, cancel } = paid[k];
    await payPolicy(ctx, p);
    const rec = await untilActive(ctx, p);
    if (endorse) await endorsePolicy(ctx, p.uuid, rec.vehicles[0].regno, j % 32 === 1);
    if (cancel || j % 32 === 9) await cancelPolicy(ctx, p.uuid);
  });
}

let loading: Promise<void> | undefined;

/** How many policies the scenario's key sees (all the organisation's for staff, an agent's own for the agent). */
async function policiesSeen(ctx: SetupContext): Promise<number> {
  const counts = await ctx.request('POST', '/graphql', { query: '{ policyCounts { count } }' });
  expectStatus(counts, 200, 'counting policies');
  return (counts.json.data.policyCounts as { count: number }[]).reduce((a, c) => a + c.count, 0);
}

/**
 * The brokerage tenant as the issue measured it: at least 300 motor policies (and as many clients), bound through
 * the public API, a quarter paid, some endorsed and some cancelled; and the newest page of 25 showing that mix (other
 * scenarios' binds pile up on top of it, so a later run binds a fresh 25 with the mix when the newest page lacks it).
 * Once per bench run, however many scenarios ask; a tenant already loaded costs one count and one page.
 */
export function loadTenant(ctx: SetupContext): Promise<void> {
  loading ??= (async () => {
    const have = await policiesSeen(ctx);
    if (have < TENANT_POLICIES) await bindBatch(ctx, TENANT_POLICIES - have);
    const page = await ctx.request('GET', '/api/v1/policies?limit=25');
    expectStatus(page, 200, 'listing policies');
    const rows = page.json.data as { status: string; endorsements: unknown[]; cancellations: unknown[] }[];
    const mixed =
      rows.length === 25 &&
      rows.some((p) => p.status === 'active') &&
      rows.some((p) => p.endorsements.length > 0) &&
      rows.some((p) => p.cancellations.length > 0);
    if (!mixed) await bindBatch(ctx, 25);
  })();
  return loading;
}

/**
 * The newest page of 25 as loadTenant left it, pinned: paged from the newest policy's cursor (links.next's own
 * form), so policies that later scenarios' setups bind (each setup runs before any is measured) do not move it between
 * the service's answer and the hand-written one's byte check. The page starts at the second newest.
 */
async function newestPage(ctx: SetupContext): Promise<void> {
  await loadTenant(ctx);
}

/**
 * An agent's own newest page (the demo's agent key acts as an agent, who sees only the records within their reach):
 * at least 25 policies bound with the agent's key, a quarter paid, some endorsed and cancelled, as loadTenant's. The
 * tenant's load itself comes from the staff scenarios (select them too: `BENCH_ONLY='REST GET /'`), so the reach
 * filters run over the same 300 policies and clients.
 */
let agentsLoading: Promise<void> | undefined;
function agentsPage(ctx: SetupContext): Promise<void> {
  agentsLoading ??= (async () => {
    const have = await policiesSeen(ctx);
    if (have < 25) await bindBatch(ctx, 25 - have);
  })();
  return agentsLoading;
}

/** The richest record of the agent's newest page (agentsPage), as onePolicy picks staff's. */
async function agentsPolicy(ctx: SetupContext): Promise<SetupResult> {
  await agentsPage(ctx);
  return richestOfNewestPage(ctx);
}

/**
 * The full record read of one policy: of the newest page, the one with the most on it (endorsed and cancelled,
 * with receipts, notes and certificates).
 */
async function onePolicy(ctx: SetupContext): Promise<SetupResult> {
  await loadTenant(ctx);
  return richestOfNewestPage(ctx);
}

async function richestOfNewestPage(ctx: SetupContext): Promise<SetupResult> {
  const page = await ctx.request('GET', '/api/v1/policies?limit=25');
  expectStatus(page, 200, 'listing policies');
  const size = (p: unknown) => JSON.stringify(p).length;
  const richest = (page.json.data as { uuid: string }[]).reduce((a, b) => (size(b) > size(a) ? b : a));
  return { path: `/api/v1/policies/${richest.uuid}` };
}

/**
 * An active policy (bound, then paid by the simulated STK push, whose callback activates it) and a fresh
 * Idempotency-Key per request: each request prices a change_value endorsement preview on current rates.
 */
async function activePolicyToEndorse(ctx: SetupContext): Promise<SetupResult> {
  const p = await bindOne(ctx);
  const push = await ctx.request(
    'POST',
    '/api/v1/payment/stk/push',
    { phone: '254708374149', amount: p.total, account: p.policyNo },
    { 'idempotency-key': randomUUID() },
  );
  expectStatus(push, 202, 'collecting the premium');
  const regno = (await untilActive(ctx, p)).vehicles[0].regno as string;
  const body = (n: number) => ({ operation: 'change_value', regno, value: 1_400_000 + (n % 100) * 1000 });
  return {
    path: `/api/v1/policies/${p.uuid}/endorse`,
    body: body(0),
    vary: (n) => ({ body: body(n), headers: { 'idempotency-key': randomUUID() } }),
  };
}

/**
 * A fresh STK push (new Idempotency-Key) for one pending policy each time: the intent committed, the simulated rail
 * called with no transaction open, its acknowledgement recorded. The paying number is the simulator's silent one (it
 * answers without calling back), so callbacks do not share the CPU; prompt throttles are off for the bench.
 */
async function pushEachTime(ctx: SetupContext): Promise<SetupResult> {
  const p = await bindOne(ctx);
  const body = { phone: '254700000005', amount: 1, account: p.policyNo };
  return { body, vary: () => ({ headers: { 'idempotency-key': randomUUID() } }) };
}

/** What each bind generates, masked for the byte check: its ids and numbers, the client's, the one-time client key. */
function maskBind(json: unknown): unknown {
  const b = json as any;
  if (!b?.uuid) return json; // a problem document is compared as it is
  const x = '…';
  return {
    ...b,
    id: x,
    uuid: x,
    risknote: x,
    policy_no: x,
    client_no: x,
    client_key: x,
    debit_note: {
      ...b.debit_note,
      number: x,
      instalments: b.debit_note.instalments.map((i: any) => ({ ...i, number: x })),
    },
    portal: { ...b.portal, client_no: x, client_key: x },
    links: { policy: x },
  };
}

/** What each push generates, masked for the byte check: the payment request's id and the rail's ids. */
function maskPush(json: unknown): unknown {
  const d = (json as any)?.data;
  if (!d?.id) return json;
  const x = '…';
  return { data: { ...d, id: x, merchant_request_id: x, checkout_request_id: x, links: { status: x } } };
}

const PUSH_ENV = { STK_PHONE_LIMIT: '0', STK_ACCOUNT_LIMIT: '0', STK_PENDING_HOLD_SECONDS: '0' };

/** What loading the tenant needs: binds unthrottled, payments from one phone unthrottled, callbacks at once. */
const LOAD_ENV = { BIND_RATE_LIMIT: '1000000', MPESA_SIM_DELAY_MS: '0', ...PUSH_ENV };

export const SCENARIOS: Scenario[] = [
  rest('REST GET /me', '/me'),
  gql('GraphQL me', '{ me { scopes tenant { code } } }'),
  rest('REST GET /insurers', '/insurers'),
  gql('GraphQL insurers', '{ insurers { databaseId name } }'),
  rest('REST POST /motor/quote', '/motor/quote', { ...post, body: RISK, baseline: 'quote' }),
  gql('GraphQL motorQuote', MOTOR_QUOTE_GQL, { input: RISK }, { ok: isMotorQuote, baseline: 'quote' }),
  // A family of four with riders, on every insurer's medical product (rate rows and terms read from the same cache).
  rest('REST POST /medical/quote (family of 4)', '/medical/quote', { ...post, body: MEDICAL_RISK }),
  rest('REST GET /clients (25 rows)', '/clients?limit=25', {
    setup: atLeast25Clients,
    baseline: 'hand',
    env: LOAD_ENV,
  }),
  rest('REST GET /clients/{client_no}', '/clients/{client_no}', { setup: oneClient, baseline: 'hand' }),
  rest('REST GET /claims (25 rows)', '/claims?limit=25', {
    setup: atLeast25Claims,
    baseline: 'hand',
    env: { MPESA_SIM_DELAY_MS: '0' },
  }),
  rest('REST GET /erp/policies (page)', '/erp/policies', {
    setup: erpPoliciesPage,
    baseline: 'hand',
    env: { BIND_RATE_LIMIT: '1000000' },
  }),
  rest('REST GET /policies/{uuid} (full record)', '/policies/{uuid}', {
    setup: onePolicy,
    env: LOAD_ENV,
    baseline: 'hand',
  }),
  rest('REST GET /policies (25 full records)', '/policies?limit=25', {
    setup: newestPage,
    env: LOAD_ENV,
    baseline: 'hand',
  }),
  // The same reads by an agent's key: reach filtered in the statements, compiled without the per-row rules.
  rest('REST GET /clients (25 rows, agent)', '/clients?limit=25', {
    client: 'agent',
    setup: agentsPage,
    env: LOAD_ENV,
    baseline: 'hand',
  }),
  rest('REST GET /policies/{uuid} (full record, agent)', '/policies/{uuid}', {
    client: 'agent',
    setup: agentsPolicy,
    env: LOAD_ENV,
    baseline: 'hand',
  }),
  rest('REST GET /policies (25 full records, agent)', '/policies?limit=25', {
    client: 'agent',
    setup: agentsPage,
    env: LOAD_ENV,
    baseline: 'hand',
  }),
  rest('REST POST /policies/{uuid}/endorse (change_value preview)', '/policies/{uuid}/endorse', {
    ...post,
    setup: activePolicyToEndorse,
    env: { MPESA_SIM_DELAY_MS: '0' },
  }),
  rest('REST POST /payment/stk/push', '/payment/stk/push', {
    ...post,
    setup: pushEachTime,
    env: PUSH_ENV,
    baseline: 'hand',
    normalize: maskPush,
  }),
  // Last, so the thousands of clients its binds add arrive after the client list was measured. The default bind
  // limit (3 per 15 s per API client) would turn the run into 429s.
  rest('REST POST /motor/save', '/motor/save', {
    ...post,
    setup: bindEachTime,
    env: { BIND_RATE_LIMIT: '1000000' },
    baseline: 'hand',
    normalize: maskBind,
  }),
];
