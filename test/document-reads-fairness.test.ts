import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../src/db/client.ts';
import { CHUNK_BYTES } from '../src/modules/claims/documents/bytes.ts';
import { KeyedGate } from '../src/lib/keyed-gate.ts';
import { AppError } from '../src/lib/problem.ts';
import { INSTANT_RAIL, TODAY, useKit, type Active } from './kit.ts';

/**
 * One organisation cannot starve the others (issue 26, item 3): a large claim document downloaded many times at once
 * over REST, and read through GraphQL as many aliases of `contentBase64`, by organisation A, while organisation B's
 * `GET /policies?limit=1` keeps answering 200. Downloads are streamed range by range (each range its own short
 * transaction), whole-file GraphQL reads are priced by size (one whole document per request) and gated, and each
 * organisation holds at most its share of the pool (src/db/client.ts withTenantShare).
 */

const SIZE = 6 * 1024 * 1024; // the upload limit of this file's server; the attack's figures are the issue's, scaled
const t = useKit(
  { ...INSTANT_RAIL, documentMaxBytes: SIZE, dbPoolSize: 8, dbTenantShare: 4, dbPoolWaitMs: 3_000 },
  { jobs: true },
);
const [a, b] = t.useOrgs(2, { fast: true });

const sha256 = (x: Uint8Array) => createHash('sha256').update(x).digest('hex');
/** A PDF by its first bytes, the rest random (PostgreSQL stores it uncompressed, as a real scan would be). */
const bigPdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(SIZE - 9)]);

