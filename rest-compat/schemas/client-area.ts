import { z } from 'zod';
import { normalisePhone } from '../../src/lib/identifiers.ts';
import { optionalText } from '../../src/lib/validate.ts';
import { emailIn, identifierIn, phoneIn, whole } from './inputs.ts';
import {
  arr,
  bool,
  dataOf,
  date,
  int,
  money,
  nullable,
  obj,
  ref,
  str,
  timestamp,
  describe,
  oneOf,
} from './builders.ts';

const cents = (d = 'Integer cents') => int(d);

export const clientAreaSchemas = {
  ClientAreaSession: obj(
    {
      client_no: str(),
      client_key: str('Shown once: send as X-Client-Key with X-Client-No and the bearer token'),
    },
    undefined,
    "A client-area sign-in: the client's earlier app keys no longer work (keys from policy saves still do)",
  ),
  ClientOtpRequested: obj({
    message: str('The same answer whether or not the details belong to a client'),
    expires_in_seconds: int(),
    resend_after_seconds: int(),
  }),
  Viewer: obj({
    client_no: str(),
    name: str(),
    phone: str(),
    email: nullable(str()),
    alt_phone: nullable(str()),
    physical_address: nullable(str()),
    id_no: nullable(str()),
    kra_pin: nullable(str()),
    date_of_birth: nullable(date()),
    onboarded_via: str('api, save, client_area …'),
  }),
  ViewerPolicy: obj({
    uuid: str(),
    policy_no: str(),
    product_line: str(),
    product_name: nullable(str("Medical, travel and standard policies: the cover product's name; null for motor")),
    status: { type: 'integer', enum: [0, 1], description: '1 for active cover, 0 for every other status' },
    status_text: str('The policy status: pending_payment, active, cancelled …'),
    insurer_name: str(),
    start_date: date(),
    end_date: date(),
    ...money('premium'),
    ...money('outstanding'),
    vehicles: arr(obj({ reg_no: str(), make: nullable(str()), model: nullable(str()) })),
    insured: describe(
      arr(
        obj({
          id: int('Names this insured on a claim (insured_id)'),
          kind: str('member, traveller or item'),
          name: str(),
          relationship: nullable(str()),
        }),
      ),
      'Medical, travel and standard policies: who or what is on cover; empty for motor',
    ),
    debit_notes: arr(obj({ number: str(), due_on: date(), ...money('amount'), ...money('outstanding') })),
  }),
  ViewerStatement: obj({
    client_no: str(),
    name: str(),
    generated_at: timestamp(),
    ...money('opening_balance'),
    ...money('total_debits'),
    ...money('total_credits'),
    ...money('closing_balance'),
    lines: arr(
      obj({
        at: timestamp(),
        kind: oneOf(['debit_note', 'receipt', 'credit_note']),
        number: str(),
        policy_no: nullable(str()),
        description: str(),
        ...money('debit'),
        ...money('credit'),
        ...money('balance'),
      }),
    ),
  }),
  ViewerClaim: obj({
    uuid: str(),
    claim_no: str(),
    policy_no: str(),
    status: str(),
    cause: str(),
    loss_date: date(),
    loss_place: str(),
    reg_no: nullable(str()),
    reported_at: timestamp(),
    estimated_loss_minor: nullable(cents()),
    approved_amount_minor: nullable(cents()),
    paid_minor: cents(),
  }),
  ViewerPayment: obj({
    id: str('Payment request id (UUID); follow it with GET /payment/stk/{id}'),
    checkout_request_id: nullable(str()),
    status: str(
      'As first answered: pending (on the phone), or succeeded/failed when the rail settled it before any attempt answered. ' +
        'A retry with the Idempotency-Key repeats this answer byte for byte (header Idempotent-Replayed)',
    ),
    customer_message: nullable(str()),
    phone: str(),
    amount_minor: cents('Cents (a whole number of shillings)'),
    debit_note_no: str(),
  }),
  ViewerLoan: obj({
    uuid: str(),
    reference: str('The loan number: the account instalments are paid to'),
    status: str('awaiting_deposit, active, settled, defaulted or cancelled'),
    policy_no: str(),
    lender_name: str(),
    tenor_months: int(),
    apr_bps: int(),
    principal_minor: cents(),
    charge_minor: cents('Integer cents: the cost of credit'),
    total_repayable_minor: cents(),
    paid_minor: cents(),
    rebate_minor: cents(),
    balance_minor: cents('Integer cents: total repayable − paid − rebate'),
    arrears_minor: cents('Integer cents unpaid on the instalments due on or before today'),
    next_due: nullable(obj({ instalment: int(), due_on: date(), amount_minor: cents() })),
    signed_at: timestamp(),
    schedule: arr(
      obj({
        instalment: int('1 is the deposit'),
        due_on: date(),
        amount_minor: cents(),
        paid_minor: cents(),
        waived_minor: cents(),
        outstanding_minor: cents(),
        status: str('paid, waived, overdue, due (today) or upcoming'),
      }),
    ),
  }),
};

