import { randomUUID } from 'node:crypto';
import type { RunningApp } from '../../src/app.ts';
import type { Database } from '../../src/db/client.ts';
import { sha256Hex } from '../../src/lib/crypto.ts';
import { deriveCallbackToken } from '../../src/modules/payments/callback-token.ts';
import { createTestTenant, type TestTenant } from '../factories/tenant.ts';
import { Api, type CallOptions, type HttpResult } from '../helpers/http.ts';
import * as build from './policies.ts';

export const ROLES = ['staff', 'agent', 'readonly', 'admin'] as const;
/** The four API clients every test organisation has (factories/tenant.ts), by the scopes they carry. */
export type Role = (typeof ROLES)[number];

/** What an organisation's calls go to: the kit's app, or any server on the same database (a child process). */
export interface OrgHost {
  readonly db: Database;
  readonly origin: string;
  readonly app?: RunningApp;
}

export type OrgOptions = NonNullable<Parameters<typeof createTestTenant>[1]> & {
  /** The staff and agent keys at 10,000 calls a minute instead of 60 (files that bind and pay a lot). */
  fast?: boolean;
  /** The bearer tokens to fetch when the organisation is made (default all four). */
  tokens?: readonly Role[];
  /** The client the organisation's calls go through (default one on the host's origin). */
  api?: Api;
};

/** Calls bound to one token (and agent headers, when acting as an agent through a staff key). */
export class Caller {
  constructor(
    private readonly org: Org,
    private readonly role: Role,
    private readonly o: { agent?: 1 | 2; headers?: Record<string, string> } = {},
  ) {}

  /** Read per call: a Caller may be made before its organisation is. */
  get token(): string {
    return this.org.tokens[this.role];
  }
  get headers(): Record<string, string> | undefined {
    const agent = this.o.agent ? this.org.agentHeaders(this.o.agent) : undefined;
    return agent || this.o.headers ? { ...agent, ...this.o.headers } : undefined;
  }

  call<T = any>(method: string, path: string, o: Omit<CallOptions, 'token'> = {}): Promise<HttpResult<T>> {
    const headers = this.headers || o.headers ? { ...this.headers, ...o.headers } : undefined;
    return this.org.api.call<T>(method, path, { ...o, token: this.token, headers });
  }
  get<T = any>(path: string, o?: Omit<CallOptions, 'token'>) {
    return this.call<T>('GET', path, o);
  }
  post<T = any>(path: string, o?: Omit<CallOptions, 'token'>) {
    return this.call<T>('POST', path, o);
  }
  patch<T = any>(path: string, o?: Omit<CallOptions, 'token'>) {
    return this.call<T>('PATCH', path, o);
  }
  gql<T = any>(query: string, variables: Record<string, unknown> = {}) {
    return this.org.api.gql<T>(query, variables, { token: this.token, headers: this.headers });
  }
}

/**
 * A test organisation (the demo brokerage's shape under a unique code) with bearer tokens for its API clients, the
 * simulated M-Pesa rail's calls, and the state builders (policies.ts). Made by `kit.useOrg()` before the tests of its
 * scope run, or by `await kit.newOrg()` inside a test.
 */
export class Org {
  readonly api: Api;
  #tenant?: TestTenant;
  readonly #tokens: Partial<Record<Role, string>> = {};
  /** Bearer tokens by API client (only those fetched: OrgOptions.tokens). */
  readonly tokens: Record<Role, string>;

  constructor(
    readonly t: OrgHost,
    private readonly opts: OrgOptions = {},
  ) {
    this.api = opts.api ?? new Api(() => t.origin);
    const tokens = this.#tokens;
    const descriptors = Object.fromEntries(
      ROLES.map((role) => [
        role,
        {
          enumerable: true,
          get() {
            const token = tokens[role];
            if (token === undefined)
              throw new Error(`no ${role} token: the organisation is not made yet, or its tokens option left it out`);
            return token;
          },
        },
      ]),
    );
    this.tokens = Object.defineProperties({}, descriptors) as Record<Role, string>;
  }

