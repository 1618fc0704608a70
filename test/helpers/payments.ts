import { randomUUID } from 'node:crypto';
import { type Client, createClient } from 'graphql-ws';
import { expect } from 'vitest';
import WebSocket from 'ws';
import { sha256Hex } from '../../src/lib/crypto.ts';
import { todayNairobi } from '../../src/lib/dates.ts';
import { deriveCallbackToken } from '../../src/modules/payments/callback-token.ts';
import { createTestTenant, type TestTenant } from '../factories/tenant.ts';
import type { TestApp } from './app.ts';
import { Api, type HttpResult } from './http.ts';

export const TODAY = todayNairobi();
const THIS_YEAR = Number(TODAY.slice(0, 4));

/** The simulator's documented test numbers (README "Simulated M-Pesa"). */
export const PHONES = {
  success: '254708374149',
  cancelled: '254700000001',
  timeout: '254700000002',
  insufficient: '254700000003',
  wrongPin: '254700000004',
  noCallback: '254700000005',
} as const;

/** The one problem assertion (helpers/http.ts), re-exported for the payment tests that import it from here. */
export { expectProblem } from './http.ts';

let seq = 0;
const unique = () => `${process.pid % 100}${String((seq += 1)).padStart(3, '0')}`;

/** An organisation with tokens, able to bind a policy and collect for it. */
export class PayOrg {
  tokens = { staff: '', agent: '', readonly: '' };
  /** Scope admin (API clients, the M-Pesa callback token). */
  adminToken = '';
  constructor(
    readonly t: TestApp,
    readonly api: Api,
    readonly org: TestTenant,
  ) {}

  static async create(t: TestApp): Promise<PayOrg> {
    const api = new Api(t.origin);
    const org = await createTestTenant(t.db, {
      clientOverrides: { staff: { rateLimitPerMinute: 10_000 }, agent: { rateLimitPerMinute: 10_000 } },
    });
    const o = new PayOrg(t, api, org);
    o.tokens.staff = await api.token(org.clients.staff.clientId, org.clients.staff.secret);
    o.tokens.agent = await api.token(org.clients.agent.clientId, org.clients.agent.secret);
    o.tokens.readonly = await api.token(org.clients.readonly.clientId, org.clients.readonly.secret);
    o.adminToken = await api.token(org.clients.admin.clientId, org.clients.admin.secret);
    return o;
  }

  /** quote → bind (Simba, private comprehensive KES 1.5M) with `instalments` debit notes. */
  async bind(instalments: number, token = this.tokens.staff): Promise<any> {
    const insurer = await this.t.db.tenant(this.org.id, (tx) =>
      tx.insurer.findFirstOrThrow({ where: { name: 'Simba General' } }),
    );
    const yom = THIS_YEAR - 3;
    const q = await this.api.post('/motor/quote', {
      token,
      body: {
        class: 'Motor',
        coverage: 'Private',
        scope: 'Comprehensive',
        year: yom,
        value: 1_500_000,
        insurer_id: insurer.id,
      },
    });
    expect(q.status, q.text).toBe(200);
    const option = q.body.options[0];
    const n = unique();
    const r = await this.api.post('/motor/save', {
      token,
      idempotencyKey: randomUUID(),
      body: {
        client: { name: `Payer ${n} Otieno`, phone: `0711 ${n.padStart(6, '0')}`, idno: `55${n.padStart(6, '0')}` },
        policy: {
          start_date: TODAY,
          insurer_id: insurer.id,
          class: 'Motor',
          coverage: 'Private',
          scope: 'Comprehensive',
          cover_period: 'annual',
          premium: option.total,
          premium_instalments: instalments,
        },
        vehicles: [
          {
            regno: `KDE ${n.slice(-3)}${'ABCDEFGHJK'[seq % 10]}`,
            chassis_no: `NZE141-${n}`,
            make: 'Toyota',
            model: 'Axio',
            yom,
            value: 1_500_000,
          },
        ],
      },
    });
    expect(r.status, r.text).toBe(201);
    return r.body;
  }

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
      await new Promise((res) => setTimeout(res, busy ? 1_000 : 100));
    }
  }

  /** Waits until the rail's callback has been recorded and processed for this checkout id. */
  async callbackProcessed(checkoutRequestId: string, count = 1, ms = 20_000) {
    const deadline = Date.now() + ms;
    for (;;) {
      const rows = await this.t.db.tenant(this.org.id, (tx) =>
        tx.mpesaCallback.findMany({ where: { checkoutRequestId }, orderBy: { id: 'asc' } }),
      );
      if ((rows.length >= count && rows.every((r) => r.processedAt)) || Date.now() > deadline) return rows;
      await new Promise((res) => setTimeout(res, 100));
    }
  }

  /**
   * The callback URL the service gave the rail for this prompt (it carries the organisation's callback token). Stored
   * nowhere in the clear: derived here from the channel's generation, then checked against the simulator's hash.
   */
  async callbackUrlOf(checkoutRequestId: string): Promise<string> {
    const p = await this.t.db.system((tx) => tx.mpesaSimPrompt.findUniqueOrThrow({ where: { checkoutRequestId } }));
    const ch = await this.t.db.system((tx) => tx.mpesaChannel.findUniqueOrThrow({ where: { tenantId: this.org.id } }));
    for (const generation of [ch.generation, ch.generation - 1]) {
      const url = `${this.t.origin}/api/v1/payment/callback/mpesa/${deriveCallbackToken(this.t.app.services.config, this.org.id, generation)}`;
      if (sha256Hex(url) === p.callbackUrlHash) return url;
    }
    throw new Error("the prompt's callback URL is not one of the organisation's two latest");
  }
}

/** A graphql-ws subscription whose payloads are recorded for the test to wait on. */
export class Live<T = any> {
  readonly events: T[] = [];
  readonly errors: unknown[] = [];
  constructor(client: Client, query: string, field: string) {
    client.subscribe<Record<string, T>>(
      { query },
      {
        next: (r) => {
          if (r.errors) this.errors.push(...r.errors);
          if (r.data?.[field]) this.events.push(r.data[field]);
        },
        error: (e) => this.errors.push(e),
        complete: () => undefined,
      },
    );
  }

  async until(cond: () => boolean, ms = 15_000): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > deadline) return false;
      await new Promise((res) => setTimeout(res, 50));
    }
    return true;
  }
}

export function wsClient(origin: string, token: string, headers: Record<string, string> = {}): Client {
  return createClient({
    url: `${origin.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { Authorization: `Bearer ${token}`, ...headers },
    retryAttempts: 0,
    lazy: true,
  });
}
