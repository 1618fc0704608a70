import { createHash, randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { now } from '../src/lib/clock.ts';
import { expectProblem, INSTANT_RAIL, TODAY, useKit, withClock } from './kit.ts';
import { ipfPolicy } from './kit/ipf.ts';
import {
  applicationBody,
  command,
  decidedApplication,
  holderOf,
  lastSigningCode,
  readApplication,
  signingCode,
} from './kit/ipf-application.ts';

/**
 * Signing an approved application (docs/premium-finance.md "Premium finance: signing"): the agreement rendered and hashed, the code
 * sent by SMS to the client's phone (OTP rules: 6 digits, 5 minutes, 5 attempts, 60 s cool-down), every refusal on
 * errors.otp, and the loan the signature creates; REST and GraphQL side by side.
 */

const t = useKit(INSTANT_RAIL, { jobs: true });
const o = t.useOrg({ fast: true });

let approved: any;
beforeEach(async () => {
  approved = await decidedApplication(o, await ipfPolicy(o));
  expect(approved.status).toBe('approved');
});

const sign = (uuid: string, code: unknown) => command(o, uuid, 'sign', { code });
const stored = (uuid: string) => t.db.tenant(o.id, (tx) => tx.ipfApplication.findUniqueOrThrow({ where: { uuid } }));

function expectOtp(r: Awaited<ReturnType<typeof sign>>, message: RegExp) {
  expectProblem(r, 422, 'validation_failed', 'otp');
  expect(r.body.errors[0].message).toMatch(message);
}

describe('the agreement and the signing code', () => {
  it('previews the agreement once approved, stores it with its hash when the code goes out, by SMS to the client', async () => {
    const preview = await o.as('staff').get(`/ipf/applications/${approved.uuid}/agreement`);
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.data).toMatchObject({ final: false, status: 'approved' });
    const { sent, phone } = await signingCode(o, approved);
    expect(sent).toMatchObject({ expires_in_seconds: 300, resend_after_seconds: 60 });
    expect(sent.sent_to).toMatch(/^2547\d\*+\d{3}$/);
    expect(sent.sent_to).not.toBe(phone);
    const r = await o.as('staff').get(`/ipf/applications/${approved.uuid}/agreement`);
    const agreement = r.body.data;
    expect(agreement).toMatchObject({ final: true, sha256: sent.agreement_sha256 });
    expect(createHash('sha256').update(agreement.text, 'utf8').digest('hex')).toBe(agreement.sha256);
    // The same facts on the same day render the same bytes.
    expect(preview.body.data.sha256).toBe(agreement.sha256);
    for (const fact of [
      approved.application_no,
      approved.policy.policy_no,
      approved.client.name,
      'Mkopo Premium Finance',
      `Date: ${TODAY}`,
      'Annual percentage rate (flat rate annualised): 6.60 %',
      ...approved.schedule.map((l: any) => l.due_on),
      'Consent recorded:',
    ])
      expect(agreement.text).toContain(fact);
    // KYC partly shown in the agreement too: never the whole ID number.
    const holder = await holderOf(o, approved.client);
    expect(agreement.text).not.toContain(holder.idNo);
    const sms = await t.db.tenant(o.id, (tx) =>
      tx.smsMessage.findFirst({
        where: { purpose: 'ipf_sign' },
        orderBy: { id: 'desc' },
        include: { recipients: true },
      }),
    );
    expect(sms?.recipients.map((x) => x.phone)).toEqual([holder.phone]);
    expect(sms?.body).toContain(approved.application_no);
    // The code is kept only as an HMAC.
    const row = await stored(approved.uuid);
    expect(row.signingCodeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.signingCodeHash).not.toContain(await lastSigningCode(o, phone));
    const read = await readApplication(o, approved.uuid);
    expect(read.signing).toMatchObject({ phone: sent.sent_to, attempts_left: 5 });
  });

  it('holds a cool-down of 60 s per application (422 on otp with Retry-After); then a new code replaces the old', async () => {
    const first = await signingCode(o, approved);
    const again = await command(o, approved.uuid, 'signing-code');
    expectOtp(again, /moments ago/);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    const later = new Date(now().getTime() + 61_000);
    await withClock(later, async () => {
      const second = await signingCode(o, approved);
      expect(second.sent.agreement_sha256).toBe(first.sent.agreement_sha256);
      if (second.code !== first.code) expectOtp(await sign(approved.uuid, first.code), /wrong code/);
    });
  });
  it('sends at most five codes per phone per hour (422 on otp with Retry-After)', async () => {
    const start = now().getTime();
    for (let i = 0; i < 5; i += 1)
      await withClock(new Date(start + i * 61_000), async () => {
        await signingCode(o, approved);
      });
    await withClock(new Date(start + 5 * 61_000), async () => {
      const sixth = await command(o, approved.uuid, 'signing-code');
      expectOtp(sixth, /at most 5 codes per phone per hour/);
      expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
    });
  });
});

