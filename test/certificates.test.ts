import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DbSimStore, vehicleKey } from '../jobs/rails/registry-simulator.ts';
import {
  canTransition,
  CERTIFICATE_STATES,
  CERTIFICATE_TRANSITIONS,
  IllegalCertificateTransition,
  transitionCertificate,
} from '../src/modules/certificates/certificate-state.ts';
import { issueDue, stagesOf, sweepCertificates } from '../src/modules/certificates/certificate.service.ts';
import type { CancelCertificateRequest, IssueCertificateRequest } from '../src/ports/certificate-registry.ts';
import { addDays, toDbDate } from '../src/lib/dates.ts';
import { expectProblem, INSTANT_RAIL, TODAY, useKit, type BindOptions, type Org } from './kit.ts';

const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });
const asAgent2 = o.as('staff', { agent: 2 });
const YEAR = Number(TODAY.slice(0, 4));

let seq = 0;
/** A registration no other test file uses (KCZ + 3 digits + letter). */
function freshReg(): string {
  seq += 1;
  return `KCZ ${String((process.pid + seq * 7) % 1000).padStart(3, '0')}${'ABCDEFGHJKLMNPQRSTUVWXY'[seq % 23]}`;
}

/** Bind options here: everything the registry records (chassis, engine, body type, email), a fresh registration. */
const CERT = (b: BindOptions = {}): BindOptions => ({ fullParticulars: true, regno: freshReg(), ...b });

async function policyRow(org: Org, uuid: string) {
  return t.db.tenant(org.org.id, (tx) =>
    tx.policy.findFirstOrThrow({ where: { uuid }, include: { debitNotes: { orderBy: { instalmentNo: 'asc' } } } }),
  );
}

const certs = (org: Org, uuid: string, token = org.tokens.staff, headers?: Record<string, string>) =>
  org.api.get(`/policies/${uuid}/certificates`, { token, headers });

/** Polls the policy's certificates until `done` holds (the caller asserts the final list). */
async function waitCerts(org: Org, uuid: string, done: (list: any[]) => boolean, ms = 30_000): Promise<any[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await certs(org, uuid);
    expect(r.status, r.text).toBe(200);
    if (done(r.body.data) || Date.now() > deadline) return r.body.data;
    await new Promise((res) => setTimeout(res, 150));
  }
}

async function events(org: Org, name: string, policyNo: string) {
  const rows = await t.db.tenant(org.org.id, (tx) =>
    tx.event.findMany({ where: { name }, orderBy: { createdAt: 'asc' } }),
  );
  return rows.map((r) => r.data as any).filter((d) => d.policy_no === policyNo);
}

const issuePost = (org: Org, uuid: string, token = org.tokens.staff, headers?: Record<string, string>) =>
  org.api.post(`/policies/${uuid}/certificates`, { token, headers, idempotencyKey: randomUUID() });

/** Runs `fn` with issue jobs lost (never sent; cancel jobs still are), so the test drives issuance or the sweep itself. */
async function withoutIssueJobs<T>(fn: () => Promise<T>): Promise<T> {
  const rt = t.app.services.registry;
  const send = rt.send!;
  rt.send = async (q, data, opts) => (q === 'issue' ? undefined : send(q, data, opts));
  try {
    return await fn();
  } finally {
    rt.send = send;
  }
}

describe('stages', () => {
  it('splits an instalment plan by months, the last stage to the end date', () => {
    expect(stagesOf('2026-01-31', '2027-01-30', 3)).toEqual([
      { stage: 1, start: '2026-01-31', end: '2026-02-27' },
      { stage: 2, start: '2026-02-28', end: '2026-03-30' },
      { stage: 3, start: '2026-03-31', end: '2027-01-30' },
    ]);
    expect(stagesOf('2026-11-26', '2027-11-25', 1)).toEqual([{ stage: 1, start: '2026-11-26', end: '2027-11-25' }]);
  });
});

