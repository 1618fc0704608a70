/**
 * Issue 27 "examples that work": every request example of the OpenAPI document (rest-compat/examples/requests.ts) is
 * sent, as the document shows it, to a fresh organisation of the running server, with the records its path names made
 * first through the API, a fresh Idempotency-Key where the operation takes one and a token with its scopes; each must
 * be accepted (no 400, 422 or 500; a success answer). Only the values the example marks are replaced: `refs` (a record
 * of the organisation: an insurer's id, a policy) and `fromToday` (a date that must not be past).
 *
 * With CAPTURE_EXAMPLES=1 (`npm run capture:examples`) the success answers are written to
 * rest-compat/examples/responses.json (secrets and one-time values replaced by clearly fake ones), the document's
 * response examples.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_EXAMPLES, type RequestExample } from '../rest-compat/examples/requests.ts';
import { ROUTES } from '../rest-compat/routes/index.ts';
import { addDays } from '../src/lib/dates.ts';
import { type Active, type Bound, clientHeaders, INSTANT_RAIL, lastCode, TODAY, useKit } from './kit.ts';
import { lenderId } from './kit/ipf-application.ts';
import { certifiedPolicy, insurers, pendingPolicy } from './kit/policies.ts';
import { ipfPolicy } from './kit/ipf.ts';

const t = useKit(INSTANT_RAIL, { jobs: true });
const o = t.useOrg({ fast: true, sandbox: true });

const CAPTURE = process.env.CAPTURE_EXAMPLES === '1';
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

/** What the examples' `refs` and the operations' path parameters name, made in the organisation first. */
const fx: Record<string, string | number> = {};
const captured: Record<string, { status: number; body: unknown }> = {};
let viewer: Record<string, string> = {};
const sent = new Set<string>();

/** The holder of the examples' policies: the client of saveMotorQuote's example (and the client-area viewer). */
const HOLDER = REQUEST_EXAMPLES.saveMotorQuote.body!.client as Record<string, string>;

/**
 * Operations a fresh organisation cannot send their example to, with the reason (keep this short).
 */
const NOT_SENT: Record<string, string> = {
  earlySettlement: 'needs a funded premium-finance loan (deposit paid, disbursed); test/ipf-settlement.test.ts',
  signIpfApplication:
    'needs the lender’s approval job and the signing code; covered by test/ipf-applications-signing.test.ts',
};

function setAt(target: Record<string, any>, path: string, value: unknown): void {
  const keys = path.split('.');
  let at: any = target;
  for (const k of keys.slice(0, -1)) at = at[k];
  expect(at, `${path} in the example`).toBeDefined();
  at[keys.at(-1)!] = value;
}

/** The example as sent: a copy with its marked values replaced. */
function prepared(ex: RequestExample): { body?: Record<string, any>; query: Record<string, any> } {
  const body = ex.body ? structuredClone(ex.body) : undefined;
  const query: Record<string, unknown> = { ...ex.query };
  const place = (p: string, v: unknown) =>
    p.startsWith('query.') ? (query[p.slice(6)] = v) : setAt(body as Record<string, any>, p, v);
  for (const [p, ref] of Object.entries(ex.refs ?? {})) {
    const v = fx[ref];
    expect(v, `the fixture ${ref} for ${p}`).toBeDefined();
    place(p, v);
  }
  for (const [p, days] of Object.entries(ex.fromToday ?? {})) place(p, addDays(TODAY, days));
  return { body, query };
}

function route(opId: string) {
  const r = ROUTES.find((x) => x.operationId === opId);
  if (!r) throw new Error(`no route ${opId}`);
  return r;
}

/** Sends operation `opId`'s example with `params` in its path; expects a success and returns the answer. */
async function send(opId: string, params: Record<string, string | number> = {}, headers: Record<string, string> = {}) {
  const r = route(opId);
  const ex = REQUEST_EXAMPLES[opId];
  const { body, query } = prepared(ex);
  let path = r.path.replace(/\{(\w+)\}/g, (_, k) => {
    expect(params[k], `path parameter ${k} of ${opId}`).toBeDefined();
    return encodeURIComponent(String(params[k]));
  });
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  if (qs) path += `?${qs}`;
  const role = r.scopes.includes('admin') ? 'admin' : 'staff';
  const hdrs: Record<string, string> = { authorization: `Bearer ${o.tokens[role]}`, ...headers };
  if (r.idempotent) hdrs['idempotency-key'] = randomUUID();
  let payload: BodyInit | undefined;
  if (r.multipart && body) {
    const form = new FormData();
    for (const [k, v] of Object.entries(body)) form.append(k, String(v));
    form.append('file', new Blob([PDF], { type: 'application/pdf' }), 'police-abstract.pdf');
    payload = form;
  } else if (body) {
    payload = JSON.stringify(body);
    hdrs['content-type'] = 'application/json';
  }
  const res = await fetch(`${t.base}${path}`, { method: r.method, headers: hdrs, body: payload });
  const text = await res.text();
  expect
    .soft(res.status, `${opId} ${r.method} ${path} ${JSON.stringify(body)} → ${text.slice(0, 1500)}`)
    .toBeLessThan(300);
  const json: any = text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  sent.add(opId);
  if (res.status === r.response.status) captured[opId] = { status: res.status, body: json };
  return json;
}

