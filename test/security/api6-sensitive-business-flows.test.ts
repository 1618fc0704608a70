import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resolvePrompt } from '../../jobs/rails/mpesa-simulator.ts';
import { type Config, loadConfig } from '../../src/lib/config.ts';
import { expectProblem, useKit, type HttpResult } from '../kit.ts';

// OWASP API6:2023 Unrestricted Access to Sensitive Business Flows: the STK push puts a PIN prompt on a stranger's
// phone. A caller with the bind scope must not be able to bomb a phone with prompts, nor stack prompts for one
// account, by retrying, by going parallel, by switching transport or by batching aliases in one operation.

const PROD = loadConfig({ NODE_ENV: 'production' });
const STK: Partial<Config> = {
  stkPhoneLimit: PROD.stkPhoneLimit,
  stkPhoneWindowSeconds: PROD.stkPhoneWindowSeconds,
  stkAccountLimit: PROD.stkAccountLimit,
  stkAccountWindowSeconds: PROD.stkAccountWindowSeconds,
  stkPendingHoldSeconds: PROD.stkPendingHoldSeconds,
};

// The simulated customer never answers by themself here (an hour's delay): a prompt stays pending until the test
// answers it with resolvePrompt, so nothing depends on how fast the rail's job runs.
const t = useKit(
  { ...STK, bindRateLimit: 10_000, mpesaSimDelayMs: 3_600_000, mpesaReconcileAfterMs: 3_600_000 },
  { jobs: true },
);
const o = t.useOrg({ fast: true });

/** A phone number of nobody else's test (the simulator answers success for any number it does not list). */
const freshPhone = () => `2547${String(randomInt(20_000_000, 99_999_999))}`;
const promptsTo = (phone: string) => t.db.system((tx) => tx.mpesaSimPrompt.count({ where: { phone } }));
const requestsFor = (where: { phone?: string; account?: string }) =>
  t.db.tenant(o.org.id, (tx) => tx.paymentRequest.count({ where }));

/** The customer answers (declines) the prompt now; the callback is applied before this returns. */
async function answer(push: HttpResult): Promise<void> {
  expect(push.status, push.text).toBe(202);
  await resolvePrompt(t.app.services, push.body.data.checkout_request_id);
  const s = await o.status(push.body.data.checkout_request_id);
  expect(s.body.data.status).not.toBe('pending');
}