describe('issuance after payment', () => {
  let full: any;
  beforeAll(async () => {
    full = await o.activePolicy(CERT());
  }, 60_000);

  it('a fully paid policy gets one certificate, issued by the job, with certificate.issued', async () => {
    const list = await waitCerts(o, full.uuid, (l) => l.some((c) => c.status === 'issued'));
    expect(list).toHaveLength(1);
    const c = list[0];
    expect(c).toMatchObject({
      status: 'issued',
      policy_no: full.policy_no,
      policy_uuid: full.uuid,
      regno: full.regno.replace(/\s/g, ''),
      certificate_class: 'C',
      cover_code: 100,
      cover: 'Comprehensive',
      stage: 1,
      stage_count: 1,
      series: 1,
      start_date: TODAY,
      end_date: full.end_date,
      attempts: 1,
      error: null,
      cancelled_at: null,
    });
    expect(c.certificate_no).toMatch(/^CC\d{7}$/);
    expect(c.registry_ref).toMatch(/^REF\d{9}$/);
    const ev = await events(o, 'certificate.issued', full.policy_no);
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({
      certificate_no: c.certificate_no,
      stage: 1,
      stage_count: 1,
      certificate_class: 'C',
      cover_code: 100,
      start_date: TODAY,
    });
  });

  it('is idempotent: the job run again and a manual issue twice add nothing', async () => {
    const p = await policyRow(o, full.uuid);
    await issueDue(t.app.services, p.id);
    await issueDue(t.app.services, p.id);
    const a = await issuePost(o, full.uuid);
    expect(a.status, a.text).toBe(200);
    expect(a.body.success).toBe(true);
    expect(a.body.data).toHaveLength(1);
    const b = await issuePost(o, full.uuid);
    expect(b.status, b.text).toBe(200);
    expect(b.body.data.map((c: any) => c.certificate_no)).toEqual(a.body.data.map((c: any) => c.certificate_no));
    expect(await t.db.tenant(o.org.id, (tx) => tx.certificate.count({ where: { policyId: p.id } }))).toBe(1);
    expect(await events(o, 'certificate.issued', full.policy_no)).toHaveLength(1);
  });

  it('reads one certificate by number, and the same through GraphQL with Policy.certificates', async () => {
    const [c] = (await certs(o, full.uuid)).body.data;
    const r = await o.api.get(`/certificates/${c.certificate_no}`, { token: o.tokens.readonly });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ success: true, data: c });
    const g = await gql(
      o.tokens.staff,
      `query($n: String!, $u: String!) { certificate(certificateNo: $n) { certificateNo status stage } policy(uuid: $u) { certificates { certificateNo regNo coverName } } }`,
      { n: c.certificate_no, u: full.uuid },
    );
    expect(g.errors).toBeUndefined();
    expect(g.data.certificate).toEqual({ certificateNo: c.certificate_no, status: 'issued', stage: 1 });
    expect(g.data.policy.certificates).toEqual([
      { certificateNo: c.certificate_no, regNo: c.regno, coverName: 'Comprehensive' },
    ]);
    const m = await gql(
      o.tokens.staff,
      `mutation($u: String!) { issueCertificates(policyUuid: $u) { __typename ... on IssuedCertificates { issued certificates { certificateNo status } } } }`,
      { u: full.uuid },
    );
    expect(m.data.issueCertificates).toEqual({
      __typename: 'IssuedCertificates',
      issued: 0,
      certificates: [{ certificateNo: c.certificate_no, status: 'issued' }],
    });
  });

  it('checks at the registry by number and by registration', async () => {
    const [c] = (await certs(o, full.uuid)).body.data;
    const byNo = await o.api.get(`/certificates/check?certificate_no=${c.certificate_no}`, {
      token: o.tokens.readonly,
    });
    expect(byNo.status, byNo.text).toBe(200);
    expect(byNo.body).toMatchObject({
      success: true,
      data: {
        valid: true,
        certificate: {
          certificate_no: c.certificate_no,
          registration: c.regno,
          status: 'Active',
          start_date: TODAY,
          end_date: full.end_date,
          insurer: 'Simba General Insurance Company Limited',
        },
      },
    });
    const byReg = await o.api.get(`/certificates/check?regno=${encodeURIComponent(full.regno.toLowerCase())}`, {
      token: o.tokens.readonly,
    });
    expect(byReg.status, byReg.text).toBe(200);
    expect(byReg.body.data).toMatchObject({
      valid: true,
      certificate: { certificate_no: c.certificate_no },
      conflicts: [{ certificate_no: c.certificate_no }],
    });
    // Another organisation may check a registration (the registry is public), not read our record.
    const fromOther = await other.api.get(`/certificates/check?regno=${encodeURIComponent(full.regno)}`, {
      token: other.tokens.staff,
    });
    expect(fromOther.body.data.valid).toBe(true);
    const none = await o.api.get(`/certificates/check?regno=KAA001A`, { token: o.tokens.readonly });
    expect(none.body).toMatchObject({ success: true, data: { valid: false, certificate: null, conflicts: [] } });
    const unknown = await o.api.get(`/certificates/check?certificate_no=CC9999999`, { token: o.tokens.readonly });
    expect(unknown.body.data).toMatchObject({ valid: false, certificate: null });
    const bad = await o.api.get(`/certificates/check`, { token: o.tokens.readonly });
    expectProblem(bad, 422, 'validation_failed');
    expect(bad.body).toMatchObject({ success: false, message: expect.any(String) });
    const g = await gql(
      o.tokens.staff,
      `query($r: String) { checkCertificate(regNo: $r) { valid certificate { certificateNo } } }`,
      { r: full.regno },
    );
    expect(g.data.checkCertificate).toEqual({ valid: true, certificate: { certificateNo: c.certificate_no } });
  });
});

describe('a 3-instalment policy is certified stage by stage', () => {
  let pol: any;
  beforeAll(async () => {
    pol = await o.pendingPolicy(CERT({ instalments: 3 }));
  }, 30_000);

  it('paying instalment 1 issues stage 1 only', async () => {
    await o.payInstalments(pol, [1]);
    const list = await waitCerts(o, pol.uuid, (l) => l.some((c) => c.status === 'issued'));
    expect(list.map((c) => [c.stage, c.status])).toEqual([[1, 'issued']]);
    expect(list[0]).toMatchObject({ stage_count: 3, start_date: TODAY });
    // Nothing more is due: running the job again changes nothing.
    await issueDue(t.app.services, (await policyRow(o, pol.uuid)).id);
    expect((await certs(o, pol.uuid)).body.data).toHaveLength(1);
  });

  it('paying instalments 2 and 3 together issues stage 2, then stage 3, never 3 before 2', async () => {
    await o.payInstalments(pol, [2, 3]);
    const list = await waitCerts(o, pol.uuid, (l) => l.filter((c) => c.status === 'issued').length === 3);
    expect(list.map((c) => [c.stage, c.status])).toEqual([
      [1, 'issued'],
      [2, 'issued'],
      [3, 'issued'],
    ]);
    const [s1, s2, s3] = list;
    expect(s1.end_date < s2.start_date && s2.end_date < s3.start_date).toBe(true);
    expect(s3.end_date).toBe(pol.end_date);
    // Issued in order: stage 2's certificate (and event) before stage 3's.
    expect(Date.parse(s2.issued_at)).toBeLessThanOrEqual(Date.parse(s3.issued_at));
    expect(Number(s2.certificate_no.slice(2))).toBeLessThan(Number(s3.certificate_no.slice(2)));
    const ev = await events(o, 'certificate.issued', pol.policy_no);
    expect(ev.map((e) => e.stage)).toEqual([1, 2, 3]);
  });
});

