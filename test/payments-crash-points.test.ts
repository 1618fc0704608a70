import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultPoint } from '../src/lib/faults.ts';
import { Child, pushUntilAnswered } from './helpers/service-child.ts';
import { Api, type HttpResult, PHONES, useDatabase, waitFor } from './kit.ts';

// Issue 26, item 4: the service is killed (SIGKILL, by FAULT_POINTS) at every step of a payment between the intent
// and the acknowledgement of its callback, restarted on the same data and port, and the customer retries with the
// same key. Each payment ends receipted exactly once to its own request (or failed, the customer not charged), the
// rail's ids reach the request, nothing is filed as unmatched money, and every retry is the first answer, byte for
// byte. The rail's own timings are the service's defaults (MPESA_SIM_DELAY_MS 3 s, MPESA_RAIL_TIMEOUT_MS 15 s,
// MPESA_RECONCILE_AFTER_MS 30 s); only the prompt's TTL is shortened (180 → 30 s) so a never-sent push fails in time.

const REAL_TIMING = {
  MPESA_SIM_DELAY_MS: '3000',
  MPESA_RAIL_TIMEOUT_MS: '15000',
  MPESA_RECONCILE_AFTER_MS: '30000',
  MPESA_PROMPT_TTL_SECONDS: '30',
  PAYMENTS_SWEEP_SECONDS: '5',
};

/** Each step, in order, and whether the customer is charged when the process dies there. */
const POINTS: { point: FaultPoint; answered: boolean; charged: boolean }[] = [
  { point: 'stk.after-intent', answered: false, charged: false },
  { point: 'mpesa-sim.after-prompt-stored', answered: false, charged: true },
  { point: 'stk.after-rail-call', answered: false, charged: true },
  { point: 'stk.after-ack', answered: false, charged: true },
  { point: 'callback.before-store', answered: true, charged: true },
  { point: 'callback.after-store', answered: true, charged: true },
];

describe('a payment killed at every step between intent and acknowledgement', () => {
  const database = useDatabase({ poolSize: 4 });
  const org = database.useOrg({ clientOverrides: { staff: { rateLimitPerMinute: 1_000_000 } } });
  let dataDir: string;
  const children: Child[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'bima-crash-points-'));
  });
  afterAll(async () => {
    for (const c of children) await c.kill().catch(() => undefined);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it.each(POINTS)(
    'killed at $point, restarted, retried with the same key',
    async ({ point, answered, charged }) => {
      const db = database.db;
      const child = new Child(database.url, dataDir);
      children.push(child);
      await child.start({ ...REAL_TIMING, FAULT_POINTS: point });
      let staff = await new Api(child.origin).token(org.clients.staff.clientId, org.clients.staff.secret);
      const bound = await org.through(child.origin, { staff }).pendingPolicy();
      const key = randomUUID();
      const body = {
        phone: PHONES.success,
        amount: Math.ceil(bound.premium.total_minor / 100),
        account: bound.policy_no,
      };

      const first: HttpResult | Error = await new Api(child.origin)
        .post('/payment/stk/push', { token: staff, body, idempotencyKey: key })
        .catch((e) => e as Error);
      if (answered) {
        expect(first instanceof Error ? first.message : first.status).toBe(202);
        expect((first as HttpResult).status, (first as HttpResult).text).toBe(202);
      } else expect(first).toBeInstanceOf(Error);
      // The process dies at the point: inside the push, or when the customer's callback reaches it.
      const exit = await Promise.race([child.s.exited, new Promise((r) => setTimeout(() => r(null), 30_000))]);
      expect(exit, child.s.output().slice(-2000)).toMatchObject({ signal: 'SIGKILL' });

      await child.start(REAL_TIMING);
      staff = await new Api(child.origin).token(org.clients.staff.clientId, org.clients.staff.secret);
      const retry = await pushUntilAnswered(
        () => child.origin,
        () => staff,
        body,
        key,
        Date.now() + 120_000,
      );
      expect(retry.status, retry.text).toBe(202);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      // The first answer, when the customer heard one, is what the retry repeats.
      if (answered) expect(retry.text).toBe((first as HttpResult).text);
      const id = retry.body.data.id as string;

      const pr = await waitFor(
        `payment request ${id} to be final`,
        () => db.tenant(org.id, (tx) => tx.paymentRequest.findUniqueOrThrow({ where: { id } })),
        (r) => r.status === 'succeeded' || r.status === 'failed',
        { ms: 120_000, every: 250 },
      );
      const prompts = await db.system((tx) =>
        tx.mpesaSimPrompt.findMany({
          where: { accountReference: pr.accountReference, amount: body.amount, createdAt: { gte: pr.createdAt } },
        }),
      );
      const receipts = await db.tenant(org.id, (tx) => tx.receipt.findMany({ where: { paymentRequestId: id } }));
      if (!charged) {
        expect(pr.status).toBe('failed');
        expect(prompts).toEqual([]);
        expect(receipts).toEqual([]);
        // Answered once it failed, as the OpenAPI document and payments.md say: the rail never acknowledged it, so no ids.
        expect(retry.body.data).toMatchObject({
          status: 'failed',
          merchant_request_id: null,
          checkout_request_id: null,
          response_code: null,
        });
      } else {
        // One prompt, paid once, receipted once to this request; its callback reached the restarted service.
        expect(pr.status).toBe('succeeded');
        expect(prompts).toHaveLength(1);
        expect(prompts[0].resultCode).toBe(0);
        expect(receipts.map((r) => r.transactionRef)).toEqual([prompts[0].receiptNo]);
        const called = await waitFor(
          'the rail to call back',
          () =>
            db.system((tx) =>
              tx.mpesaSimPrompt.findUniqueOrThrow({ where: { checkoutRequestId: prompts[0].checkoutRequestId } }),
            ),
          (p) => p.callbackStatus === 200,
          { ms: 60_000, every: 250 },
        );
        expect(called.callbackStatus).toBe(200);
        const withIds = await waitFor(
          "the rail's ids on the request",
          () => db.tenant(org.id, (tx) => tx.paymentRequest.findUniqueOrThrow({ where: { id } })),
          (r) => r.checkoutRequestId != null,
          { ms: 30_000, every: 250 },
        );
        expect(withIds.checkoutRequestId).toBe(prompts[0].checkoutRequestId);
        expect(
          await db.tenant(org.id, (tx) =>
            tx.unmatchedPayment.count({ where: { transactionRef: prompts[0].receiptNo! } }),
          ),
        ).toBe(0);
      }
      // Another retry, now that everything is final: the same bytes again.
      const again = await new Api(child.origin).post('/payment/stk/push', { token: staff, body, idempotencyKey: key });
      expect(again.status).toBe(202);
      expect(again.text).toBe(retry.text);
      await child.kill();
    },
    300_000,
  );
});
