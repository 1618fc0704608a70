import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBimaClient, verifyWebhookSignature, type BimaClient, type BimaClientOptions } from '../sdk/index.ts';
import { sha256Hex } from '../src/lib/crypto.ts';
import { THIS_YEAR, TODAY } from './helpers/clock.ts';
import { parseSignature, WebhookReceiver } from './helpers/webhook-receiver.ts';
import { INSTANT_RAIL, useKit, waitFor } from './kit.ts';

// The SDK (sdk/) against the running service: the kit's real server, its real token endpoint, limiter, idempotency
// store and webhook deliveries. Only the 429/503 schedule comes from a tiny local server (the service would make a
// test wait a minute for its limiter: test/sdk-retries.test.ts) and one lost answer is injected into the fetch the SDK
// sends with.
const t = useKit({ ...INSTANT_RAIL, tokenRateLimitPerMinute: 1_000 }, { jobs: true });
const o = t.useOrg({ fast: true, tokens: ['staff'] });

interface Sent {
  method: string;
  path: string;
  key: string | null;
  status: number;
  replayed: string | null;
}

/** An SDK client of the organisation's staff key whose requests are recorded (`sent`) as they go to the server. */
function client(opts: Partial<BimaClientOptions> = {}, inject?: (r: Request, res: Response) => Response) {
  const sent: Sent[] = [];
  const bima = createBimaClient({
    baseUrl: t.origin,
    clientId: o.clients.staff.clientId,
    clientSecret: o.clients.staff.secret,
    ...opts,
    fetch: async (request) => {
      const key = request.headers.get('idempotency-key');
      const real = await fetch(request);
      const res = inject ? inject(request, real) : real;
      const path = new URL(request.url).pathname.replace('/api/v1', '');
      sent.push({
        method: request.method,
        path,
        key,
        status: res.status,
        replayed: res.headers.get('idempotent-replayed'),
      });
      return res;
    },
  });
  return { bima, sent, tokenCalls: () => sent.filter((s) => s.path === '/oauth/token').length };
}

describe('the token', () => {
  it('is fetched once, reused, and refreshed shortly before it expires', async () => {
    let at = Date.now();
    const { bima, sent, tokenCalls } = client({ now: () => at });
    expect((await bima.GET('/me')).response.status).toBe(200);
    const first = await bima.accessToken();
    expect((await bima.GET('/me')).response.status).toBe(200);
    expect(tokenCalls()).toBe(1);
    at += 86_400_000 - 30_000; // the service's tokens live a day; 30 s before the end is inside the refresh margin
    expect((await bima.GET('/me')).response.status).toBe(200);
    expect(tokenCalls()).toBe(2);
    expect(await bima.accessToken()).not.toBe(first);
    expect(sent.map((s) => `${s.path} ${s.status}`)).toEqual([
      '/oauth/token 200',
      '/me 200',
      '/me 200',
      '/oauth/token 200',
      '/me 200',
    ]);
  });

  it('is replaced once when the service refuses it (revoked), and a wrong secret is an error', async () => {
    const { bima, sent } = client();
    expect((await bima.GET('/me')).response.status).toBe(200);
    const revoked = await bima.accessToken();
    await t.db.system((tx) =>
      tx.accessToken.updateMany({ where: { tokenHash: sha256Hex(revoked) }, data: { revokedAt: new Date() } }),
    );
    await t.heard();
    const me = await bima.GET('/me');
    expect(me.response.status, JSON.stringify(me.error)).toBe(200);
    expect(sent.map((s) => `${s.path} ${s.status}`).slice(2)).toEqual(['/me 401', '/oauth/token 200', '/me 200']);
    expect(await bima.accessToken()).not.toBe(revoked);

    const wrong = createBimaClient({ baseUrl: t.origin, clientId: o.clients.staff.clientId, clientSecret: 'nope' });
    await expect(wrong.GET('/me')).rejects.toThrow(/^401 invalid_client/);
  });
});

