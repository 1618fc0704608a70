import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  clientHeaders,
  expectProblem,
  INSTANT_RAIL,
  lastCode,
  msisdn,
  nextIp,
  pastCoolDown,
  requestCode,
  signIn,
  useKit,
  withClock,
  type Org,
} from './kit.ts';

const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const phoneOf = (org: Org, clientNo: string) =>
  org.t.db.tenant(org.id, (tx) => tx.client.findFirstOrThrow({ where: { clientNo } })).then((c) => c.phone);
/** A bound client (a pending policy) and its phone. */
async function boundClient(org: Org = o) {
  const pol = await org.pendingPolicy();
  return { pol, phone: await phoneOf(org, pol.client_no) };
}
const me = (org: Org, s: { client_no: string; client_key: string }) =>
  org.as('staff').get('/client-area/me', { headers: clientHeaders(s) });
/** Every refusal of a well-formed code reads the same (docs/client-area.md "Sign-in"). */
const REFUSED = 'wrong code, or no live code for these details; check it or request a new one';
const verify = (body: Record<string, unknown>) => o.as('staff').post('/client-area/verify-otp', { body });

describe('client-area sign-in by one-time code', () => {
  it('sends a code to the client, verifies it, and the key works; only hashes are stored', async () => {
    const { pol, phone } = await boundClient();
    const r = await requestCode(o, { phone: `+${phone}` });
    expect(r.status, r.text).toBe(202);
    expect(r.body.data).toEqual({ message: expect.any(String), expires_in_seconds: 300, resend_after_seconds: 60 });
    const code = (await lastCode(o, phone))!;
    expect(code).toMatch(/^\d{6}$/);
    const v = await verify({ phone, code });
    expect(v.status, v.text).toBe(200);
    expect(v.body.data).toEqual({ client_no: pol.client_no, client_key: expect.stringMatching(/^cak_/) });
    const m = await me(o, v.body.data);
    expect(m.status, m.text).toBe(200);
    expect(m.body.data).toMatchObject({ client_no: pol.client_no, phone });

    const rows = await t.db.tenant(o.id, async (tx) => ({
      otp: await tx.clientOtp.findFirstOrThrow({ where: { phone }, orderBy: { id: 'desc' } }),
      keys: await tx.clientKey.findMany({ where: { client: { clientNo: pol.client_no }, kind: 'app' } }),
    }));
    expect(rows.otp.codeHash).not.toContain(code);
    expect(rows.otp.consumedAt).not.toBeNull();
    expect(rows.keys.map((k) => k.keyHash)).toEqual([sha(v.body.data.client_key)]);
    // A code is single-use.
    expectProblem(await verify({ phone, code }), 422, 'validation_failed', 'otp');
  });

  it('signs in by client number and ID number too', async () => {
    const { pol, phone } = await boundClient();
    const client = await t.db.tenant(o.id, (tx) => tx.client.findFirstOrThrow({ where: { clientNo: pol.client_no } }));
    const r = await requestCode(o, { client_no: pol.client_no, id_no: client.idNo });
    expect(r.status, r.text).toBe(202);
    const v = await verify({ client_no: pol.client_no, code: await lastCode(o, phone) });
    expect(v.status, v.text).toBe(200);
    expect(v.body.data.client_no).toBe(pol.client_no);
  });

  it('answers an unknown phone exactly like a client, sends it nothing, and no code verifies for it', async () => {
    const { phone } = await boundClient();
    const stranger = '0799 000 111';
    const known = await requestCode(o, { phone });
    const unknown = await requestCode(o, { phone: stranger });
    expect(unknown.status).toBe(known.status);
    expect(unknown.body).toEqual(known.body);
    expect(await lastCode(o, phone)).toMatch(/^\d{6}$/); // the positive control: the client got an SMS
    expect(await lastCode(o, stranger)).toBeNull();
    const r = await verify({ phone: stranger, code: '123456' });
    expectProblem(r, 422, 'validation_failed', 'otp');
    expect(r.body.errors[0].message).toBe(REFUSED);
    // Unknown client number with an ID number: the same answer again.
    expect((await requestCode(o, { client_no: 'C-999999', id_no: '12345678' })).body).toEqual(known.body);
  });

  it('refuses every code after 5 wrong attempts, the right one included', async () => {
    const { phone } = await boundClient();
    await requestCode(o, { phone });
    const code = (await lastCode(o, phone))!;
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) expectProblem(await verify({ phone, code: wrong }), 422, 'validation_failed', 'otp');
    const r = await verify({ phone, code });
    expectProblem(r, 422, 'validation_failed', 'otp');
    expect(r.body.errors[0].message).toBe(REFUSED);
  });

  it('answers an unknown client number exactly like a wrong code; each guess spends one attempt of the handset code', async () => {
    const { pol, phone } = await boundClient();
    expect((await requestCode(o, { phone })).status).toBe(202);
    const code = (await lastCode(o, phone))!;
    const wrong = code === '000000' ? '111111' : '000000';
    const attempts = () =>
      t.db.tenant(o.id, (tx) => tx.clientOtp.findFirstOrThrow({ where: { phone }, orderBy: { id: 'desc' } }));
    const answers = [
      await verify({ client_no: 'C-999999', code: wrong }),
      await verify({ client_no: 'C-999999', code }),
      await verify({ client_no: pol.client_no, code: wrong }),
      await verify({ phone, code: wrong }),
      await verify({ phone: '0799 000 333', code: wrong }),
    ];
    const shape = (r: (typeof answers)[number]) => {
      const { request_id: _r, ...rest } = r.body;
      return { status: r.status, type: r.headers.get('content-type'), body: rest };
    };
    for (const r of answers) {
      expectProblem(r, 422, 'validation_failed', 'otp');
      expect(shape(r)).toEqual(shape(answers[0]));
    }
    expect(answers[0].body.errors).toEqual([{ field: 'otp', message: REFUSED }]);
    // The two guesses naming the client (by number, then by phone) spent one attempt each; the unknown number none.
    expect((await attempts()).attempts).toBe(2);
    const ok = await verify({ client_no: pol.client_no, code });
    expect(ok.status, ok.text).toBe(200);
  });

  it('refuses an expired code', async () => {
    const { phone } = await boundClient();
    await requestCode(o, { phone });
    const code = (await lastCode(o, phone))!;
    // Five minutes and a second later on the service's clock.
    const { expiresAt } = await t.db.tenant(o.id, (tx) =>
      tx.clientOtp.findFirstOrThrow({ where: { phone }, orderBy: { id: 'desc' } }),
    );
    const r = await withClock(new Date(expiresAt.getTime() + 1000), () => verify({ phone, code }));
    expectProblem(r, 422, 'validation_failed', 'otp');
    expect(r.body.errors[0].message).toBe(REFUSED);
  });

  it('holds a resend for 60 s (422 on otp with Retry-After), per phone; the new code replaces the old', async () => {
    const { phone } = await boundClient();
    const other2 = await boundClient();
    expect((await requestCode(o, { phone })).status).toBe(202);
    const first = (await lastCode(o, phone))!;
    const again = await requestCode(o, { phone });
    expectProblem(again, 422, 'validation_failed', 'otp');
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await requestCode(o, { phone: other2.phone })).status).toBe(202); // another phone is not held
    // A stranger's phone is held alike (the hold never tells who is a client).
    expect((await requestCode(o, { phone: '0799 000 222' })).status).toBe(202);
    expectProblem(await requestCode(o, { phone: '0799 000 222' }), 422, 'validation_failed', 'otp');
    expect(first).toMatch(/^\d{6}$/);
  });

  it('refuses malformed requests on their fields', async () => {
    expectProblem(await requestCode(o, {}), 422, 'validation_failed', 'phone');
    expectProblem(await requestCode(o, { phone: '12' }), 422, 'validation_failed', 'phone');
    expectProblem(await verify({ phone: '0711000000', code: '12ab' }), 422, 'validation_failed', 'otp');
    expectProblem(await verify({ phone: '0711000000', code: '123456' }), 422, 'validation_failed', 'otp');
  });
});

