import { z } from 'zod';
import { CLAIM_EVENTS } from './catalogue-claims.ts';
import { CLIENT_EVENTS } from './catalogue-clients.ts';
import { FINANCE_EVENTS, ipfInstalmentAllocation } from './catalogue-finance.ts';
import { SANDBOX_EVENTS } from './catalogue-sandbox.ts';
import { certificateCancelled, certificateFailed, certificateIssued } from './catalogue-certificates.ts';

/**
 * The one list of events a tenant can subscribe to: name, when it is emitted, and the schema of `data`. The zod
 * schemas check every emitted payload (a drifting emitter fails loudly in tests, not at a receiver) and are the
 * source of the JSON schemas served by GET /events/catalogue and the `eventCatalogue` query.
 *
 * Money follows the spec's convention: whole shillings in `amount` plus integer cents in `amount_minor`.
 */
const money = {
  amount: z.number().int().describe('Whole shillings, derived from the cents: rounded half away from zero'),
  amount_minor: z.number().int().describe('Integer cents (exact)'),
};

const paymentReceived = z
  .object({
    receipt_no: z.string().describe('Sequential receipt number of the organisation'),
    ...money,
    currency: z.literal('KES'),
    paid_at: z.string().describe('ISO 8601 with offset: when the payment was confirmed'),
    method: z.literal('mpesa').describe('Payment rail'),
    transaction_ref: z.string().describe('Mobile-money receipt number (e.g. M-Pesa MpesaReceiptNumber)'),
    checkout_request_id: z.string().nullable().describe('STK push checkout request id, when the payment answered one'),
    phone: z.string().describe('Paying phone number, 2547XXXXXXXX'),
    account: z
      .string()
      .describe('Account the payment was made to: policy, debit note or premium-finance loan reference'),
    purpose: z.enum(['premium', 'ipf_repayment']),
    client_no: z.string().nullable(),
    policy_no: z.string().nullable(),
    policy_uuid: z.string().nullable(),
    loan_no: z.string().nullable().optional().describe('The premium-finance loan an ipf_repayment paid (else null)'),
    allocations: z
      .array(z.union([z.object({ debit_note_no: z.string(), ...money }), ipfInstalmentAllocation]))
      .describe('Open debit notes (premium) or loan instalments (ipf_repayment) the receipt paid, oldest first'),
    unallocated: z.object(money).describe('Excess credited to the client balance'),
  })
  .strict();

const paymentUnmatched = z
  .object({
    transaction_ref: z.string().describe('Mobile-money receipt number of the money taken'),
    ...money,
    currency: z.literal('KES'),
    paid_at: z.string().describe('ISO 8601 with offset: when the rail took the money'),
    method: z.literal('mpesa'),
    checkout_request_id: z.string().nullable().describe('The prompt it answered, when known'),
    phone: z.string().describe('Paying phone number, 2547XXXXXXXX'),
    account_reference: z.string().describe('AccountReference the customer paid to (12 characters at most)'),
    found_via: z.enum(['callback', 'query', 'statement']).describe('How the payment came to light'),
    status: z.literal('refund_due').describe('The money is held for refund (or a manual attach)'),
    reason: z.string().describe('Why no payment request could take it'),
  })
  .strict();

const policyActivated = z
  .object({
    policy_no: z.string(),
    policy_uuid: z.string(),
    client_no: z.string(),
    status: z.literal('active'),
    activated_at: z.string().describe('ISO 8601 with offset'),
    cover_start: z.string().describe('Y-m-d'),
    cover_end: z.string().describe('Y-m-d'),
    insurer: z.string().describe('Insurer name'),
    premium: z.object(money).describe('Total premium including levies'),
    receipt_no: z.string().describe('The receipt that completed the first instalment'),
    checkout_request_id: z.string().nullable(),
  })
  .strict();

const signedMoney = {
  amount: z
    .number()
    .int()
    .describe('Whole shillings (negative for a credit), derived from the cents: rounded half away from zero'),
  amount_minor: z.number().int().describe('Integer cents (exact); negative for a credit'),
};

const policyRef = {
  policy_no: z.string(),
  policy_uuid: z.string(),
  client_no: z.string(),
};

const policyStatusChanged = (status: string, why: string) =>
  z
    .object({
      ...policyRef,
      status: z.literal(status),
      previous_status: z.string(),
      reason: z.string().describe(why),
      changed_at: z.string().describe('ISO 8601 with offset'),
    })
    .strict();

const VEHICLE_OPERATIONS = ['add_vehicle', 'remove_vehicle', 'change_value'] as const;
const policyEndorsed = z
  .object({
    ...policyRef,
    endorsement_no: z.string().describe('END-<policy>-<n>'),
    endorsement_uuid: z.string(),
    operation: z.enum([...VEHICLE_OPERATIONS, 'change_details', 'add_member', 'remove_member', 'change_sum_insured']),
    effective_date: z.string().describe('Y-m-d'),
    premium_effect: z
      .object(signedMoney)
      .describe('Total premium effect including levies: positive raised a debit note, negative a credit note'),
    note: z
      .object({ kind: z.enum(['debit', 'credit']), number: z.string() })
      .nullable()
      .describe('The note raised; null for a change without premium'),
    confirmed_at: z.string().describe('ISO 8601 with offset'),
  })
  .strict();