describe('signing with the code', () => {
  it('signs: approved → signed, the loan created with its schedule from today summing to the total', async () => {
    const { code } = await signingCode(o, approved);
    const r = await sign(approved.uuid, code);
    expect(r.status, r.text).toBe(200);
    const a = r.body.data;
    expect(a).toMatchObject({ status: 'signed', signing: { attempts_left: null } });
    expect(a.loan).toMatchObject({ loan_no: expect.stringMatching(/^IPF-2026-\d{6}$/), status: 'awaiting_deposit' });
    expect(a.history.at(-1)).toMatchObject({ from: 'approved', to: 'signed', by: 'client' });
    const loan = await t.db.tenant(o.id, (tx) =>
      tx.ipfLoan.findUniqueOrThrow({
        where: { uuid: a.loan.uuid },
        include: { instalments: { orderBy: { seq: 'asc' } } },
      }),
    );
    expect(loan.instalments).toHaveLength(4);
    expect(loan.instalments.reduce((s, i) => s + i.amountMinor, 0n)).toBe(loan.totalRepayableMinor);
    expect(loan.totalRepayableMinor).toBe(BigInt(a.total_repayable_minor));
    expect(loan.principalMinor).toBe(BigInt(a.premium_minor));
    expect(loan.instalments[0].dueOn.toISOString().slice(0, 10)).toBe(TODAY);
    expect(loan.instalments.map((i) => Number(i.amountMinor))).toEqual(a.schedule.map((l: any) => l.amount_minor));
    // The code is spent: a second signature is a move the machine refuses.
    expectProblem(await sign(approved.uuid, code), 409, 'invalid_state');
  });

  it('refuses a wrong code and counts the attempt (committed with the refusal); five spend the code', async () => {
    const { code } = await signingCode(o, approved);
    const wrong = code === '000000' ? '111111' : '000000';
    expectOtp(await sign(approved.uuid, wrong), /wrong code; 4 attempt\(s\) left/);
    expect((await stored(approved.uuid)).signingAttempts).toBe(1);
    for (let i = 0; i < 4; i += 1) await sign(approved.uuid, wrong);
    expectOtp(await sign(approved.uuid, code), /too many wrong attempts/);
    expect((await readApplication(o, approved.uuid)).status).toBe('approved');
    expectOtp(await sign(approved.uuid, '12ab'), /6 digits/);
    expect((await stored(approved.uuid)).signingAttempts).toBe(5);
  });

  it('refuses an expired code, and one never requested', async () => {
    expectOtp(await sign(approved.uuid, '123456'), /no signing code was requested/);
    const { code } = await signingCode(o, approved);
    await t.db.tenant(o.id, (tx) =>
      tx.ipfApplication.update({
        where: { uuid: approved.uuid },
        data: { signingCodeExpires: new Date(now().getTime() - 1000) },
      }),
    );
    expectOtp(await sign(approved.uuid, code), /expired/);
  });

  it('refuses when the agreement changed after the code was sent (the client renamed), and after midnight', async () => {
    const { code } = await signingCode(o, approved);
    const holder = await holderOf(o, approved.client);
    await t.db.tenant(o.id, (tx) =>
      tx.client.update({ where: { id: holder.id }, data: { name: `${holder.name} Jr` } }),
    );
    expectOtp(await sign(approved.uuid, code), /agreement changed/);
    await t.db.tenant(o.id, (tx) => tx.client.update({ where: { id: holder.id }, data: { name: holder.name } }));
    // The code was withdrawn with the refusal: the same code no longer signs even once the facts are back.
    expectOtp(await sign(approved.uuid, code), /no signing code was requested/);

    const late = await decidedApplication(o, await ipfPolicy(o));
    await withClock('2026-06-15T20:58:00Z', async () => {
      const c = await signingCode(o, late);
      await withClock('2026-06-15T21:00:30Z', async () =>
        expectOtp(await sign(late.uuid, c.code), /agreement changed/),
      );
    });
  });

  it('replays a signature with the same Idempotency-Key', async () => {
    const { code } = await signingCode(o, approved);
    const key = randomUUID();
    const call = () =>
      o.api.post(`/ipf/applications/${approved.uuid}/sign`, {
        token: o.tokens.staff,
        body: { code },
        idempotencyKey: key,
      });
    const first = await call();
    expect(first.status, first.text).toBe(200);
    const replay = await call();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
  });
});

