import {
  arr,
  bool,
  date,
  dateInput,
  dateTimeInput,
  int,
  money,
  nullable,
  obj,
  ref,
  shillingsIn,
  str,
  timestamp,
  type Schema,
  oneOf,
} from './builders.ts';
import { z } from 'zod';
import { onList, onText, PHONE_MESSAGE, whole } from './inputs.ts';
import { DATE_TIME_MESSAGE, isYmd, parseDateTime, YMD_MESSAGE } from '../../src/lib/dates.ts';
import { normalisePhone, normaliseRegNo } from '../../src/lib/identifiers.ts';
import { documentAs, jsonSchemaOf } from './json-schema.ts';

export const CLAIM_STATUSES = [
  'registered',
  'documents_pending',
  'with_underwriter',
  'under_assessment',
  'approved',
  'repudiated',
  'settled',
  'closed',
  'withdrawn',
] as const;
/** The claims module's lists, written out (the facade imports no module); test/rest-compat/claim-mapper.test.ts checks they match. */
export const CLAIM_CHANNELS = ['api', 'phone', 'email', 'walk_in', 'agent', 'client_area'] as const;
export const REPUDIATION_REASONS = [
  'not_covered',
  'policy_not_in_force',
  'exclusion_applies',
  'late_notification',
  'fraud_suspected',
  'non_disclosure',
  'unlicensed_driver',
  'documents_not_provided',
  'below_excess',
] as const;
const status = (description?: string): Schema => oneOf(CLAIM_STATUSES, description);

const thirdParty = obj(
  {
    name: str(),
    phone: nullable(str('2547XXXXXXXX')),
    id_no: nullable(str()),
    registration: nullable(str("The third party's vehicle")),
    insurer: nullable(str()),
    injured: nullable(bool()),
    damage: nullable(str()),
  },
  ['name'],
);
const witness = obj({ name: str(), phone: nullable(str()), statement: nullable(str()) }, ['name']);

const claim = {
  id: int(),
  uuid: str(),
  claim_no: str('CLM-YYYY-NNNNNN, gap-free per organisation and year'),
  status: status(),
  policy: obj({ uuid: str(), policy_no: str() }),
  client: obj({ client_no: str(), name: str() }),
  insurer: obj({ id: int(), name: str() }),
  registration: nullable(str('The vehicle (motor)')),
  insured: nullable(
    obj(
      { id: int("The policy record's insured[].id"), kind: str('member, traveller or item'), name: str() },
      undefined,
      'Medical, travel and standard policies: the insured person, traveller or item the loss is about; null for motor',
    ),
  ),
  product_line: str(),
  cause: str('Cause code (GET /claims/causes)'),
  loss: obj({ date: date(), time: nullable(str('HH:MM, Nairobi')), place: str(), description: str() }),
  third_parties: arr(thirdParty),
  witnesses: arr(witness),
  police_abstract_no: nullable(str()),
  anti_theft_device: nullable(bool()),
  reporter: obj({ name: str(), phone: nullable(str()), relationship: nullable(str()) }),
  channel: oneOf(CLAIM_CHANNELS),
  reported_at: timestamp(),
  late_notification: bool('Reported more than 48 hours after the loss'),
  ...money('estimated_loss', true),
  ...money('sum_insured', true),
  ...money('reserve'),
  assessor: nullable(obj({ name: str(), phone: nullable(str()), firm: nullable(str()), appointed_at: timestamp() })),
  assessment: nullable(
    obj({ ...money('assessed_amount'), ...money('salvage', true), notes: nullable(str()), assessed_at: timestamp() }),
  ),
  ...money('approved_amount', true),
  ...money('excess', true),
  ...money('net_payable', true),
  approved_at: nullable(timestamp()),
  ...money('paid'),
  ...money('outstanding', true),
  repudiation: nullable(obj({ reason: str(), note: nullable(str()) })),
  assignee: nullable(obj({ id: int(), name: str() })),
  sla: obj({
    status_since: timestamp(),
    due_at: nullable(timestamp()),
    breached: bool('Open and past the service level of its current status'),
  }),
  closed_at: nullable(timestamp()),
  created_at: timestamp(),
  updated_at: timestamp(),
};

