import { createHash } from 'node:crypto';
import type {
  IpfLenderRail,
  LenderDecision,
  LenderDecisionRequest,
  LenderDisbursement,
  LenderDisbursementRequest,
} from '../../src/ports/ipf-lender.ts';

/**
 * A simulated premium-finance lender behind the IpfLenderRail port (docs/premium-finance.md "Premium finance: the lender"). Its credit
 * rules, applied to what the request carries, in this order (every failing rule is a reason):
 *   premium_below_minimum  the premium is below the lender's minimum
 *   premium_above_maximum  the premium is above the lender's maximum (when it has one)
 *   unaffordable           the largest payment exceeds max_instalment_to_income_bps of the monthly income floor
 *   existing_arrears       the applicant is behind on (or defaulted) another loan arranged through the organisation
 * Answers are a pure function of the request, and references derive from ours, so a repeated call is the same call.
 * Like a real lender serving the whole deployment, it keys on our reference alone: that reference is unique across
 * the deployment (src/ports/rail-reference.ts: the organisation's code and our number), so two organisations' first
 * loans of a year are two requests, never a repeat. A disbursement is paid when asked (the simulated lender always
 * has funds) and remembered for lookup under that reference. It pays at `now()`: the lender's own clock (the demo
 * week's seed gives it the week's, src/seed/demo-week-services.ts).
 */
export class LenderSimulator implements IpfLenderRail {
  readonly #paid = new Map<string, LenderDisbursement>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  decide(req: LenderDecisionRequest): Promise<LenderDecision> {
    const reasons: LenderDecision['reasons'] = [];
    const premium = BigInt(req.premium_minor);
    const kes = (minor: bigint) => `KES ${(minor / 100n).toLocaleString('en-KE')}`;
    const min = BigInt(req.terms.min_premium_minor);
    if (premium < min)
      reasons.push({ code: 'premium_below_minimum', message: `${req.lender} finances premiums from ${kes(min)}` });
    const max = req.terms.max_premium_minor === null ? null : BigInt(req.terms.max_premium_minor);
    if (max !== null && premium > max)
      reasons.push({ code: 'premium_above_maximum', message: `${req.lender} finances premiums up to ${kes(max)}` });
    const floor = BigInt(req.applicant.monthly_income_floor_minor);
    const affordable = (floor * BigInt(req.terms.max_instalment_to_income_bps)) / 10_000n;
    if (BigInt(req.max_payment_minor) > affordable)
      reasons.push({
        code: 'unaffordable',
        message: `A payment of ${kes(BigInt(req.max_payment_minor))} exceeds ${req.terms.max_instalment_to_income_bps / 100} % of the declared monthly income (${kes(floor)})`,
      });
    if (req.existing_arrears)
      reasons.push({
        code: 'existing_arrears',
        message: 'The applicant is in arrears on another premium-finance loan',
      });
    return Promise.resolve({
      reference: req.reference,
      lender_ref: `LND-${digest(`decision:${req.reference}`)}`,
      decision: reasons.length ? 'declined' : 'approved',
      reasons,
    });
  }

  disburse(req: LenderDisbursementRequest): Promise<LenderDisbursement> {
    const prior = this.#paid.get(req.reference);
    if (prior) return Promise.resolve(prior);
    const amount = BigInt(req.amount_minor);
    const answer: LenderDisbursement = {
      reference: req.reference,
      disbursement_ref: `DSB-${digest(`disburse:${req.reference}`)}`,
      status: amount > 0n ? 'paid' : 'refused',
      amount_minor: req.amount_minor,
      paid_at: this.now().toISOString(),
      message: amount > 0n ? `Paid ${req.payee.insurer} for ${req.payee.policy_no}` : 'Nothing to pay',
    };
    if (answer.status === 'paid') this.#paid.set(req.reference, answer);
    return Promise.resolve(answer);
  }

  lookupDisbursement(reference: string): Promise<LenderDisbursement | null> {
    return Promise.resolve(this.#paid.get(reference) ?? null);
  }
}

function digest(s: string): string {
  return createHash('sha256').update(s).digest('hex').slice(0, 10).toUpperCase();
}
