import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { Api } from './kit.ts';
import { type Spawned, spawnServer, stopWith, waitExit, waitHealthy } from './helpers/spawn.ts';

// The start contract of /work/shared/contracts/demo-seed.md, black-box: the real entrypoint in a child process, its
// own embedded PostgreSQL in a fresh DATA_DIR, no DATABASE_URL. Slow by nature; the tests run in order and build on
// one another (first start, restart, crash recovery), so they share one describe and its state.

const DATA_ROOT = path.resolve(import.meta.dirname, '../.data');
const dataDirs: string[] = [];
const running = new Set<Spawned>();

async function freshDataDir(): Promise<string> {
  await mkdir(DATA_ROOT, { recursive: true });
  const dir = await mkdtemp(path.join(DATA_ROOT, 'start-test-'));
  // The embedded server runs as the unprivileged postgres user when we are root: it must be able to traverse here.
  await chmod(dir, 0o755);
  dataDirs.push(dir);
  return dir;
}

async function start(
  dataDir: string,
  extra: Record<string, string> = {},
  opts: { ownProcessGroup?: boolean } = {},
): Promise<Spawned> {
  // PORT=0: the server binds a port of the system's choosing and names it in its ready line (no probe-then-bind race).
  const s = spawnServer({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...extra }, opts);
  running.add(s);
  void s.exited.then(() => running.delete(s));
  await waitHealthy(s, 90_000);
  return s;
}

const pidFile = (dataDir: string) => path.join(dataDir, 'pg', 'postmaster.pid');

async function postmaster(dataDir: string): Promise<{ pid: number; port: number }> {
  const lines = (await readFile(pidFile(dataDir), 'utf8')).split('\n');
  return { pid: Number(lines[0]), port: Number(lines[3]) };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return !alive(pid);
}

/** A superuser connection to the server's embedded cluster (superusers see past row-level security). */
async function withClusterDb<T>(dataDir: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const { port } = await postmaster(dataDir);
  const { password } = JSON.parse(await readFile(path.join(dataDir, 'pg.credentials.json'), 'utf8'));
  const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'bima' });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const COUNTED = ['tenants', 'users', 'api_clients', 'clients', 'insurers', 'motor_products', 'levies', 'branches'];

async function rowCounts(dataDir: string): Promise<Record<string, number>> {
  return withClusterDb(dataDir, async (c) => {
    const out: Record<string, number> = {};
    for (const table of COUNTED) out[table] = (await c.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n;
    return out;
  });
}

/** SIGTERM, then: exit code 0 within 20 s, and the embedded PostgreSQL stopped with it. */
async function stopCleanly(s: Spawned, dataDir: string): Promise<void> {
  const { pid } = await postmaster(dataDir);
  const exit = await stopWith(s, 'SIGTERM', 20_000);
  expect(exit, `no exit within 20 s after SIGTERM:\n${s.output().slice(-3000)}`).not.toBeNull();
  expect(exit, s.output().slice(-3000)).toEqual({ code: 0, signal: null });
  expect(existsSync(pidFile(dataDir))).toBe(false);
  expect(await waitGone(pid, 5_000)).toBe(true);
}

afterAll(async () => {
  for (const s of running) await stopWith(s, 'SIGKILL', 5_000);
  for (const dir of dataDirs) {
    // A postmaster orphaned by a failed test would keep running: stop the one this directory's server started.
    if (existsSync(pidFile(dir))) {
      const { pid } = await postmaster(dir).catch(() => ({ pid: 0 }));
      if (pid > 0 && alive(pid)) {
        process.kill(pid, 'SIGINT');
        if (!(await waitGone(pid, 10_000))) process.kill(pid, 'SIGKILL');
      }
    }
    await rm(dir, { recursive: true, force: true });
    await rm(`${dir}.credentials.json`, { force: true });
  }
}, 60_000);

interface ClientCred {
  client_id: string;
  client_secret: string;
  scopes: string[];
}

const SCOPES = {
  staff: ['read', 'quote', 'bind', 'crm', 'webhooks'],
  agent: ['read', 'quote', 'bind', 'crm'],
  readonly: ['read'],
};

/** Every secret in the file, keyed by where it sits, so two starts can be compared. */
function secretsOf(creds: any): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [role, t] of Object.entries<any>(creds.tenants)) {
    for (const [name, c] of Object.entries<ClientCred>(t.api_clients))
      out[`${role}.${name}`] = `${c.client_id}:${c.client_secret}`;
    for (const a of t.agents ?? []) out[`${role}.agent.${a.user_id}`] = `${a.code}:${a.key}`;
  }
  return out;
}

