import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLAIM_RULES } from '../src/modules/claims/claim-state.ts';
import { motorNotice } from './kit/approved-claim.ts';
import { expectProblem, INSTANT_RAIL, useKit, withClock, type Active } from './kit.ts';

/**
 * The reopen window (docs/claims.md "Claims"): a closed claim reopens (closed → under_assessment) within
 * CLAIM_RULES.reopenDays of closing, judged on the service clock, so moving the test clock moves the window.
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const o = t.useOrg({ fast: true });

const post = (path: string, body: unknown) =>
  o.api.post(path, { token: o.tokens.staff, body, idempotencyKey: randomUUID() });
const DAY = 86_400_000;

let pol: Active;
beforeAll(async () => {
  pol = await o.activePolicy();
}, 120_000);

/** Registered → documents (marked received) → underwriter → repudiated → closed; the claim and when it closed. */
async function closedClaim(): Promise<{ uuid: string; closedAt: number }> {
  const reg = await post('/claims', motorNotice(pol));
  expect(reg.status, reg.text).toBe(201);
  const uuid: string = reg.body.data.uuid;
  expect((await post(`/claims/${uuid}/transitions`, { to: 'documents_pending' })).status).toBe(200);
  // The checklist's own API is tested in claim-documents.test.ts.
  await t.db.tenant(o.id, (tx) =>
    tx.claimDocument.updateMany({ where: { claim: { uuid } }, data: { status: 'received' } }),
  );
  expect((await post(`/claims/${uuid}/transitions`, { to: 'with_underwriter' })).status).toBe(200);
  const rep = await post(`/claims/${uuid}/repudiate`, { reason: 'not_covered' });
  expect(rep.status, rep.text).toBe(200);
  const closed = await post(`/claims/${uuid}/transitions`, { to: 'closed', reason: 'Repudiation accepted' });
  expect(closed.status, closed.text).toBe(200);
  const read = await o.api.get(`/claims/${uuid}`, { token: o.tokens.staff });
  expect(read.body.data).toMatchObject({ status: 'closed', closed_at: expect.any(String) });
  return { uuid, closedAt: Date.parse(read.body.data.closed_at) };
}

describe('reopening a closed claim', () => {
  it(`is refused after CLAIM_RULES.reopenDays (${CLAIM_RULES.reopenDays}) days of closing, on the service clock`, async () => {
    const c = await closedClaim();
    const late = new Date(c.closedAt + CLAIM_RULES.reopenDays * DAY + 60_000);
    const refused = await withClock(late, () => post(`/claims/${c.uuid}/reopen`, { reason: 'New evidence, too late' }));
    expectProblem(refused, 409, 'invalid_state');
    expect(refused.body.detail).toContain(`within ${CLAIM_RULES.reopenDays} days of closing`);
    const still = await o.api.get(`/claims/${c.uuid}`, { token: o.tokens.staff });
    expect(still.body.data.status).toBe('closed');
    expect(still.body.data.history.at(-1)).toMatchObject({ from: 'repudiated', to: 'closed' });
  });

  it('is allowed on the last day of the window', async () => {
    const c = await closedClaim();
    const lastDay = new Date(c.closedAt + CLAIM_RULES.reopenDays * DAY - 60_000);
    const r = await withClock(lastDay, () => post(`/claims/${c.uuid}/reopen`, { reason: 'Appeal with new evidence' }));
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.status).toBe('under_assessment');
  });
});