const policyCancelled = z
  .object({
    ...policyRef,
    cancellation_uuid: z.string(),
    reason: z.string().describe('Reason code from the documented list'),
    requested_by: z.string(),
    effective_date: z.string().describe('Y-m-d: first day without cover'),
    credit_note_no: z.string().nullable(),
    credit: z.object(money).describe('Unearned premium credited (credit note total)'),
    refund: z.object(money).describe('Part of the credit refunded after settling open debit notes, to refund_payee'),
    refund_payee: z
      .enum(['client', 'lender'])
      .describe(
        "Who the refund goes to: the client's credit balance, or the premium-finance lender that paid the premium",
      ),
    cancelled_at: z.string().describe('ISO 8601 with offset'),
  })
  .strict();

const policyReinstated = z
  .object({
    ...policyRef,
    cancellation_uuid: z
      .string()
      .nullable()
      .describe('The cancellation reversed; null when a lapse was reversed by payment'),
    previous_status: z.enum(['cancelled', 'lapsed']),
    debit_note_no: z.string().nullable().describe('Reinstatement debit note, when one was raised'),
    reinstated_at: z.string().describe('ISO 8601 with offset'),
  })
  .strict();

const policyRenewed = z
  .object({
    ...policyRef,
    renewal_policy_no: z.string(),
    renewal_policy_uuid: z.string(),
    renewed_at: z.string().describe('ISO 8601 with offset'),
  })
  .strict();

const policyRenewalDue = z
  .object({
    ...policyRef,
    end_date: z.string().describe('Y-m-d: last day of cover'),
    days_to_expiry: z.number().int(),
    insurer: z.string(),
    premium: z.object(money).describe("The expiring period's total premium"),
  })
  .strict();

/** `ping` is the send-test-event payload: delivered only by that action and, per the spec, not in the catalogue. */
export const PING_EVENT = 'ping';
export const pingData = z.object({ message: z.string(), sent_by: z.string().describe('Name of the user') }).strict();

export const CATALOGUE = {
  'payment.received': {
    description:
      "A payment callback raised a receipt (allocated to the account's open debit notes, or a loan's instalments).",
    data: paymentReceived,
  },
  'payment.unmatched': {
    description:
      'The rail confirmed a payment that no payment request could take (a prompt nothing recorded, money beyond what was asked): held for refund. Staff only.',
    data: paymentUnmatched,
  },
  'policy.activated': {
    description: 'The first instalment was paid in full and the policy became active.',
    data: policyActivated,
  },
  'policy.endorsed': {
    description: 'An endorsement was confirmed: cover changed and a debit or credit note raised.',
    data: policyEndorsed,
  },
  'policy.cancelled': {
    description: 'A cancellation was confirmed: credit note raised, refund allocated, certificates cancelled.',
    data: policyCancelled,
  },
  'policy.reinstated': {
    description: 'A cancelled (or lapsed) policy was reinstated within the reinstatement window.',
    data: policyReinstated,
  },
  'policy.expired': {
    description: 'The cover period ended (daily schedule).',
    data: policyStatusChanged('expired', 'Why the status changed'),
  },
  'policy.lapsed': {
    description: 'An instalment stayed unpaid past its due date plus the grace period (daily schedule).',
    data: policyStatusChanged('lapsed', 'Which debit note was overdue'),
  },
  'policy.not_taken_up': {
    description: 'The first instalment was never paid within the not-taken-up window (daily schedule).',
    data: policyStatusChanged('not_taken_up', 'Why the status changed'),
  },
  'policy.renewed': {
    description: 'The renewal of this policy became active; this policy is now `renewed`.',
    data: policyRenewed,
  },
  'policy.renewal_due': {
    description: 'The policy expires within the renewal-notice window (sent once per policy).',
    data: policyRenewalDue,
  },
  'certificate.issued': {
    description: 'The registry issued a motor certificate (one per vehicle and stage).',
    data: certificateIssued,
  },
  'certificate.failed': {
    description: 'A certificate issue failed at the registry (double insurance, no stock, invalid data …).',
    data: certificateFailed,
  },
  'certificate.cancelled': { description: 'A certificate was cancelled at the registry.', data: certificateCancelled },
  ...CLIENT_EVENTS,
  ...CLAIM_EVENTS,
  ...FINANCE_EVENTS,
  ...SANDBOX_EVENTS,
} as const;

export type CatalogueEventName = keyof typeof CATALOGUE;
export const EVENT_NAMES = Object.keys(CATALOGUE) as CatalogueEventName[];
export const isCatalogueEvent = (n: string): n is CatalogueEventName => Object.hasOwn(CATALOGUE, n);

export interface CatalogueEntry {
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

let cached: CatalogueEntry[] | undefined;
export function catalogueEntries(): CatalogueEntry[] {
  cached ??= EVENT_NAMES.map((name) => ({
    name,
    description: CATALOGUE[name].description,
    schema: z.toJSONSchema(CATALOGUE[name].data),
  }));
  return cached;
}

/** The schema of an emitted event's data (ping included). */
export function dataSchemaOf(name: string): z.ZodType | undefined {
  if (name === PING_EVENT) return pingData;
  return isCatalogueEvent(name) ? CATALOGUE[name].data : undefined;
}
