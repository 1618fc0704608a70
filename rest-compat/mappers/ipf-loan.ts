import type {
  IpfLenderFieldsFragment,
  IpfLoanDetailFieldsFragment,
  IpfLoanFieldsFragment,
  IpfQuoteInput,
  IpfQuoteOfferFieldsFragment,
  IpfQuoteQuery,
} from '../generated/operations.ts';
import type { z } from 'zod';
import type { SentInput } from '../route.ts';
import type { IpfQuoteRequest } from '../schemas/ipf-loan.ts';
import { ipfPartiesToRest } from './ipf-parties.ts';
import { moneyPair } from './money.ts';

/**
 * Premium finance's REST shapes (docs/premium-finance.md "Premium finance: quote, lenders and loans"): renames only, money as whole
 * shillings plus `_minor` cents; the core computes every figure, balance and status.
 */

/** POST /ipf/quote body (parsed by its definition) → IpfQuoteInput. `policy_uuid` is accepted for `policy`. */
export function ipfQuoteFromRest(b: z.output<typeof IpfQuoteRequest>): SentInput<IpfQuoteInput> {
  return {
    premium: b.premium,
    policyUuid: b.policy ?? b.policy_uuid,
    lenderId: b.lender_id,
    tenorMonths: b.tenor_months,
    startDate: b.start_date,
  };
}

export function ipfOfferToRest(o: IpfQuoteOfferFieldsFragment) {
  return {
    lender_id: o.lenderId,
    lender_name: o.lenderName,
    tenor_months: o.tenorMonths,
    ...moneyPair('deposit', o.deposit),
    ...moneyPair('instalment', o.instalment),
    ...moneyPair('charge', o.charge),
    ...moneyPair('total_repayable', o.totalRepayable),
    apr_bps: o.aprBps,
    schedule: o.schedule.map((l) => ({ instalment: l.instalment, due_on: l.dueOn, ...moneyPair('amount', l.amount) })),
  };
}

type Quote = Extract<IpfQuoteQuery['ipfQuote'], { __typename: 'IpfQuote' }>;

export function ipfQuoteToRest(q: Quote) {
  return {
    ...moneyPair('premium', q.premium),
    start_date: q.startDate,
    offers: q.offers.map(ipfOfferToRest),
    ipf_reason: q.ipfReason,
  };
}

export function ipfLenderToRest(l: IpfLenderFieldsFragment) {
  return {
    id: l.id,
    name: l.name,
    pricing: l.pricing,
    deposit_rule: l.depositRule,
    deposit_bps: l.depositBps,
    ...moneyPair('min_premium', l.minPremium),
    ...moneyPair('max_premium', l.maxPremium),
    grace_days: l.graceDays,
    tenors: l.tenors.map((t) => ({ months: t.months, charge_bps: t.chargeBps })),
    fee_bands: l.feeBands.map((b) => ({ ...moneyPair('up_to_premium', b.upToPremium), ...moneyPair('fee', b.fee) })),
  };
}

/** A loan as lists show it: figures, balance, arrears and what is due next. */
export function ipfLoanToRest(l: IpfLoanFieldsFragment) {
  return {
    id: l.databaseId,
    uuid: l.uuid,
    loan_no: l.loanNo,
    status: l.loanStatus,
    ...ipfPartiesToRest(l),
    tenor_months: l.tenorMonths,
    ...moneyPair('principal', l.principal),
    ...moneyPair('charge', l.charge),
    ...moneyPair('total_repayable', l.totalRepayable),
    apr_bps: l.aprBps,
    ...moneyPair('paid', l.paid),
    ...moneyPair('rebate', l.rebate),
    ...moneyPair('outstanding', l.outstanding),
    ...moneyPair('arrears', l.arrears),
    next_due: l.nextDue
      ? { instalment: l.nextDue.instalment, due_on: l.nextDue.dueOn, ...moneyPair('amount', l.nextDue.amount) }
      : null,
    settlement: l.settlementValidUntil
      ? {
          ...moneyPair('payoff', l.settlementPayoff),
          ...moneyPair('rebate', l.settlementRebate),
          valid_until: l.settlementValidUntil,
        }
      : null,
    ...moneyPair('lender_refund', l.lenderRefund),
    signed_at: l.signedAt,
    funded_at: l.fundedAt,
    closed_at: l.closedAt,
    created_at: l.createdAt,
    updated_at: l.updatedAt,
  };
}

/** GET /ipf/loans/{uuid}: the loan with its schedule, the receipts allocated to it and its status history. */
export function ipfLoanDetailToRest(l: IpfLoanFieldsFragment & IpfLoanDetailFieldsFragment) {
  return {
    ...ipfLoanToRest(l),
    instalments: l.instalments.map((i) => ({
      instalment: i.instalment,
      due_on: i.dueOn,
      ...moneyPair('amount', i.amount),
      ...moneyPair('paid', i.paid),
      ...moneyPair('waived', i.waived),
      ...moneyPair('outstanding', i.outstanding),
      status: i.instalmentStatus,
    })),
    payments: l.payments.map((p) => ({
      receipt_no: p.receiptNo,
      method: p.method,
      transaction_ref: p.transactionRef,
      paid_at: p.paidAt,
      ...moneyPair('amount', p.amount),
      allocations: p.allocations.map((a) => ({ instalment: a.instalment, ...moneyPair('amount', a.amount) })),
    })),
    history: l.history.map((h) => ({ from: h.from, to: h.to, reason: h.reason, by: h.actor, at: h.at })),
  };
}
