import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTENER_APPLICATION_NAME } from '../src/db/event-bus.ts';
import { InvalidatedCache } from '../src/lib/invalidated-cache.ts';
import { type Spawned, spawnServer, stopWith, waitHealthy } from './helpers/spawn.ts';
import { Api, expectProblem, THIS_YEAR, useKit, waitFor } from './kit.ts';

/**
 * The process caches and their exact invalidation (src/lib/invalidated-cache.ts, src/db/caches.ts, migration
 * caches_and_replicas): rating data per organisation and principals per token, dropped in every process by the
 * NOTIFY a trigger sends in the changing transaction. Three server processes over one database prove it across
 * processes; the figures are worked by hand (value × rate), never read from the code under test.
 */

describe('InvalidatedCache', () => {
  const loaded = (value: string, scope: number | null = 1) => Promise.resolve({ value, scope });

  it('serves a kept value until its scope is invalidated; other scopes keep theirs', async () => {
    const c = new InvalidatedCache<string, string>();
    expect(await c.get('a', () => loaded('a1', 1))).toBe('a1');
    expect(await c.get('b', () => loaded('b1', 2))).toBe('b1');
    expect(await c.get('a', () => loaded('a2', 1))).toBe('a1');
    c.invalidate(1);
    expect(await c.get('a', () => loaded('a3', 1))).toBe('a3');
    expect(await c.get('b', () => loaded('b2', 2))).toBe('b1');
  });

  it('does not keep a load that an invalidation of its scope overtook, nor one a clear overtook', async () => {
    const c = new InvalidatedCache<string, string>();
    let release!: () => void;
    const slow = c.get('a', () => new Promise((r) => (release = () => r({ value: 'old', scope: 1 }))));
    c.invalidate(1); // committed while the load was reading
    release();
    expect(await slow).toBe('old'); // the caller who asked before the change gets what was current then
    expect(await c.get('a', () => loaded('new', 1))).toBe('new'); // nobody after it does
    const slow2 = c.get('b', () => new Promise((r) => (release = () => r({ value: 'old', scope: 2 }))));
    c.clear();
    release();
    await slow2;
    expect(await c.get('b', () => loaded('new', 2))).toBe('new');
  });

  it('an invalidation of another scope does not discard a load, but stops later callers sharing it', async () => {
    const c = new InvalidatedCache<string, string>();
    let release!: () => void;
    let loads = 0;
    const load = () =>
      new Promise<{ value: string; scope: number }>((r) => {
        loads++;
        release = () => r({ value: `v${loads}`, scope: 1 });
      });
    const first = c.get('a', load);
    const shared = c.get('a', load); // joins the load in flight
    expect(loads).toBe(1);
    c.invalidate(2);
    const after = c.get('a', load); // something changed since that load began: it loads itself
    expect(loads).toBe(2);
    release();
    expect(await after).toBe('v2');
    expect(await c.get('a', () => loaded('unused'))).toBe('v2');
    expect(c.stats().discarded).toBe(0);
    void first;
    void shared;
  });

  it('never keeps a value without a scope, and serves nothing while disabled', async () => {
    const c = new InvalidatedCache<string, string>();
    await c.get('none', () => loaded('x', null));
    expect(c.peek('none')).toBeUndefined();
    await c.get('a', () => loaded('a1'));
    c.setEnabled(false);
    expect(await c.get('a', () => loaded('a2'))).toBe('a2');
    expect(await c.get('a', () => loaded('a3'))).toBe('a3');
    c.setEnabled(true); // back on, empty: what happened meanwhile was not heard
    expect(await c.get('a', () => loaded('a4'))).toBe('a4');
  });

  it('drops an entry past its time to live, and the oldest when full', async () => {
    let now = 0;
    const c = new InvalidatedCache<string, string>({ ttlMs: 1000, maxEntries: 2, now: () => now });
    await c.get('a', () => loaded('a1'));
    now = 999;
    expect(c.peek('a')).toBe('a1');
    now = 1000;
    expect(c.peek('a')).toBeUndefined();
    await c.get('a', () => loaded('a2'));
    await c.get('b', () => loaded('b2'));
    await c.get('c', () => loaded('c2'));
    expect([c.peek('a'), c.peek('b'), c.peek('c')]).toEqual([undefined, 'b2', 'c2']);
  });
});