/** The sign-in service's words for a phone it cannot read (src/modules/client-area/sign-in). */
const SIGN_IN_PHONE = 'a Kenyan mobile number (07…, 01…, +254…)';
const text = (description?: string) => (description ? z.string().describe(description) : z.string()).nullish();

/**
 * As src/modules/client-area/sign-in/request.ts reads it: the purpose signin (default) or register, a phone that reads
 * as a Kenyan mobile when given (blank: none); which of phone or client_no with id_no is needed, and the ID number's
 * form, are the service's 422.
 */
export const otpRequestBody = obj(
  {
    phone: z
      .string()
      .refine((v) => v === '' || normalisePhone(v) !== null, SIGN_IN_PHONE)
      .nullish()
      .describe('The registered phone (sign-in), or the phone to register'),
    client_no: text('Sign-in by client number, with id_no'),
    id_no: text(),
    purpose: z
      .string()
      .refine((v) => v === 'signin' || v === 'register', 'signin or register')
      .nullish()
      .describe('signin (the default) or register'),
    customer_ip: text("The customer's address as your app saw it (the per-address throttle)"),
  },
  [],
);
/** The code's form (6 digits) is the service's (a refusal on `otp`, counted like a wrong code). */
export const verifyOtpBody = obj(
  { phone: text(), client_no: text(), code: str('The 6-digit code') },
  ['code'],
  'phone or client_no, and the code',
);
/** Registration goes through the clients service (its rules and words, 422 on the field); the code's form as above. */
export const registerBody = obj(
  {
    name: str(),
    phone: str(),
    code: str('The code requested with purpose register'),
    id_no: text(),
    kra_pin: text(),
    email: text(),
    date_of_birth: text('Y-m-d, in the past'),
    physical_address: text(),
  },
  ['name', 'phone', 'code'],
);
/** As the clients service reads a change (src/modules/clients/client/input.ts updateSchema), only these fields. */
export const contactBody = obj(
  {
    phone: phoneIn(
      'Your phone (07…, 01…, +254…): trusted for one-time codes at once when you signed in with a code; the previous phone is told by SMS',
    ).nullish(),
    email: emailIn(),
    alt_phone: identifierIn(normalisePhone, 'not a Kenyan mobile number', 'Kenyan mobile, any format'),
    physical_address: optionalText(500).describe('Up to 500 characters'),
  },
  [],
);
/**
 * As GraphQL types it: which debit note (a missing or unknown one is the service's 422 on debit_note_no) and the
 * amount's rules (a multiple of 100 within the STK bounds) are judged by the service after an Idempotency-Key replay.
 */
export const payBody = obj(
  {
    debit_note_no: text('One of your open debit notes, e.g. DN-MTR-2026-000001-1/2 (required: 422 when missing)'),
    phone: text("Default: the client's phone"),
    amount_minor: whole(z.int())
      .nullish()
      .describe('Cents, a multiple of 100; default the outstanding amount rounded up to the shilling'),
  },
  [],
);
/**
 * As GraphQL types it: the claim's rules (which policy is yours, the cause, the dates, what is required of each
 * line) are the claims service's, each a 422 naming its field in its own words.
 */
export const claimBody = obj(
  {
    policy_uuid: text('One of your policies (required: 422 naming it when missing or not yours)'),
    registration: text('Required for motor'),
    reg_no: text('Legacy spelling of registration'),
    regno: text('Legacy spelling of registration'),
    insured_id: whole(z.int())
      .nullish()
      .describe('Required for medical, travel and standard: who or what of the policy (its insured[].id)'),
    cause: text('A code of GET /claims/causes (required)'),
    loss_date: text('Y-m-d (required)'),
    loss_time: text('HH:MM, Nairobi'),
    loss_place: text('Required'),
    description: text('Required'),
    police_abstract_no: text(),
    anti_theft_device: bool().nullish(),
    estimated_loss_minor: whole(z.int()).nullish().describe('Cents only'),
  },
  [],
);
export const listOf = (name: string) => dataOf(arr(ref(name)));
