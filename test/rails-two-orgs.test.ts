import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { vehicleKey } from '../jobs/rails/registry-simulator.ts';
import { issueDue } from '../src/modules/certificates/certificate.service.ts';
import type { IssueCertificateRequest } from '../src/ports/certificate-registry.ts';
import { INSTANT_RAIL, type Org, PHONES, useKit, waitFor } from './kit.ts';
import { approvedClaim, claimRow, payClaim, paymentIn } from './kit/approved-claim.ts';
import { ipfPolicy, loanInStatus, loanRow, repay } from './kit/ipf.ts';
import { command, decidedApplication, signingCode } from './kit/ipf-application.ts';
import { policyInStatus } from './kit/policies.ts';

/**
 * Two organisations whose numbers are the same (every organisation's counters start at 1) run side by side through
 * every rail (docs/architecture.md "Rails: references"): each rail serves the whole deployment and keys on a reference
 * that must be unique across it, so each organisation's record gets its own rail outcome. The brokerage goes first,
 * the agency then does exactly the same: the same application, loan and policy numbers, the same paying phone and
 * account, the same SMS to the same number, the same vehicle at the same insurer.
 */

const t = useKit(INSTANT_RAIL, { jobs: true });
const brokerage = t.useOrg({ fast: true });
const agency = t.useOrg({ type: 'agency', fast: true });
const app = () => t.app.services;

const gql = (o: Org, query: string, variables: Record<string, unknown>) =>
  o.api.gql(query, variables, { token: o.tokens.staff });

/** Bound with payment_mode ipf, applied for, approved by the lender, signed by code: a loan awaiting its deposit. */
async function signedThroughApi(o: Org, value: number) {
  const pol = await ipfPolicy(o, { value });
  const application = await decidedApplication(o, pol);
  const { code } = await signingCode(o, application);
  const signed = await command(o, application.uuid, 'sign', { code });
  expect(signed.status, signed.text).toBe(200);
  const loan = await o.t.db.tenant(o.id, (tx) =>
    tx.ipfLoan.findUniqueOrThrow({ where: { uuid: signed.body.data.loan.uuid }, include: { instalments: true } }),
  );
  return { pol, application, loan };
}

/** The deposit paid by STK push; the lender's disbursement job then funds the loan. */
async function depositPaid(o: Org, s: Awaited<ReturnType<typeof signedThroughApi>>) {
  const deposit = s.loan.instalments.find((i) => i.seq === 1)!;
  await repay(o, s.loan.loanNo, deposit.amountMinor);
  return loanInStatus(o, s.loan.id, 'active');
}

/** What funding left in the organisation: the disbursement call, the lender's receipt, the policy's notes. */
function funding(o: Org, loanId: number, policyUuid: string) {
  return o.t.db.tenant(o.id, async (tx) => ({
    call: await tx.ipfLenderCall.findFirstOrThrow({ where: { loanId, kind: 'disbursement' } }),
    receipts: await tx.receipt.findMany({ where: { policy: { uuid: policyUuid }, method: 'ipf_lender' } }),
    notes: await tx.debitNote.findMany({ where: { policy: { uuid: policyUuid } } }),
    application: await tx.ipfApplication.findFirstOrThrow({ where: { loan: { id: loanId } } }),
  }));
}

describe('premium finance: the lender keys on a reference unique across the deployment', () => {
  it("the agency's first loan is funded by its own disbursement, its note paid, its policy active", async () => {
    // A KES 1,000,000 car for the brokerage, KES 1,500,000 for the agency: the two principals differ.
    const b = await signedThroughApi(brokerage, 1_000_000);
    await depositPaid(brokerage, b);
    await policyInStatus(brokerage, b.pol.uuid, 'active');

    const a = await signedThroughApi(agency, 1_500_000);
    // The premise: the same numbers in both organisations.
    expect(a.application.application_no).toBe(b.application.application_no);
    expect(a.loan.loanNo).toBe(b.loan.loanNo);
    expect(a.application.decision.lender_ref).not.toBe(b.application.decision.lender_ref);
    await depositPaid(agency, a);
    await policyInStatus(agency, a.pol.uuid, 'active');

    const [fb, fa] = [await funding(brokerage, b.loan.id, b.pol.uuid), await funding(agency, a.loan.id, a.pol.uuid)];
    expect(fa.call.request).toMatchObject({
      reference: `${agency.code}/${a.loan.loanNo}`,
      loan_no: a.loan.loanNo,
      amount_minor: a.loan.principalMinor.toString(),
    });
    expect(fb.call.request).toMatchObject({ reference: `${brokerage.code}/${b.loan.loanNo}` });
    const [ra, rb] = [fa.receipts, fb.receipts];
    expect(ra).toHaveLength(1);
    expect(rb).toHaveLength(1);
    // The agency's receipt is the lender's answer to the agency's request: its own reference, its own principal,
    // paid after its agreement was signed; the debit note it pays is paid in full.
    const agencyLoan = await loanRow(agency, a.loan.id);
    expect(ra[0].transactionRef).toBe(agencyLoan.disbursementRef);
    expect(ra[0].transactionRef).not.toBe(rb[0].transactionRef);
    expect(ra[0].amountMinor).toBe(a.loan.principalMinor);
    expect(rb[0].amountMinor).toBe(b.loan.principalMinor);
    expect(ra[0].paidAt.getTime()).toBeGreaterThanOrEqual(fa.application.signedAt!.getTime());
    expect(fa.notes.map((n) => n.amountMinor - n.paidMinor)).toEqual([0n]);
    expect(fb.notes.map((n) => n.amountMinor - n.paidMinor)).toEqual([0n]);

    // Both transports say so.
    const rest = await agency.api.get(`/ipf/loans/${a.loan.uuid}`, { token: agency.tokens.staff });
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body.data).toMatchObject({ status: 'active', loan_no: a.loan.loanNo });
    const g = await gql(agency, 'query($u: String!) { ipfLoan(uuid: $u) { loanNo status fundedAt } }', {
      u: a.loan.uuid,
    });
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.ipfLoan).toMatchObject({ loanNo: a.loan.loanNo, status: 'active' });
    expect(g.body.data.ipfLoan.fundedAt).not.toBeNull();
  }, 180_000);
});