describe('npm start (src/main.ts) on a fresh checkout', () => {
  let dataDir: string;
  let firstCreds: any;
  let firstCounts: Record<string, number>;

  it('starts its own PostgreSQL, seeds the demo, writes the credentials file and serves it', async () => {
    dataDir = await freshDataDir();
    const s = await start(dataDir);
    const port = new URL(s.origin).port;

    const file = path.join(dataDir, 'demo-credentials.json');
    expect(existsSync(file)).toBe(true);
    // It holds plaintext secrets: readable by the owner only.
    expect((await stat(file)).mode & 0o077).toBe(0);
    const creds = JSON.parse(await readFile(file, 'utf8'));
    firstCreds = creds;

    expect(creds.base_url).toBe(`http://127.0.0.1:${port}/api/v1`);
    // The ready line says where everything is, metrics included with why it answers 404 (no METRICS_TOKEN here).
    const o = s.origin;
    const ready = s
      .output()
      .split('\n')
      .find((l) => l.includes('Bima Gateway ready on'));
    expect(JSON.parse(ready!)).toMatchObject({
      home: `${o}/`,
      rest: `${o}/api/v1`,
      docs: `${o}/docs`,
      graphql: `${o}/graphql`,
      dashboard: `${o}/dashboard`,
      websocket: `${o.replace('http', 'ws')}/graphql`,
      metrics: `${o}/metrics (off: set METRICS_TOKEN)`,
    });
    expect(JSON.parse(ready!).msg).toContain(`metrics ${o}/metrics (off: set METRICS_TOKEN)`);
    expect(creds.graphql_url).toBe(`http://127.0.0.1:${port}/graphql`);

    const b = creds.tenants.brokerage;
    expect(b.code).toEqual(expect.any(String));
    expect(b.type).toBe('brokerage');
    for (const [role, scopes] of Object.entries(SCOPES)) {
      const c: ClientCred = b.api_clients[role];
      expect(c, role).toEqual({ client_id: expect.any(String), client_secret: expect.any(String), scopes });
      expect(c.client_id.length).toBeGreaterThan(8);
      expect(c.client_secret.length).toBeGreaterThan(16);
    }
    expect(b.agents).toHaveLength(2);
    for (const a of b.agents)
      expect(a).toMatchObject({ code: expect.any(String), key: expect.any(String), user_id: expect.any(Number) });
    expect(new Set(b.agents.map((a: any) => a.code)).size).toBe(2);
    expect(new Set(b.agents.map((a: any) => a.user_id)).size).toBe(2);
    expect(b.customers.length).toBeGreaterThanOrEqual(1);
    for (const c of b.customers) {
      expect(c.client_no).toMatch(/^C-/);
      expect(c.phone).toMatch(/^2547\d{8}$/);
    }

    expect(creds.tenants.agency).toMatchObject({ code: expect.any(String), type: 'agency' });
    expect(creds.tenants.sacco).toMatchObject({ code: expect.any(String), type: 'sacco' });
    expect(creds.tenants.suspended).toMatchObject({ code: expect.any(String), type: 'brokerage', status: 'suspended' });
    expect(creds.tenants.sandbox).toMatchObject({ code: 'savannah-sandbox', type: 'brokerage', sandbox: true });
    expect(Object.keys(creds.tenants.sandbox.api_clients).sort()).toEqual(['admin', 'staff']);
    for (const role of ['agency', 'sacco', 'suspended', 'sandbox']) {
      expect(creds.tenants[role].api_clients.staff, role).toEqual({
        client_id: expect.any(String),
        client_secret: expect.any(String),
        scopes: expect.any(Array),
      });
    }
    // Each organisation has its own clients (so one test's rate limit never blocks another's).
    const ids = Object.values(creds.tenants).flatMap((t: any) =>
      Object.values<ClientCred>(t.api_clients).map((c) => c.client_id),
    );
    expect(new Set(ids).size).toBe(ids.length);

    const api = new Api(s.origin);
    const staff = await api.token(b.api_clients.staff.client_id, b.api_clients.staff.client_secret);
    const me = await api.get('/me', { token: staff });
    expect(me.status).toBe(200);
    expect(me.body.data.tenant).toMatchObject({ code: b.code, type: 'brokerage' });
    expect([...me.body.data.scopes].sort()).toEqual([...SCOPES.staff].sort());
    expect(me.body.data.actor.own_records_only).toBe(false);

    // The agent codes and keys act as those agents through the staff client.
    for (const a of b.agents) {
      const asAgent = await api.get('/me', { token: staff, headers: { 'x-agent-code': a.code, 'x-agent-key': a.key } });
      expect(asAgent.status, asAgent.text).toBe(200);
      expect(asAgent.body.data.actor).toMatchObject({ id: a.user_id, code: a.code, own_records_only: true });
    }

    const agent = await api.token(b.api_clients.agent.client_id, b.api_clients.agent.client_secret);
    const agentMe = await api.get('/me', { token: agent });
    expect(agentMe.status).toBe(200);
    expect(agentMe.body.data.actor.own_records_only).toBe(true);

    const insurers = await api.get('/insurers', { token: staff });
    expect(insurers.status).toBe(200);
    expect(insurers.body.data.length).toBeGreaterThanOrEqual(4);
    expect(insurers.body.data).toHaveLength(5);

    // No motor product query exists on the API yet: read the panel's classes from the cluster itself.
    const withoutMotorcycle = await withClusterDb(dataDir, async (c) =>
      (
        await c.query<{ name: string }>(
          `SELECT i.name FROM insurers i JOIN tenants t ON t.id = i.tenant_id
            WHERE t.code = $1
              AND NOT EXISTS (SELECT 1 FROM motor_products m WHERE m.insurer_id = i.id AND m.vehicle_class = 'motorcycle')`,
          [b.code],
        )
      ).rows.map((r) => r.name),
    );
    expect(withoutMotorcycle.length).toBeGreaterThanOrEqual(1);
    firstCounts = await rowCounts(dataDir);
    expect(firstCounts.tenants).toBe(5);

    const suspended = creds.tenants.suspended.api_clients.staff;
    const refused = await api.post('/oauth/token', {
      body: { client_id: suspended.client_id, client_secret: suspended.client_secret },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body.code).toBe('tenant_inactive');

    await stopCleanly(s, dataDir);
  }, 180_000);

  it('starts again on the same data: same secrets, still valid, nothing seeded twice', async () => {
    expect(firstCreds).toBeDefined();
    const s = await start(dataDir);
    const creds = JSON.parse(await readFile(path.join(dataDir, 'demo-credentials.json'), 'utf8'));
    expect(secretsOf(creds)).toEqual(secretsOf(firstCreds));
    expect(creds.base_url).toBe(`${s.origin}/api/v1`);

    const api = new Api(s.origin);
    const b = creds.tenants.brokerage;
    const staff = await api.token(b.api_clients.staff.client_id, b.api_clients.staff.client_secret);
    expect((await api.get('/me', { token: staff })).status).toBe(200);
    const agent = await api.token(b.api_clients.agent.client_id, b.api_clients.agent.client_secret);
    expect((await api.get('/me', { token: agent })).body.data.actor.own_records_only).toBe(true);
    const insurers = await api.get('/insurers', { token: staff });
    expect(insurers.body.data).toHaveLength(5);

    expect(await rowCounts(dataDir)).toEqual(firstCounts);

    await stopCleanly(s, dataDir);
  }, 180_000);

  it('comes back up after being killed (SIGKILL), taking over from the orphaned PostgreSQL', async () => {
    const s = await start(dataDir);
    const orphan = await postmaster(dataDir);
    const exit = await stopWith(s, 'SIGKILL', 10_000);
    expect(exit).toEqual({ code: null, signal: 'SIGKILL' });
    // The situation being tested: the embedded server outlives its parent and still holds the data directory.
    expect(alive(orphan.pid)).toBe(true);
    expect(existsSync(pidFile(dataDir))).toBe(true);

    const again = await start(dataDir);
    expect(await waitGone(orphan.pid, 5_000)).toBe(true);
    // Said at warn, so the default level shows it: the operator learns the last stop was not a clean one.
    const takeover = again
      .output()
      .split('\n')
      .filter((l) => l.includes(`stopping orphaned postmaster ${orphan.pid}`))
      .map((l) => JSON.parse(l) as { level: number });
    expect(takeover.map((l) => l.level)).toEqual([40]);
    const creds = JSON.parse(await readFile(path.join(dataDir, 'demo-credentials.json'), 'utf8'));
    expect(secretsOf(creds)).toEqual(secretsOf(firstCreds));
    const api = new Api(again.origin);
    const b = creds.tenants.brokerage;
    const staff = await api.token(b.api_clients.staff.client_id, b.api_clients.staff.client_secret);
    expect((await api.get('/me', { token: staff })).status).toBe(200);

    await stopCleanly(again, dataDir);
  }, 180_000);

  it('logs its start steps at debug, and stops cleanly on Ctrl-C: SIGINT to its whole process group, as a terminal sends it, drains, stops its PostgreSQL and logs nothing above info', async () => {
    const s = await start(dataDir, { LOG_LEVEL: 'debug' }, { ownProcessGroup: true });
    // At debug, the start says where its time went, step by step.
    const steps = s
      .output()
      .split('\n')
      .filter((l) => l.includes('"msg":"start step"'))
      .map((l) => JSON.parse(l) as { step: string; ms: number });
    expect(steps.map((x) => x.step)).toEqual([
      'process and modules loaded',
      'embedded PostgreSQL started',
      'migrations',
      "pg-boss's schema and queues",
      'demo data',
      "demo data: the brokerage's recent week",
      'service started (schema, caches, workers, listening)',
    ]);
    for (const x of steps) expect(Number.isInteger(x.ms) && x.ms >= 0).toBe(true);
    const { pid: postmasterPid } = await postmaster(dataDir);
    // A connection open and a request in hand when the signal comes.
    const open = fetch(`${s.origin}/healthz`);
    process.kill(-s.child.pid!, 'SIGINT');
    await open.catch(() => undefined);
    const exit = await waitExit(s, 40_000);
    expect(exit, s.output().slice(-3000)).toEqual({ code: 0, signal: null });
    expect(await waitGone(postmasterPid, 5_000)).toBe(true);
    expect(existsSync(pidFile(dataDir))).toBe(false);
    const lines = s.output().split('\n');
    const stopAt = lines.findIndex((l) => l.includes('"msg":"shutting down"'));
    expect(stopAt, 'the shutdown is logged').toBeGreaterThanOrEqual(0);
    expect(lines.slice(stopAt).some((l) => l.includes('"msg":"stopped"'))).toBe(true);
    // pino levels: 40 warn, 50 error, 60 fatal; nothing of the kind from the signal to the exit.
    expect(lines.slice(stopAt).filter((l) => /"level":(4|5|6)0\b/.test(l))).toEqual([]);
  }, 180_000);

  it('with DEMO_SEED=0 starts empty and writes no credentials file', async () => {
    const dir = await freshDataDir();
    const s = await start(dir, { DEMO_SEED: '0' });
    expect(existsSync(path.join(dir, 'demo-credentials.json'))).toBe(false);
    const tenants = await withClusterDb(
      dir,
      async (c) => (await c.query('SELECT count(*)::int AS n FROM tenants')).rows[0].n,
    );
    expect(tenants).toBe(0);
    await stopCleanly(s, dir);
  }, 180_000);
});