let claimUuid = '';
let fileUuid = '';
beforeAll(async () => {
  const pol: Active = await a.activePolicy();
  const c = await a.api.post('/claims', {
    token: a.tokens.staff,
    idempotencyKey: randomUUID(),
    body: {
      policy_uuid: pol.uuid,
      regno: pol.regno,
      cause: 'accident',
      loss_date: TODAY,
      loss_place: 'Mombasa Road',
      description: 'Side-swiped',
    },
  });
  expect(c.status, c.text).toBe(201);
  claimUuid = c.body.data.uuid;
  const form = new FormData();
  form.append('kind', 'claim_form');
  form.append('file', new Blob([bigPdf], { type: 'application/pdf' }), 'scan.pdf');
  const res = await fetch(`${t.base}/claims/${claimUuid}/documents`, {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${a.tokens.staff}`, 'idempotency-key': randomUUID() },
  });
  const up = (await res.json()) as { data: { file: { uuid: string } } };
  expect(res.status).toBe(201);
  fileUuid = up.data.file.uuid;
}, 180_000);

const download = (token = a.tokens.staff) =>
  fetch(`${t.base}/claims/${claimUuid}/documents/${fileUuid}`, { headers: { authorization: `Bearer ${token}` } });

const FILE_QUERY = (fields: string) =>
  `query($c: String!, $f: String!) { claimDocumentFile(claimId: $c, id: $f) { ${fields} } }`;
const ALIASES = Array.from({ length: 19 }, (_, i) => `c${i}: contentBase64`).join(' ');

describe('reading a large document', () => {
  it('REST streams the download range by range: the whole file, its length, its ETag', async () => {
    // The store's reads, watched (not replaced): one range at a time, in order, never the whole file.
    const store = t.app.services.documents;
    const saved = { ...store };
    const reads: { offset: number; length: number }[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    store.read = async (tx, key, offset, length) => {
      reads.push({ offset, length });
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      try {
        return await saved.read(tx, key, offset, length);
      } finally {
        inFlight--;
      }
    };
    store.get = () => Promise.reject(new Error('a download read the whole file'));
    try {
      const r = await download();
      expect(r.status).toBe(200);
      expect(r.headers.get('content-length')).toBe(String(SIZE));
      expect(r.headers.get('etag')).toBe(`"${sha256(bigPdf)}"`);
      const got = Buffer.from(await r.arrayBuffer());
      expect(got.length).toBe(SIZE);
      expect(got.equals(bigPdf)).toBe(true);
    } finally {
      Object.assign(store, saved);
    }
    // Half a MiB a range (a literal here: the bound is the test's, not whatever the code's constant becomes).
    expect(CHUNK_BYTES).toBeLessThanOrEqual(512 * 1024);
    expect(reads).toEqual(
      Array.from({ length: Math.ceil(SIZE / CHUNK_BYTES) }, (_, i) => ({
        offset: i * CHUNK_BYTES,
        length: CHUNK_BYTES,
      })),
    );
    expect(mostInFlight).toBe(1);
  });

  it('GraphQL reads a range, or the whole file once per request; aliases beyond one document are refused', async () => {
    const vars = { c: claimUuid, f: fileUuid };
    const range = await a.as('staff').gql(FILE_QUERY('contentBase64(offset: 1000, length: 5000)'), vars);
    expect(range.body.errors).toBeUndefined();
    expect(
      Buffer.from(range.body.data.claimDocumentFile.contentBase64, 'base64').equals(bigPdf.subarray(1000, 6000)),
    ).toBe(true);
    const tail = await a.as('staff').gql(FILE_QUERY(`contentBase64(offset: ${SIZE - 10}, length: 100)`), vars);
    expect(
      Buffer.from(tail.body.data.claimDocumentFile.contentBase64, 'base64').equals(bigPdf.subarray(SIZE - 10)),
    ).toBe(true);
    const past = await a.as('staff').gql(FILE_QUERY(`contentBase64(offset: ${SIZE + 1})`), vars);
    expect(past.body.data.claimDocumentFile.contentBase64).toBe('');

    const bad = await a.as('staff').gql(FILE_QUERY('contentBase64(offset: -1, length: 0)'), vars);
    const [refused] = bad.body.errors ?? [];
    expect(refused.extensions.code).toBe('validation_failed');
    expect(refused.extensions.errors.map((e: { field: string }) => e.field)).toEqual(['offset', 'length']);

    const whole = await a.as('staff').gql(FILE_QUERY('contentBase64'), vars);
    expect(whole.body.errors).toBeUndefined();
    expect(Buffer.from(whole.body.data.claimDocumentFile.contentBase64, 'base64').equals(bigPdf)).toBe(true);

    // 19 aliases of the whole file: one is read, the others are refused before anything of theirs is read; the
    // field is non-null, so the refusal nulls the answer (graphql-js reports the first error of a nulled object), and
    // the HTTP status is the refusal's.
    const attack = await a.as('staff').gql(FILE_QUERY(ALIASES), vars);
    expect(attack.body.errors).toMatchObject([
      { extensions: { code: 'query_too_complex' }, message: expect.stringMatching(/at most \d+ bytes of documents/) },
    ]);
    expect(attack.status).toBe(400);
    expect(attack.body.data).toBeNull();
  });

  it("B's reads keep answering 200 while A downloads it 20 at a time and sends the alias attack 6 at a time", async () => {
    const stop = { now: false };
    const bStatuses: number[] = [];
    const poll = async () => {
      while (!stop.now) {
        const r = await b.api.get('/policies?limit=1', { token: b.tokens.staff });
        bStatuses.push(r.status);
      }
    };
    const rss0 = process.memoryUsage().rss;
    let rssPeak = rss0;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
    const pollers = [poll(), poll()];

    const restDownloads = Array.from({ length: 20 }, async () => {
      const r = await download();
      if (r.status !== 200) return { status: r.status, retryAfter: r.headers.get('retry-after'), ok: false };
      // Hashed as it arrives: the test's own side holds no copy of the file (the process's RSS is the server's).
      const hash = createHash('sha256');
      let length = 0;
      for await (const part of r.body as unknown as AsyncIterable<Uint8Array>) {
        hash.update(part);
        length += part.length;
      }
      return { status: 200, retryAfter: null, ok: length === SIZE && hash.digest('hex') === sha256(bigPdf) };
    });
    const gqlAttacks = Array.from({ length: 6 }, () =>
      a.as('staff').gql(FILE_QUERY(ALIASES), { c: claimUuid, f: fileUuid }),
    );
    const [downloads, attacks] = await Promise.all([Promise.all(restDownloads), Promise.all(gqlAttacks)]);
    stop.now = true;
    await Promise.all(pollers);
    clearInterval(sampler);

    // B was served throughout, and at least once while A's work was under way.
    expect(bStatuses.length).toBeGreaterThan(0);
    expect(bStatuses.filter((s) => s !== 200)).toEqual([]);
    // A's downloads: complete, or (over its share) 503 with Retry-After; never a truncated 200.
    for (const d of downloads) {
      if (d.status === 200) expect(d.ok).toBe(true);
      else expect(d).toMatchObject({ status: 503, retryAfter: '1' });
    }
    expect(downloads.filter((d) => d.status === 200).length).toBeGreaterThan(0);
    // Each alias attack is refused (query_too_complex; or 503 when its one whole read waited too long), no bytes out.
    for (const r of attacks) {
      expect([400, 503]).toContain(r.status);
      expect(r.body.data).toBeNull();
      const codes = (r.body.errors as { extensions: { code: string } }[]).map((e) => e.extensions.code);
      expect(codes.length).toBeGreaterThan(0);
      expect(codes.every((c) => c === 'query_too_complex' || c === 'service_unavailable')).toBe(true);
    }
    // Bounded memory. The alias attack unbounded would hold 6 × 19 whole files and their base64 at once, 1.6 GB;
    // gated, the process grows by a few copies of the file. RSS also counts garbage V8 has yet to collect and pages
    // the allocator keeps, so the figure swings with the runtime and what earlier files of this worker left
    // (measured 40 to 58 MiB alone on Node 20 and 24, 113 MiB once in CI's Node 24 run): a bound far below the attack
    // and well above that. That downloads hold one range at a time is the first test's, read by read.
    console.info(`RSS grew by ${Math.round((rssPeak - rss0) / 2 ** 20)} MiB; B answered ${bStatuses.length} times`);
    expect(rssPeak - rss0).toBeLessThan(32 * SIZE);
  }, 120_000);
});

describe("an organisation's share of the pool", () => {
  let db: Database;
  beforeAll(async () => {
    db = await Database.connect(t.databaseUrl, { poolSize: 4, poolWaitMs: 300, tenantShare: 2 });
  });
  afterAll(() => db.close());

  it('over its share an organisation waits, then is refused 503 with Retry-After; another is served at once', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // A holds its two connections; a nested transaction inside one of them takes no second place.
    const holders = [0, 1].map((i) =>
      db.tenant(a.id, async (tx) => {
        await tx.$queryRaw`SELECT 1`;
        if (i === 0) await db.tenant(a.id, (inner) => inner.$queryRaw`SELECT 1`);
        await held;
        return i;
      }),
    );
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    const third = await db.tenant(a.id, (tx) => tx.$queryRaw`SELECT 1`).catch((e: unknown) => e);
    expect(third).toBeInstanceOf(AppError);
    expect((third as AppError).code).toBe('service_unavailable');
    expect((third as AppError).headers).toEqual({ 'Retry-After': '1' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    // B is served while A is at its share.
    expect(await db.tenant(b.id, async (tx) => (await tx.tenant.findMany({ select: { id: true } })).length)).toBe(1);
    release();
    expect(await Promise.all(holders)).toEqual([0, 1]);
    // Once A's work is done, its next unit of work runs at once.
    await db.tenant(a.id, (tx) => tx.$queryRaw`SELECT 1`);
  });

  it('a waiter is handed the first place its organisation frees, first come first served', async () => {
    const gate = new KeyedGate<string>(1, 2);
    const order: string[] = [];
    const never = () => new Error('refused');
    let releaseA!: () => void;
    const a1 = gate.run('a', () => new Promise<void>((r) => (releaseA = r)), 0, never);
    const a2 = gate.run('a', async () => void order.push('a2'), 0, never);
    const b1 = gate.run('b', async () => void order.push('b1'), 0, never);
    await b1;
    expect(order).toEqual(['b1']);
    expect(gate.heldBy('a')).toBe(1);
    releaseA();
    await Promise.all([a1, a2]);
    expect(order).toEqual(['b1', 'a2']);
    expect(gate.heldBy('a')).toBe(0);
    // The total bounds keys with room of their own: c waits for a place while a and b hold both.
    let rel!: () => void;
    const hold = new Promise<void>((r) => (rel = r));
    const x = gate.run('a', () => hold, 0, never);
    const y = gate.run('b', () => hold, 0, never);
    await expect(gate.run('c', async () => 'c', 50, never)).rejects.toThrow('refused');
    rel();
    await Promise.all([x, y]);
    expect(await gate.run('c', async () => 'c', 50, never)).toBe('c');
  });
});