describe('M-Pesa STK push: each callback lands on its own request', () => {
  it('the same phone paying the same account number in both organisations at once', async () => {
    const [pb, pa] = await Promise.all([brokerage.pendingPolicy({ value: 1_000_000 }), agency.pendingPolicy()]);
    expect(pa.policy_no).toBe(pb.policy_no);
    const owed = (p: typeof pa) => Math.ceil(p.debit_note.instalments[0].amount_minor / 100);
    const pushes = await Promise.all(
      [brokerage, agency].map((o, i) =>
        o.push({ phone: PHONES.success, amount: owed([pb, pa][i]), account: [pb, pa][i].policy_no }),
      ),
    );
    for (const p of pushes) expect(p.status, p.text).toBe(202);
    const ids = pushes.map((p) => p.body.data.checkout_request_id as string);
    expect(ids[0]).not.toBe(ids[1]);
    for (const [i, o] of [brokerage, agency].entries()) {
      const s = await o.settled(ids[i]);
      expect(s.body.data.status, s.text).toBe('succeeded');
      await o.callbackProcessed(ids[i]);
      // Each organisation holds its own prompt's callback and receipt, for its own amount, and no other.
      const seen = await o.t.db.tenant(o.id, async (tx) => ({
        callbacks: await tx.mpesaCallback.findMany({ select: { checkoutRequestId: true } }),
        request: await tx.paymentRequest.findFirstOrThrow({ where: { checkoutRequestId: ids[i] } }),
      }));
      expect(seen.callbacks.map((c) => c.checkoutRequestId)).not.toContain(ids[1 - i]);
      const prompt = await t.db.system((tx) =>
        tx.mpesaSimPrompt.findUniqueOrThrow({ where: { checkoutRequestId: ids[i] } }),
      );
      expect(seen.request.mpesaReceiptNo).toBe(prompt.receiptNo);
      const receipt = await o.t.db.tenant(o.id, (tx) =>
        tx.receipt.findUniqueOrThrow({ where: { id: seen.request.receiptId! } }),
      );
      expect(receipt).toMatchObject({ transactionRef: prompt.receiptNo, amountMinor: BigInt(owed([pb, pa][i]) * 100) });
      await policyInStatus(o, [pb, pa][i].uuid, 'active');
    }
  }, 120_000);
});

describe('M-Pesa B2C: each payout is its own request at the rail', () => {
  it('a claim payout in each organisation, to the same phone, paid once each with its own receipt', async () => {
    const [pb, pa] = await Promise.all([brokerage.activePolicy(), agency.activePolicy()]);
    const nets = [1_500_000n, 2_500_000n];
    const claims = await Promise.all(
      [brokerage, agency].map((o, i) => approvedClaim(o, [pb, pa][i].uuid, { net: nets[i] })),
    );
    const paid = await Promise.all(
      [brokerage, agency].map(async (o, i) => {
        const r = await payClaim(o, claims[i].uuid, {
          method: 'mpesa_b2c',
          payee_name: 'Achieng Otieno',
          phone: PHONES.success,
          final: true,
        });
        expect(r.status, r.text).toBe(201);
        return paymentIn(o, claims[i].uuid, r.body.data.uuid, 'paid');
      }),
    );
    expect(paid[0].reference).not.toBe(paid[1].reference);
    for (const [i, o] of [brokerage, agency].entries()) {
      const booking = await t.db.system((tx) =>
        tx.mpesaSimB2c.findUniqueOrThrow({ where: { originatorConversationId: paid[i].reference } }),
      );
      // KES 15,000 and KES 25,000: each booking is its own claim's amount, its receipt the payment's.
      expect(booking.amount).toBe([15_000, 25_000][i]);
      expect(paid[i]).toMatchObject({ amount_minor: Number(nets[i]), transaction_id: booking.transactionId });
      expect(await claimRow(o, claims[i].uuid)).toMatchObject({ status: 'settled', paidMinor: nets[i] });
    }
  }, 120_000);
});