describe('a 3-instalment policy paid one instalment at a time', () => {
  it('issues stage 2 only after instalment 2', async () => {
    const pol = await o.pendingPolicy(CERT({ instalments: 3 }));
    await o.payInstalments(pol, [1]);
    await waitCerts(o, pol.uuid, (l) => l.some((c) => c.status === 'issued'));
    const m = await issuePost(o, pol.uuid); // a manual issue does not jump ahead of payment
    expect(m.body.data.map((c: any) => c.stage)).toEqual([1]);
    await o.payInstalments(pol, [2]);
    const list = await waitCerts(o, pol.uuid, (l) => l.filter((c) => c.status === 'issued').length === 2);
    expect(list.map((c) => [c.stage, c.status])).toEqual([
      [1, 'issued'],
      [2, 'issued'],
    ]);
  }, 60_000);
});

describe('double insurance', () => {
  let mine: any;
  let theirs: any;
  beforeAll(async () => {
    const reg = freshReg();
    theirs = await other.certifiedPolicy(CERT({ regno: reg }));
    mine = await o.activePolicy(CERT({ regno: reg }));
  }, 90_000);

  it('the same registration certified for another organisation first: failed, ER005, certificate.failed, no retry', async () => {
    const list = await waitCerts(o, mine.uuid, (l) => l.some((c) => c.status === 'failed'));
    const theirNo = (await certs(other, theirs.uuid)).body.data[0].certificate_no;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ status: 'failed', certificate_no: null, attempts: 1, error: { code: 'ER005' } });
    expect(list[0].error.message).toContain(theirNo);
    const ev = await events(o, 'certificate.failed', mine.policy_no);
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({ error_code: 'ER005', final: true, attempts: 1, stage: 1 });
  });

  it('a manual retry answers 409 double_insurance with success false and message (REST and GraphQL)', async () => {
    const r = await issuePost(o, mine.uuid);
    expectProblem(r, 409, 'double_insurance');
    expect(r.body).toMatchObject({ success: false, message: expect.stringContaining('Double insurance') });
    const g = await gql(
      o.tokens.staff,
      `mutation($u: String!) { issueCertificates(policyUuid: $u) { __typename ... on Problem { code status } ... on DoubleInsuranceProblem { certificateNo } } }`,
      { u: mine.uuid },
    );
    expect(g.data.issueCertificates).toMatchObject({
      __typename: 'DoubleInsuranceProblem',
      code: 'double_insurance',
      status: 409,
    });
    expect(g.data.issueCertificates.certificateNo).toMatch(/^CC\d{7}$/);
    const [c] = (await certs(o, mine.uuid)).body.data;
    expect(c).toMatchObject({ status: 'failed', attempts: 3 });
  });

  it('a policy not active answers 409 invalid_state', async () => {
    const unpaid = await o.pendingPolicy(CERT());
    const r = await issuePost(o, unpaid.uuid);
    expectProblem(r, 409, 'invalid_state');
    expect(r.body).toMatchObject({ success: false, message: expect.stringContaining('pending_payment') });
  });
});