  /** The same organisation through another server on its database (a child process), with that server's tokens. */
  through(origin: string, tokens: Partial<Record<Role, string>>): Org {
    const o = new Org({ db: this.t.db, origin });
    o.#tenant = this.org;
    Object.assign(o.#tokens, tokens);
    return o;
  }

  /** Creates the organisation and fetches its tokens; the kit calls this. */
  async make(): Promise<this> {
    const { fast, tokens = ROLES, api: _api, ...tenantOpts } = this.opts;
    const generous = fast ? { staff: { rateLimitPerMinute: 10_000 }, agent: { rateLimitPerMinute: 10_000 } } : {};
    this.#tenant = await createTestTenant(this.t.db, {
      ...tenantOpts,
      clientOverrides: { ...generous, ...tenantOpts.clientOverrides },
    });
    await this.fetchTokens(...tokens);
    return this;
  }

  /** Fetches (again) the bearer tokens of these API clients: a new token replaces the one held. */
  async fetchTokens(...roles: Role[]): Promise<void> {
    const c = this.org.clients;
    const fetched = await Promise.all(roles.map((role) => this.api.token(c[role].clientId, c[role].secret)));
    roles.forEach((role, i) => (this.#tokens[role] = fetched[i]));
  }

  /** The organisation's rows and plaintext secrets (factories/tenant.ts). */
  get org(): TestTenant {
    if (!this.#tenant) throw new Error('the organisation is not made yet: read it inside hooks and tests');
    return this.#tenant;
  }
  get id() {
    return this.org.id;
  }
  get code() {
    return this.org.code;
  }
  get users() {
    return this.org.users;
  }
  get clients() {
    return this.org.clients;
  }
  get agents() {
    return this.org.agents;
  }

  /** Calls as one API client; `agent` adds that agent's X-Agent-Code/X-Agent-Key (acting as them via a staff key). */
  as(role: Role, o: { agent?: 1 | 2; headers?: Record<string, string> } = {}): Caller {
    return new Caller(this, role, o);
  }

  agentHeaders(n: 1 | 2): Record<string, string> {
    const a = this.agents[n - 1];
    return { 'X-Agent-Code': a.code, 'X-Agent-Key': a.key };
  }

  // ---- the simulated M-Pesa rail --------------------------------------------------------------------------------

  push(body: Record<string, unknown>, token = this.tokens.staff, key: string = randomUUID()) {
    return this.api.post('/payment/stk/push', { token, body, idempotencyKey: key });
  }

  status(checkoutRequestId: string, token = this.tokens.staff) {
    return this.api.get(`/payment/stk/${encodeURIComponent(checkoutRequestId)}`, { token });
  }

  /**
   * Polls the status endpoint until the prompt leaves `pending` (or the deadline passes; the caller asserts). A 503
   * (the service shedding load, with Retry-After) is waited out as a client would.
   */
  async settled(checkoutRequestId: string, ms = 20_000): Promise<HttpResult> {
    const deadline = Date.now() + ms;
    for (;;) {
      const r = await this.status(checkoutRequestId);
      const busy = r.status === 503 && Date.now() < deadline;
      if (!busy && (r.status !== 200 || r.body.data.status !== 'pending' || Date.now() > deadline)) return r;
      await new Promise((res) => setTimeout(res, busy ? 1_000 : 25));
    }
  }

  /** Waits until `count` rail callbacks for this checkout are processed (or the deadline passes); returns them. */
  async callbackProcessed(checkoutRequestId: string, count = 1, ms = 20_000) {
    const deadline = Date.now() + ms;
    for (;;) {
      const rows = await this.t.db.tenant(this.id, (tx) =>
        tx.mpesaCallback.findMany({ where: { checkoutRequestId }, orderBy: { id: 'asc' } }),
      );
      if ((rows.length >= count && rows.every((r) => r.processedAt)) || Date.now() > deadline) return rows;
      await new Promise((res) => setTimeout(res, 25));
    }
  }

  /**
   * The callback URL the service gave the rail for this prompt (it carries the organisation's callback token). Stored
   * nowhere in the clear: derived here from the channel's generation, then checked against the simulator's hash.
   */
  async callbackUrlOf(checkoutRequestId: string): Promise<string> {
    const app = this.t.app;
    if (!app) throw new Error('callbackUrlOf needs an in-process app');
    const p = await this.t.db.system((tx) => tx.mpesaSimPrompt.findUniqueOrThrow({ where: { checkoutRequestId } }));
    const ch = await this.t.db.system((tx) => tx.mpesaChannel.findUniqueOrThrow({ where: { tenantId: this.id } }));
    for (const generation of [ch.generation, ch.generation - 1]) {
      const token = deriveCallbackToken(app.services.config, this.id, generation);
      const url = `${this.t.origin}/api/v1/payment/callback/mpesa/${token}`;
      if (sha256Hex(url) === p.callbackUrlHash) return url;
    }
    throw new Error("the prompt's callback URL is not one of the organisation's two latest");
  }

  // ---- state builders (policies.ts) -----------------------------------------------------------------------------

  /** The organisation's insurers' ids by name (read once). */
  insurers(): Promise<Map<string, number>> {
    return build.insurers(this);
  }
  /** The database id of one of the organisation's insurers, by name. */
  insurerId(name = 'Simba General'): Promise<number> {
    return build.insurerId(this, name);
  }
  /** Simba's quote option for a private car, comprehensive (KES 1.5M, three years old unless told). */
  quote(o?: build.RiskOptions): Promise<any> {
    return build.quote(this, o);
  }
  /** The body of a bind for a new client, priced by the server (what pendingPolicy posts), and the quote option. */
  bindBody(o?: build.BindOptions): Promise<{ body: Record<string, any>; option: any }> {
    return build.bindBody(this, o);
  }
  /** Quote → bind: a policy pending payment (the /motor/save answer, plus the vehicle's regno). */
  pendingPolicy(o?: build.BindOptions): Promise<build.Bound> {
    return build.pendingPolicy(this, o);
  }
  /** Shorthand of pendingPolicy({ instalments, token }). */
  bind(instalments = 1, token?: string): Promise<build.Bound> {
    return build.pendingPolicy(this, { instalments, token });
  }
  /** An STK push of `amountMinor` (rounded up to whole shillings) to `account`, waited for until applied. */
  pay(account: string, amountMinor: number | bigint, o?: build.PayOptions): Promise<string> {
    return build.pay(this, account, amountMinor, o);
  }
  /** Pays what is still open on the policy's instalments `nos`, in one push to the policy's account. */
  payInstalments(pol: { uuid: string; policy_no: string }, nos: number[]): Promise<string> {
    return build.payInstalments(this, pol, nos);
  }
  /** Bound, its first `paid` instalments paid through the rail, and active (with its `record`): one call. */
  activePolicy(o?: build.ActiveOptions): Promise<build.Active> {
    return build.activePolicy(this, o);
  }
  /** Previews then confirms a cancellation (insured_request by the insured, today, unless told); returns it. */
  cancel(uuid: string, body?: Record<string, unknown>, o?: build.AsOptions): Promise<any> {
    return build.cancel(this, uuid, body, o);
  }
  /** An active policy, then cancelled (`cancellation`: the request body's fields). */
  cancelledPolicy(o?: build.ActiveOptions & { cancellation?: Record<string, unknown> }) {
    return build.cancelledPolicy(this, o);
  }
  /** Previews then confirms an endorsement; returns the confirmed endorsement. */
  endorse(uuid: string, body: Record<string, unknown>, o?: build.AsOptions): Promise<any> {
    return build.endorse(this, uuid, body, o);
  }
  /** An active policy whose first certificate the registry has issued (needs the job runner). */
  certifiedPolicy(o?: build.ActiveOptions) {
    return build.certifiedPolicy(this, o);
  }
  /** GET /policies/{uuid}, asserted 200: the full record. */
  policy(uuid: string, token = this.tokens.staff): Promise<any> {
    return build.policyRecord(this, uuid, token);
  }
}
