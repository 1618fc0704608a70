import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../src/lib/csv.ts';
import { toShillings } from '../src/lib/money.ts';
import { planSelection } from '../src/db/selection-sql.ts';
import { type ErpWindow, keysetOrder, keysetSql, keysetWhere } from '../src/modules/erp/erp-window.ts';
import { ERP_SOURCES } from '../src/modules/erp/erp.service.ts';
import type { ErpSource } from '../src/modules/erp/exports/source.ts';
import type { RowsById } from '../src/modules/reference/references.ts';
import { approvedClaim } from './kit/approved-claim.ts';
import { expectProblem, INSTANT_RAIL, useKit, type Active, type Org } from './kit.ts';

/**
 * The ERP exports (docs/erp-exports.md "ERP exports"): the envelope and the flat records of each export, page bounds, agents
 * refused, another organisation's records never shown, the streamed CSV (quoting, formula defusing, the whole window),
 * and the incremental sync under concurrent writes (nothing missed, nothing twice; the next sync picks up the rest).
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });

const EXPORTS = ['clients', 'policies', 'claims', 'receipts', 'credit-notes'] as const;
const KEY = {
  clients: 'clients',
  policies: 'policies',
  claims: 'claims',
  receipts: 'receipts',
  'credit-notes': 'credit_notes',
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const path = (next: string) => next.replace(/^\/api\/v1/, '');

let seq = 0;
/** A client written straight to the database (fast; the REST create is clients.test.ts's). */
async function dbClient(org: Org, extra: { name?: string; sector?: string } = {}): Promise<number> {
  seq += 1;
  const n = `${process.pid % 1000}${String(seq).padStart(5, '0')}`;
  const row = await t.db.tenant(org.id, (tx) =>
    tx.client.create({
      data: {
        tenantId: org.id,
        clientNo: `ERP-${n}`,
        name: extra.name ?? `ERP client ${n}`,
        phone: `2547${n.padStart(8, '0').slice(-8)}`,
        sector: extra.sector,
      },
    }),
  );
  return row.id;
}

/** Every page of an export from `first`, following links.next; `between` runs after each page. */
async function sync(org: Org, first: string, between?: () => Promise<void>) {
  const ids: number[] = [];
  const records: any[] = [];
  let url: string | null = first;
  let until = '';
  let pages = 0;
  while (url) {
    const r: { status: number; text: string; body: any } = await org.as('staff').get(url);
    expect(r.status, r.text).toBe(200);
    const key = KEY[url.split('?')[0].split('/')[2] as keyof typeof KEY];
    records.push(...r.body[key]);
    ids.push(...r.body[key].map((x: { id: number }) => x.id));
    if (pages === 0) until = r.body.meta.until;
    else expect(r.body.meta.until).toBe(until);
    pages += 1;
    url = r.body.links.next ? path(r.body.links.next) : null;
    if (url && between) await between();
  }
  return { ids, records, until, pages };
}

let pol: Active;
let otherPol: Active;
let claim: { id: number; uuid: string };
beforeAll(async () => {
  pol = await o.activePolicy();
  await o.cancel(pol.uuid);
  claim = await approvedClaim(o, pol.uuid, { net: 4_524_250n, assigneeUserId: o.users.exec.id });
  otherPol = await other.activePolicy();
  await other.cancel(otherPol.uuid);
  await approvedClaim(other, otherPol.uuid, { net: 100_000n });
  await sleep(2_500); // behind the watermark (HORIZON_MARGIN_MS)
}, 120_000);

