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
import { minor, whole } from './money.ts';

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
    deposit: whole(o.deposit),
    deposit_minor: minor(o.deposit),
    instalment: whole(o.instalment),
    instalment_minor: minor(o.instalment),
    charge: whole(o.charge),
    charge_minor: minor(o.charge),
    total_repayable: whole(o.totalRepayable),
    total_repayable_minor: minor(o.totalRepayable),
    apr_bps: o.aprBps,
    schedule: o.schedule.map((l) => ({
      instalment: l.instalment,
      due_on: l.dueOn,
      amount: whole(l.amount),
      amount_minor: minor(l.amount),
    })),
  };
}

type Quote = Extract<IpfQuoteQuery['ipfQuote'], { __typename: 'IpfQuote' }>;

export function ipfQuoteToRest(q: Quote) {
  return {
    premium: whole(q.premium),
    premium_minor: minor(q.premium),
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
    min_premium: whole(l.minPremium),
    min_premium_minor: minor(l.minPremium),
    max_premium: whole(l.maxPremium),
    max_premium_minor: minor(l.maxPremium),
    grace_days: l.graceDays,
    tenors: l.tenors.map((t) => ({ months: t.months, charge_bps: t.chargeBps })),
    fee_bands: l.feeBands.map((b) => ({
      up_to_premium: whole(b.upToPremium),
      up_to_premium_minor: minor(b.upToPremium),
      fee: whole(b.fee),
      fee_minor: minor(b.fee),
    })),
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
    principal: whole(l.principal),
    principal_minor: minor(l.principal),
    charge: whole(l.charge),
    charge_minor: minor(l.charge),
    total_repayable: whole(l.totalRepayable),
    total_repayable_minor: minor(l.totalRepayable),
    apr_bps: l.aprBps,
    paid: whole(l.paid),
    paid_minor: minor(l.paid),
    rebate: whole(l.rebate),
    rebate_minor: minor(l.rebate),
    outstanding: whole(l.outstanding),
    outstanding_minor: minor(l.outstanding),
    arrears: whole(l.arrears),
    arrears_minor: minor(l.arrears),
    next_due: l.nextDue
      ? {
          instalment: l.nextDue.instalment,
          due_on: l.nextDue.dueOn,
          amount: whole(l.nextDue.amount),
          amount_minor: minor(l.nextDue.amount),
        }
      : null,
    settlement: l.settlementValidUntil
      ? {
          payoff: whole(l.settlementPayoff),
          payoff_minor: minor(l.settlementPayoff),
          rebate: whole(l.settlementRebate),
          rebate_minor: minor(l.settlementRebate),
          valid_until: l.settlementValidUntil,
        }
      : null,
    lender_refund: whole(l.lenderRefund),
    lender_refund_minor: minor(l.lenderRefund),
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
      amount: whole(i.amount),
      amount_minor: minor(i.amount),
      paid: whole(i.paid),
      paid_minor: minor(i.paid),
      waived: whole(i.waived),
      waived_minor: minor(i.waived),
      outstanding: whole(i.outstanding),
      outstanding_minor: minor(i.outstanding),
      status: i.instalmentStatus,
    })),
    payments: l.payments.map((p) => ({
      receipt_no: p.receiptNo,
      method: p.method,
      transaction_ref: p.transactionRef,
      paid_at: p.paidAt,
      amount: whole(p.amount),
      amount_minor: minor(p.amount),
      allocations: p.allocations.map((a) => ({
        instalment: a.instalment,
        amount: whole(a.amount),
        amount_minor: minor(a.amount),
      })),
    })),
    history: l.history.map((h) => ({ from: h.from, to: h.to, reason: h.reason, by: h.actor, at: h.at })),
  };
}
