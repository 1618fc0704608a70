import { z } from 'zod';

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
    account: z.string().describe('Account the payment was made to: policy, debit note or premium-finance loan reference'),
    purpose: z.enum(['premium', 'ipf_repayment']),
    client_no: z.string().nullable(),
    policy_no: z.string().nullable(),
    policy_uuid: z.string().nullable(),
    allocations: z
      .array(z.object({ debit_note_no: z.string(), ...money }))
      .describe('How the receipt was allocated to open debit notes, oldest first'),
    unallocated: z.object(money).describe('Excess credited to the client balance'),
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

/** `ping` is the send-test-event payload: delivered only by that action and, per the spec, not in the catalogue. */
export const PING_EVENT = 'ping';
export const pingData = z.object({ message: z.string(), sent_by: z.string().describe('Name of the user') }).strict();

export const CATALOGUE = {
  'payment.received': { description: 'A payment callback raised a receipt (allocated to the account\'s open debit notes).', data: paymentReceived },
  'policy.activated': { description: 'The first instalment was paid in full and the policy became active.', data: policyActivated },
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
    schema: z.toJSONSchema(CATALOGUE[name].data) as Record<string, unknown>,
  }));
  return cached;
}

/** The schema of an emitted event's data (ping included). */
export function dataSchemaOf(name: string): z.ZodType | undefined {
  if (name === PING_EVENT) return pingData;
  return isCatalogueEvent(name) ? CATALOGUE[name].data : undefined;
}