describe('shape', () => {
  it('each export answers {status, <records>[], meta, links} with flat records and agents[]', async () => {
    for (const e of EXPORTS) {
      const r = await o.as('staff').get(`/erp/${e}?per_page=1000`);
      expect(r.status, r.text).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual(['links', 'meta', 'status', KEY[e]].sort());
      expect(r.body.status).toBe('success');
      expect(r.body.meta).toMatchObject({
        page: 1,
        per_page: 1000,
        has_more: false,
        updated_since: null,
        next_cursor: null,
      });
      expect(r.body.meta.count).toBe(r.body[KEY[e]].length);
      expect(r.body.meta.until).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(r.body.links).toEqual({ self: `/api/v1/erp/${e}?per_page=1000`, next: null });
      for (const rec of r.body[KEY[e]]) {
        for (const [k, v] of Object.entries(rec)) {
          if (k === 'agents') continue;
          expect(v === null || typeof v !== 'object', `${e}.${k} is flat`).toBe(true);
          if (k.endsWith('_minor') && v !== null)
            expect(rec[k.slice(0, -6)], `${e}.${k}`).toBe(toShillings(BigInt(v as number)));
        }
        for (const a of rec.agents) expect(Object.keys(a).sort()).toEqual(['code', 'id', 'name', 'role', 'user_role']);
      }
    }
  });

  it('records carry the policy, receipt, credit note and claim as stored, amounts in whole shillings', async () => {
    const p = (await o.as('staff').get('/erp/policies')).body.policies.find((x: any) => x.uuid === pol.uuid);
    const now = await o.policy(pol.uuid); // the policy as REST shows it now (cancellation changed its premium)
    expect(p).toMatchObject({
      policy_no: pol.policy_no,
      status: 'cancelled',
      total_premium: now.premium.total,
      total_premium_minor: now.premium.total_minor,
      basic_premium_minor: now.premium.basic_premium_minor,
      client_no: pol.record.client.client_no,
    });
    expect(p.start_date).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect(p.agents.map((a: any) => a.role)).toContain('created_by');
    const c = (await o.as('staff').get('/erp/claims')).body.claims.find((x: any) => x.id === claim.id);
    expect(c).toMatchObject({
      uuid: claim.uuid,
      policy_no: pol.policy_no,
      net_payable: 45_243,
      net_payable_minor: 4_524_250,
      status: 'approved',
    });
    expect(c.agents).toContainEqual(expect.objectContaining({ id: o.users.exec.id, role: 'assignee' }));
    const receipts = (await o.as('staff').get('/erp/receipts')).body.receipts.filter(
      (x: any) => x.policy_no === pol.policy_no,
    );
    expect(receipts.length).toBeGreaterThanOrEqual(1);
    expect(receipts[0].paid_at).toMatch(/T/);
    const notes = (await o.as('staff').get('/erp/credit-notes')).body.credit_notes.filter(
      (x: any) => x.policy_no === pol.policy_no,
    );
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ kind: 'cancellation', client_no: p.client_no });
    const client = (await o.as('staff').get('/erp/clients')).body.clients.find((x: any) => x.client_no === p.client_no);
    expect(client).toMatchObject({ name: p.client_name, created_at: expect.stringMatching(/T/) });
  });

  it('GraphQL answers the same page (the REST route runs it)', async () => {
    const rest = (await o.as('staff').get('/erp/clients?per_page=3')).body;
    const g = await o
      .as('staff')
      .gql('{ erpClients(perPage: 3) { records { id clientNo } meta { count hasMore nextCursor until } } }');
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.erpClients.records.map((r: any) => r.id)).toEqual(rest.clients.map((r: any) => r.id));
  });
});

describe('read by plan', () => {
  // The rows of a page are read by the selection's plan (src/db/selection-sql.ts, one kept statement) with the keyset
  // as SQL (keysetSql); Prisma's findMany with keysetWhere, the naive second implementation, must read the same page.
  it("each export's page by its plan is Prisma's page, record for record, from the start, a cursor and a bound", async () => {
    // The reference rows a record names, the same for both reads (what is compared is the rows each read).
    const stub: RowsById<any> = async (_tx, ids) =>
      new Map(ids.flatMap((id) => (id == null ? [] : [[id, { id, name: `#${id}`, role: 'staff', agentCode: null }]])));
    const refs = { people: stub, branches: stub, insurers: stub, businessSources: stub };
    await t.db.tenant(o.id, async (tx) => {
      for (const [kind, source] of Object.entries(ERP_SOURCES) as [string, ErpSource<any>][]) {
        expect(planSelection(tx, source.model, 'e', source.select), `${kind} has a plan`).not.toBeNull();
        const both = async (w: ErpWindow) => {
          const take = w.perPage + 1;
          const args = { where: keysetWhere(source.column, w, o.id), orderBy: keysetOrder(source.column), take };
          const planned = await source.read(tx, { args, sql: keysetSql('e', source.column, w, o.id, take) }, refs);
          const prisma = await source.read(tx, { args }, refs);
          expect(planned, kind).toEqual(prisma);
          return planned;
        };
        const until = new Date(Date.now() + 60_000);
        const all = await both({ since: null, until, after: null, page: 1, perPage: 1000 });
        expect(all.length, `${kind} has records`).toBeGreaterThanOrEqual(kind === 'clients' ? 2 : 1);
        const first = await both({ since: null, until, after: null, page: 1, perPage: 1 });
        expect(first).toEqual(all.slice(0, 2));
        const after = await both({ since: null, until, after: source.key(all[0]), page: 2, perPage: 1000 });
        expect(after).toEqual(all.slice(1));
        const since = source.key(all[0]).at;
        expect(await both({ since, until, after: null, page: 1, perPage: 1000 })).toEqual(
          all.filter((r) => source.key(r).at > since),
        );
        expect(await both({ since: null, until: since, after: null, page: 1, perPage: 1000 })).toEqual(
          all.filter((r) => source.key(r).at <= since),
        );
      }
    });
  });
});