describe('SMS: each message has its own gateway id and delivery report', () => {
  it('the same text to the same number from both organisations at once, each delivered on its own', async () => {
    const body = { to: ['0712 000 001'], message: `Rails ${randomUUID()}` };
    const sent = await Promise.all(
      [brokerage, agency].map((o) => o.as('staff').post('/sms', { body, idempotencyKey: randomUUID() })),
    );
    for (const s of sent) expect(s.status, s.text).toBe(201);
    const recipients = await Promise.all(
      [brokerage, agency].map((o, i) =>
        waitFor(
          `the ${o.code} message delivered`,
          () =>
            o.t.db.tenant(o.id, (tx) =>
              tx.smsRecipient.findFirstOrThrow({ where: { message: { uuid: sent[i].body.data.uuid } } }),
            ),
          (r) => r.status === 'delivered' || r.status === 'failed',
          { ms: 30_000 },
        ),
      ),
    );
    expect(recipients.map((r) => r.status)).toEqual(['delivered', 'delivered']);
    expect(recipients[0].gatewayMessageId).not.toBe(recipients[1].gatewayMessageId);
    const booked = await t.db.system((tx) =>
      tx.smsSimMessage.findMany({
        where: { gatewayMessageId: { in: recipients.map((r) => r.gatewayMessageId!) } },
      }),
    );
    expect(booked.map((m) => m.deliveryStatus)).toEqual(['Success', 'Success']);
  }, 60_000);
});

describe('certificate registry: the policy number it keys on carries the organisation', () => {
  it("an issue whose answer was lost is never taken for another organisation's same-numbered policy", async () => {
    const rt = app().registry;
    const send = rt.send!;
    const real = rt.registry;
    rt.send = async (q, data, opts) => (q === 'issue' ? undefined : send(q, data, opts));
    try {
      // The same vehicle, the same insurer (registry member), the same policy number, the same period.
      const vehicle = { regno: 'KDA 426T', vehicle: { chassis_no: `RAILS${randomUUID().slice(0, 8)}` } };
      const pb = await brokerage.activePolicy({ fullParticulars: true, ...vehicle });
      const pa = await agency.activePolicy({ fullParticulars: true, ...vehicle });
      expect(pa.policy_no).toBe(pb.policy_no);
      const policyId = (o: Org, uuid: string) =>
        o.t.db.tenant(o.id, (tx) => tx.policy.findUniqueOrThrow({ where: { uuid } })).then((p) => p.id);

      // The registry certifies the brokerage's policy, but its answer never arrives.
      rt.registry = Object.assign(Object.create(real), {
        issue: async (req: IssueCertificateRequest) => {
          await real.issue(req);
          throw new Error('socket hang up');
        },
      });
      const lost = await issueDue(app(), await policyId(brokerage, pb.uuid));
      expect(lost.attempted).toMatchObject([{ status: 'issuing', errorCode: 'registry_unavailable' }]);
      rt.registry = real;
      const [there] = await t.db.system((tx) =>
        tx.registrySimCertificate.findMany({ where: { registration: vehicleKey(pb.regno), status: 'Active' } }),
      );
      expect(there.record).toMatchObject({ policyNumber: `${brokerage.code}/${pb.policy_no}` });

      // The agency's policy is another policy at the registry: double insurance, not the brokerage's lost answer.
      const refused = await issueDue(app(), await policyId(agency, pa.uuid));
      expect(refused.attempted).toMatchObject([{ errorCode: 'ER005' }]);
      expect(refused.attempted[0].status).not.toBe('issued');

      // The brokerage's retry finds its own certificate.
      const found = await issueDue(app(), await policyId(brokerage, pb.uuid));
      expect(found.attempted).toMatchObject([{ status: 'issued', errorCode: null }]);
      const certs = await brokerage.api.get(`/policies/${pb.uuid}/certificates`, { token: brokerage.tokens.staff });
      expect(certs.body.data.map((c: { certificate_no: string }) => c.certificate_no)).toEqual([there.certificateNo]);
    } finally {
      rt.registry = real;
      rt.send = send;
    }
  }, 120_000);
});
