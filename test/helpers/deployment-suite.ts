import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from 'graphql-ws';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/db/client.ts';
import { connToUrl, freePort } from '../../src/db/embedded.ts';
import { type Spawned, spawnServer, stopWith, waitExit, waitHealthy } from './spawn.ts';
import { Api, dbServer, expectProblem, Live, Org, PHONES, policyInStatus, waitFor, wsClient } from '../kit.ts';
import { findPgEngines, type PgCluster, startPgCluster } from './pg-cluster.ts';

// Issue 12 §4, replicas: three real processes of the entrypoint (2 × PROCESS_ROLE=web, 1 × PROCESS_ROLE=jobs) started
// together over ONE fresh, empty database (they migrate and seed it concurrently), each with a DATA_DIR of its own
// for its credentials file, sharing DATABASE_URL, SECRETS_KEY and PUBLIC_BASE_URL (the first web replica stands in
// for the proxy), and REDIS_URL when Redis answers. The tests build on that one deployment, in order.
//
// Two deployments run these tests (issue 30): `direct`, every process straight to the test server's database
// (test/replicas.test.ts), and `pooler`, a PostgreSQL of its own with a streaming standby and PgBouncer in transaction
// mode in front of the primary (test/helpers/pg-cluster.ts): DATABASE_URL through the pooler as the application role,
// DATABASE_DIRECT_URL to the primary, DATABASE_REPLICA_URLS the standby (test/pooler-replicas.test.ts).

const SECRETS_KEY = randomBytes(32).toString('base64');
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** Whether Redis answers PING at REDIS_URL (CI provides it through REDIS_URL; locally it may run on 6379). */
function redisAnswers(url: string): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port || 6379) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () =>
      socket.write(u.password ? `AUTH ${decodeURIComponent(u.password)}\r\nPING\r\n` : 'PING\r\n'),
    );
    socket.on('data', (d) => done(d.toString().includes('+PONG')));
  });
}
const redis = await redisAnswers(REDIS_URL);
if (!redis) console.warn(`replicas.test.ts: no Redis answers at ${REDIS_URL}; the shared rate-limit test is skipped`);

export interface Replica {
  name: string;
  s: Spawned;
  port: number;
  dataDir: string;
  env: Record<string, string>;
}

/** What the pooler test's own checks reach of the deployment the suite started. */
export interface Deployment {
  readonly db: Database;
  readonly cluster: PgCluster;
  readonly replicas: Record<'web1' | 'web2' | 'jobs', Replica>;
  readonly redis: boolean;
  /** The environment of the deployment's processes of `role` (PUBLIC_BASE_URL the first web process). */
  env(role: 'web' | 'jobs' | 'all'): Record<string, string>;
  /** Spawns one more process of the entrypoint with `env` (a data directory of its own), stopped with the rest. */
  spawn(name: string, env: Record<string, string>): Promise<Replica>;
}

/** The standby's recovery_min_apply_delay in the pooler deployment: a replica always this far behind. */
export const REPLICA_APPLY_DELAY_MS = 50;

