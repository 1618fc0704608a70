import { describe, expect, it } from 'vitest';
import { sweepIpf } from '../src/modules/finance/sweep.ts';
import { fundLoan } from '../src/modules/payments/ledger/disbursement.ts';
import type { IpfLenderRail, LenderDisbursement } from '../src/ports/ipf-lender.ts';
import { INSTANT_RAIL, useKit } from './kit.ts';
import { loanInStatus, loanRow, repay, signedLoan } from './kit/ipf.ts';

/**
 * Funding survives its faults (docs/premium-finance.md "Premium finance: deposit, funding, repayments and early settlement"): the
 * disbursement run twice at once, or retried after the lender's answer was lost, pays the policy once; a refusal
 * leaves the loan as it was and is not asked again.
 */

const t = useKit(INSTANT_RAIL, { jobs: true });
const o = t.useOrg({ fast: true });
const app = () => t.app.services;

/**
 * Runs `fn` with the disbursement queue held (the deposit's job is not sent: the test calls fundLoan itself) and the
 * lender's calls counted; `disburse` replaces the lender's answer when given.
 */
async function heldAndCounted<T>(
  fn: (calls: { disburse: number; lookup: number; queued: number[] }) => Promise<T>,
  disburse?: (real: IpfLenderRail['disburse']) => IpfLenderRail['disburse'],
): Promise<T> {
  const port = app().lender!;
  const saved = { ...port };
  const rail = port.rail;
  const calls = { disburse: 0, lookup: 0, queued: [] as number[] };
  const realDisburse = rail.disburse.bind(rail);
  const answer = disburse ? disburse(realDisburse) : realDisburse;
  port.queueDisbursement = async (id) => void calls.queued.push(id);
  port.rail = {
    decide: (r) => rail.decide(r),
    disburse: (r) => ((calls.disburse += 1), answer(r)),
    lookupDisbursement: (ref) => ((calls.lookup += 1), rail.lookupDisbursement(ref)),
  };
  try {
    return await fn(calls);
  } finally {
    Object.assign(port, saved);
  }
}

/** A signed loan whose deposit is paid (its disbursement not yet run). */
async function depositPaid() {
  const signed = await signedLoan(o);
  await repay(o, signed.loan.loanNo, signed.offer.depositMinor);
  expect((await loanRow(o, signed.loan.id)).status).toBe('awaiting_deposit');
  return signed;
}

async function funding(loanId: number, policyUuid: string) {
  return t.db.tenant(o.id, async (tx) => ({
    receipts: await tx.receipt.count({ where: { policy: { uuid: policyUuid }, method: 'ipf_lender' } }),
    notes: await tx.debitNote.findMany({ where: { policy: { uuid: policyUuid } } }),
    calls: await tx.ipfLenderCall.findMany({ where: { loanId } }),
    events: (await tx.event.findMany({ where: { name: { in: ['ipf.funded', 'policy.activated'] } } })).filter(
      (e) => (e.data as { policy_uuid: string }).policy_uuid === policyUuid,
    ),
  }));
}

describe('funding a loan, exactly once', () => {
  it('two disbursements at once, then a third: one receipt from the lender, one ipf.funded', async () => {
    await heldAndCounted(async (calls) => {
      const s = await depositPaid();
      expect(calls.queued).toEqual([s.loan.id]);
      const outcomes = await Promise.all([fundLoan(app(), s.loan.id), fundLoan(app(), s.loan.id)]);
      expect(outcomes.sort()).toEqual(['funded', 'skipped']);
      expect(await fundLoan(app(), s.loan.id)).toBe('skipped');
      expect((await loanRow(o, s.loan.id)).status).toBe('active');
      const f = await funding(s.loan.id, s.policy.uuid);
      expect(f.receipts).toBe(1);
      expect(f.notes.map((n) => n.paidMinor)).toEqual([s.offer.premiumMinor]);
      expect(f.calls.map((c) => c.status)).toEqual(['confirmed']);
      expect(f.events.map((e) => e.name).sort()).toEqual(['ipf.funded', 'policy.activated']);
    });
  });

  it('the lender paid but its answer was lost: the retried job asks what it holds and pays nothing twice', async () => {
    const s = await heldAndCounted(
      async (calls) => {
        const signed = await depositPaid();
        await expect(fundLoan(app(), signed.loan.id)).rejects.toThrow('connection reset');
        expect(calls.disburse).toBe(1);
        const [call] = (await funding(signed.loan.id, signed.policy.uuid)).calls;
        expect(call).toMatchObject({ status: 'recorded', attempts: 1 });
        return signed;
      },
      (real) => async (r) => {
        await real(r);
        throw new Error('connection reset');
      },
    );
    await heldAndCounted(async (calls) => {
      // The job's retry (pg-boss runs the failed job again): the call recorded before is taken up.
      expect(await fundLoan(app(), s.loan.id)).toBe('funded');
      expect(calls).toMatchObject({ lookup: 1, disburse: 0 });
    });
    const f = await funding(s.loan.id, s.policy.uuid);
    expect(f.receipts).toBe(1);
    expect(f.calls.map((c) => [c.status, c.attempts])).toEqual([['confirmed', 2]]);
    expect(await loanInStatus(o, s.loan.id, 'active')).toMatchObject({
      disbursementRef: expect.stringMatching(/^DSB-/),
    });
  });

  it('a refused disbursement: the call failed, the loan and policy unchanged, not asked again by the sweep', async () => {
    const refusal = (r: { reference: string; amount_minor: string }): LenderDisbursement => ({
      reference: r.reference,
      disbursement_ref: 'DSB-REFUSED',
      status: 'refused',
      amount_minor: r.amount_minor,
      paid_at: new Date().toISOString(),
      message: 'Facility suspended',
    });
    await heldAndCounted(
      async (calls) => {
        const refused = await depositPaid();
        expect(await fundLoan(app(), refused.loan.id)).toBe('refused');
        expect(await fundLoan(app(), refused.loan.id)).toBe('refused');
        expect(calls.disburse).toBe(1);
        const f = await funding(refused.loan.id, refused.policy.uuid);
        expect(f.calls.map((c) => c.status)).toEqual(['failed']);
        expect(f.receipts).toBe(0);
        expect((await loanRow(o, refused.loan.id)).status).toBe('awaiting_deposit');
        expect((await o.policy(refused.policy.uuid)).status).toBe('pending_payment');
        // Positive control: a paid deposit whose job was lost is queued again by the sweep; the refused one is not.
        const stranded = await depositPaid();
        calls.queued.length = 0;
        await sweepIpf(app(), new Date(Date.now() + 60_000));
        expect(calls.queued).toContain(stranded.loan.id);
        expect(calls.queued).not.toContain(refused.loan.id);
      },
      () => async (r) => refusal(r),
    );
  });
});
