import { z } from 'zod';
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
  oneOf,
} from './builders.ts';

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
const status = (description?: string) => oneOf(CLAIM_STATUSES, description);
const shillings = (description: string) => shillingsIn(description);

/** Text the claims module requires: at most `max` characters once trimmed, not blank ('required'). */
const text = (max: number, description?: string) => {
  const s = z.string().trim().min(1, 'required').max(max);
  return description ? s.describe(description) : s;
};
/** Text the module takes as optional: absent, null or blank reads as none; at most `max` characters once trimmed. */
const optText = (max: number, description?: string) => {
  const s = z.string().trim().max(max).nullable();
  return description ? s.describe(description) : s;
};
/** An optional value that may also be sent null (the module reads both as none). */
const orNull = <S extends z.ZodType>(s: S) => s.nullable();

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

const phoneIn = (description = 'Kenyan mobile, any format (07…, 01…, +254…)') => orNull(str(description));

const thirdPartyIn = obj(
  {
    name: text(200),
    phone: phoneIn(),
    id_no: optText(20, 'Also `idno`'),
    idno: optText(20, 'Legacy spelling of id_no'),
    registration: optText(20, "The third party's vehicle (also `regno`)"),
    regno: optText(20, 'Legacy spelling of registration'),
    insurer: optText(200),
    injured: orNull(bool()),
    damage: optText(1000),
  },
  ['name'],
);
const witnessIn = obj({ name: text(200), phone: phoneIn(), statement: optText(2000) }, ['name']);

/** The legacy spellings of a body's fields (legacy → the definition's name), read before the definition checks it. */
const aliased = <S extends z.ZodType>(aliases: Record<string, string>, s: S) =>
  z.preprocess((v) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
    const o: Record<string, unknown> = { ...(v as Record<string, unknown>) };
    for (const [legacy, name] of Object.entries(aliases)) if (o[name] == null && o[legacy] != null) o[name] = o[legacy];
    return o;
  }, s);

export const ClaimInput = aliased(
  { policy_id: 'policy_uuid' },
  obj(
    {
      policy_uuid: z
        .string()
        .min(1, 'required')
        .describe('The policy (visible to the caller, in force on loss_date); also `policy_id`'),
      registration: orNull(str('Motor: the vehicle, on the policy on loss_date (also `regno`, `reg_no`)')),
      regno: orNull(str('Legacy spelling of registration')),
      reg_no: orNull(str('Legacy spelling of registration')),
      insured_id: orNull(
        z
          .int()
          .min(1)
          .describe(
            "Medical, travel and standard policies (required): the insured person, traveller or item (the policy record's insured[].id), on cover on loss_date (a trip: within its dates)",
          ),
      ),
      cause: text(50, 'A cause code of the policy’s product line (GET /claims/causes)'),
      loss_date: dateInput('Not after today (Nairobi, on the organisation’s clock)'),
      loss_time: orNull(
        z
          .string()
          .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM, 24-hour, Nairobi time')
          .describe(
            'HH:MM, Nairobi time, not later than now on loss_date; absent: the end of the day counts for late notification',
          ),
      ),
      loss_place: text(300),
      description: text(5000),
      third_parties: orNull(arr(thirdPartyIn).max(20)),
      witnesses: orNull(arr(witnessIn).max(20)),
      police_abstract_no: optText(50),
      anti_theft_device: orNull(bool('Theft: an approved anti-theft device was fitted (decides the theft excess)')),
      reporter: orNull(
        obj(
          { name: optText(200), phone: phoneIn(), relationship: optText(50) },
          [],
          'Default: the policyholder (also flat: reporter_name, reporter_phone, reporter_relationship)',
        ),
      ),
      reporter_name: optText(200, 'Legacy flat spelling of reporter.name'),
      reporter_phone: phoneIn('Legacy flat spelling of reporter.phone'),
      reporter_relationship: optText(50, 'Legacy flat spelling of reporter.relationship'),
      channel: orNull(oneOf(CLAIM_CHANNELS, 'Default api')),
      reported_at: orNull(dateTimeInput('When the notice was received, not in the future (default now)')),
      estimated_loss: orNull(
        shillings("Whole shillings: the reporter's estimate (the initial reserve, capped at the sum insured)"),
      ),
      assignee_id: orNull(z.int().min(1).describe('The claims handler (a user)')),
    },
    ['policy_uuid', 'cause', 'loss_date', 'loss_place', 'description'],
    'A first notice of loss. Cross-field rules the service checks: a motor claim names its vehicle (registration), ' +
      'any other names insured_id.',
  ),
);
export const ClaimUpdateInput = obj(
  {
    assignee_id: nullable(z.int().min(1).describe('null unassigns')),
    police_abstract_no: optText(50),
  },
  [],
);
export const ClaimMoveInput = obj(
  {
    to: status(
      'documents_pending, with_underwriter, under_assessment, closed or withdrawn (the others: their own command)',
    ),
    reason: optText(1000),
  },
  ['to'],
);
const why = () => z.string().trim().min(3, 'say why').max(1000);
export const ClaimReserveInput = obj({ amount: shillings('Whole shillings: the new reserve'), reason: why() });
export const ClaimAssessorInput = obj(
  { name: z.string().trim().min(2).max(200), phone: phoneIn(), firm: optText(200) },
  ['name'],
);
export const ClaimAssessmentInput = obj(
  {
    assessed_amount: shillings('Whole shillings'),
    salvage: orNull(shillings('Whole shillings')),
    notes: optText(5000),
  },
  ['assessed_amount'],
);
export const ClaimApproveInput = obj(
  {
    approved_amount: shillings('Whole shillings, before the excess; at most the sum insured'),
    reason: optText(1000),
  },
  ['approved_amount'],
);
export const ClaimRepudiateInput = obj({ reason: oneOf(REPUDIATION_REASONS), note: optText(2000) }, ['reason']);
export const ClaimReopenInput = obj({ reason: why(), reserve: orNull(shillings('Whole shillings: a new reserve')) }, [
  'reason',
]);

export const ClaimCause = obj({
  product_line: str(),
  code: str(),
  name: str(),
  documents: arr(str()),
  excess_term: str("Which of the product's excess terms applies: own_damage, theft, third_party_property or none"),
});
export const ClaimSummary = obj({
  uuid: str(),
  claim_no: str(),
  status: status(),
  cause: str(),
  loss_date: date(),
  registration: nullable(str()),
});
export const Claim = obj(claim);
export const ClaimDetail = obj({ ...claim, history }, [...Object.keys(claim), 'history']);
export const ClaimReserveMovements = arr(
  obj({
    kind: oneOf(['initial', 'adjustment', 'approval', 'payment', 'release', 'reopen']),
    ...money('amount'),
    ...money('balance_after'),
    reason: str(),
    actor_user_id: nullable(int()),
    at: timestamp(),
  }),
);

export const claimSchemas = {
  ClaimSummary,
  ClaimCause,
  Claim,
  ClaimDetail,
  ClaimRecord: obj(
    {
      ...claim,
      history,
      documents_complete: bool('Every required document received or waived'),
      documents: arr(ref('ClaimDocument')),
      ...money('committed'),
      reserve_movements: ClaimReserveMovements,
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
  ClaimInput,
  ClaimUpdateInput,
  ClaimMoveInput,
  ClaimReserveInput,
  ClaimAssessorInput,
  ClaimAssessmentInput,
  ClaimApproveInput,
  ClaimRepudiateInput,
  ClaimReopenInput,
};