describe('client keys', () => {
  it('a new sign-in revokes the earlier app key, never the policy key from the bind', async () => {
    const { pol, phone } = await boundClient();
    const policyKey = { client_no: pol.client_no, client_key: pol.client_key as string };
    expect(policyKey.client_key).toMatch(/^bck_/);
    expect((await me(o, policyKey)).status).toBe(200);
    const a1 = await signIn(o, phone);
    // The second sign-in goes by client number and ID number, past the handset's cool-down.
    const client = await t.db.tenant(o.id, (tx) => tx.client.findFirstOrThrow({ where: { clientNo: pol.client_no } }));
    const again = await pastCoolDown(() => requestCode(o, { client_no: pol.client_no, id_no: client.idNo }));
    expect(again.status, again.text).toBe(202);
    const v = await verify({ client_no: pol.client_no, code: await lastCode(o, phone) });
    expect(v.status, v.text).toBe(200);
    const a2 = v.body.data;
    expectProblem(await me(o, a1), 401, 'invalid_client_key');
    expect((await me(o, a2)).status).toBe(200);
    expect((await me(o, policyKey)).status).toBe(200);
  });

  it('a later policy save for the client issues no key and signs nobody out (spec: only when it has none)', async () => {
    const { pol, phone } = await boundClient();
    const app = await signIn(o, phone);
    const idno = (await t.db.tenant(o.id, (tx) => tx.client.findFirstOrThrow({ where: { clientNo: pol.client_no } })))
      .idNo;
    const name = (await me(o, app)).body.data.name;
    const again = await o.pendingPolicy({ client: { name, phone, idno } });
    expect(again.client_no).toBe(pol.client_no);
    expect(again.client_key).toBeNull();
    expect((await me(o, app)).status).toBe(200);
    expect((await me(o, { client_no: pol.client_no, client_key: pol.client_key })).status).toBe(200);
  });

  it('refuses a missing, wrong or foreign key with 401 invalid_client_key', async () => {
    const { phone } = await boundClient();
    const s = await signIn(o, phone);
    expectProblem(await o.as('staff').get('/client-area/me'), 401, 'invalid_client_key');
    expectProblem(await me(o, { ...s, client_key: `${s.client_key}x` }), 401, 'invalid_client_key');
    expectProblem(
      await o.as('staff').get('/client-area/me', { headers: { 'X-Client-No': s.client_no } }),
      401,
      'invalid_client_key',
    );
    // This client's key with another organisation's token: that organisation has no such signed-in client.
    expectProblem(await me(other, s), 401, 'invalid_client_key');
    expect((await me(o, s)).status).toBe(200);
  });
});