/** Moves a claim on (a step that is not an example of its own). */
async function moveClaim(uuid: string, to: string) {
  const move = () => o.as('staff').post(`/claims/${uuid}/transitions`, { body: { to }, idempotencyKey: randomUUID() });
  let r = await move();
  // Documents still outstanding: seen on paper (marked received), then moved on.
  for (const kind of r.status === 409 ? ((r.body.missing_documents as string[] | undefined) ?? []) : []) {
    const m = await o.as('staff').post(`/claims/${uuid}/documents/${kind}/mark`, {
      body: { status: 'received' },
      idempotencyKey: randomUUID(),
    });
    expect.soft(m.status, m.text).toBe(200);
  }
  if (r.status === 409 && r.body.missing_documents) r = await move();
  expect.soft(r.status, r.text).toBeLessThan(300);
}

let active: Active & { certificates: any[] };
let pending: Bound;

beforeAll(async () => {
  const ids = await insurers(o);
  for (const [name, id] of ids) fx[`insurer:${name}`] = id;
  fx['lender:Mkopo Premium Finance'] = await lenderId(o);
  fx.user_id = o.users.exec.id;
  // The holder's motor policy, active with its certificate; another pending payment in two instalments.
  active = await certifiedPolicy(o, { client: HOLDER });
  fx.policy_uuid = active.uuid;
  fx.vehicle_regno = active.regno;
  fx.client_no = active.client_no;
  fx.certificate_no = active.certificates[0].certificate_no;
  pending = await pendingPolicy(o, { client: HOLDER, instalments: 2 });
  fx.debit_note_no = pending.debit_note.instalments[0].number;
  fx.debit_note_no_2 = pending.debit_note.instalments[1].number;
  const ipf = await ipfPolicy(o, { client: REQUEST_EXAMPLES.saveMotorPolicy.body!.client as Record<string, string> });
  fx.ipf_policy_uuid = ipf.uuid;
}, 120_000);

/** Secrets shown once (client secrets, webhook secrets, client-area keys, tokens): clearly fake, same shape. */
const SECRET_KEYS = /^(client_secret|secret|previous_secret|signing_secret|client_key|agent_key|access_token|key)$/;
function fake(v: string): string {
  const prefix = /^[a-z]+_/.exec(v)?.[0] ?? '';
  const rest = v.length - prefix.length;
  return `${prefix}${'EXAMPLE'.slice(0, rest)}${'0'.repeat(Math.max(0, rest - 7))}`;
}
function redacted(v: unknown, key = ''): unknown {
  if (typeof v === 'string' && SECRET_KEYS.test(key)) return fake(v);
  if (Array.isArray(v)) return v.map((x) => redacted(x, key));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, redacted(x, k)]));
  return v;
}

afterAll(() => {
  if (!CAPTURE) return;
  const out = Object.fromEntries(
    Object.keys(captured)
      .sort()
      .map((op) => [op, redacted(captured[op])]),
  );
  writeFileSync('rest-compat/examples/responses.json', `${JSON.stringify(out, null, 2)}\n`);
});

