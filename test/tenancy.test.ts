import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, useKit } from './kit.ts';

const t = useKit();
const api = t.api;
const [A, B] = t.useOrgs(2, { tokens: ['admin'] });
let adminA: string;
let adminB: string;
let bInsurer: { id: number; name: string };

beforeAll(async () => {
  [adminA, adminB] = [A.tokens.admin, B.tokens.admin];
  // Both tenants are cloned from one template, so names collide; give B's insurer one only B could have.
  bInsurer = await t.db.system(async (tx) => {
    const first = await tx.insurer.findFirstOrThrow({ where: { tenantId: B.id }, orderBy: { id: 'asc' } });
    return tx.insurer.update({
      where: { id: first.id },
      data: { name: `Zanzibar Mutual ${B.code}`, legalName: `Zanzibar Mutual Assurance ${B.code} Ltd` },
    });
  });
});

const globalId = (type: string, id: number) => Buffer.from(`${type}:${id}`).toString('base64');

describe('row-level security in PostgreSQL', () => {
  it('a tenant transaction is scoped from its BEGIN (the setting rides on it), with or without an isolation level', async () => {
    const setting = (tx: any) =>
      tx.$queryRaw`SELECT current_setting('app.tenant_id', true) AS t`.then((r: { t: string }[]) => r[0].t);
    expect(await t.db.tenant(A.id, setting)).toBe(String(A.id));
    expect(await t.db.tenant(B.id, setting, { isolationLevel: 'RepeatableRead' })).toBe(String(B.id));
    // Nested on the same async path, each transaction carries its own tenant; the next one on a pooled connection
    // starts with none (transaction-local).
    expect(await t.db.tenant(A.id, async () => [await t.db.tenant(B.id, setting)])).toEqual([String(B.id)]);
    expect(await t.db.system(setting)).toBe('');
    const clients = await t.db.tenant(A.id, (tx) => tx.client.findMany({ select: { tenantId: true } }));
    expect(clients.length).toBeGreaterThan(0);
    expect(new Set(clients.map((c) => c.tenantId))).toEqual(new Set([A.id]));
  });

  it('a query without tenant context sees nothing, although rows exist', async () => {
    const seen = await t.db.system(async (tx) => ({
      insurers: await tx.insurer.count(),
      clients: await tx.client.count(),
      tenants: await tx.tenant.count(),
    }));
    expect(seen.insurers).toBeGreaterThanOrEqual(10);
    expect(seen.clients).toBeGreaterThanOrEqual(6);
    expect(seen.tenants).toBeGreaterThanOrEqual(2);

    expect(await t.db.prisma.insurer.findMany()).toEqual([]);
    expect(await t.db.prisma.client.count()).toBe(0);
    expect(await t.db.prisma.tenant.findMany()).toEqual([]);
    expect(await t.db.prisma.apiClient.findUnique({ where: { clientId: A.clients.staff.clientId } })).toBeNull();
    const raw = await t.db.prisma.$queryRaw<{ count: bigint }[]>`SELECT count(*) FROM insurers`;
    expect(Number(raw[0].count)).toBe(0);
    // The app's own connection pool behaves the same.
    expect(await t.app.services.db.prisma.insurer.count()).toBe(0);
  });

  it("db.tenant(A) sees only A's rows", async () => {
    const rows = await t.db.tenant(A.id, async (tx) => ({
      insurers: await tx.insurer.findMany(),
      clients: await tx.client.findMany(),
      tenants: await tx.tenant.findMany(),
      rawInsurers: await tx.$queryRaw<{ tenant_id: number }[]>`SELECT tenant_id FROM insurers`,
      bClient: await tx.apiClient.findUnique({ where: { clientId: B.clients.staff.clientId } }),
    }));
    expect(rows.insurers).toHaveLength(5);
    expect(rows.insurers.every((i) => i.tenantId === A.id)).toBe(true);
    expect(rows.clients).toHaveLength(3);
    expect(rows.clients.every((c) => c.tenantId === A.id)).toBe(true);
    expect(rows.tenants.map((x) => x.id)).toEqual([A.id]);
    expect(rows.rawInsurers.map((r) => r.tenant_id)).toEqual(Array(5).fill(A.id));
    expect(rows.bClient).toBeNull();
  });

  it("refuses an insert carrying tenant B's id inside db.tenant(A)", async () => {
    const insert = t.db.tenant(A.id, (tx) =>
      tx.insurer.create({
        data: {
          tenantId: B.id,
          name: `Smuggled ${randomUUID()}`,
          legalName: 'Smuggled Ltd',
          registryMemberId: 999,
          commissionRateBps: 1000,
          monogram: 'SM',
        },
      }),
    );
    await expect(insert).rejects.toThrow(/row-level security|policy/i);
    const smuggled = await t.db.system((tx) => tx.insurer.count({ where: { name: { startsWith: 'Smuggled' } } }));
    expect(smuggled).toBe(0);
  });

  it("cannot update or delete tenant B's rows from db.tenant(A)", async () => {
    const { updated, deleted } = await t.db.tenant(A.id, async (tx) => ({
      updated: await tx.insurer.updateMany({ where: { tenantId: B.id }, data: { name: 'hijacked' } }),
      deleted: await tx.accessToken.deleteMany({ where: { tenantId: B.id } }),
    }));
    expect(updated.count).toBe(0);
    expect(deleted.count).toBe(0);
    const bNames = await t.db.system((tx) =>
      tx.insurer.findMany({ where: { tenantId: B.id }, select: { name: true } }),
    );
    expect(bNames.map((i) => i.name)).not.toContain('hijacked');
    expect(await t.db.system((tx) => tx.accessToken.count({ where: { tenantId: B.id } }))).toBeGreaterThan(0);
  });

  it("every table with a tenant_id column, and tenants, has forced RLS, a plain tenant policy and the system role's", async () => {
    const tables = await t.db.system(
      (tx) =>
        tx.$queryRaw<
          {
            table_name: string;
            rls: boolean;
            forced: boolean;
            policies: string[];
            roles: string[];
            quals: string[];
            checks: (string | null)[];
          }[]
        >`
        SELECT c.relname::text AS table_name, c.relrowsecurity AS rls, c.relforcerowsecurity AS forced,
               coalesce(array_agg(p.policyname::text ORDER BY p.policyname) FILTER (WHERE p.policyname IS NOT NULL), '{}'::text[]) AS policies,
               coalesce(array_agg(p.roles::text ORDER BY p.policyname) FILTER (WHERE p.policyname IS NOT NULL), '{}'::text[]) AS roles,
               coalesce(array_agg(p.qual ORDER BY p.policyname) FILTER (WHERE p.policyname IS NOT NULL), '{}'::text[]) AS quals,
               coalesce(array_agg(p.with_check ORDER BY p.policyname) FILTER (WHERE p.policyname IS NOT NULL), '{}'::text[]) AS checks
          FROM pg_class c
          JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
          LEFT JOIN pg_policies p ON p.schemaname = n.nspname AND p.tablename = c.relname
         WHERE c.relkind IN ('r', 'p')
           AND (c.relname = 'tenants'
                OR EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped))
         GROUP BY c.relname, c.relrowsecurity, c.relforcerowsecurity
         ORDER BY c.relname`,
    );
    const names = tables.map((x) => x.table_name);
    // Guard against the query silently matching nothing.
    for (const known of [
      'tenants',
      'insurers',
      'clients',
      'api_clients',
      'access_tokens',
      'users',
      'idempotency_keys',
      'audit_logs',
    ]) {
      expect(names).toContain(known);
    }
    for (const table of tables) {
      expect({ table: table.table_name, rls: table.rls, forced: table.forced }).toEqual({
        table: table.table_name,
        rls: true,
        forced: true,
      });
      // Exactly two: the system role's, which admits every row to bima_system alone, and everyone's, a plain equality
      // with the transaction's organisation (no OR: PostgreSQL uses the tenant_id indexes for it).
      expect(table.policies, table.table_name).toEqual(['system_access', 'tenant_isolation']);
      expect(table.roles, table.table_name).toEqual(['{bima_system}', '{public}']);
      expect([table.quals[0], table.checks[0]], table.table_name).toEqual(['true', 'true']);
      const column = table.table_name === 'tenants' ? 'id' : 'tenant_id';
      for (const q of [table.quals[1], table.checks[1]])
        expect(q, `${table.table_name} policy`).toBe(
          `(${column} = (NULLIF(current_setting('app.tenant_id'::text, true), ''::text))::integer)`,
        );
    }
  });

  it('the app connects as a role that neither is superuser nor bypasses RLS', async () => {
    for (const db of [t.app.services.db, t.db]) {
      const [role] = await db.tenant(
        A.id,
        (tx) =>
          tx.$queryRaw<{ current_user: string; rolsuper: boolean; rolbypassrls: boolean }[]>`
          SELECT current_user, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user`,
      );
      expect(role).toMatchObject({ rolsuper: false, rolbypassrls: false });
    }
  });

  it('system work runs as bima_system for its transaction only; bima_app, a member of it, is not admitted by its policy', async () => {
    const db = t.app.services.db;
    const as = (tx: any): Promise<{ u: string; n: number }[]> =>
      tx.$queryRaw`SELECT current_user::text AS u, (SELECT count(*)::int FROM insurers) AS n`;
    const [system] = await db.system(as);
    expect(system.u).toBe('bima_system');
    expect(system.n).toBeGreaterThanOrEqual(10);
    // Taken with SET LOCAL: the pool's next statements run as the service's own role again, and see nothing.
    for (let i = 0; i < 3; i++) expect(await as(db.prisma)).toEqual([{ u: 'bima_app', n: 0 }]);
    const [grant] = await db.prisma.$queryRaw<{ member: boolean; inherits: boolean }[]>`
      SELECT pg_has_role('bima_app', 'bima_system', 'MEMBER') AS member,
             pg_has_role('bima_app', 'bima_system', 'USAGE') AS inherits`;
    expect(grant).toEqual({ member: true, inherits: false });
  });

  it("a tenant's statement that does not name its organisation is served by a tenant_id index (the policy is an index condition)", async () => {
    const plan = await t.app.services.db.tenant(A.id, async (tx) => {
      await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
      return tx.$queryRawUnsafe<{ 'QUERY PLAN': unknown }[]>('EXPLAIN (FORMAT JSON) SELECT id FROM clients');
    });
    // Under the former policy (tenant_id = the setting OR app.system = 'on') this was a filter over every row.
    expect(JSON.stringify(plan)).toMatch(/"Index Cond":"\(tenant_id = /);
  });
});

describe('cross-tenant access over the API', () => {
  const bClient = () => B.clients.staff.clientId;

  it("tenant A's admin cannot read, change or rotate tenant B's API client", async () => {
    const before = await t.db.system((tx) => tx.apiClient.findUniqueOrThrow({ where: { clientId: bClient() } }));

    expectProblem(await api.get(`/api-clients/${bClient()}`, { token: adminA }), 404, 'not_found');
    expectProblem(
      await api.patch(`/api-clients/${bClient()}`, {
        token: adminA,
        idempotencyKey: randomUUID(),
        body: { name: 'owned by A', scopes: ['read'] },
      }),
      404,
      'not_found',
    );
    expectProblem(
      await api.post(`/api-clients/${bClient()}/rotate-secret`, {
        token: adminA,
        idempotencyKey: randomUUID(),
        body: {},
      }),
      404,
      'not_found',
    );
    expectProblem(
      await api.post(`/api-clients/${bClient()}/revoke`, { token: adminA, idempotencyKey: randomUUID(), body: {} }),
      404,
      'not_found',
    );

    const after = await t.db.system((tx) => tx.apiClient.findUniqueOrThrow({ where: { clientId: bClient() } }));
    expect(after).toEqual(before);
    // B's secret still works: nothing was rotated or revoked.
    await api.token(bClient(), B.clients.staff.secret);

    // Positive control: B's own admin sees it.
    const own = await api.get(`/api-clients/${bClient()}`, { token: adminB });
    expect(own.status).toBe(200);
    expect(own.body.data.client_id).toBe(bClient());
  });

  it("tenant A's list of API clients holds only A's", async () => {
    const r = await api.get('/api-clients', { token: adminA });
    expect(r.status).toBe(200);
    const ids = r.body.data.map((c: { client_id: string }) => c.client_id);
    expect(ids).toEqual(expect.arrayContaining(Object.values(A.clients).map((c) => c.clientId)));
    for (const c of Object.values(B.clients)) expect(ids).not.toContain(c.clientId);
  });

  it('GraphQL apiClient(clientId: B) is not_found', async () => {
    const q = 'query($id: String!) { apiClient(clientId: $id) { clientId name } }';
    const r = await api.gql(q, { id: bClient() }, { token: adminA });
    expect(r.body.errors?.[0]?.extensions?.code, JSON.stringify(r.body)).toBe('not_found');
    expect(r.body.data?.apiClient ?? null).toBeNull();
    const own = await api.gql(q, { id: bClient() }, { token: adminB });
    expect(own.body.data?.apiClient?.clientId).toBe(bClient());
  });

  it("GraphQL node(id) of B's insurer is null for A, and resolves for B", async () => {
    const q = 'query($id: ID!) { node(id: $id) { id ... on Insurer { databaseId name } } }';
    // The id format is learnt from A's own data so the test checks isolation, not an encoding guess.
    const mine = await api.gql('{ insurers { id databaseId } }', {}, { token: adminA });
    const first = mine.body.data.insurers[0];
    expect(first.id).toBe(globalId('Insurer', first.databaseId));
    const own = await api.gql(q, { id: first.id }, { token: adminA });
    expect(own.body.data.node?.databaseId).toBe(first.databaseId);

    const r = await api.gql(q, { id: globalId('Insurer', bInsurer.id) }, { token: adminA });
    expect(r.body.data?.node ?? null).toBeNull();
    expect(JSON.stringify(r.body)).not.toContain('Zanzibar');

    const b = await api.gql(q, { id: globalId('Insurer', bInsurer.id) }, { token: adminB });
    expect(b.body.data.node).toMatchObject({ databaseId: bInsurer.id, name: bInsurer.name });
  });

  it('node and nodes answer null for an id this API never issues (unknown type, out of range, not plain decimal, not decodable), never a 500', async () => {
    const mine = (await api.gql('{ insurers { id databaseId } }', {}, { token: adminA })).body.data.insurers[0];
    const raw = (s: string) => Buffer.from(s).toString('base64');
    const hostile = [
      'Branch:99999999999',
      'Branch:2147483648',
      'Client:99999999999',
      'StaffMember:abc',
      'Insurer:abc',
      'Insurer:-1',
      'Insurer:0',
      `Insurer:0${mine.databaseId}`,
      `Insurer:${mine.databaseId}.0`,
      'Insurer:1e3',
      'Insurer:0x10',
      'AuditEntry:9223372036854775808',
      'AuditEntry:99999999999999999999',
      // A type the schema does not have, an interface, a type that is no record, a name in other case.
      'Nope:1',
      'Node:1',
      'Money:1',
      'insurer:1',
      'INSURER:1',
    ].map(raw);
    // Ids that do not decode at all.
    hostile.push('bogus', raw('Insurer'), raw(':1'), raw('1nsurer:1'), '');
    for (const id of hostile) {
      const r = await api.gql('query($id: ID!) { node(id: $id) { id } }', { id }, { token: adminA });
      expect(r.status, Buffer.from(id, 'base64').toString()).toBe(200);
      expect(r.body.errors, Buffer.from(id, 'base64').toString()).toBeUndefined();
      expect(r.body.data.node).toBeNull();
    }
    // In nodes, each such id is null in its place; the others still resolve.
    const r = await api.gql(
      'query($ids: [ID!]!) { nodes(ids: $ids) { id } }',
      { ids: [hostile[0], mine.id, hostile[3], globalId('AuditEntry', 1), raw('Node:1'), 'bogus', mine.id] },
      { token: adminA },
    );
    expect(r.body.errors).toBeUndefined();
    const got = r.body.data.nodes.map((n: { id: string } | null) => n?.id ?? null);
    expect([...got.slice(0, 3), ...got.slice(4)]).toEqual([null, mine.id, null, null, null, mine.id]);
  });

  it("A's /insurers never lists B's insurers", async () => {
    const all = await api.get('/insurers', { token: adminA });
    expect(all.status).toBe(200);
    expect(all.body.data).toHaveLength(5);
    const ids = all.body.data.map((i: { id: number }) => i.id);
    expect(ids).not.toContain(bInsurer.id);
    expect(all.text).not.toContain('Zanzibar');

    const searched = await api.get('/insurers?search=zanzibar', { token: adminA });
    expect(searched.status).toBe(200);
    expect(searched.body.data).toEqual([]);

    const gql = await api.gql('{ insurers(search: "Zanzibar") { databaseId } }', {}, { token: adminA });
    expect(gql.body.data.insurers).toEqual([]);

    // Positive control: the search does find it for B.
    const forB = await api.get('/insurers?search=zanzibar', { token: adminB });
    expect(forB.body.data.map((i: { id: number }) => i.id)).toEqual([bInsurer.id]);
  });
});
