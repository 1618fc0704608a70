import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/client.ts';
import {
  canTransition,
  IllegalPaymentTransition,
  PAYMENT_REQUEST_STATES,
  PAYMENT_REQUEST_TRANSITIONS,
  type PaymentRequestState,
  transitionPaymentRequest,
} from '../src/modules/payments/payment-request-state.ts';
import { useDatabase } from './kit.ts';

// The payment-request state machine (src/modules/payments/payment-request-state.ts): the table, and every transition on
// a real row, guarded by the current status.
const data = useDatabase();
const org = data.useOrg();
let db: Database;
beforeAll(() => (db = data.db));

async function requestIn(status: PaymentRequestState): Promise<string> {
  const id = randomUUID();
  await db.tenant(org.id, (tx) =>
    tx.paymentRequest.create({
      data: {
        id,
        tenantId: org.id,
        status,
        phone: '254708374149',
        amountMinor: 100n,
        account: 'X',
        purpose: 'premium',
      },
    }),
  );
  return id;
}

describe('payment request state machine', () => {
  it('the table: every allowed transition, nothing else; succeeded and failed are final', () => {
    const allowed = Object.entries(PAYMENT_REQUEST_TRANSITIONS).flatMap(([f, tos]) => tos.map((to) => `${f}>${to}`));
    expect(allowed.sort()).toEqual(
      ['sending>pending', 'sending>succeeded', 'sending>failed', 'pending>succeeded', 'pending>failed'].sort(),
    );
    for (const f of PAYMENT_REQUEST_STATES)
      for (const to of PAYMENT_REQUEST_STATES) expect(canTransition(f, to)).toBe(allowed.includes(`${f}>${to}`));
  });

  it('every pair on a row: allowed ones move it once, a racing second writer changes nothing, the rest are refused', async () => {
    for (const from of PAYMENT_REQUEST_STATES) {
      for (const to of PAYMENT_REQUEST_STATES) {
        const id = await requestIn(from);
        if (canTransition(from, to)) {
          expect(
            await db.tenant(org.id, (tx) =>
              transitionPaymentRequest(tx, id, from, to, { resultDesc: `${from}>${to}` }),
            ),
          ).toBe(true);
          const row = await db.tenant(org.id, (tx) => tx.paymentRequest.findUniqueOrThrow({ where: { id } }));
          expect([row.status, row.resultDesc]).toEqual([to, `${from}>${to}`]);
          // The same move again (a callback and the sweep racing): the row is no longer in `from`.
          expect(await db.tenant(org.id, (tx) => transitionPaymentRequest(tx, id, from, to))).toBe(false);
        } else {
          await expect(db.tenant(org.id, (tx) => transitionPaymentRequest(tx, id, from, to))).rejects.toBeInstanceOf(
            IllegalPaymentTransition,
          );
          expect((await db.tenant(org.id, (tx) => tx.paymentRequest.findUniqueOrThrow({ where: { id } }))).status).toBe(
            from,
          );
        }
      }
    }
  });
});