const history = arr(
  obj({
    from: nullable(status()),
    to: status(),
    source: str('api, payment, schedule or system'),
    reason: nullable(str()),
    by: obj({ name: nullable(str()), user_id: nullable(int()) }),
    at: timestamp(),
  }),
);

/*
 * The request bodies: each mirrors what the claims module enforces (src/modules/claims/register/input.ts,
 * adjudication/*.ts), in its words where it words a rule itself. The facade imports no module, so the bounds are
 * written out here; test/rest-compat/claim-mapper.test.ts checks the lists against the module's.
 */

const described = <S extends z.ZodType>(s: S, description?: string): S => (description ? s.describe(description) : s);
/** The JSON Schema of `s`, as `documentAs` takes it. */
const docOf = (s: z.ZodType) => (): Record<string, unknown> => ({ ...jsonSchemaOf(s) });
/** Text that must be there: trimmed, at least one character, at most `max` (the module's requiredText). */
const textIn = (max: number, description?: string) =>
  described(
    z
      .string()
      .trim()
      .min(1, { message: 'required', ...onText })
      .max(max, onText),
    description,
  );
/** Optional text: trimmed, at most `max`; absent, null or blank reads as none (the module's optionalText). */
const optTextIn = (max: number, description?: string) =>
  described(z.string().trim().max(max, onText), description).nullish();
/** An optional identifier the module normalises: blank reads as none; text `normalise` refuses is `message`. */
const normalisedIn = (normalise: (s: string) => string | null, message: string, description?: string) =>
  described(
    z.string().refine((v) => v.trim() === '' || normalise(v) != null, message),
    description,
  ).nullish();
const phoneIn = (description?: string) => normalisedIn(normalisePhone, PHONE_MESSAGE, description);
/** A date as the module reads it (isYmd), refused in its words; documented as a date. */
const ymdIn = (description?: string) =>
  documentAs(
    z.string().refine(isYmd, { message: YMD_MESSAGE, params: { code: 'invalid_value' } }),
    docOf(dateInput(description)),
  );
/** A date-time as the module reads it (parseDateTime), refused in its words; documented as a date-time. */
const dateTimeIn = (description?: string) =>
  documentAs(
    z.string().refine((v) => parseDateTime(v) != null, DATE_TIME_MESSAGE),
    docOf(dateTimeInput(description)),
  );
/**
 * Whole shillings as the Shillings scalar and the module read them: a JSON integer from `minimum`; the bound
 * (MAX_SHILLINGS) is documented and left to the scalar, whose refusal is `out_of_range` with the range in its words.
 */
export const shillingsAsSent = (description: string, minimum = 0) =>
  whole(z.int().min(minimum), shillingsIn(description, minimum));

/** Reads `v` as a plain object, or undefined. */
const plain = (v: unknown): Record<string, unknown> | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
/** Only the first present (non-null) of a field's spellings is read: the others are dropped before any check. */
function firstSpelling(o: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  const read = names.find((n) => o[n] != null);
  const out = { ...o };
  for (const n of names) if (read !== undefined && n !== read) delete out[n];
  return out;
}
/**
 * What the server reads of a body before it checks it, as it always has: legacy spellings after the first one
 * present are not read, a `reporter` that is not an object is ignored, and a lone third party or witness (an object
 * where a list belongs) is read as a list of one. Documented as `inner`.
 */
const asRead = <S extends z.ZodType>(inner: S, read: (o: Record<string, unknown>) => Record<string, unknown>) =>
  documentAs(
    z.preprocess((v) => {
      const o = plain(v);
      return o ? read(o) : v;
    }, inner),
    docOf(inner),
  );
const oneOrList = (v: unknown) => (plain(v) ? [v] : v);

const thirdPartyIn = z.object({
  name: textIn(200),
  phone: phoneIn('Kenyan mobile, any format'),
  id_no: optTextIn(20, 'National ID or passport number (also `idno`)'),
  idno: optTextIn(20, 'Legacy spelling of id_no'),
  registration: optTextIn(20, "The third party's vehicle (also `regno`)"),
  regno: optTextIn(20, 'Legacy spelling of registration'),
  insurer: optTextIn(200),
  injured: z.boolean().nullish(),
  damage: optTextIn(1000),
});
const witnessIn = z.object({
  name: textIn(200),
  phone: phoneIn('Kenyan mobile, any format'),
  statement: optTextIn(2000),
});
const REGISTRATION_MESSAGE = 'not a vehicle registration (e.g. KDA 123A)';
const registrationIn = (description: string) => normalisedIn(normaliseRegNo, REGISTRATION_MESSAGE, description);