function expectThrottled(r: HttpResult, maxRetryAfter: number) {
  expectProblem(r, 429, 'rate_limited');
  const retryAfter = Number(r.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(maxRetryAfter);
}

describe('OWASP API6:2023 Unrestricted Access to Sensitive Business Flows (STK push prompts)', () => {
  it('documents its numbers: 3 prompts per phone per 10 minutes, 5 per account per hour, one pending for 2 minutes', () => {
    expect(STK).toEqual({
      stkPhoneLimit: 3,
      stkPhoneWindowSeconds: 600,
      stkAccountLimit: 5,
      stkAccountWindowSeconds: 3600,
      stkPendingHoldSeconds: 120,
    });
  });

  it('attack: prompt-bombing one phone across accounts: the 4th prompt in 10 minutes is 429 with Retry-After, and is not sent', async () => {
    const phone = freshPhone();
    const policies = [await o.bind(1), await o.bind(1), await o.bind(1), await o.bind(1)];
    // Refused requests are not prompts: neither a validation failure nor a push refused while one is pending spends
    // the phone's allowance.
    expectProblem(await o.push({ phone, amount: 1, account: 'MTR-1999-999999' }), 422, 'validation_failed');
    const first = await o.push({ phone, amount: 1, account: policies[0].policy_no });
    expectThrottled(await o.push({ phone, amount: 1, account: policies[1].policy_no }), PROD.stkPendingHoldSeconds);
    await answer(first);
    for (const p of policies.slice(1, 3)) await answer(await o.push({ phone, amount: 1, account: p.policy_no }));
    const fourth = await o.push({ phone, amount: 1, account: policies[3].policy_no });
    expectThrottled(fourth, PROD.stkPhoneWindowSeconds);
    expect(fourth.body.detail).toMatch(/phone/);
    expect(await promptsTo(phone)).toBe(3);
    expect(await requestsFor({ phone })).toBe(3);
    // Another API client of the organisation, on its own policy, gets no fresh allowance for the same phone.
    const agents = await o.bind(1, o.tokens.agent);
    expectThrottled(
      await o.push({ phone, amount: 1, account: agents.policy_no }, o.tokens.agent),
      PROD.stkPhoneWindowSeconds,
    );
  });

  it('attack: one account prompted from many phones (and spellings): the 6th prompt in an hour is 429', async () => {
    const bound = await o.bind(2);
    // The policy number, its whole-policy debit note and an instalment note are one account.
    const spellings = [bound.policy_no, bound.debit_note.number, bound.debit_note.instalments[0].number];
    for (let i = 0; i < 5; i++)
      await answer(await o.push({ phone: freshPhone(), amount: 1, account: spellings[i % 3] }));
    const phone = freshPhone();
    expectThrottled(
      await o.push({ phone, amount: 1, account: bound.debit_note.instalments[1].number }),
      PROD.stkAccountWindowSeconds,
    );
    expect(await promptsTo(phone)).toBe(0);
  });

  it('one pending prompt per phone and per account: another is 429 until the first is answered or its hold passes', async () => {
    const [a, b] = [await o.bind(1), await o.bind(1)];
    const [phone1, phone2] = [freshPhone(), freshPhone()];
    const first = await o.push({ phone: phone1, amount: 1, account: a.policy_no });
    expect(first.status, first.text).toBe(202);

    const samePhone = await o.push({ phone: phone1, amount: 1, account: b.policy_no });
    expectThrottled(samePhone, PROD.stkPendingHoldSeconds);
    expect(samePhone.body.detail).toMatch(/pending/);
    expectThrottled(
      await o.push({ phone: phone2, amount: 1, account: a.debit_note.number }),
      PROD.stkPendingHoldSeconds,
    );
    expect(await promptsTo(phone2)).toBe(0);

    await answer(first);
    const afterAnswer = await o.push({ phone: phone1, amount: 1, account: b.policy_no });
    expect(afterAnswer.status, afterAnswer.text).toBe(202);

    // A prompt whose callback never came stops blocking once the handset can no longer be showing it.
    const old = new Date(Date.now() - (PROD.stkPendingHoldSeconds + 1) * 1000);
    await t.db.tenant(o.org.id, (tx) =>
      tx.paymentRequest.updateMany({
        where: { checkoutRequestId: afterAnswer.body.data.checkout_request_id },
        data: { createdAt: old },
      }),
    );
    const afterHold = await o.push({ phone: phone2, amount: 1, account: b.policy_no });
    expect(afterHold.status, afterHold.text).toBe(202);
  });

  it('attack: the same prompt fired in parallel: exactly one is sent, the rest are 429', async () => {
    const bound = await o.bind(1);
    const phone = freshPhone();
    const samePhone = await Promise.all(
      Array.from({ length: 6 }, () => o.push({ phone, amount: 1, account: bound.policy_no })),
    );
    expect(samePhone.map((r) => r.status).sort()).toEqual([202, 429, 429, 429, 429, 429]);
    for (const r of samePhone.filter((x) => x.status === 429)) expectThrottled(r, PROD.stkPendingHoldSeconds);
    expect(await promptsTo(phone)).toBe(1);

    const other = await o.bind(1);
    const phones = Array.from({ length: 6 }, freshPhone);
    const sameAccount = await Promise.all(phones.map((p) => o.push({ phone: p, amount: 1, account: other.policy_no })));
    expect(sameAccount.map((r) => r.status).sort()).toEqual([202, 429, 429, 429, 429, 429]);
    expect(await requestsFor({ account: other.policy_no })).toBe(1);
  });

  it('GraphQL initiateStkPush obeys the same rules (the service enforces them once for both transports)', async () => {
    const bound = await o.bind(1);
    const phone = freshPhone();
    const mutation =
      'mutation($i: StkPushInput!) { initiateStkPush(input: $i) { __typename ... on StkPushAcknowledgement { checkoutRequestId } } }';
    const ok = await o.api.gql(
      mutation,
      { i: { phone, amount: 1, account: bound.policy_no } },
      { token: o.tokens.staff },
    );
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.initiateStkPush.__typename).toBe('StkPushAcknowledgement');
    const again = await o.api.gql(
      mutation,
      { i: { phone, amount: 1, account: bound.policy_no } },
      { token: o.tokens.staff },
    );
    expect(again.status).toBe(429);
    expect(again.body.errors?.map((e: any) => e.extensions?.code)).toEqual(['rate_limited']);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await promptsTo(phone)).toBe(1);
  });

  it('attack: 300 aliased initiateStkPush in one POST is refused before any prompt is sent', async () => {
    const bound = await o.bind(1);
    const phone = freshPhone();
    const fields = Array.from(
      { length: 300 },
      (_, i) =>
        `p${i}: initiateStkPush(input: { phone: "${phone}", amount: 1, account: "${bound.policy_no}" }) { __typename }`,
    );
    const r = await o.api.gql(`mutation { ${fields.join(' ')} }`, {}, { token: o.tokens.staff });
    expect(r.body.data ?? null).toBeNull();
    expect(r.body.errors?.map((e: any) => e.extensions?.code)).toEqual(['query_too_complex']);
    expect(await promptsTo(phone)).toBe(0);
    // Within the cap, each alias is a push under the same rules: the first goes out, the second is refused (and, the
    // field being non-null, GraphQL runs no further mutation of the operation).
    const few = Array.from(
      { length: 5 },
      (_, i) =>
        `p${i}: initiateStkPush(input: { phone: "${phone}", amount: 1, account: "${bound.policy_no}" }) { __typename }`,
    );
    const r2 = await o.api.gql(`mutation { ${few.join(' ')} }`, {}, { token: o.tokens.staff });
    expect(r2.body.errors?.map((e: any) => [e.extensions?.code, e.path])).toEqual([['rate_limited', ['p1']]]);
    expect(await promptsTo(phone)).toBe(1);
  });
});
