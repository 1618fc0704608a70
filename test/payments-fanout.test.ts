import { randomUUID } from 'node:crypto';
import type { Client } from 'graphql-ws';
import { afterAll, expect, it } from 'vitest';
import { INSTANT_RAIL, Live, useKit, wsClient } from './kit.ts';

// Server A runs the jobs (rail, callbacks, dispatch); server B only holds the WebSocket. Payment events reach B's
// subscribers only through PostgreSQL LISTEN/NOTIFY, never through an in-process emitter.
const a = useKit(INSTANT_RAIL, { jobs: true });
const b = useKit({}, { sharing: a });
const o = a.useOrg({ fast: true });
const clients: Client[] = [];
afterAll(() => Promise.all(clients.map(async (c) => c.dispose())));

it('paymentReceived and policyActivated reach a WebSocket held by a second server process', async () => {
  // An admin key (scope read and admin, a staff actor): it hears the payment events and the audit trail that primes the socket.
  const ws = wsClient(b.origin, await o.api.token(o.org.clients.admin.clientId, o.org.clients.admin.secret));
  clients.push(ws);
  const paid = new Live(ws, 'subscription { paymentReceived { policyNo receiptNo } }', 'paymentReceived');
  const activated = new Live(ws, 'subscription { policyActivated { policyNo } }', 'policyActivated');
  // graphql-ws does not acknowledge a subscription: prove the socket live with a write made through server A.
  const audit = new Live(ws, 'subscription { auditLogged { action } }', 'auditLogged');
  for (let i = 0; i < 20 && audit.events.length === 0; i++) {
    await o.api.post('/clients', {
      token: o.tokens.staff,
      idempotencyKey: randomUUID(),
      body: { name: `Fanout ${randomUUID().slice(0, 6)} Wanjiru`, phone: `07230${String(i).padStart(5, '0')}` },
    });
    await audit.until(() => audit.events.length > 0, 500);
  }
  expect(audit.events.length).toBeGreaterThan(0);

  const bound = await o.bind(1);
  const push = await o.push({
    phone: '0708 374 149',
    amount: Math.ceil(bound.debit_note.instalments[0].amount_minor / 100),
    account: bound.policy_no,
  });
  expect(push.status, push.text).toBe(202);

  expect(await paid.until(() => paid.events.some((e) => e.policyNo === bound.policy_no))).toBe(true);
  expect(await activated.until(() => activated.events.some((e) => e.policyNo === bound.policy_no))).toBe(true);
  expect(paid.errors).toEqual([]);
  expect(activated.errors).toEqual([]);
});