describe('typed calls and Idempotency-Key', () => {
  it('quotes and binds; a key is added to the bind only, and a retried bind is replayed with the same key', async () => {
    let lost: unknown;
    // The first bind's answer is lost on the way back (a proxy's 503): the SDK sends it again with the same key.
    const { bima, sent } = client({}, (request, res) => {
      if (request.method !== 'POST' || !request.url.endsWith('/motor/save') || lost) return res;
      lost = res.json();
      return new Response('{}', { status: 503, headers: { 'retry-after': '0' } });
    });
    const quote = await bima.POST('/motor/quote', {
      body: { class: 'Motor', coverage: 'Private', scope: 'Comprehensive', year: THIS_YEAR - 3, value: 1_500_000 },
    });
    expect(quote.response.status, JSON.stringify(quote.error)).toBe(200);
    const option = quote.data!.options[0];
    const bind = await bima.POST('/motor/save', {
      body: {
        client: { name: 'Akinyi SDK Odhiambo', phone: '0722 123 987', idno: '29876123' },
        policy: {
          start_date: TODAY,
          insurer_id: option.insurer_id,
          class: 'Motor',
          scope: 'Comprehensive',
          premium: option.total,
        },
        vehicles: [
          {
            regno: 'KDS 101S',
            chassis_no: 'SDK-101',
            make: 'Mazda',
            model: 'Demio',
            yom: THIS_YEAR - 3,
            value: 1_500_000,
          },
        ],
      },
    });
    expect(bind.response.status, JSON.stringify(bind.error)).toBe(201);
    expect(bind.data!.status).toBe('pending_payment');
    expect(bind.data!.uuid).toBe(((await lost) as { uuid: string }).uuid);

    const binds = sent.filter((s) => s.path === '/motor/save');
    expect(binds.map((s) => [s.status, s.replayed])).toEqual([
      [503, null],
      [201, 'true'],
    ]);
    expect(binds[0].key).toMatch(/^[0-9a-f-]{36}$/);
    expect(binds[1].key).toBe(binds[0].key);
    expect(sent.find((s) => s.path === '/motor/quote')?.key).toBeNull(); // the quote takes no key
    expect(sent.find((s) => s.path === '/oauth/token')?.key).toBeNull();
  });

  it("keeps the caller's own key, so a second call with it is a replay", async () => {
    const { bima, sent } = client();
    const key = `sdk-test-${Date.now()}`;
    const body = { name: 'Baraka SDK Mwangi', phone: '0733 456 112' };
    for (let i = 0; i < 2; i += 1) {
      const r = await bima.POST('/clients', { params: { header: { 'Idempotency-Key': key } }, body });
      expect(r.response.status, JSON.stringify(r.error)).toBe(201);
    }
    expect(sent.filter((s) => s.path === '/clients').map((s) => [s.key, s.replayed])).toEqual([
      [key, null],
      [key, 'true'],
    ]);
  });
});