describe('every request example of the document is accepted by the running API', () => {
  it('has an example for every operation with a body or query parameters, and none for another', () => {
    const need = ROUTES.filter((r) => r.requestBody || r.queryParams?.length).map((r) => r.operationId);
    expect(need.filter((op) => !REQUEST_EXAMPLES[op])).toEqual([]);
    expect(Object.keys(REQUEST_EXAMPLES).filter((op) => !need.includes(op))).toEqual([]);
  });

  it('reference, clients, API clients and quotes', async () => {
    await send('listInsurers');
    const apiClient = await send('createApiClient');
    await send('updateApiClient', { client_id: apiClient.data?.client_id ?? apiClient.client_id });
    await send('rotateApiClientSecret', { client_id: apiClient.data?.client_id ?? apiClient.client_id });
    const client = await send('createClient');
    await send('updateClient', { client_no: client.data?.client_no ?? client.client_no });
    await send('listClients');
    for (const op of ['motorQuote', 'medicalQuote', 'travelQuote', 'standardQuote']) await send(op);
    for (const op of ['saveMotorQuote', 'saveMedicalQuote', 'saveTravelQuote', 'saveStandardQuote']) await send(op);
  });

  it('binds every line', async () => {
    for (const op of ['saveMotorPolicy', 'saveMedicalPolicy', 'saveTravelPolicy', 'saveStandardPolicy']) await send(op);
  });

  it('policies, certificates, endorsements and cancellations', async () => {
    await send('listPolicies');
    await send('checkCertificate');
    const e = await send('endorsePolicy', { uuid: active.uuid });
    expect(e.data.uuid).toBeDefined();
    const c = await send('previewCancellation', { uuid: active.uuid });
    expect(c.data.uuid).toBeDefined();
  });

  it('payments, receipts and SMS', async () => {
    await send('stkPush');
    await send('listReceipts');
    await send('topUpSms');
    await send('getSmsBalance');
    await send('createSmsSenderId');
    await send('updateSmsSenderId', { sender_id: 'SAVANNAH' });
    await send('saveSmsTemplate');
    await send('sendSms');
    await send('listSms');
  });

  it('webhooks', async () => {
    const w = await send('createWebhookEndpoint');
    const id = w.data?.id ?? w.id;
    await send('updateWebhookEndpoint', { id });
    await send('rotateWebhookSecret', { id });
    await send('sendTestWebhook', { id });
    await send('listWebhookDeliveries', { id });
    await send('listEvents');
  });

  it('prospects', async () => {
    const p = await send('createProspect');
    const uuid = p.data.uuid;
    await send('updateProspect', { uuid });
    await send('addProspectNote', { uuid });
    await send('listProspects');
    await send('listProspectFollowUps');
    await send('convertProspect', { uuid });
  });

  it('claims: the whole path of one, repudiation and reopening of another', async () => {
    await send('listClaimCauses');
    const c = await send('registerClaim');
    const uuid = c.data.uuid;
    await send('listClaims');
    await send('updateClaim', { uuid });
    await send('moveClaim', { uuid });
    await send('uploadClaimDocument', { uuid });
    await send('markClaimDocument', { uuid, kind: 'repair_estimate' });
    await moveClaim(uuid, 'with_underwriter');
    await send('appointClaimAssessor', { uuid });
    await moveClaim(uuid, 'under_assessment');
    await send('adjustClaimReserve', { uuid });
    await send('recordClaimAssessment', { uuid });
    await send('approveClaim', { uuid });
    await send('payClaim', { uuid });
  });

  it('the client area', async () => {
    await send('requestClientOtp');
    fx.otp_code = (await lastCode(o, HOLDER.phone))!;
    const v = await send('verifyClientOtp');
    viewer = clientHeaders(v.data);
    await send('getViewerStatement', {}, viewer);
    await send('updateViewerContact', {}, viewer);
    const claim = await send('viewerRegisterClaim', {}, viewer);
    await moveClaim(claim.data.uuid, 'documents_pending');
    await moveClaim(claim.data.uuid, 'with_underwriter');
    await send('repudiateClaim', { uuid: claim.data.uuid });
    await moveClaim(claim.data.uuid, 'closed');
    await send('reopenClaim', { uuid: claim.data.uuid });
    fx.debit_note_no = fx.debit_note_no_2;
    await send('viewerPay', {}, viewer);
    // Registration: a code asked for with purpose register for the new client's phone.
    const phone = REQUEST_EXAMPLES.registerClientAreaClient.body!.phone as string;
    const asked = await o.as('staff').post('/client-area/otp', { body: { phone, purpose: 'register' } });
    expect(asked.status, asked.text).toBe(202);
    fx.otp_code = (await lastCode(o, phone))!;
    await send('registerClientAreaClient');
  });

  it('premium finance', async () => {
    await send('ipfQuote');
    const a = await send('createIpfApplication');
    await send('listIpfApplications');
    await send('cancelIpfApplication', { uuid: a.data.uuid });
    await send('listIpfLoans');
  });

  it('ERP exports', async () => {
    for (const op of [
      'exportErpClients',
      'exportErpPolicies',
      'exportErpClaims',
      'exportErpReceipts',
      'exportErpCreditNotes',
    ])
      await send(op);
  });

  it('renewals, then the sandbox clock', async () => {
    await send('listRenewalsDue');
    // A policy of its own is renewed (the examples' policy is cancelled and reinstated below); the quote's example
    // names a vehicle of the policy it renews, and the renewal's premium is the quote's total.
    const renewing = await o.activePolicy();
    const regno = fx.vehicle_regno;
    fx.vehicle_regno = renewing.regno;
    const quoted = await send('quoteRenewal', { uuid: renewing.uuid });
    fx.vehicle_regno = regno;
    fx.renewal_quote_uuid = quoted.data.uuid;
    fx.renewal_total = quoted.data.renewal.total;
    await send('renewPolicy', { uuid: renewing.uuid });
    await send('cancelCertificate', { certificate_no: fx.certificate_no });
    const preview = await o.as('staff').post(`/policies/${active.uuid}/cancellation`, {
      body: { reason: 'vehicle_sold', requested_by: 'insured' },
      idempotencyKey: randomUUID(),
    });
    expect(preview.status, preview.text).toBe(201);
    const confirm = await o
      .as('staff')
      .post(`/policies/${active.uuid}/cancellations/${preview.body.data.uuid}/confirm`, {
        idempotencyKey: randomUUID(),
      });
    expect(confirm.status, confirm.text).toBe(200);
    await send('reinstatePolicy', { uuid: active.uuid });
    await send('advanceSandboxClock');
  });

  it('lists what is not sent, each with its reason', () => {
    expect(Object.keys(NOT_SENT).every((op) => REQUEST_EXAMPLES[op])).toBe(true);
    const unsent = Object.keys(REQUEST_EXAMPLES).filter((op) => !sent.has(op) && !NOT_SENT[op]);
    expect(unsent).toEqual([]);
  });
});