describe('GraphQL', () => {
  const FIELDS = `uuid applicationNo status tenorMonths premium { amount amountMinor } charge { amountMinor }
    totalRepayable { amountMinor } deposit { amountMinor } aprBps schedule { seq dueOn amount { amountMinor } }
    kyc { idNumber kraPin incomeBand } decisionReasons { code } lenderName agreementSha256
    loan { loanNo status } history { from to actor }`;

  it('creates, submits, sends the code, signs and cancels with typed failures; the records match REST', async () => {
    const pol = await ipfPolicy(o);
    const b = await applicationBody(o, pol);
    const created = await o.as('staff').gql(
      `mutation($i: CreateIpfApplicationInput!) { createIpfApplication(input: $i) {
        __typename ... on IpfApplication { ${FIELDS} } ... on ValidationProblem { code fieldErrors { field } } } }`,
      {
        i: {
          policyUuid: pol.uuid,
          lenderId: b.lender_id,
          tenorMonths: 4,
          idNumber: b.id_number,
          kraPin: b.kra_pin,
          incomeBand: b.income_band,
          consent: true,
        },
      },
    );
    const a = created.body.data.createIpfApplication;
    expect(a).toMatchObject({ __typename: 'IpfApplication', status: 'draft', lenderName: 'Mkopo Premium Finance' });
    const rest = await readApplication(o, a.uuid);
    expect(a.premium).toEqual({ amount: rest.premium, amountMinor: rest.premium_minor });
    expect(a.totalRepayable.amountMinor).toBe(rest.total_repayable_minor);
    expect(a.schedule.map((l: any) => l.amount.amountMinor)).toEqual(rest.schedule.map((l: any) => l.amount_minor));
    expect(a.kyc).toEqual({ idNumber: rest.kyc.id_number, kraPin: rest.kyc.kra_pin, incomeBand: '100k_250k' });

    const submitted = await o.as('staff').gql(
      `mutation($i: SubmitIpfApplicationInput!) { submitIpfApplication(input: $i) {
        __typename ... on IpfApplication { status } ... on InvalidStateProblem { code allowed } } }`,
      { i: { uuid: a.uuid } },
    );
    expect(submitted.body.data.submitIpfApplication).toEqual({ __typename: 'IpfApplication', status: 'submitted' });

    const code = await o.as('staff').gql(
      `mutation($i: RequestIpfSigningCodeInput!) { requestIpfSigningCode(input: $i) {
        __typename ... on RequestIpfSigningCodePayload { sentTo expiresInSeconds agreementSha256 application { status } }
        ... on InvalidStateProblem { code allowed } } }`,
      { i: { uuid: approved.uuid } },
    );
    const payload = code.body.data.requestIpfSigningCode;
    expect(payload).toMatchObject({ __typename: 'RequestIpfSigningCodePayload', expiresInSeconds: 300 });
    const SIGN = `mutation($i: SignIpfApplicationInput!) { signIpfApplication(input: $i) {
      __typename ... on IpfApplication { ${FIELDS} } ... on ValidationProblem { code fieldErrors { field message } }
      ... on InvalidStateProblem { code allowed } } }`;
    const holder = await holderOf(o, approved.client);
    const sent = await lastSigningCode(o, holder.phone);
    const wrong = await o
      .as('staff')
      .gql(SIGN, { i: { uuid: approved.uuid, code: sent === '000000' ? '111111' : '000000' } });
    expect(wrong.body.data.signIpfApplication).toMatchObject({
      __typename: 'ValidationProblem',
      code: 'validation_failed',
      fieldErrors: [{ field: 'otp' }],
    });
    const signed = await o.as('staff').gql(SIGN, { i: { uuid: approved.uuid, code: sent } });
    const s = signed.body.data.signIpfApplication;
    expect(s).toMatchObject({
      __typename: 'IpfApplication',
      status: 'signed',
      agreementSha256: payload.agreementSha256,
    });
    expect(s.loan).toMatchObject({
      status: 'awaiting_deposit',
      loanNo: (await readApplication(o, s.uuid)).loan.loan_no,
    });

    const CANCEL = `mutation($i: CancelIpfApplicationInput!) { cancelIpfApplication(input: $i) {
      __typename ... on IpfApplication { status closedReason } ... on InvalidStateProblem { code allowed }
      ... on ValidationProblem { fieldErrors { field } } } }`;
    const cancelled = await o.as('staff').gql(CANCEL, { i: { uuid: s.uuid, reason: 'client found cash' } });
    expect(cancelled.body.data.cancelIpfApplication).toEqual({
      __typename: 'IpfApplication',
      status: 'cancelled',
      closedReason: 'client found cash',
    });
    const again = await o.as('staff').gql(CANCEL, { i: { uuid: s.uuid, reason: 'again' } });
    expect(again.body.data.cancelIpfApplication).toEqual({
      __typename: 'InvalidStateProblem',
      code: 'invalid_state',
      allowed: [],
    });

    const list = await o
      .as('staff')
      .gql(`query($p: String) { ipfApplications(policyUuid: $p, first: 5) { edges { node { uuid status } } } }`, {
        p: pol.uuid,
      });
    expect(list.body.data.ipfApplications.edges.map((e: any) => e.node.uuid)).toEqual([a.uuid]);
  });
});