describe('webhook signatures', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => (receiver = await new WebhookReceiver().start()));
  afterAll(() => receiver.stop());

  it('verifies a real delivery; a tampered body, an old timestamp or another secret fail; rotation signs twice', async () => {
    const { bima } = client();
    const created = await bima.POST('/webhooks/endpoints', {
      body: { url: receiver.url, events: ['policy.activated'] },
    });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    const { id, secret } = created.data!.data;
    const ping = async () => {
      const sent = await bima.POST('/webhooks/endpoints/{id}/test', { params: { path: { id } }, body: {} });
      expect(sent.response.status, JSON.stringify(sent.error)).toBe(202);
      const eventId = sent.data!.data.event_id;
      await receiver.waitFor(() => receiver.forEvent(eventId).length > 0);
      const got = receiver.forEvent(eventId)[0];
      return { raw: got.raw, header: got.headers['service-signature'] as string };
    };

    const { raw, header } = await ping();
    const at = Date.now(); // signatures carry real time (not the test clock): the receiver's own clock
    expect(verifyWebhookSignature(raw, header, [secret!], { now: at })).toBe(true);
    expect(verifyWebhookSignature(raw.toString('utf8'), header, ['whsec_other', secret!], { now: at })).toBe(true);
    expect(verifyWebhookSignature(raw, header, ['whsec_other'], { now: at })).toBe(false);
    const tampered = Buffer.from(raw.toString('utf8').replace('"ping"', '"pong"'));
    expect(tampered.equals(raw)).toBe(false);
    expect(verifyWebhookSignature(tampered, header, [secret!], { now: at })).toBe(false);
    const signedAt = parseSignature(header).t * 1000;
    expect(verifyWebhookSignature(raw, header, [secret!], { now: signedAt + 299_000 })).toBe(true);
    expect(verifyWebhookSignature(raw, header, [secret!], { now: signedAt + 301_000 })).toBe(false);
    expect(verifyWebhookSignature(raw, header, [secret!], { now: signedAt + 301_000, toleranceSeconds: 600 })).toBe(
      true,
    );
    expect(verifyWebhookSignature(raw, undefined, [secret!], { now: at })).toBe(false);
    expect(verifyWebhookSignature(raw, header.replace(/t=\d+/, 't=abc'), [secret!], { now: at })).toBe(false);

    const rotated = await bima.POST('/webhooks/endpoints/{id}/rotate-secret', {
      params: { path: { id } },
      body: { grace_hours: 1 },
    });
    expect(rotated.response.status, JSON.stringify(rotated.error)).toBe(200);
    const next = rotated.data!.data.secret!;
    const after = await ping();
    const later = Date.now();
    expect(parseSignature(after.header).v1).toHaveLength(2);
    expect(verifyWebhookSignature(after.raw, after.header, [next], { now: later })).toBe(true);
    expect(verifyWebhookSignature(after.raw, after.header, [secret!], { now: later })).toBe(true);
    expect(verifyWebhookSignature(after.raw, after.header, ['whsec_other'], { now: later })).toBe(false);
    await waitFor(
      'both deliveries recorded as delivered',
      () => t.db.system((tx) => tx.webhookDelivery.findMany({ where: { endpointId: id } })),
      (rows) => rows.length === 2 && rows.every((r) => r.status === 'delivered'),
    );
  });
});

describe('the example (sdk/examples/quote-bind-pay-claim.ts; packed and installed: sdk-package.test.ts)', () => {
  it('quotes, binds, pays by STK, sees the policy active and registers a claim on it', async () => {
    // The demo credentials file's shape, for this organisation on the kit's server.
    const dir = await mkdtemp(path.join(tmpdir(), 'sdk-example-'));
    const file = path.join(dir, 'demo-credentials.json');
    const staff = { client_id: o.clients.staff.clientId, client_secret: o.clients.staff.secret };
    await writeFile(file, JSON.stringify({ base_url: t.base, tenants: { brokerage: { api_clients: { staff } } } }));
    const run = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'sdk/examples/quote-bind-pay-claim.ts', file],
      {
        cwd: path.resolve(import.meta.dirname, '..'),
        timeout: 90_000,
      },
    );
    const activated = /policy\.activated: (\S+) is active/.exec(run.stdout);
    expect(activated, run.stdout + run.stderr).not.toBeNull();
    const policy = await t.db.tenant(o.id, (tx) => tx.policy.findFirstOrThrow({ where: { policyNo: activated![1] } }));
    expect(policy.status).toBe('active');
    const claimed = /claim\.registered: (CLM-\d{4}-\d{6}) \(registered\) on (\S+),/.exec(run.stdout);
    expect(claimed, run.stdout + run.stderr).not.toBeNull();
    const claim = await t.db.tenant(o.id, (tx) => tx.claim.findFirstOrThrow({ where: { claimNo: claimed![1] } }));
    expect(claim.policyId).toBe(policy.id);
  });
});

/** Compile-time checks (tsc fails when these stop being errors): calls are typed by the OpenAPI document. */
export function _typed(bima: BimaClient) {
  // @ts-expect-error a motor quote needs the year of manufacture
  void bima.POST('/motor/quote', { body: { class: 'Motor', scope: 'TPO' } });
  // @ts-expect-error the document has no such path
  void bima.GET('/no-such-path');
  // @ts-expect-error a policy is read by its uuid, a path parameter
  void bima.GET('/policies/{uuid}', {});
}