const registerClaimFields = z.object({
  policy_uuid: z
    .string()
    .min(1, { message: 'required', ...onText })
    .describe('The policy (visible to the caller, in force on loss_date); required (legacy spelling `policy_id`)')
    .optional(),
  policy_id: z
    .string()
    .min(1, { message: 'required', ...onText })
    .describe('Legacy spelling of policy_uuid')
    .optional(),
  registration: registrationIn('Motor: the vehicle, on the policy on loss_date (also `regno`, `reg_no`)'),
  reg_no: registrationIn('Legacy spelling of registration'),
  regno: registrationIn('Legacy spelling of registration'),
  insured_id: whole(
    z
      .int()
      .positive()
      .describe(
        "Medical, travel and standard policies (required): the insured person, traveller or item (the policy record's insured[].id), on cover on loss_date (a trip: within its dates)",
      ),
  ).nullish(),
  cause: textIn(50, 'A cause code of the policy’s product line (GET /claims/causes)'),
  loss_date: ymdIn('Not after today (Nairobi, on the organisation’s clock)'),
  loss_time: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM, 24-hour, Nairobi time')
    .describe(
      'HH:MM, Nairobi time, not later than now on loss_date; absent: the end of the day counts for late notification',
    )
    .nullish(),
  loss_place: textIn(300),
  description: textIn(5000),
  third_parties: z.array(thirdPartyIn).max(20, onList).nullish(),
  witnesses: z.array(witnessIn).max(20, onList).nullish(),
  police_abstract_no: optTextIn(50),
  anti_theft_device: z
    .boolean()
    .describe('Theft: an approved anti-theft device was fitted (decides the theft excess)')
    .nullish(),
  reporter: z
    .object({
      name: optTextIn(200, 'Also flat as reporter_name'),
      phone: phoneIn('Kenyan mobile, any format (also flat as reporter_phone)'),
      relationship: optTextIn(50, 'Also flat as reporter_relationship'),
    })
    .describe('Default: the policyholder')
    .optional(),
  reporter_name: optTextIn(200, 'Legacy flat spelling of reporter.name'),
  reporter_phone: phoneIn('Legacy flat spelling of reporter.phone'),
  reporter_relationship: optTextIn(50, 'Legacy flat spelling of reporter.relationship'),
  channel: z.enum(CLAIM_CHANNELS).describe('Default api').nullish(),
  reported_at: dateTimeIn('When the notice was received, not in the future (default now)').nullish(),
  estimated_loss: shillingsAsSent(
    "Whole shillings: the reporter's estimate (the initial reserve, capped at the sum insured)",
  ).nullish(),
  assignee_id: whole(z.int().positive().describe('The claims handler (a user)')).nullish(),
});

/** POST /claims: a first notice of loss (register/input.ts registerSchema). */
export const registerClaimBody = asRead(
  registerClaimFields.superRefine((b, c) => {
    if (b.policy_uuid == null && b.policy_id == null)
      c.addIssue({ code: 'custom', path: ['policy_uuid'], message: 'required' });
  }),
  (o) => {
    const out = firstSpelling(firstSpelling(o, ['policy_uuid', 'policy_id']), ['registration', 'reg_no', 'regno']);
    const reporter = plain(o.reporter);
    if (o.reporter !== undefined && !reporter) delete out.reporter;
    for (const k of ['name', 'phone', 'relationship']) if (reporter?.[k] != null) delete out[`reporter_${k}`];
    for (const k of ['third_parties', 'witnesses'] as const) if (k in o) out[k] = oneOrList(o[k]);
    if (Array.isArray(out.third_parties))
      out.third_parties = out.third_parties.map((t: unknown) => {
        const p = plain(t);
        return p ? firstSpelling(firstSpelling(p, ['id_no', 'idno']), ['registration', 'regno']) : t;
      });
    return out;
  },
);

