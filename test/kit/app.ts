import { afterAll, beforeAll } from 'vitest';
import type { RunningApp } from '../../src/app.ts';
import { Database } from '../../src/db/client.ts';
import type { Config } from '../../src/lib/config.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { Api } from '../helpers/http.ts';
import { Org, type OrgHost, type OrgOptions } from './org.ts';

/**
 * The configuration of the files that bind and pay: no bind limit (it has its own tests), the simulated customer
 * answers at once, and reconciliation waits an hour, so every payment result comes by the rail's callback.
 */
export const INSTANT_RAIL = {
  bindRateLimit: 10_000,
  mpesaSimDelayMs: 0,
  mpesaReconcileAfterMs: 3_600_000,
} as const satisfies Partial<Config>;

export interface KitOptions {
  /** Run the job runner (rails, callbacks, certificates, webhooks) in this process (default false). */
  jobs?: boolean;
  /** Serve the database of another kit instead of a fresh clone (a second server on the same data). */
  sharing?: Kit;
  /** Write the server's log lines (every level, JSON) to this stream, for a test that reads them. */
  logTo?: NodeJS.WritableStream;
}

/**
 * The app fixture: a real server on a free port over its own database cloned from the migrated template, started
 * before the tests of the scope that called useKit() and stopped after them. It reads like a TestApp (db, origin,
 * app, …) once started; reading it earlier (at collection time) fails saying so.
 */
export class Kit implements TestApp {
  #t?: TestApp;
  /** A client for the server (its origin is read per call). */
  readonly api = new Api(() => this.started.origin);

  constructor(
    private readonly config: Partial<Config> = {},
    private readonly opts: KitOptions = {},
  ) {}

  private get started(): TestApp {
    if (!this.#t) throw new Error('the kit is not started: read it inside hooks and tests, not at collection time');
    return this.#t;
  }
  get app(): RunningApp {
    return this.started.app;
  }
  get origin(): string {
    return this.started.origin;
  }
  get base(): string {
    return this.started.base;
  }
  get databaseUrl(): string {
    return this.started.databaseUrl;
  }
  /** A second connection to the same database, for assertions (and the factories). */
  get db(): Database {
    return this.started.db;
  }

  /**
   * After a test changes through `db` what the server caches (a user, a key, a token, an organisation): resolves once
   * the server has heard the invalidation the database announced (src/db/caches.ts sync), as the service's own
   * writers do before answering.
   */
  heard(): Promise<void> {
    return this.app.services.caches.sync();
  }

  async start(): Promise<void> {
    this.#t = await startTestApp(this.config, {
      jobs: this.opts.jobs,
      databaseUrl: this.opts.sharing?.databaseUrl,
      logTo: this.opts.logTo,
    });
  }

  async stop(): Promise<void> {
    const t = this.#t;
    this.#t = undefined;
    await t?.stop();
  }

  /** An organisation with tokens, made before the tests of the calling scope (module or describe). */
  useOrg(opts: OrgOptions = {}): Org {
    const o = new Org(this, opts);
    beforeAll(() => o.make().then(() => undefined));
    return o;
  }

  /**
   * Organisations made side by side in one hook: `n` alike (`kit.useOrgs(2, opts)`), or one per options given
   * (`kit.useOrgs([a, b])`).
   */
  useOrgs(spec: number | OrgOptions[], opts: OrgOptions = {}): Org[] {
    const each = typeof spec === 'number' ? Array.from({ length: spec }, () => opts) : spec;
    const list = each.map((o) => new Org(this, o));
    beforeAll(() => Promise.all(list.map((o) => o.make())).then(() => undefined));
    return list;
  }

  /** An organisation made now (inside a test or hook). */
  newOrg(opts: OrgOptions = {}): Promise<Org> {
    return new Org(this, opts).make();
  }
}

/**
 * A database of its own (a clone of the migrated template) and no server, for tests of the data layer or of servers
 * the test runs itself. Its organisations have no tokens (there is no server to issue them).
 */
export class KitDatabase implements OrgHost {
  #clone?: { url: string; drop(): Promise<void> };
  #db?: Database;

  constructor(private readonly poolSize = 2) {}

  get db(): Database {
    if (!this.#db) throw new Error('the database is not made yet: read it inside hooks and tests');
    return this.#db;
  }
  get url(): string {
    return this.#clone!.url;
  }
  get origin(): string {
    throw new Error('useDatabase() runs no server');
  }

  async start(): Promise<void> {
    this.#clone = await createTestDatabase();
    this.#db = await Database.connect(this.#clone.url, { poolSize: this.poolSize });
  }

  async stop(): Promise<void> {
    await this.#db?.close();
    await this.#clone?.drop();
  }

  useOrg(opts: Omit<OrgOptions, 'tokens' | 'api'> = {}): Org {
    const o = new Org(this, { ...opts, tokens: [] });
    beforeAll(() => o.make().then(() => undefined));
    return o;
  }
}

/** Registers a database of its own (no server) on the calling scope, dropped after it. */
export function useDatabase(opts: { poolSize?: number } = {}): KitDatabase {
  const d = new KitDatabase(opts.poolSize);
  beforeAll(() => d.start());
  afterAll(() => d.stop());
  return d;
}

/**
 * Registers the app fixture on the calling scope: started in beforeAll, stopped in afterAll (after the scope's own
 * afterAll hooks, which run first).
 */
export function useKit(config: Partial<Config> = {}, opts: KitOptions = {}): Kit {
  const kit = new Kit(config, opts);
  beforeAll(() => kit.start());
  afterAll(() => kit.stop());
  return kit;
}
