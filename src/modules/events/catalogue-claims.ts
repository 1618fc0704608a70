import { z } from 'zod';
import { ClaimStatus, ProspectStatus } from '../../generated/prisma/enums.ts';

/** Payload schemas of the claim and prospect events (docs/claims.md "Claims", "Prospects"), listed in catalogue.ts. */

const money = {
  amount: z.number().int().describe('Whole shillings, derived from the cents: rounded half away from zero'),
  amount_minor: z.number().int().describe('Integer cents (exact)'),
};

const claimStatus = z.enum(ClaimStatus);

const claimRef = {
  claim_no: z.string().describe('CLM-YYYY-NNNNNN'),
  claim_uuid: z.string(),
  policy_no: z.string(),
  policy_uuid: z.string(),
  client_no: z.string(),
  status: claimStatus.describe('Status after the event'),
};

const actor = z
  .object({
    type: z.enum(['user', 'api_client', 'system']),
    id: z.number().int().nullable().describe('User or API client id; null for the system'),
    name: z.string(),
  })
  .strict()
  .describe('Who did it');

export const claimRegistered = z
  .object({
    ...claimRef,
    product_line: z.string(),
    cause: z.string().describe('Cause code from the product line’s list (GET /claims/causes)'),
    loss_date: z.string().describe('Y-m-d'),
    reported_at: z.string().describe('ISO 8601 with offset'),
    late_notification: z.boolean().describe('Reported more than 48 hours after the loss'),
    registration: z.string().nullable().describe('Vehicle registration (motor)'),
    reserve: z.object(money).describe('Initial reserve'),
    by: actor,
  })
  .strict();

export const claimMoved = z
  .object({
    ...claimRef,
    from: claimStatus,
    to: claimStatus,
    by: actor,
    reason: z.string().nullable(),
    moved_at: z.string().describe('ISO 8601 with offset'),
  })
  .strict();

export const claimApproved = z
  .object({
    ...claimRef,
    approved: z.object(money).describe('Approved amount (the loss the insurer accepts)'),
    excess: z.object(money).describe("Policy excess from the product's excess terms"),
    net_payable: z.object(money).describe('Approved less excess: what will be paid'),
    approved_at: z.string().describe('ISO 8601 with offset'),
    by: actor,
  })
  .strict();

export const claimSettled = z
  .object({
    ...claimRef,
    paid: z.object(money).describe('Total paid out: equals the net payable'),
    settled_at: z.string().describe('ISO 8601 with offset'),
    payments: z.array(
      z
        .object({
          payment_uuid: z.string(),
          method: z.enum(['mpesa_b2c', 'bank_transfer']),
          reference: z.string(),
          transaction_id: z.string().nullable(),
          ...money,
        })
        .strict(),
    ),
  })
  .strict();

export const claimSlaBreached = z
  .object({
    ...claimRef,
    status_since: z.string().describe('ISO 8601 with offset: when the claim entered its current status'),
    sla_due_at: z.string().describe('ISO 8601 with offset: when it should have left it'),
    target_working_days: z.number().int(),
    assignee_id: z.number().int().nullable(),
  })
  .strict();

export const prospectFollowUpDue = z
  .object({
    prospect_no: z.string(),
    prospect_uuid: z.string(),
    name: z.string(),
    status: z.enum(ProspectStatus),
    next_follow_up_on: z.string().describe('Y-m-d'),
    assignee_id: z.number().int().nullable(),
    assignee_name: z.string().nullable(),
  })
  .strict();

/** The claim and prospect entries of the catalogue (catalogue.ts spreads them into CATALOGUE). */
export const CLAIM_EVENTS = {
  'claim.registered': { description: 'A claim was registered (first notice of loss).', data: claimRegistered },
  'claim.moved': {
    description: 'A claim changed status (every move of the claim state machine, reopening included).',
    data: claimMoved,
  },
  'claim.approved': {
    description: 'A claim was approved: approved amount, excess and net payable recorded.',
    data: claimApproved,
  },
  'claim.settled': { description: 'A claim was paid in full (net payable reached).', data: claimSettled },
  'claim.sla_breached': {
    description: 'A claim stayed in a status past its service level (daily job; once per status entered).',
    data: claimSlaBreached,
  },
  'prospect.follow_up_due': {
    description: "A prospect's next follow-up date has come (daily job; once per date).",
    data: prospectFollowUpDue,
  },
} as const;