/** PATCH /claims/{uuid} (adjudication/update.ts). */
export const updateClaimBody = z.object({
  assignee_id: whole(z.int().positive().describe('The claims handler (a user); null unassigns')).nullish(),
  police_abstract_no: z.string().trim().max(50, onText).nullish(),
});
/** POST /claims/{uuid}/transitions (adjudication/move.ts); approved, repudiated and settled have their own commands. */
export const moveClaimBody = z.object({
  to: z.enum(CLAIM_STATUSES).describe('documents_pending, with_underwriter, under_assessment, closed or withdrawn'),
  reason: z.string().trim().max(1000, onText).nullish(),
});
const becauseIn = () =>
  z
    .string()
    .trim()
    .min(3, { message: 'say why', ...onText })
    .max(1000, onText);
/** POST /claims/{uuid}/reserve (adjudication/reserve.ts). */
export const reserveClaimBody = z.object({
  amount: shillingsAsSent('Whole shillings: the new reserve'),
  reason: becauseIn(),
});
/** POST /claims/{uuid}/assessor (adjudication/assessment.ts). */
export const assessorClaimBody = z.object({
  name: z.string().trim().min(2, onText).max(200, onText),
  phone: z
    .string()
    .refine((v) => v === '' || normalisePhone(v) != null, 'not a Kenyan mobile number')
    .describe('Kenyan mobile, any format')
    .nullish(),
  firm: z.string().trim().max(200, onText).nullish(),
});
/** POST /claims/{uuid}/assessment (adjudication/assessment.ts); salvage above the assessed amount is the service's. */
export const assessmentClaimBody = z.object({
  assessed_amount: shillingsAsSent('Whole shillings'),
  salvage: shillingsAsSent('Whole shillings, at most the assessed amount').nullish(),
  notes: z.string().trim().max(5000, onText).nullish(),
});
/** POST /claims/{uuid}/approve (adjudication/approve.ts); more than 0 and the sum insured are the service's. */
export const approveClaimBody = z.object({
  approved_amount: shillingsAsSent('Whole shillings, before the excess; more than 0, at most the sum insured'),
  reason: z.string().trim().max(1000, onText).nullish(),
});
/** POST /claims/{uuid}/repudiate (adjudication/repudiate.ts). */
export const repudiateClaimBody = z.object({
  reason: z.enum(REPUDIATION_REASONS),
  note: z.string().trim().max(2000, onText).nullish(),
});
/** POST /claims/{uuid}/reopen (adjudication/reopen.ts). */
export const reopenClaimBody = z.object({
  reason: becauseIn(),
  reserve: shillingsAsSent('Whole shillings: a new reserve').nullish(),
});

export const claimSchemas = {
  ClaimSummary: obj({
    uuid: str(),
    claim_no: str(),
    status: status(),
    cause: str(),
    loss_date: date(),
    registration: nullable(str()),
  }),
  ClaimCause: obj({
    product_line: str(),
    code: str(),
    name: str(),
    documents: arr(str()),
    excess_term: str("Which of the product's excess terms applies: own_damage, theft, third_party_property or none"),
  }),
  Claim: obj(claim),
  ClaimDetail: obj({ ...claim, history }, [...Object.keys(claim), 'history']),
  ClaimRecord: obj(
    {
      ...claim,
      history,
      documents_complete: bool('Every required document received or waived'),
      documents: arr(ref('ClaimDocument')),
      ...money('committed'),
      reserve_movements: arr(
        obj({
          kind: oneOf(['initial', 'adjustment', 'approval', 'payment', 'release', 'reopen']),
          ...money('amount'),
          ...money('balance_after'),
          reason: str(),
          actor_user_id: nullable(int()),
          at: timestamp(),
        }),
      ),
      payments: arr(ref('ClaimPayment')),
    },
    [
      ...Object.keys(claim),
      'history',
      'documents_complete',
      'documents',
      'committed',
      'committed_minor',
      'reserve_movements',
      'payments',
    ],
  ),
  ClaimInput: registerClaimBody,
  ClaimUpdateInput: updateClaimBody,
  ClaimMoveInput: moveClaimBody,
  ClaimReserveInput: reserveClaimBody,
  ClaimAssessorInput: assessorClaimBody,
  ClaimAssessmentInput: assessmentClaimBody,
  ClaimApproveInput: approveClaimBody,
  ClaimRepudiateInput: repudiateClaimBody,
  ClaimReopenInput: reopenClaimBody,
};