describe('bounds and access', () => {
  it('refuses page sizes and positions out of range, naming the field', async () => {
    for (const [q, field] of [
      ['per_page=0', 'per_page'],
      ['per_page=1001', 'per_page'],
      ['per_page=abc', 'per_page'],
      ['page=0', 'page'],
      ['page=2', 'page'],
      ['cursor=junk', 'cursor'],
      ['updated_since=yesterday', 'updated_since'],
      ['updated_since=2026-06-02T00:00:00Z&until=2026-06-01T00:00:00Z', 'until'],
    ])
      expectProblem(await o.as('staff').get(`/erp/clients?${q}`), 422, 'validation_failed', field);
    expect((await o.as('staff').get('/erp/clients?per_page=1000')).status).toBe(200);
    expect((await o.as('readonly').get('/erp/claims?per_page=1')).status).toBe(200);
  });

  it('takes only the cursor it wrote, a page up to 1,000,000 and no updated_since beyond the horizon', async () => {
    // Found by an outside check (2026-12-03): base64url decoding skips junk and padding and the numbers read leading
    // zeros, so spellings the API never writes were read as the cursor they resemble; page had no upper bound; and
    // a future updated_since set meta.until beyond the horizon.
    const first = await o.as('staff').get('/erp/clients?per_page=1');
    expect(first.status, first.text).toBe(200);
    const next = new URL(first.body.links.next, 'http://x');
    const cursor = next.searchParams.get('cursor')!;
    const [at, id] = Buffer.from(cursor, 'base64url').toString('latin1').split(':').slice(1);
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    const withCursor = (c: string, page = '2') => {
      const u = new URL(next);
      u.searchParams.set('cursor', c);
      u.searchParams.set('page', page);
      return o.as('staff').get(`/erp/clients${u.search}`);
    };
    expect((await withCursor(cursor)).status).toBe(200);
    for (const bad of [b64(`erp:${at}:00${id}`), b64(`erp:0${at}:${id}`), `${cursor}==`, `${cursor} `, `.${cursor}`]) {
      const r = await withCursor(bad);
      expectProblem(r, 422, 'validation_failed', 'cursor');
      expect(r.body.errors).toContainEqual(expect.objectContaining({ field: 'cursor', code: 'invalid_value' }));
    }
    const huge = await withCursor(cursor, '1000001');
    expectProblem(huge, 422, 'validation_failed', 'page');
    expect(huge.body.errors).toContainEqual(expect.objectContaining({ field: 'page', code: 'out_of_range' }));
    const future = await o.as('staff').get('/erp/claims?updated_since=2199-12-31T23:59:59Z');
    expectProblem(future, 422, 'validation_failed', 'updated_since');
    expect(future.body.errors).toContainEqual(
      expect.objectContaining({ field: 'updated_since', code: 'out_of_range' }),
    );
  });

  it('refuses agents (an agent key, or agent headers on a staff key) with 403 actor_forbidden, REST and GraphQL', async () => {
    for (const e of EXPORTS) {
      expectProblem(await o.as('agent').get(`/erp/${e}`), 403, 'actor_forbidden');
      expectProblem(await o.as('staff', { agent: 1 }).get(`/erp/${e}`), 403, 'actor_forbidden');
      expectProblem(await o.as('agent').get(`/erp/${e}`, { headers: { accept: 'text/csv' } }), 403, 'actor_forbidden');
    }
    const g = await o.as('agent').gql('{ erpClaims { meta { count } } }');
    expect(g.body.errors?.[0].extensions.code).toBe('actor_forbidden');
  });

  it("never shows another organisation's records", async () => {
    for (const e of EXPORTS) {
      const mine = new Set((await sync(o, `/erp/${e}?per_page=1000`)).ids);
      const theirs = (await sync(other, `/erp/${e}?per_page=1000`)).ids;
      expect(theirs.length, e).toBeGreaterThan(0);
      expect(
        theirs.filter((id) => mine.has(id)),
        e,
      ).toEqual([]);
    }
    const theirPolicies = (await sync(other, '/erp/policies?per_page=1000')).records.map((p: any) => p.uuid);
    expect(theirPolicies).toEqual([otherPol.uuid]);
  });
});