describe('self-registration', () => {
  it('registers a client after proving the phone, signed in at once; a taken phone is 409 without matches', async () => {
    const phone = '0722 480 001';
    expectProblem(
      await o.as('staff').post('/client-area/register', { body: { name: 'Wanjiru Kamau', phone, code: '123456' } }),
      422,
      'validation_failed',
      'otp',
    );
    expect((await requestCode(o, { phone, purpose: 'register' })).status).toBe(202);
    const code = await lastCode(o, phone);
    const r = await o.as('staff').post('/client-area/register', {
      body: { name: 'Wanjiru Kamau', phone, id_no: '29480001', email: 'wanjiru@example.co.ke', code },
    });
    expect(r.status, r.text).toBe(201);
    const s = r.body.data;
    expect(s.client_key).toMatch(/^cak_/);
    const m = await me(o, s);
    expect(m.body.data).toMatchObject({ name: 'Wanjiru Kamau', phone: msisdn(phone), onboarded_via: 'client_area' });

    // The same phone again: proven, but already a client.
    const { phone: taken } = await boundClient();
    await requestCode(o, { phone: taken, purpose: 'register' });
    const dup = await o.as('staff').post('/client-area/register', {
      body: { name: 'Someone Else', phone: taken, code: await lastCode(o, taken) },
    });
    expectProblem(dup, 409, 'duplicate_client');
    expect(dup.body.matches ?? []).toEqual([]);
  });

  it('over GraphQL: request, verify and register', async () => {
    const phone = '0722 480 002';
    const req = await o.as('staff').gql(
      `mutation ($input: RequestClientOtpInput!) {
        requestClientOtp(input: $input) { __typename ... on ClientOtpRequested { expiresInSeconds } }
      }`,
      { input: { phone, purpose: 'register', customerIp: nextIp() } },
    );
    expect(req.body.data.requestClientOtp).toEqual({ __typename: 'ClientOtpRequested', expiresInSeconds: 300 });
    const reg = await o.as('staff').gql(
      `mutation ($input: RegisterClientAreaClientInput!) {
        registerClientAreaClient(input: $input) {
          __typename ... on ClientAreaSession { clientNo clientKey } ... on ValidationProblem { fieldErrors { field } }
        }
      }`,
      { input: { name: 'Achieng Odhiambo', phone, code: await lastCode(o, phone) } },
    );
    const session = reg.body.data.registerClientAreaClient;
    expect(session.__typename, JSON.stringify(reg.body)).toBe('ClientAreaSession');
    await requestCode(o, { phone });
    const wrong = (await lastCode(o, phone)) === '000000' ? '111111' : '000000';
    const verifyDoc = `mutation ($input: VerifyClientOtpInput!) {
        verifyClientOtp(input: $input) {
          __typename ... on ClientAreaSession { clientNo clientKey } ... on ValidationProblem { code fieldErrors { field } }
        }
      }`;
    const bad = await o.as('staff').gql(verifyDoc, { input: { phone, code: wrong } });
    expect(bad.body.data.verifyClientOtp).toEqual({
      __typename: 'ValidationProblem',
      code: 'validation_failed',
      fieldErrors: [{ field: 'otp' }],
    });
    const good = await o.as('staff').gql(verifyDoc, { input: { phone, code: await lastCode(o, phone) } });
    expect(good.body.data.verifyClientOtp).toMatchObject({
      __typename: 'ClientAreaSession',
      clientNo: session.clientNo,
    });
    // The registration's app key was replaced by this sign-in.
    expectProblem(
      await me(o, { client_no: session.clientNo, client_key: session.clientKey }),
      401,
      'invalid_client_key',
    );
  });
});
