import { z } from 'zod';

/** Payload schemas of the premium-finance events (docs/premium-finance.md "Premium finance"), listed in catalogue.ts. */

const money = {
  amount: z.number().int().describe('Whole shillings, derived from the cents: rounded half away from zero'),
  amount_minor: z.number().int().describe('Integer cents (exact)'),
};
const amount = z.object(money);

/** What every finance event names: the application or loan, its policy (visibility follows the policy) and client. */
const ipfRef = {
  application_no: z.string().describe('IPFA-YYYY-NNNNNN'),
  application_uuid: z.string(),
  loan_no: z.string().nullable().describe('IPF-YYYY-NNNNNN, the account for ipf_repayment; null before signing'),
  loan_uuid: z.string().nullable(),
  policy_no: z.string(),
  policy_uuid: z.string(),
  client_no: z.string(),
  lender: z.string().describe("The lender's name"),
};

/** Part of an ipf_repayment receipt given to one schedule line (payment.received `allocations`). */
export const ipfInstalmentAllocation = z
  .object({
    instalment: z.number().int().describe('Schedule line of the loan (1 is the deposit)'),
    due_on: z.string().describe('Y-m-d'),
    ...money,
  })
  .strict();

export const ipfDecided = z
  .object({
    ...ipfRef,
    decision: z.enum(['approved', 'declined']),
    reasons: z
      .array(z.object({ code: z.string(), message: z.string() }).strict())
      .describe('Why (declined: every rule that failed; approved: empty)'),
    lender_ref: z.string().describe("The lender's reference for its decision"),
    tenor_months: z.number().int(),
    premium: amount,
    total_repayable: amount,
    decided_at: z.string().describe('ISO 8601 with offset'),
  })
  .strict();

export const ipfFunded = z
  .object({
    ...ipfRef,
    disbursed: amount.describe('What the lender paid the insurer (the whole premium)'),
    disbursement_ref: z.string(),
    receipt_no: z.string().describe('The receipt that settled the policy’s debit note'),
    funded_at: z.string().describe('ISO 8601 with offset'),
  })
  .strict();

export const ipfInstalmentOverdue = z
  .object({
    ...ipfRef,
    instalment: z.number().int().describe('Schedule line (1 is the deposit)'),
    due_on: z.string().describe('Y-m-d'),
    overdue: amount.describe('What the line still owes'),
    arrears: amount.describe('Everything past due on the loan'),
    defaults_on: z.string().describe('Y-m-d: the loan defaults if still unpaid then (the lender’s grace days)'),
  })
  .strict();

export const ipfDefaulted = z
  .object({
    ...ipfRef,
    arrears: amount,
    outstanding: amount.describe('Everything still owed on the loan'),
    cancellation_uuid: z.string().nullable().describe('The cancellation for non-payment raised on the policy'),
    lender_refund: amount.describe('Unearned premium the insurer refunds to the lender'),
    defaulted_at: z.string().describe('ISO 8601 with offset'),
  })
  .strict();

export const ipfSettled = z
  .object({
    ...ipfRef,
    early: z.boolean().describe('Settled before the last due date with a rebate'),
    paid: amount.describe('Everything the client paid on the loan'),
    rebate: amount.describe('Unearned charges waived (early settlement)'),
    settled_at: z.string().describe('ISO 8601 with offset'),
  })
  .strict();

/** The premium-finance entries of the catalogue (catalogue.ts spreads them into CATALOGUE). */
export const FINANCE_EVENTS = {
  'ipf.decided': {
    description: 'The lender decided a premium-finance application: approved, or declined with reasons.',
    data: ipfDecided,
  },
  'ipf.funded': {
    description:
      'The deposit was paid and the lender paid the insurer the premium: the debit note is settled and the policy active.',
    data: ipfFunded,
  },
  'ipf.instalment_overdue': {
    description: 'A loan instalment passed its due date unpaid (daily job; once per instalment).',
    data: ipfInstalmentOverdue,
  },
  'ipf.defaulted': {
    description:
      'An instalment stayed unpaid past the lender’s grace days: the loan defaulted and the policy was cancelled for non-payment, its unearned premium refunded to the lender.',
    data: ipfDefaulted,
  },
  'ipf.settled': {
    description: 'A loan was paid off: in full on schedule, or early with the rebate of unearned charges.',
    data: ipfSettled,
  },
} as const;