const RISK = { class: 'Motor', coverage: 'Private', scope: 'Comprehensive', year: THIS_YEAR - 3, value: 2_000_000 };

describe('rating data and principals across three server processes', () => {
  const t = useKit();
  const o = t.useOrg({ fast: true, tokens: ['admin', 'staff', 'readonly', 'agent'] });
  const other = t.useOrg({ fast: true, tokens: ['staff'] }); // another organisation, side by side
  const others: Spawned[] = [];
  let apis: Api[] = [];
  let productId = 0;
  let insurerId = 0;

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      others.push(
        spawnServer({
          NODE_ENV: 'test',
          PORT: '0',
          DATABASE_URL: t.databaseUrl,
          DEMO_SEED: '0',
          LOG_LEVEL: 'info',
          PROCESS_ROLE: 'web',
        }),
      );
    }
    await Promise.all(others.map((s) => waitHealthy(s)));
    apis = [new Api(t.origin), ...others.map((s) => new Api(s.origin))];
    insurerId = await o.insurerId('Simba General');
    const product = await t.db.tenant(o.id, (tx) =>
      tx.motorProduct.findFirstOrThrow({
        where: { insurerId, vehicleClass: 'private', coverType: 'comprehensive' },
        include: { rateBands: true },
      }),
    );
    productId = product.id;
  }, 120_000);

  afterAll(async () => {
    await Promise.all(others.map((s) => stopWith(s, 'SIGTERM', 20_000)));
  });

  const basicOn = async (api: Api) => {
    const r = await api.post('/motor/quote', { token: o.tokens.staff, body: { ...RISK, insurer_id: insurerId } });
    expect(r.status, r.text).toBe(200);
    return r.body.options[0].basic_premium as number;
  };
  const setRate = (bps: number) =>
    t.db.tenant(o.id, (tx) =>
      tx.motorRateBand.updateMany({ where: { motorProductId: productId }, data: { rateBps: bps } }),
    );

  it('a rate change reaches the quotes of every process: 2,000,000 at 5% is 100,000, then at 6% 120,000', async () => {
    await setRate(500);
    await t.heard();
    // Each process quotes twice: the second is served from its cache.
    for (const api of apis) expect([await basicOn(api), await basicOn(api)]).toEqual([100_000, 100_000]);

    await setRate(600);
    // This process, once it has heard; the other two within the delivery of one NOTIFY (polled, 25 ms apart).
    await t.heard();
    expect(await basicOn(apis[0])).toBe(120_000);
    for (const api of apis.slice(1)) {
      await waitFor(
        `${api.origin} to quote at 6%`,
        () => basicOn(api),
        (b) => b === 120_000,
        { ms: 5_000 },
      );
      expect(await basicOn(api)).toBe(120_000); // and it stays there
    }
  });

  it('reference lists come from the same copy: an insurer renamed and a levy changed reach /insurers and /policy/taxes everywhere', async () => {
    const names = async (api: Api) =>
      ((await api.get('/insurers', { token: o.tokens.staff })).body.data as { id: number; name: string }[]).find(
        (i) => i.id === insurerId,
      )?.name;
    const hitsBefore = t.app.services.caches.stats().rating.hits;
    for (const api of apis) expect(await names(api)).toBe('Simba General');
    expect(t.app.services.caches.stats().rating.hits).toBeGreaterThan(hitsBefore); // served from memory
    await t.db.tenant(o.id, (tx) => tx.insurer.update({ where: { id: insurerId }, data: { name: 'Simba Mutual' } }));
    await t.heard();
    expect(await names(apis[0])).toBe('Simba Mutual');
    for (const api of apis.slice(1)) {
      await waitFor(
        `${api.origin} to list the new name`,
        () => names(api),
        (n) => n === 'Simba Mutual',
        { ms: 5_000 },
      );
    }
    const firstLevy = async (api: Api) =>
      ((await api.get('/policy/taxes', { token: o.tokens.staff })).body.data as { code: string; name: string }[])[0];
    const levy = await firstLevy(apis[0]);
    await t.db.tenant(o.id, (tx) =>
      tx.levy.updateMany({ where: { code: levy.code }, data: { name: `${levy.name} (revised)` } }),
    );
    await t.heard();
    expect((await firstLevy(apis[0])).name).toBe(`${levy.name} (revised)`);
    for (const api of apis.slice(1)) {
      await waitFor(
        `${api.origin} to list the revised levy`,
        () => firstLevy(api),
        (l) => l.name.endsWith('(revised)'),
        {
          ms: 5_000,
        },
      );
    }
  });

  it('the standard-product catalogue comes from the rating copy: a product renamed reaches /products everywhere', async () => {
    type Product = { id: number; name: string };
    const catalogue = async (api: Api) => {
      const r = await api.get('/products', { token: o.tokens.staff });
      expect(r.status, r.text).toBe(200);
      return r.body.data.standard_products as Product[];
    };
    const [first] = await catalogue(apis[0]);
    expect(first).toBeDefined();
    const hitsBefore = t.app.services.caches.stats().rating.hits;
    for (const api of apis) expect(await catalogue(api)).toContainEqual(expect.objectContaining(first));
    expect(t.app.services.caches.stats().rating.hits).toBeGreaterThan(hitsBefore);
    const otherCatalogue = await apis[1].get('/products', { token: other.tokens.staff });
    await t.db.tenant(o.id, (tx) =>
      tx.standardProduct.update({ where: { id: first.id }, data: { name: `${first.name} Plus` } }),
    );
    await t.heard();
    const renamed = async (api: Api) => (await catalogue(api)).find((p) => p.id === first.id)?.name;
    expect(await renamed(apis[0])).toBe(`${first.name} Plus`);
    for (const api of apis.slice(1))
      await waitFor(
        `${api.origin} to list the renamed product`,
        () => renamed(api),
        (n) => n === `${first.name} Plus`,
        {
          ms: 5_000,
        },
      );
    // The other organisation's catalogue is its own and did not change.
    const theirs = await apis[2].get('/products', { token: other.tokens.staff });
    expect(theirs.body.data.standard_products).toEqual(otherCatalogue.body.data.standard_products);
    expect((theirs.body.data.standard_products as Product[]).map((p) => p.id)).not.toContain(first.id);
  });

  it('the directory comes from memory: a branch renamed, a sales person disabled and one added reach /branches, /sales-people and GraphQL everywhere', async () => {
    type Row = { id: number; name: string };
    const list = async (api: Api, path: string) => {
      const r = await api.get(path, { token: o.tokens.staff });
      expect(r.status, r.text).toBe(200);
      return r.body.data as Row[];
    };
    const [branch] = await list(apis[0], '/branches');
    const agents = await list(apis[0], '/sales-people');
    expect(branch).toBeDefined();
    expect(agents.length).toBeGreaterThan(0);
    const stats = () => t.app.services.caches.stats().directory;
    const hitsBefore = stats().hits;
    for (const api of apis) {
      expect(await list(api, '/branches')).toContainEqual(
        expect.objectContaining({ id: branch.id, name: branch.name }),
      );
      expect((await list(api, '/sales-people')).map((u) => u.id)).toEqual(agents.map((u) => u.id));
    }
    expect(stats().hits).toBeGreaterThan(hitsBefore); // served from memory
    // What the copy holds of a user: never the agent key's hash.
    const kept = t.app.services.caches.define<number, { staff: object[] }>('directory', []).peek(o.id);
    expect(kept?.staff.length).toBeGreaterThan(0);
    for (const u of kept!.staff) expect(Object.keys(u)).not.toContain('agentKeyHash');

    const otherBranches = (await apis[2].get('/branches', { token: other.tokens.staff })).body.data;
    const otherAgents = (await apis[2].get('/sales-people', { token: other.tokens.staff })).body.data;
    // A branch renamed and a sales person added in one transaction, then that sales person disabled: each process
    // drops its copy at each commit, whoever made it.
    const renamed = `${branch.name} (moved)`;
    const added = `Bench Agent ${randomUUID().slice(0, 6)}`;
    const newcomer = await t.db.tenant(o.id, async (tx) => {
      await tx.branch.update({ where: { id: branch.id }, data: { name: renamed } });
      return tx.user.create({
        data: {
          tenantId: o.id,
          name: added,
          email: `${randomUUID()}@example.com`,
          phone: '254700000001',
          role: 'agent',
        },
      });
    });
    const current = async (api: Api) => ({
      renamed: (await list(api, '/branches')).some((b) => b.id === branch.id && b.name === renamed),
      listed: (await list(api, '/sales-people')).some((u) => u.id === newcomer.id && u.name === added),
    });
    const everywhere = async (want: { renamed: boolean; listed: boolean }) => {
      await t.heard();
      expect(await current(apis[0])).toEqual(want);
      for (const api of apis.slice(1)) {
        await waitFor(
          `${api.origin} to list the changed directory`,
          () => current(api),
          (c) => c.renamed === want.renamed && c.listed === want.listed,
          { ms: 5_000 },
        );
      }
    };
    await everywhere({ renamed: true, listed: true });
    await t.db.tenant(o.id, (tx) => tx.user.update({ where: { id: newcomer.id }, data: { disabled: true } }));
    await everywhere({ renamed: true, listed: false });
    // The other organisation's directory, on every process, is its own and did not change.
    for (const api of apis) {
      const theirs = await api.get('/branches', { token: other.tokens.staff });
      expect(theirs.body.data).toEqual(otherBranches);
      expect((theirs.body.data as Row[]).map((b) => b.id)).not.toContain(branch.id);
      const theirAgents = await api.get('/sales-people', { token: other.tokens.staff });
      expect(theirAgents.body.data).toEqual(otherAgents);
    }
    // GraphQL answers the same lists; a selection with a relation reads the database and agrees.
    const g = await apis[1].gql<{ branches: Row[]; salesPeople: { name: string; branch: { name: string } | null }[] }>(
      '{ branches { id: databaseId name } salesPeople { name branch { name } } }',
      {},
      { token: o.tokens.staff },
    );
    expect(g.body.data!.branches.find((b) => b.id === branch.id)?.name).toBe(renamed);
    expect(g.body.data!.salesPeople.map((u) => u.name)).toEqual(
      (await list(apis[1], '/sales-people')).map((u) => u.name),
    );
  });

  it("a record's reference rows come from memory: no statement joins them, and a change reaches every process", async () => {
    const refs = await t.db.tenant(o.id, async (tx) => ({
      branch: (await tx.branch.findFirstOrThrow({ orderBy: { id: 'asc' } })).id,
      riskManager: (await tx.user.findFirstOrThrow({ where: { role: 'account_exec', disabled: false } })).id,
      salesPerson: (await tx.user.findFirstOrThrow({ where: { role: 'agent', disabled: false } })).id,
      businessSource: (await tx.businessSource.findFirstOrThrow()).id,
      prospectType: (await tx.prospectType.findFirstOrThrow()).id,
    }));
    const created = await apis[0].post('/clients', {
      token: o.tokens.staff,
      idempotencyKey: randomUUID(),
      body: {
        type: 'individual',
        name: `Reference Rows ${randomUUID().slice(0, 6)}`,
        phone: `2547${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`,
        branch_id: refs.branch,
        risk_manager_id: refs.riskManager,
        sales_person_id: refs.salesPerson,
        business_source_id: refs.businessSource,
        prospect_type_id: refs.prospectType,
      },
    });
    expect(created.status, created.text).toBe(201);
    const clientNo = created.body.data.client_no as string;
    const policy = await o.bind(1);
    const insurerId = (await apis[0].get(`/policies/${policy.uuid}`, { token: o.tokens.staff })).body.data.insurer
      .id as number;

    // Every statement this process hands pg while it answers the record, the page and the policy (warmed first).
    const read = (api: Api) =>
      Promise.all([
        api.get(`/clients/${clientNo}`, { token: o.tokens.staff }),
        api.get('/clients?limit=5', { token: o.tokens.staff }),
        api.get(`/policies/${policy.uuid}`, { token: o.tokens.staff }),
      ]);
    await read(apis[0]);
    const answers = await statementsOf(t.app.services.db.pool, () => read(apis[0]));
    for (const r of answers.result) expect(r.status, r.text).toBe(200);
    // Prisma's statements, the clients read model's (`FROM clients c`) and the policy's selection plan's
    // (`FROM "policies" p`): none names a reference table, however it spells it.
    const records = answers.texts.filter((q) => /FROM ("public"\.)?"?(clients|policies)"? [A-Za-z]/.test(q));
    expect(records.length).toBeGreaterThanOrEqual(3);
    for (const q of records)
      for (const table of ['branches', 'users', 'business_sources', 'prospect_types', 'insurers'])
        expect(q, table).not.toMatch(new RegExp(`[\\s."]${table}("|\\s)`));

    const names = (tag: string) => ({
      branch: `Branch ${tag}`,
      riskManager: `Risk Manager ${tag}`,
      salesPerson: `Sales Person ${tag}`,
      businessSource: `Source ${tag}`,
      prospectType: `Prospect ${tag}`,
      insurer: `Insurer ${tag}`,
    });
    const shown = async (api: Api) => {
      const [c, p] = await Promise.all([
        api.get(`/clients/${clientNo}`, { token: o.tokens.staff }),
        api.get(`/policies/${policy.uuid}`, { token: o.tokens.staff }),
      ]);
      expect([c.status, p.status]).toEqual([200, 200]);
      return {
        branch: c.body.data.branch.name,
        riskManager: c.body.data.risk_manager.name,
        salesPerson: c.body.data.sales_person.name,
        businessSource: c.body.data.business_source.name,
        prospectType: c.body.data.prospect_type.name,
        insurer: p.body.data.insurer.name,
      };
    };
    for (const api of apis) await shown(api); // every process holds the copies
    // Each renamed in one transaction: every process drops its copies at the commit, whoever made it.
    const tag = randomUUID().slice(0, 6);
    const want = names(tag);
    await t.db.tenant(o.id, async (tx) => {
      await tx.branch.update({ where: { id: refs.branch }, data: { name: want.branch } });
      await tx.user.update({ where: { id: refs.riskManager }, data: { name: want.riskManager } });
      await tx.user.update({ where: { id: refs.salesPerson }, data: { name: want.salesPerson } });
      await tx.businessSource.update({ where: { id: refs.businessSource }, data: { name: want.businessSource } });
      await tx.prospectType.update({ where: { id: refs.prospectType }, data: { name: want.prospectType } });
      await tx.insurer.update({ where: { id: insurerId }, data: { name: want.insurer } });
    });
    await t.heard();
    expect(await shown(apis[0])).toEqual(want);
    // The ERP exports name the same rows from the same copies.
    const erpClient = await erpRecord(apis[0], o.tokens.staff, 'clients', (c) => c.client_no === clientNo);
    expect(erpClient).toMatchObject({ branch: want.branch, business_source: want.businessSource });
    expect(erpClient.agents).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: refs.salesPerson, name: want.salesPerson, role: 'sales_person' }),
        expect.objectContaining({ id: refs.riskManager, name: want.riskManager, role: 'risk_manager' }),
      ]),
    );
    const erpPolicy = await erpRecord(apis[0], o.tokens.staff, 'policies', (x) => x.uuid === policy.uuid);
    expect(erpPolicy.insurer).toBe(want.insurer);
    for (const api of apis.slice(1))
      await waitFor(
        `${api.origin} to show the renamed reference rows`,
        () => shown(api),
        (s) => s.branch === want.branch,
        {
          ms: 5_000,
        },
      ).then(async () => expect(await shown(api)).toEqual(want));
    // A change to a token or an API client (an organisation issuing tokens all day) leaves the directory in place.
    const directoryCopy = () => t.app.services.caches.define<number, object>('directory', []).peek(o.id);
    const held = directoryCopy();
    expect(held).toBeDefined();
    await t.db.tenant(o.id, (tx) => tx.$executeRaw`UPDATE access_tokens SET expires_at = expires_at`);
    await t.heard();
    expect(directoryCopy()).toBe(held);
    // A sales person disabled still shows on the records that name them (the directory keeps every user).
    await t.db.tenant(o.id, (tx) => tx.user.update({ where: { id: refs.salesPerson }, data: { disabled: true } }));
    await t.heard();
    expect((await shown(apis[0])).salesPerson).toBe(want.salesPerson);
    await t.db.tenant(o.id, (tx) => tx.user.update({ where: { id: refs.salesPerson }, data: { disabled: false } }));
    // The other organisation's records point at its own rows, on every process, and mine stays out of its reach.
    for (const api of apis) {
      const theirs = await api.get('/clients?limit=100', { token: other.tokens.staff });
      expect(theirs.status).toBe(200);
      for (const c of theirs.body.data as { client_no: string; business_source: { name: string } | null }[]) {
        expect(c.client_no).not.toBe(clientNo);
        expect(c.business_source?.name).not.toBe(want.businessSource);
      }
      expectProblem(await api.get(`/clients/${clientNo}`, { token: other.tokens.staff }), 404, 'not_found');
    }
  });

  it("a row the copy lacks (a user past the directory's 5,000, or one committed an instant ago) is read by id, never shown as none", async () => {
    const clients = (await apis[0].get('/clients?limit=100', { token: o.tokens.staff })).body.data as {
      client_no: string;
      sales_person: { id: number; name: string } | null;
    }[];
    const theClient = clients.find((c) => c.sales_person);
    expect(theClient).toBeDefined();
    const person = theClient!.sales_person!;
    // This process's directory, with that user taken out (what a copy loaded before the user existed would hold).
    type Kept = { people: ReadonlyMap<number, unknown> };
    const cache = t.app.services.caches.define<number, Kept>('directory', []);
    const held = cache.peek(o.id) ?? (await apis[0].get('/branches', { token: o.tokens.staff }), cache.peek(o.id));
    expect(held?.people.has(person.id)).toBe(true);
    const lacking = { ...held!, people: new Map([...held!.people].filter(([id]) => id !== person.id)) };
    cache.invalidate(o.id);
    await cache.get(o.id, async () => ({ value: lacking, scope: o.id }));
    expect(cache.peek(o.id)?.people.has(person.id)).toBe(false);
    const again = await apis[0].get(`/clients/${theClient!.client_no}`, { token: o.tokens.staff });
    expect(again.status).toBe(200);
    expect(again.body.data.sales_person).toMatchObject({ id: person.id, name: person.name });
    // The page too: its compiled read finds the person missing from the copy in hand and answers through the resolvers.
    const page = await apis[0].get('/clients?limit=100', { token: o.tokens.staff });
    expect(page.status).toBe(200);
    const listed = (page.body.data as typeof clients).find((c) => c.client_no === theClient!.client_no);
    expect(listed?.sales_person).toMatchObject({ id: person.id, name: person.name });
    expect(cache.peek(o.id)?.people.has(person.id)).toBe(false); // still the copy lacking them
    const erp = await erpRecord(apis[0], o.tokens.staff, 'clients', (c) => c.client_no === theClient!.client_no);
    expect(erp.agents).toContainEqual(expect.objectContaining({ id: person.id, role: 'sales_person' }));
    cache.invalidate(o.id);
  });

  it('removing a scope from a key binds its issued token at once on every process, not just the one that changed it', async () => {
    for (const api of apis) expect((await api.get('/me', { token: o.tokens.staff })).status).toBe(200);
    const p = await apis[1].patch(`/api-clients/${o.clients.staff.clientId}`, {
      token: o.tokens.admin,
      body: { scopes: ['quote'] },
      idempotencyKey: randomUUID(),
    });
    expect(p.status, p.text).toBe(200);
    // The process that made the change answered only once every process had applied the invalidation.
    for (const api of [apis[1], apis[0], apis[2]]) {
      expectProblem(await api.get('/me', { token: o.tokens.staff }), 403, 'insufficient_scope');
    }
    const quoted = await apis[2].post('/motor/quote', { token: o.tokens.staff, body: RISK });
    expect(quoted.status, quoted.text).toBe(200); // the scope it kept still works
  });

  it('revoking a key ends its tokens at once on every process', async () => {
    const token = o.tokens.readonly;
    for (const api of apis) expect((await api.get('/me', { token })).status).toBe(200);
    const r = await apis[2].post(`/api-clients/${o.clients.readonly.clientId}/revoke`, {
      token: o.tokens.admin,
      idempotencyKey: randomUUID(),
    });
    expect(r.status, r.text).toBe(200);
    for (const api of apis) expectProblem(await api.get('/me', { token }), 401, 'invalid_token');
  });

  it('a revocation answers only once every process has applied it: a paused process holds the answer back', async () => {
    const token = o.tokens.agent;
    const clientId = o.clients.agent.clientId;
    for (const api of apis) expect((await api.get('/me', { token })).status).toBe(200);
    const paused = others[0].child;
    paused.kill('SIGSTOP'); // a process whose event loop is busy, so it has not yet read the notification
    let resumed = false;
    const answered = apis[2]
      .post(`/api-clients/${clientId}/revoke`, { token: o.tokens.admin, idempotencyKey: randomUUID() })
      .then((r) => ({ r, resumedFirst: resumed }));
    try {
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      resumed = true;
      paused.kill('SIGCONT');
    }
    const { r, resumedFirst } = await answered;
    expect(r.status, r.text).toBe(200);
    expect(resumedFirst, 'the revocation answered while a process that still held the token was paused').toBe(true);
    for (const api of apis) expectProblem(await api.get('/me', { token }), 401, 'invalid_token');
  });
});