describe('CSV', () => {
  it('streams the whole window as RFC 4180 CSV, defusing formulas, in keyset batches', async () => {
    const evil = await dbClient(o, { name: '=HYPERLINK("http://evil","x")', sector: 'Smith, "Jr"\nline two' });
    await sleep(2_500); // behind the watermark
    const r = await o.as('staff').get('/erp/clients?per_page=2', { headers: { accept: 'text/csv' } });
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(r.headers.get('content-disposition')).toBe('attachment; filename="clients.csv"');
    const until = r.headers.get('x-sync-until')!;
    const rows = parseCsv(r.text);
    const [head, ...body] = rows;
    expect(head[0]).toBe('id');
    expect(head.at(-1)).toBe('agents');
    const json = await sync(o, `/erp/clients?per_page=1000&until=${encodeURIComponent(until)}`);
    expect(body.map((x) => Number(x[0]))).toEqual(json.ids);
    const row = body.find((x) => Number(x[0]) === evil)!;
    expect(row[head.indexOf('name')]).toBe('\'=HYPERLINK("http://evil","x")');
    expect(row[head.indexOf('sector')]).toBe('Smith, "Jr"\nline two');
    expect(r.text).toContain('"\'=HYPERLINK(""http://evil"",""x"")"');
  });

  it('a CSV of each export has its JSON record’s columns', async () => {
    for (const e of EXPORTS) {
      const csv = await o.as('staff').get(`/erp/${e}?per_page=1000`, { headers: { accept: 'text/csv' } });
      expect(csv.status, csv.text).toBe(200);
      const json = (await o.as('staff').get(`/erp/${e}?per_page=1`)).body[KEY[e]][0];
      expect(parseCsv(csv.text)[0], e).toEqual(Object.keys(json));
    }
  });
});

describe('incremental sync under concurrent writes', () => {
  it('never misses or repeats a record within a sync; the next sync picks up what changed during it', async () => {
    const pool: number[] = [];
    for (let i = 0; i < 30; i++) pool.push(await dbClient(o));
    await sleep(2_500); // the pool is behind any watermark from now on
    const changed = new Set<number>();
    let stop = false;
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        const id = pool[(i * 7) % pool.length];
        if (i % 3 !== 2) changed.add(id);
        if (i % 3 === 0) {
          // A raw-SQL update, as the state machines write: the trigger moves updated_at all the same.
          await t.db.tenant(o.id, (tx) => tx.$executeRaw`UPDATE clients SET sector = ${`raw ${i}`} WHERE id = ${id}`);
        } else if (i % 3 === 1) {
          const no = (await t.db.tenant(o.id, (tx) => tx.client.findUniqueOrThrow({ where: { id } }))).clientNo;
          const r = await o
            .as('staff')
            .patch(`/clients/${no}`, { body: { sector: `rest ${i}` }, idempotencyKey: randomUUID() });
          expect(r.status, r.text).toBe(200);
        } else {
          changed.add(await dbClient(o));
        }
        await sleep(5);
      }
    })();
    const first = await sync(o, '/erp/clients?per_page=5', async () => {
      await sleep(20);
    });
    stop = true;
    await writer;
    expect(first.pages).toBeGreaterThan(5);
    expect(first.ids.length, 'no record twice within a sync').toBe(new Set(first.ids).size);
    const seen = new Set(first.ids);
    for (const id of pool) if (!changed.has(id)) expect(seen.has(id), `unchanged client ${id}`).toBe(true);

    await sleep(2_500); // every write of the loop is now behind the horizon
    const second = await sync(o, `/erp/clients?per_page=7&updated_since=${encodeURIComponent(first.until)}`);
    expect(second.ids.length).toBe(new Set(second.ids).size);
    const again = new Set(second.ids);
    for (const id of changed) expect(again.has(id), `changed client ${id}`).toBe(true);
    // Together the two syncs hold every client, each at its latest state in the later one.
    const all = await t.db.tenant(o.id, (tx) => tx.client.findMany({ select: { id: true, sector: true } }));
    for (const c of all) expect(seen.has(c.id) || again.has(c.id), `client ${c.id}`).toBe(true);
    const last = new Map(second.records.map((r: any) => [r.id, r.sector]));
    for (const c of all) if (again.has(c.id)) expect(last.get(c.id)).toBe(c.sector);
  }, 120_000);

  it('a transaction in flight when the sync starts cannot land behind its watermark', async () => {
    const id = await dbClient(o);
    await sleep(2_500);
    let started = 0;
    const held = t.db.tenant(o.id, async (tx) => {
      await tx.$executeRaw`UPDATE clients SET sector = 'held' WHERE id = ${id}`;
      started = Date.now();
      await sleep(4_000); // longer than the margin: only the horizon keeps the watermark behind it
    });
    await sleep(3_000);
    const first = await sync(o, '/erp/clients?per_page=1000');
    expect(Date.parse(first.until)).toBeLessThan(started - 2_000);
    await held;
    await sleep(2_500);
    const second = await sync(o, `/erp/clients?updated_since=${encodeURIComponent(first.until)}&per_page=1000`);
    expect(second.records.find((r: any) => r.id === id)?.sector).toBe('held');
  }, 60_000);
});