describe('cancellation at the registry', () => {
  it('within 24 hours: cancelled, certificate.cancelled; again: 409 invalid_state', async () => {
    const pol = await o.certifiedPolicy(CERT());
    const [c] = pol.certificates;
    const bad = await o.api.post(`/certificates/${c.certificate_no}/cancel`, {
      token: o.tokens.staff,
      idempotencyKey: randomUUID(),
      body: { reason_id: 99 },
    });
    expectProblem(bad, 422, 'validation_failed');
    expect(bad.body.success).toBe(false);
    const key = randomUUID();
    const r = await o.api.post(`/certificates/${c.certificate_no}/cancel`, {
      token: o.tokens.staff,
      idempotencyKey: key,
      body: { reason_id: 15 },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({
      success: true,
      data: { certificate_no: c.certificate_no, status: 'cancelled', cancel_reason_id: 15 },
    });
    // The registry is called outside the Idempotency-Key transaction; the answer is still stored and replayed.
    const retried = await o.api.post(`/certificates/${c.certificate_no}/cancel`, {
      token: o.tokens.staff,
      idempotencyKey: key,
      body: { reason_id: 15 },
    });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.text).toBe(r.text);
    expect(r.body.data.cancelled_at).toBeTruthy();
    const ev = await events(o, 'certificate.cancelled', pol.policy_no);
    expect(ev).toMatchObject([{ certificate_no: c.certificate_no, reason_id: 15 }]);
    const check = await o.api.get(`/certificates/check?certificate_no=${c.certificate_no}`, {
      token: o.tokens.readonly,
    });
    expect(check.body.data).toMatchObject({ valid: false, certificate: { status: 'Cancelled' } });
    const again = await o.api.post(`/certificates/${c.certificate_no}/cancel`, {
      token: o.tokens.staff,
      idempotencyKey: randomUUID(),
      body: { reason_id: 15 },
    });
    expectProblem(again, 409, 'invalid_state');
    expect(again.body.success).toBe(false);
  }, 60_000);

  it('after 24 hours (injected clock): 422 registry_refused with success false and message; cancel_refused', async () => {
    const pol = await o.certifiedPolicy(CERT());
    const [c] = pol.certificates;
    const rt = t.app.services.registry;
    const clock = rt.clock;
    rt.clock = () => new Date(clock().getTime() + 25 * 3600_000);
    try {
      const r = await o.api.post(`/certificates/${c.certificate_no}/cancel`, {
        token: o.tokens.staff,
        idempotencyKey: randomUUID(),
        body: { reason_id: 8 },
      });
      expectProblem(r, 422, 'registry_refused');
      expect(r.body).toMatchObject({
        success: false,
        message: expect.stringContaining('24 hours'),
        registry_code: 'ER007',
      });
      const g = await gql(
        o.tokens.staff,
        `mutation($n: String!) { cancelCertificate(certificateNo: $n, reasonId: 8) { __typename ... on RegistryRefusedProblem { code registryCode } } }`,
        { n: c.certificate_no },
      );
      expect(g.data.cancelCertificate).toEqual({
        __typename: 'RegistryRefusedProblem',
        code: 'registry_refused',
        registryCode: 'ER007',
      });
    } finally {
      rt.clock = clock;
    }
    const got = await o.api.get(`/certificates/${c.certificate_no}`, { token: o.tokens.staff });
    expect(got.body.data).toMatchObject({ status: 'cancel_refused', error: { code: 'ER007' } });
  }, 60_000);

  it('out of stock at the registry: failed with ER006 and certificate.failed', async () => {
    const store = new DbSimStore(t.app.services.db);
    await store.setStock(101, 'C', 0);
    try {
      const pol = await o.activePolicy(CERT());
      const [c] = await waitCerts(o, pol.uuid, (l) => l.some((x) => x.status === 'failed'));
      expect(c.error.code).toBe('ER006');
      expect((await events(o, 'certificate.failed', pol.policy_no))[0]).toMatchObject({
        error_code: 'ER006',
        final: true,
      });
      await store.setStock(101, 'C', 5);
      const r = await issuePost(o, pol.uuid); // the manual retry issues it
      expect(r.status, r.text).toBe(201);
      expect(r.body.data[0]).toMatchObject({ status: 'issued', attempts: 2, error: null });
    } finally {
      await store.setStock(101, 'C', 1000);
    }
  }, 60_000);
});

describe('policy cancellation and reinstatement', () => {
  it('cancelling the policy cancels its certificates at the registry; reinstating re-issues them as series 2', async () => {
    const pol = await o.certifiedPolicy(CERT());
    const [first] = pol.certificates;
    await o.cancel(pol.uuid, { reason: 'vehicle_sold' });
    const cancelled = await waitCerts(o, pol.uuid, (l) => l.every((x) => x.status === 'cancelled'));
    expect(cancelled).toMatchObject([
      { certificate_no: first.certificate_no, status: 'cancelled', cancel_reason_id: 15 },
    ]);
    expect(await events(o, 'certificate.cancelled', pol.policy_no)).toMatchObject([
      { certificate_no: first.certificate_no, reason_id: 15 },
    ]);
    // A manual issue on a cancelled policy is refused.
    expectProblem(await issuePost(o, pol.uuid), 409, 'invalid_state');

    const re = await o.api.post(`/policies/${pol.uuid}/reinstate`, {
      token: o.tokens.staff,
      idempotencyKey: randomUUID(),
      body: {},
    });
    expect(re.status, re.text).toBe(200);
    const list = await waitCerts(o, pol.uuid, (l) => l.some((x) => x.series === 2 && x.status === 'issued'));
    expect(list.map((x) => [x.series, x.stage, x.status])).toEqual([
      [1, 1, 'cancelled'],
      [2, 1, 'issued'],
    ]);
    expect(list[1].certificate_no).not.toBe(first.certificate_no);
    expect(list[1]).toMatchObject({ start_date: TODAY, end_date: pol.end_date });
  }, 90_000);
});

describe('reinstatement at once after the cancellation is confirmed', () => {
  /** The registry's own record of a registration: every certificate it holds for the vehicle, by number. */
  const atRegistry = async (regno: string) =>
    (
      await t.db.system((tx) =>
        tx.registrySimCertificate.findMany({
          where: { registration: vehicleKey(regno) },
          orderBy: { certificateNo: 'asc' },
        }),
      )
    ).map((r) => [r.certificateNo, r.status]);
  const settled = (l: any[]) => l.some((x) => x.series === 2 && !['pending', 'issuing'].includes(x.status));

  it('REST: the re-issue waits for the registry to cancel the old certificate, then is issued; another policy on the vehicle is still refused', async () => {
    const pol = await o.certifiedPolicy(CERT());
    const [first] = pol.certificates;
    await o.cancel(pol.uuid);
    const re = await o.api.post(`/policies/${pol.uuid}/reinstate`, {
      token: o.tokens.staff,
      idempotencyKey: randomUUID(),
      body: {},
    });
    expect(re.status, re.text).toBe(200);

    const list = await waitCerts(
      o,
      pol.uuid,
      (l) => settled(l) && l.some((x) => x.series === 1 && x.status === 'cancelled'),
    );
    expect(list.map((x) => [x.series, x.stage, x.status, x.error])).toEqual([
      [1, 1, 'cancelled', null],
      [2, 1, 'issued', null],
    ]);
    const second = list[1];
    expect(second.certificate_no).not.toBe(first.certificate_no);
    expect(await events(o, 'certificate.failed', pol.policy_no)).toEqual([]);
    expect(await atRegistry(pol.regno)).toEqual([
      [first.certificate_no, 'Cancelled'],
      [second.certificate_no, 'Active'],
    ]);

    // The policy's own certificates never counted against it; a different policy on the vehicle is double insurance.
    const theirs = await other.activePolicy(CERT({ regno: pol.regno }));
    const [refused] = await waitCerts(other, theirs.uuid, (l) => l.some((x) => x.status === 'failed'));
    expect(refused).toMatchObject({ status: 'failed', error: { code: 'ER005' } });
    expect(refused.error.message).toContain(second.certificate_no);
  }, 90_000);

  it('GraphQL: confirmCancellation then reinstatePolicy at once ends with the old certificate cancelled and the new one issued', async () => {
    const pol = await o.certifiedPolicy(CERT());
    const [first] = pol.certificates;
    const as = { token: o.tokens.staff };
    const pv = await o.api.gql(
      `mutation($p: String!, $i: CancellationInput!) { previewCancellation(policyUuid: $p, input: $i) { __typename ... on Cancellation { uuid } } }`,
      { p: pol.uuid, i: { reason: 'insured_request', requestedBy: 'insured' } },
      as,
    );
    expect(pv.body.data?.previewCancellation?.__typename, JSON.stringify(pv.body)).toBe('Cancellation');
    const cf = await o.api.gql(
      `mutation($u: String!) { confirmCancellation(uuid: $u) { __typename ... on Cancellation { status } } }`,
      { u: pv.body.data.previewCancellation.uuid },
      as,
    );
    expect(cf.body.data?.confirmCancellation, JSON.stringify(cf.body)).toEqual({
      __typename: 'Cancellation',
      status: 'confirmed',
    });
    const rs = await o.api.gql(
      `mutation($p: String!) { reinstatePolicy(policyUuid: $p) { __typename ... on Cancellation { status } } }`,
      { p: pol.uuid },
      as,
    );
    expect(rs.body.data?.reinstatePolicy, JSON.stringify(rs.body)).toEqual({
      __typename: 'Cancellation',
      status: 'reinstated',
    });

    const query = `query($u: String!) { policy(uuid: $u) { certificates { certificateNo series status error { code } } } }`;
    const deadline = Date.now() + 30_000;
    let got: any[] = [];
    while (Date.now() < deadline) {
      const g = await o.api.gql(query, { u: pol.uuid }, as);
      got = g.body.data.policy.certificates;
      if (settled(got) && got.some((x) => x.series === 1 && x.status === 'cancelled')) break;
      await new Promise((res) => setTimeout(res, 150));
    }
    expect(got.map((x) => [x.series, x.status, x.error])).toEqual([
      [1, 'cancelled', null],
      [2, 'issued', null],
    ]);
    expect(got[0].certificateNo).toBe(first.certificate_no);
    expect(await atRegistry(pol.regno)).toEqual([
      [first.certificate_no, 'Cancelled'],
      [got[1].certificateNo, 'Active'],
    ]);
  }, 90_000);
  it('the minute sweep re-issues for a reinstated policy whose issue jobs were all lost', async () => {
    const pol = await o.certifiedPolicy(CERT());
    await withoutIssueJobs(async () => {
      await o.cancel(pol.uuid);
      const re = await o.api.post(`/policies/${pol.uuid}/reinstate`, {
        token: o.tokens.staff,
        idempotencyKey: randomUUID(),
        body: {},
      });
      expect(re.status, re.text).toBe(200);
      // The cancellation is recorded; the re-issue it queues is lost like the reinstatement's.
      const list = await waitCerts(o, pol.uuid, (l) => l.every((x) => x.status === 'cancelled'));
      expect(list.map((x) => [x.series, x.status])).toEqual([[1, 'cancelled']]);
    });
    const rt = t.app.services.registry;
    const send = rt.send!;
    const swept: unknown[] = [];
    rt.send = async (q, data) => void swept.push({ q, data });
    try {
      await sweepCertificates(t.app.services);
    } finally {
      rt.send = send;
    }
    const { id } = await policyRow(o, pol.uuid);
    expect(swept).toContainEqual({ q: 'issue', data: { policyId: id } });
    await send('issue', { policyId: id });
    const list = await waitCerts(o, pol.uuid, (l) => settled(l));
    expect(list.map((x) => [x.series, x.status])).toEqual([
      [1, 'cancelled'],
      [2, 'issued'],
    ]);
  }, 90_000);
});

describe('a policy\u2019s own certificates', () => {
  it('another organisation\u2019s policy with the same policy number is still another policy: ER005, never adopted', async () => {
    const mine = await o.activePolicy(CERT());
    const [ours] = await waitCerts(o, mine.uuid, (l) => l.some((x) => x.status === 'issued'));
    // Policy numbers are per organisation (MTR-<year>-<seq>): another one selling for the same insurer can send the
    // registry the very number we sent.
    const theirs = await other.pendingPolicy(CERT({ regno: mine.regno }));
    await t.db.tenant(other.org.id, (tx) =>
      tx.policy.update({ where: { uuid: theirs.uuid }, data: { policyNo: mine.policy_no } }),
    );
    await other.payInstalments({ ...theirs, policy_no: mine.policy_no }, [1]);
    const [c] = await waitCerts(other, theirs.uuid, (l) => l.some((x) => !['pending', 'issuing'].includes(x.status)));
    expect(c).toMatchObject({ status: 'failed', certificate_no: null, error: { code: 'ER005' } });
    expect(c.error.message).toContain(ours.certificate_no);
  }, 60_000);
});

describe('the registry rail: intent before the call, outcome after', () => {
  const activeAt = async (regno: string) =>
    t.db.system((tx) =>
      tx.registrySimCertificate.findMany({ where: { registration: vehicleKey(regno), status: 'Active' } }),
    );

  it('an issue whose answer was lost is found at the registry by the next attempt, not issued twice', async () => {
    const rt = t.app.services.registry;
    const real = rt.registry;
    await withoutIssueJobs(async () => {
      const pol = await o.activePolicy(CERT());
      const { id } = await policyRow(o, pol.uuid);
      // The registry certifies, but its answer never arrives.
      rt.registry = Object.assign(Object.create(real), {
        issue: async (req: IssueCertificateRequest) => {
          await real.issue(req);
          throw new Error('socket hang up');
        },
      });
      try {
        const lost = await issueDue(t.app.services, id);
        expect(lost.attempted).toMatchObject([{ status: 'issuing', errorCode: 'registry_unavailable' }]);
      } finally {
        rt.registry = real;
      }
      const [issuedThere] = await activeAt(pol.regno);
      const again = await issueDue(t.app.services, id);
      expect(again.attempted).toMatchObject([{ status: 'issued', errorCode: null }]);
      const [c] = (await certs(o, pol.uuid)).body.data;
      expect(c).toMatchObject({
        status: 'issued',
        certificate_no: issuedThere.certificateNo,
        attempts: 2,
        error: null,
      });
      expect(await activeAt(pol.regno)).toHaveLength(1);
      expect(await events(o, 'certificate.issued', pol.policy_no)).toHaveLength(1);
    });
  }, 60_000);

  it('a cancellation whose answer was lost is found cancelled at the registry by the retry', async () => {
    const pol = await o.certifiedPolicy(CERT());
    const [c] = pol.certificates;
    const rt = t.app.services.registry;
    const real = rt.registry;
    // The registry cancels, but its answer never arrives.
    rt.registry = Object.assign(Object.create(real), {
      cancel: async (req: CancelCertificateRequest) => {
        await real.cancel(req);
        throw new Error('socket hang up');
      },
    });
    const cancel = () =>
      o.api.post(`/certificates/${c.certificate_no}/cancel`, {
        token: o.tokens.staff,
        idempotencyKey: randomUUID(),
        body: { reason_id: 15 },
      });
    try {
      expectProblem(await cancel(), 503, 'service_unavailable');
    } finally {
      rt.registry = real;
    }
    expect((await certs(o, pol.uuid)).body.data[0]).toMatchObject({ status: 'cancel_pending', cancel_reason_id: 15 });
    const again = await cancel();
    expect(again.status, again.text).toBe(200);
    expect(again.body.data).toMatchObject({
      certificate_no: c.certificate_no,
      status: 'cancelled',
      cancel_reason_id: 15,
      error: null,
    });
    expect(await events(o, 'certificate.cancelled', pol.policy_no)).toMatchObject([
      { certificate_no: c.certificate_no, reason_id: 15 },
    ]);
  }, 60_000);

  it('a policy cancelled while its issue call is under way: the certificate is recorded, then cancelled at the registry', async () => {
    const rt = t.app.services.registry;
    const real = rt.registry;
    await withoutIssueJobs(async () => {
      const pol = await o.activePolicy(CERT());
      const { id } = await policyRow(o, pol.uuid);
      const preview = await o.api.post(`/policies/${pol.uuid}/cancellation`, {
        token: o.tokens.staff,
        idempotencyKey: randomUUID(),
        body: { reason: 'insured_request', requested_by: 'insured' },
      });
      expect(preview.status, preview.text).toBe(201);
      // No row is locked while the registry works: the cancellation commits in the middle of the call.
      rt.registry = Object.assign(Object.create(real), {
        issue: async (req: IssueCertificateRequest) => {
          const cf = await o.api.post(`/policies/${pol.uuid}/cancellations/${preview.body.data.uuid}/confirm`, {
            token: o.tokens.staff,
            idempotencyKey: randomUUID(),
          });
          expect(cf.status, cf.text).toBe(200);
          return real.issue(req);
        },
      });
      try {
        const out = await issueDue(t.app.services, id);
        expect(out.attempted).toMatchObject([{ status: 'cancel_pending' }]);
      } finally {
        rt.registry = real;
      }
      const list = await waitCerts(o, pol.uuid, (l) => l.every((x) => x.status === 'cancelled'));
      expect(list).toMatchObject([{ status: 'cancelled', cancel_reason_id: 8 }]);
      expect(await activeAt(pol.regno)).toEqual([]);
    });
  }, 60_000);

  it('two attempts at once certify the vehicle once', async () => {
    await withoutIssueJobs(async () => {
      const pol = await o.activePolicy(CERT());
      const { id } = await policyRow(o, pol.uuid);
      await Promise.all([issueDue(t.app.services, id), issueDue(t.app.services, id), issueDue(t.app.services, id)]);
      const list = (await certs(o, pol.uuid)).body.data;
      expect(list.map((x: any) => [x.status, x.attempts])).toEqual([['issued', 1]]);
      expect((await activeAt(pol.regno)).map((r) => r.certificateNo)).toEqual([list[0].certificate_no]);
    });
  }, 60_000);
});

describe('a vehicle added by endorsement, and the sweep', () => {
  it('is certified from its first day on cover to the stage end, beside the first vehicle', async () => {
    const pol = await o.certifiedPolicy(CERT());
    const from = addDays(TODAY, 2);
    const reg = freshReg();
    const e = await o.api.post(`/policies/${pol.uuid}/endorse`, {
      token: o.tokens.staff,
      idempotencyKey: randomUUID(),
      body: {
        operation: 'add_vehicle',
        effective_date: from,
        vehicle: {
          regno: reg,
          chassis_no: `ADD${seq}X`,
          engine_no: `ENG-${seq}`,
          body_type: 'Hatchback',
          make: 'Mazda',
          model: 'Demio',
          yom: YEAR - 2,
          value: 900_000,
        },
      },
    });
    expect(e.status, e.text).toBe(201);
    const c = await o.api.post(`/policies/${pol.uuid}/endorsements/${e.body.data.uuid}/confirm`, {
      token: o.tokens.staff,
      idempotencyKey: randomUUID(),
    });
    expect(c.status, c.text).toBe(200);
    const list = await waitCerts(o, pol.uuid, (l) => l.filter((x) => x.status === 'issued').length === 2);
    expect(list.map((x) => [x.regno, x.stage, x.status, x.start_date, x.end_date])).toEqual([
      [pol.regno.replace(/\s/g, ''), 1, 'issued', TODAY, pol.end_date],
      [reg.replace(/\s/g, ''), 1, 'issued', from, pol.end_date],
    ]);
  }, 60_000);

  it('the minute sweep queues a paid policy whose issue job was never sent', async () => {
    const rt = t.app.services.registry;
    const send = rt.send!;
    const lost: unknown[] = [];
    rt.send = async (q, data) => void lost.push({ q, data });
    let pol: any;
    try {
      pol = await o.activePolicy(CERT());
    } finally {
      rt.send = send;
    }
    expect(lost).toEqual([{ q: 'issue', data: { policyId: (await policyRow(o, pol.uuid)).id } }]);
    expect((await certs(o, pol.uuid)).body.data).toEqual([]);
    const swept = await sweepCertificates(t.app.services);
    expect(swept.issue).toBeGreaterThanOrEqual(1);
    const list = await waitCerts(o, pol.uuid, (l) => l.some((x) => x.status === 'issued'));
    expect(list.map((x) => x.status)).toEqual(['issued']);
  }, 60_000);

  it('the sweep leaves a paid stage that is already over (it is never certified)', async () => {
    const rt = t.app.services.registry;
    const send = rt.send!;
    const sent: { q: string; data: any }[] = [];
    rt.send = async (q, data) => void sent.push({ q, data });
    try {
      const pol = await o.activePolicy(CERT());
      const row = await policyRow(o, pol.uuid);
      const period = (startDate: Date, endDate: Date) =>
        t.db.tenant(o.org.id, (tx) => tx.policy.update({ where: { id: row.id }, data: { startDate, endDate } }));
      const queued = async () => {
        sent.length = 0;
        await sweepCertificates(t.app.services);
        return sent.filter((x) => x.q === 'issue' && x.data.policyId === row.id);
      };
      // Cover that ran last year: its only stage ended yesterday (on the test clock).
      await period(toDbDate(addDays(TODAY, -366)), toDbDate(addDays(TODAY, -1)));
      expect(await queued()).toEqual([]);
      // Positive control: the same probe sees the issue job once the stage runs to today.
      await period(toDbDate(addDays(TODAY, -365)), toDbDate(TODAY));
      expect((await queued())[0]).toEqual({ q: 'issue', data: { policyId: row.id } });
    } finally {
      rt.send = send;
    }
  }, 60_000);
});

describe('visibility on every endpoint', () => {
  let staffPol: any;
  let agentPol: any;
  let staffNo: string;
  beforeAll(async () => {
    staffPol = await o.pendingPolicy(CERT());
    agentPol = await o.pendingPolicy(CERT({ token: o.tokens.agent }));
    await o.payInstalments(staffPol, [1]);
    staffNo = (await waitCerts(o, staffPol.uuid, (l) => l.some((x) => x.status === 'issued')))[0].certificate_no;
  }, 60_000);

  it('another organisation gets 404 (with success false) on our policy and certificate', async () => {
    const tok = other.tokens.staff;
    for (const r of [
      await other.api.get(`/policies/${staffPol.uuid}/certificates`, { token: tok }),
      await other.api.post(`/policies/${staffPol.uuid}/certificates`, { token: tok, idempotencyKey: randomUUID() }),
      await other.api.get(`/certificates/${staffNo}`, { token: tok }),
      await other.api.post(`/certificates/${staffNo}/cancel`, {
        token: tok,
        idempotencyKey: randomUUID(),
        body: { reason_id: 8 },
      }),
    ]) {
      expectProblem(r, 404, 'not_found');
      expect(r.body).toMatchObject({ success: false, message: expect.any(String) });
    }
    const g = await gql(tok, `query($n: String!) { certificate(certificateNo: $n) { certificateNo } }`, { n: staffNo });
    expect(g.errors?.[0]?.extensions?.code).toBe('not_found');
  });

  it('an agent gets 404 on a policy outside their reach, sees their own', async () => {
    const agent = o.tokens.agent;
    expectProblem(await o.api.get(`/policies/${staffPol.uuid}/certificates`, { token: agent }), 404, 'not_found');
    expectProblem(
      await o.api.post(`/policies/${staffPol.uuid}/certificates`, { token: agent, idempotencyKey: randomUUID() }),
      404,
      'not_found',
    );
    expectProblem(await o.api.get(`/certificates/${staffNo}`, { token: agent }), 404, 'not_found');
    expectProblem(
      await o.api.post(`/certificates/${staffNo}/cancel`, {
        token: agent,
        idempotencyKey: randomUUID(),
        body: { reason_id: 8 },
      }),
      404,
      'not_found',
    );
    expectProblem(
      await o.api.get(`/certificates/${staffNo}`, { token: asAgent2.token, headers: asAgent2.headers }),
      404,
      'not_found',
    );
    const own = await o.api.get(`/policies/${agentPol.uuid}/certificates`, { token: agent });
    expect(own.status, own.text).toBe(200);
    expect(own.body).toEqual({ success: true, data: [] });
    // Staff see everything.
    expect((await o.api.get(`/certificates/${staffNo}`, { token: o.tokens.staff })).status).toBe(200);
  });

  it('writes need scope bind and an Idempotency-Key', async () => {
    expectProblem(
      await o.api.post(`/policies/${staffPol.uuid}/certificates`, {
        token: o.tokens.readonly,
        idempotencyKey: randomUUID(),
      }),
      403,
      'insufficient_scope',
    );
    const r = await o.api.post(`/policies/${staffPol.uuid}/certificates`, { token: o.tokens.staff });
    expect(r.status).toBe(400);
  });
});

describe('certificate state machine', () => {
  it('the table: every allowed transition, nothing else', () => {
    const allowed = Object.entries(CERTIFICATE_TRANSITIONS).flatMap(([f, tos]) => tos.map((to) => `${f}>${to}`));
    expect(allowed.sort()).toEqual(
      [
        'pending>issuing',
        'pending>failed',
        'pending>void',
        'issuing>issued',
        'issuing>failed',
        'issuing>void',
        'failed>pending',
        'failed>void',
        'issued>cancel_pending',
        'cancel_pending>cancelled',
        'cancel_pending>cancel_refused',
        'cancel_refused>cancel_pending',
      ].sort(),
    );
    for (const f of CERTIFICATE_STATES)
      for (const to of CERTIFICATE_STATES) expect(canTransition(f, to)).toBe(allowed.includes(`${f}>${to}`));
  });

  it('every transition on a row, guarded by the current status', async () => {
    const pol = await o.pendingPolicy(CERT());
    const p = await t.db.tenant(o.org.id, (tx) =>
      tx.policy.findFirstOrThrow({ where: { uuid: pol.uuid }, include: { vehicles: true } }),
    );
    let stage = 100;
    const row = (status: string) =>
      t.db.tenant(o.org.id, (tx) =>
        tx.certificate.create({
          data: {
            tenantId: o.org.id,
            uuid: randomUUID(),
            policyId: p.id,
            vehicleId: p.vehicles[0].id,
            stage: (stage += 1),
            stageCount: 1,
            certificateClass: 'C',
            coverCode: 100,
            startDate: toDbDate(TODAY),
            endDate: toDbDate(TODAY),
            status,
          },
        }),
      );
    const move = (id: number, from: any, to: any) =>
      t.db.tenant(o.org.id, (tx) => transitionCertificate(tx, id, from, to));
    const status = async (id: number) =>
      (await t.db.tenant(o.org.id, (tx) => tx.certificate.findUniqueOrThrow({ where: { id } }))).status;
    // pending → failed → pending → issuing → issued → cancel_pending → cancel_refused → cancel_pending → cancelled
    const a = await row('pending');
    for (const [from, to] of [
      ['pending', 'failed'],
      ['failed', 'pending'],
      ['pending', 'issuing'],
      ['issuing', 'issued'],
      ['issued', 'cancel_pending'],
      ['cancel_pending', 'cancel_refused'],
      ['cancel_refused', 'cancel_pending'],
      ['cancel_pending', 'cancelled'],
    ]) {
      expect(await move(a.id, from, to), `${from} → ${to}`).toBe(true);
      expect(await status(a.id)).toBe(to);
    }
    // pending → void, failed → void, issuing → failed, issuing → void
    const b = await row('pending');
    expect(await move(b.id, 'pending', 'void')).toBe(true);
    const c = await row('failed');
    expect(await move(c.id, 'failed', 'void')).toBe(true);
    expect(await status(c.id)).toBe('void');
    const d = await row('issuing');
    expect(await move(d.id, 'issuing', 'failed')).toBe(true);
    const e = await row('issuing');
    expect(await move(e.id, 'issuing', 'void')).toBe(true);
    // A stale `from` changes nothing; a move outside the table throws.
    expect(await move(b.id, 'pending', 'issuing')).toBe(false);
    expect(await status(b.id)).toBe('void');
    await expect(move(a.id, 'cancelled', 'issued')).rejects.toBeInstanceOf(IllegalCertificateTransition);
    await expect(move(b.id, 'pending', 'issued')).rejects.toBeInstanceOf(IllegalCertificateTransition);
    await expect(move(b.id, 'issued', 'cancelled')).rejects.toBeInstanceOf(IllegalCertificateTransition);
  });
});

async function gql(token: string, query: string, variables: Record<string, unknown> = {}) {
  const r = await fetch(`${t.origin}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return await r.json();
}