describe('when the invalidation feed is lost', () => {
  const t = useKit();
  const o = t.useOrg({ fast: true, tokens: ['staff'] });

  it('caches stop serving at once and start again, empty, when it is back: no change is missed', async () => {
    const insurerId = await o.insurerId('Simba General');
    const quoteBasic = async () => {
      const r = await o.api.post('/motor/quote', { token: o.tokens.staff, body: { ...RISK, insurer_id: insurerId } });
      expect(r.status, r.text).toBe(200);
      return r.body.options[0].basic_premium as number;
    };
    const product = await t.db.tenant(o.id, (tx) =>
      tx.motorProduct.findFirstOrThrow({ where: { insurerId, vehicleClass: 'private', coverType: 'comprehensive' } }),
    );
    const setRate = (bps: number) =>
      t.db.tenant(o.id, (tx) =>
        tx.motorRateBand.updateMany({ where: { motorProductId: product.id }, data: { rateBps: bps } }),
      );
    await setRate(500);
    await t.heard();
    expect(await quoteBasic()).toBe(100_000);
    const events = t.app.services.events;
    expect(events.listening).toBe(true);

    // Cut the service's LISTEN connection, as a network blip or a failover would.
    const admin = new pg.Client({ connectionString: t.databaseUrl });
    await admin.connect();
    try {
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = $1 AND pid <> pg_backend_pid()`,
        [LISTENER_APPLICATION_NAME],
      );
    } finally {
      await admin.end();
    }
    await waitFor(
      'the bus to notice the lost connection',
      async () => events.listening,
      (l) => !l,
    );
    // While it is down a change cannot be heard: the quote must read it anyway.
    await setRate(700);
    expect(await quoteBasic()).toBe(140_000);
    await waitFor(
      'the bus to reconnect',
      async () => events.listening,
      (l) => l,
      { ms: 10_000 },
    );
    expect(await quoteBasic()).toBe(140_000);
    expect(await quoteBasic()).toBe(140_000);
    expect(t.app.services.caches.stats().rating.hits).toBeGreaterThan(0);
  });
});

/**
 * What `run` makes the pool's connections send: every statement's text, read where each connection hands it to pg
 * (the connection's own `query`, which db/client.ts sets on connecting; connections opened meanwhile too).
 */
async function statementsOf<T>(pool: pg.Pool, run: () => Promise<T>): Promise<{ result: T; texts: string[] }> {
  type Querying = { query: (...args: unknown[]) => unknown };
  const texts: string[] = [];
  const restore: (() => void)[] = [];
  const watch = (client: Querying) => {
    const own = client.query;
    client.query = (...args: unknown[]) => {
      const q = args[0] as string | { text?: string } | undefined;
      const text = typeof q === 'string' ? q : q?.text;
      if (text) texts.push(text);
      return own.apply(client, args);
    };
    restore.push(() => (client.query = own));
  };
  for (const c of (pool as unknown as { _clients: Querying[] })._clients) watch(c);
  const onConnect = (c: pg.PoolClient) => watch(c);
  pool.on('connect', onConnect);
  try {
    return { result: await run(), texts };
  } finally {
    pool.off('connect', onConnect);
    for (const r of restore) r();
  }
}

/**
 * A record of an ERP export's first page (of up to 1,000). The export shows a record once every transaction that
 * began before its change has ended (its watermark, docs/erp-exports.md): a background job's may still be open.
 */
async function erpRecord(
  api: Api,
  token: string,
  kind: 'clients' | 'policies',
  which: (r: Record<string, unknown>) => boolean,
): Promise<{ [k: string]: unknown; agents: object[] }> {
  return waitFor(
    `the ERP ${kind} export to show the record`,
    async () =>
      ((await api.get(`/erp/${kind}?per_page=1000`, { token })).body[kind] as Record<string, unknown>[]).find(which),
    (r) => r !== undefined,
    { ms: 10_000 },
  ) as Promise<{ [k: string]: unknown; agents: object[] }>;
}
