import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { INSTANT_RAIL, useKit } from './kit.ts';

/**
 * Twins of one STK push (docs/api-conventions.md "Idempotency-Key", docs/payments.md): retries sent at once with the
 * same Idempotency-Key prompt the phone once, make one payment request, and each answers the first answer byte for
 * byte. The key's lock and the look-up of an earlier push are one round trip (app_stk_push_lock_and_find), whose
 * look-up must see a twin's push committed while it waited on the lock: a look-up that read before the lock was
 * granted would miss it and answer 429 (the phone's prompt already pending) or fail on the key's uniqueness. Two
 * organisations side by side, each with its own twins.
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const orgs = t.useOrgs(2, { fast: true });

describe('STK push twins with one Idempotency-Key', () => {
  it('ten at once in each of two organisations: one request, one prompt, every answer the first byte for byte', async () => {
    const setups = await Promise.all(
      orgs.map(async (o) => {
        const bound = await o.pendingPolicy();
        return { o, bound, key: randomUUID() };
      }),
    );
    // The same key string in both organisations: keys are the API client's own.
    const key = setups[0].key;
    const answers = await Promise.all(
      setups.map(({ o, bound }) =>
        Promise.all(
          Array.from({ length: 10 }, () =>
            o.push({ phone: '0712345678', amount: 100, account: bound.policy_no }, o.tokens.staff, key),
          ),
        ),
      ),
    );
    for (const [i, { o }] of setups.entries()) {
      const mine = answers[i];
      expect(
        mine.map((r) => r.status),
        mine.map((r) => r.text).join('\n'),
      ).toEqual(Array(10).fill(202));
      expect(new Set(mine.map((r) => r.text)).size).toBe(1);
      expect(mine.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(9);
      const id: string = mine[0].body.data.id;
      const rows = await t.db.tenant(o.id, async (tx) => ({
        requests: await tx.paymentRequest.findMany({ where: { idempotencyKey: key } }),
        prompts: await tx.mpesaSimPrompt.count({ where: { checkoutRequestId: mine[0].body.data.checkout_request_id } }),
      }));
      expect(rows.requests.map((r) => [r.id, r.tenantId])).toEqual([[id, o.id]]);
      expect(rows.prompts).toBe(1);
    }
    expect(answers[0][0].body.data.id).not.toBe(answers[1][0].body.data.id);
  });
});