/** Registers the suite over a deployment of `mode`; returns accessors to it for tests of the mode's own. */
export function deploymentSuite(mode: 'direct' | 'pooler'): Deployment {
  let cluster: PgCluster | undefined;
  let directUrl: string | undefined;
  let databaseName: string;
  let databaseUrl: string;
  let db: Database;
  const dataDirs: string[] = [];
  const running = new Set<Spawned>();
  const replicas: Record<'web1' | 'web2' | 'jobs', Replica> = {} as never;

  function spawnReplica(r: Omit<Replica, 's'>): Replica {
    const s = spawnServer({ ...r.env, PORT: String(r.port), DATA_DIR: r.dataDir });
    running.add(s);
    void s.exited.then(() => running.delete(s));
    return { ...r, s };
  }

  function envFor(role: 'web' | 'jobs' | 'all', publicBaseUrl: string): Record<string, string> {
    return {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      PROCESS_ROLE: role,
      DATABASE_URL: databaseUrl,
      ...(cluster
        ? {
            DATABASE_DIRECT_URL: cluster.primaryUrl,
            DATABASE_REPLICA_URLS: cluster.replicaUrl,
            // A writer's read waits for the standby (always REPLICA_APPLY_DELAY_MS behind) rather than leaving it.
            REPLICA_WAIT_MS: '1000',
            DB_POOL_SIZE: '8',
          }
        : {}),
      SECRETS_KEY,
      PUBLIC_BASE_URL: publicBaseUrl,
      // Every test here fetches tokens from one address; the token endpoint's own limit has its tests elsewhere.
      TOKEN_RATE_LIMIT_PER_MINUTE: '100000',
      PAYMENTS_SWEEP_SECONDS: '1',
      ...(redis ? { REDIS_URL } : {}),
    };
  }

  const credentialsFile = (r: Replica) => path.join(r.dataDir, 'demo-credentials.json');

  /** What start-up could have rotated: every demo API client's hash and every agent key's hash. */
  async function secretHashes(): Promise<Record<string, string | null>> {
    const clients = await db.system((tx) =>
      tx.apiClient.findMany({ where: { name: { startsWith: 'Demo ' } }, orderBy: { id: 'asc' } }),
    );
    const agents = await db.system((tx) =>
      tx.user.findMany({ where: { agentCode: { not: null } }, orderBy: { id: 'asc' } }),
    );
    return Object.fromEntries([
      ...clients.map((c) => [`client ${c.clientId}`, `${c.secretHash} ${c.secretRotatedAt?.toISOString()}`] as const),
      ...agents.map((u) => [`agent ${u.agentCode}`, u.agentKeyHash] as const),
    ]);
  }

  const platformSecrets = () => db.system((tx) => tx.platformSecret.findMany({ orderBy: { name: 'asc' } }));

  beforeAll(async () => {
    if (mode === 'pooler') {
      const engines = findPgEngines();
      // Never a silent skip: .ci/run installs both; a machine without them fails here, saying what to install.
      if (engines.missing.length)
        throw new Error(
          `the pooler deployment needs ${engines.missing.join(' and ')}: apt-get install pgbouncer postgresql`,
        );
      cluster = await startPgCluster({ replicaApplyDelayMs: REPLICA_APPLY_DELAY_MS });
      databaseUrl = cluster.poolerUrl;
      directUrl = cluster.primaryUrl;
    } else {
      const server = dbServer();
      databaseName = `replicas_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({
        connectionString: connToUrl({ ...server, database: server.database || 'postgres' }),
      });
      await admin.connect();
      // Empty, not a clone of the migrated template: the replicas migrate it themselves, at the same time.
      await admin.query(`CREATE DATABASE ${databaseName}`).finally(() => admin.end());
      databaseUrl = connToUrl({ ...server, database: databaseName });
    }
    const [p1, p2, p3] = [await freePort(), await freePort(), await freePort()];
    const proxy = `http://127.0.0.1:${p1}`;
    const specs = [
      ['web1', p1, 'web'],
      ['web2', p2, 'web'],
      ['jobs', p3, 'jobs'],
    ] as const;
    for (const [name, port, role] of specs) {
      const dataDir = await mkdtemp(path.join(tmpdir(), `bima-replica-${name}-`));
      dataDirs.push(dataDir);
      replicas[name] = spawnReplica({ name, port, dataDir, env: envFor(role, proxy) });
    }
    // They migrate and seed in turn under the start lock: on two busy cores (another file's servers beside them),
    // through a pooler, that has taken over 90 s.
    await Promise.all(Object.values(replicas).map((r) => waitHealthy(r.s, 150_000)));
    // The tests' own reads and writes go straight to the primary.
    db = await Database.connect(directUrl ?? databaseUrl, { poolSize: 3 });
  }, 200_000);

  afterAll(async () => {
    for (const s of running) await stopWith(s, 'SIGKILL', 5_000);
    await db?.close();
    for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
    await cluster?.stop();
    if (databaseName) {
      const server = dbServer();
      const admin = new pg.Client({
        connectionString: connToUrl({ ...server, database: server.database || 'postgres' }),
      });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`).finally(() => admin.end());
    }
  }, 60_000);

  const api = (r: Replica) => new Api(`http://127.0.0.1:${r.port}`);

  describe('replica-safe start over one database', () => {
    let file: string;

    it('three replicas started together end with byte-identical credentials files whose secrets work on each', async () => {
      const files = await Promise.all(Object.values(replicas).map((r) => readFile(credentialsFile(r), 'utf8')));
      file = files[0];
      expect(files[1]).toBe(file);
      expect(files[2]).toBe(file);
      const creds = JSON.parse(file);
      expect(creds.base_url).toBe(`http://127.0.0.1:${replicas.web1.port}/api/v1`); // PUBLIC_BASE_URL
      // One issue per credential: the secrets in the file are the ones the database holds, sealed.
      const names = (await platformSecrets()).map((p) => p.name);
      expect(names).toContain('master-key-check');
      expect(names.filter((n) => n.includes('/api_client/'))).toHaveLength(9);

      for (const r of [replicas.web1, replicas.web2]) {
        for (const [role, t] of Object.entries<any>(creds.tenants)) {
          for (const [name, c] of Object.entries<any>(t.api_clients)) {
            const res = await api(r).post('/oauth/token', {
              body: { client_id: c.client_id, client_secret: c.client_secret },
            });
            if (role === 'suspended') expectProblem(res, 403, 'tenant_inactive');
            else expect(res.status, `${r.name} ${role}/${name}: ${res.text}`).toBe(200);
          }
        }
        const b = creds.tenants.brokerage;
        const staff = await api(r).token(b.api_clients.staff.client_id, b.api_clients.staff.client_secret);
        for (const a of b.agents) {
          const me = await api(r).get('/me', {
            token: staff,
            headers: { 'x-agent-code': a.code, 'x-agent-key': a.key },
          });
          expect(me.status, me.text).toBe(200);
          expect(me.body.data.actor).toMatchObject({ id: a.user_id, own_records_only: true });
        }
      }
      // The jobs replica serves its probes only.
      const jobsHealth = await fetch(`http://127.0.0.1:${replicas.jobs.port}/healthz`);
      expect(await jobsHealth.json()).toEqual({ status: 'ok', role: 'jobs' });
      expect((await fetch(`http://127.0.0.1:${replicas.jobs.port}/api/v1/me`)).status).toBe(404);
    });

    it('a replica restarted without its credentials file rotates nothing and writes the same file again', async () => {
      expect(file).toBeDefined();
      const before = await secretHashes();
      const sealedBefore = await platformSecrets();
      const r = replicas.web2;
      expect(await stopWith(r.s, 'SIGTERM', 20_000)).toEqual({ code: 0, signal: null });
      await rm(credentialsFile(r));
      replicas.web2 = spawnReplica(r);
      await waitHealthy(replicas.web2.s, 90_000);
      expect(await readFile(credentialsFile(r), 'utf8')).toBe(file);
      expect(await secretHashes()).toEqual(before);
      expect(await platformSecrets()).toEqual(sealedBefore);
      const staff = JSON.parse(file).tenants.brokerage.api_clients.staff;
      expect((await api(replicas.web2).post('/oauth/token', { body: staff })).status).toBe(200);
    });

    it('a replica with another SECRETS_KEY refuses to start, with or without the demo, and changes nothing', async () => {
      const before = await secretHashes();
      const sealedBefore = await platformSecrets();
      const otherKey = randomBytes(32).toString('base64');
      // With the demo (its sealed credentials do not open) and without it (the canary does not), started together.
      const strangers: Record<string, string>[] = [{ PROCESS_ROLE: 'all' }, { PROCESS_ROLE: 'jobs', DEMO_SEED: '0' }];
      await Promise.all(
        strangers.map(async (extra) => {
          const dataDir = await mkdtemp(path.join(tmpdir(), 'bima-replica-stranger-'));
          dataDirs.push(dataDir);
          const env = { ...envFor('all', `http://127.0.0.1:${replicas.web1.port}`), SECRETS_KEY: otherKey, ...extra };
          const stranger = spawnReplica({ name: 'stranger', port: await freePort(), dataDir, env });
          const exit = await waitExit(stranger.s, 60_000);
          expect(exit, stranger.s.output().slice(-3000)).toEqual({ code: 1, signal: null });
          expect(stranger.s.output()).toMatch(/Replicas must share SECRETS_KEY/);
          expect(existsSync(path.join(dataDir, 'demo-credentials.json'))).toBe(false);
        }),
      );
      expect(await secretHashes()).toEqual(before);
      expect(await platformSecrets()).toEqual(sealedBefore);
      // The deployment is unharmed: its secrets still work.
      const staff = JSON.parse(file).tenants.brokerage.api_clients.staff;
      expect((await api(replicas.web1).post('/oauth/token', { body: staff })).status).toBe(200);
    }, 90_000);
  });

  describe('one deployment across processes', () => {
    let o: Org;
    const clients: Client[] = [];
    beforeAll(async () => {
      // A test organisation of its own in the replicas' database, its tokens from web1 (a token works on any replica).
      o = await new Org(
        { db, origin: `http://127.0.0.1:${replicas.web1.port}` },
        { fast: true, clientOverrides: { readonly: { rateLimitPerMinute: 5 } } },
      ).make();
    });
    afterAll(() => Promise.all(clients.map(async (c) => c.dispose())));
    const on = (r: Replica) => o.through(`http://127.0.0.1:${r.port}`, o.tokens);

    it('one Idempotency-Key sent to two replicas at once has one effect', async () => {
      for (let round = 0; round < 5; round++) {
        const key = randomUUID();
        const name = `Replica ${randomUUID().slice(0, 8)} Achieng`;
        const body = { name, phone: `0722${String(100_000 + Math.floor(Math.random() * 900_000))}` };
        const [a, b] = await Promise.all(
          [replicas.web1, replicas.web2].map((r) =>
            on(r).api.post('/clients', { token: o.tokens.staff, body, idempotencyKey: key }),
          ),
        );
        expect([a.status, b.status], `${a.text}\n${b.text}`).toEqual([201, 201]);
        expect([a, b].map((r) => r.headers.get('idempotent-replayed') === 'true').sort()).toEqual([false, true]);
        expect(b.body.data.client_no).toBe(a.body.data.client_no);
        expect(await db.tenant(o.id, (tx) => tx.client.count({ where: { name } }))).toBe(1);
      }
    });

    it.skipIf(!redis)(
      `counts one rate limit across replicas through Redis${redis ? '' : ` (skipped: no Redis answers at ${REDIS_URL})`}`,
      async () => {
        // The readonly key allows 5 a minute; the calls alternate between the two web replicas.
        const token = o.tokens.readonly;
        const order = [replicas.web1, replicas.web2, replicas.web1, replicas.web2, replicas.web1, replicas.web2];
        const answers = [];
        for (const r of order) answers.push(await on(r).api.get('/me', { token }));
        expect(answers.slice(0, 5).map((a) => [a.status, a.headers.get('ratelimit-remaining')])).toEqual([
          [200, '4'],
          [200, '3'],
          [200, '2'],
          [200, '1'],
          [200, '0'],
        ]);
        // Each replica saw three calls at most: alone, neither would refuse the sixth.
        expectProblem(answers[5], 429, 'rate_limited');
        expectProblem(await on(replicas.web1).api.get('/me', { token }), 429, 'rate_limited');
      },
    );

    it('a subscription held on one replica hears what is written through another', async () => {
      const ws = wsClient(`http://127.0.0.1:${replicas.web1.port}`, o.tokens.admin);
      clients.push(ws);
      const audit = new Live<{ action: string; entityId: string }>(
        ws,
        'subscription { auditLogged { action entityId } }',
        'auditLogged',
      );
      const create = async () => {
        const r = await on(replicas.web2).api.post('/clients', {
          token: o.tokens.staff,
          idempotencyKey: randomUUID(),
          body: {
            name: `Live ${randomUUID().slice(0, 6)} Otieno`,
            phone: `0723${String(100_000 + Math.floor(Math.random() * 900_000))}`,
          },
        });
        expect(r.status, r.text).toBe(201);
        return r.body.data.client_no as string;
      };
      // graphql-ws does not acknowledge a subscription: write until one write is heard, then the socket is live.
      for (let i = 0; i < 20 && audit.events.length === 0; i++) {
        await create();
        await audit.until(() => audit.events.length > 0, 500);
      }
      expect(audit.errors).toEqual([]);
      const clientNo = await create();
      expect(await audit.until(() => audit.events.some((e) => e.entityId === clientNo))).toBe(true);
      expect(audit.events.find((e) => e.entityId === clientNo)?.action).toBe('client.created');
    });

    it('an STK push made on a web replica is carried through by the jobs replica: the policy becomes active', async () => {
      const web = on(replicas.web2);
      const bound = await web.pendingPolicy();
      const push = await web.push({
        phone: PHONES.success,
        amount: Math.ceil(bound.debit_note.instalments[0].amount_minor / 100),
        account: bound.policy_no,
      });
      expect(push.status, push.text).toBe(202);
      const checkout: string = push.body.data.checkout_request_id;
      const settled = await web.settled(checkout, 30_000);
      expect(settled.body.data?.status, settled.text).toBe('succeeded');
      await policyInStatus(web, bound.uuid, 'active');
      // The web replicas run no job workers: the simulated customer's answer (the rail's resolve job) and the payments
      // sweep that confirmed it ran in the jobs replica.
      // (Its log line may trail the callback that settled the payment: wait for it.)
      await waitFor(
        'the jobs replica to log the prompt',
        async () => replicas.jobs.s.output(),
        (out) => out.includes(checkout),
      );
      expect(replicas.web1.s.output()).not.toMatch(/simulated prompt resolved/);
      expect(replicas.web2.s.output()).not.toMatch(/simulated prompt resolved/);
      // The rail keeps each prompt's CallBackURL (sealed with the shared SECRETS_KEY), so the jobs replica that resolved
      // the prompt called back the origin the push named, and was answered 200. (Whether the callback or the sweep's
      // status query then settles the payment first is a race either way settles the same.)
      const resolved = replicas.jobs.s
        .output()
        .split('\n')
        .find((l) => l.includes(checkout) && l.includes('simulated prompt resolved'));
      expect(JSON.parse(resolved!)).toMatchObject({ code: 0, callbackStatus: 200 });
      expect(['callback', 'query']).toContain(settled.body.data.resolved_via);
    });

    it('a levy renamed in the database is served renamed by every web process (their caches hear it)', async () => {
      const firstLevy = async (r: Replica) =>
        (
          (await on(r).api.get('/policy/taxes', { token: o.tokens.staff })).body.data as {
            code: string;
            name: string;
          }[]
        )[0];
      const levy = await firstLevy(replicas.web1);
      expect((await firstLevy(replicas.web2)).name).toBe(levy.name); // both now hold it in their caches
      await db.tenant(o.id, (tx) =>
        tx.levy.updateMany({ where: { code: levy.code }, data: { name: `${levy.name} (revised)` } }),
      );
      for (const r of [replicas.web1, replicas.web2])
        await waitFor(
          `${r.name} to list the revised levy`,
          () => firstLevy(r),
          (l) => l.name === `${levy.name} (revised)`,
          {
            ms: 5_000,
          },
        );
    });

    it('a key revoked through one web process ends its tokens at once on the other', async () => {
      const token = o.tokens.agent;
      for (const r of [replicas.web1, replicas.web2]) expect((await on(r).api.get('/me', { token })).status).toBe(200);
      const revoked = await on(replicas.web2).api.post(`/api-clients/${o.clients.agent.clientId}/revoke`, {
        token: o.tokens.admin,
        idempotencyKey: randomUUID(),
      });
      expect(revoked.status, revoked.text).toBe(200);
      for (const r of [replicas.web1, replicas.web2])
        expectProblem(await on(r).api.get('/me', { token }), 401, 'invalid_token');
    });
  });

  return {
    get db() {
      return db;
    },
    get cluster() {
      if (!cluster) throw new Error('no cluster: a direct deployment');
      return cluster;
    },
    replicas,
    redis,
    env: (role) => envFor(role, `http://127.0.0.1:${replicas.web1.port}`),
    async spawn(name, env) {
      const dataDir = await mkdtemp(path.join(tmpdir(), `bima-replica-${name}-`));
      dataDirs.push(dataDir);
      return spawnReplica({ name, port: await freePort(), dataDir, env });
    },
  };
}
