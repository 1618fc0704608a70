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
];
/** The claims module's lists, written out (the facade imports no module); test/rest-compat/claim-mapper.test.ts checks they match. */
export const CLAIM_CHANNELS = ['api', 'phone', 'email', 'walk_in', 'agent', 'client_area'];
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
];
const status = (description?: string): Schema => oneOf(CLAIM_STATUSES, description);
const shillings = (description: string): Schema => shillingsIn(description);

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
  ClaimInput: obj(
    {
      policy_uuid: str('The policy (visible to the caller, in force on loss_date)'),
      registration: str('Motor: the vehicle, on the policy on loss_date (also `regno`, `reg_no`)'),
      insured_id: int(
        "Medical, travel and standard policies (required): the insured person, traveller or item (the policy record's insured[].id), on cover on loss_date (a trip: within its dates)",
      ),
      cause: str('A cause code of the policy’s product line (GET /claims/causes)'),
      loss_date: dateInput('Not after today (Nairobi, on the organisation’s clock)'),
      loss_time: str(
        'HH:MM, Nairobi time, not later than now on loss_date; absent: the end of the day counts for late notification',
      ),
      loss_place: str(),
      description: str(),
      third_parties: arr(thirdParty),
      witnesses: arr(witness),
      police_abstract_no: str(),
      anti_theft_device: bool('Theft: an approved anti-theft device was fitted (decides the theft excess)'),
      reporter: obj({ name: str(), phone: str(), relationship: str() }, [], 'Default: the policyholder'),
      channel: oneOf(CLAIM_CHANNELS, 'Default api'),
      reported_at: dateTimeInput('When the notice was received, not in the future (default now)'),
      estimated_loss: shillings(
        "Whole shillings: the reporter's estimate (the initial reserve, capped at the sum insured)",
      ),
      assignee_id: int('The claims handler (a user)'),
    },
    ['policy_uuid', 'cause', 'loss_date', 'loss_place', 'description'],
  ),
  ClaimUpdateInput: obj({ assignee_id: nullable(int('null unassigns')), police_abstract_no: nullable(str()) }, []),
  ClaimMoveInput: obj(
    {
      to: status('documents_pending, with_underwriter, under_assessment, closed or withdrawn'),
      reason: str(),
    },
    ['to'],
  ),
  ClaimReserveInput: obj({ amount: shillings('Whole shillings: the new reserve'), reason: str() }),
  ClaimAssessorInput: obj({ name: str(), phone: str(), firm: str() }, ['name']),
  ClaimAssessmentInput: obj(
    { assessed_amount: shillings('Whole shillings'), salvage: shillings('Whole shillings'), notes: str() },
    ['assessed_amount'],
  ),
  ClaimApproveInput: obj(
    { approved_amount: shillings('Whole shillings, before the excess; at most the sum insured'), reason: str() },
    ['approved_amount'],
  ),
  ClaimRepudiateInput: obj({ reason: oneOf(REPUDIATION_REASONS), note: str() }, ['reason']),
  ClaimReopenInput: obj({ reason: str(), reserve: shillings('Whole shillings: a new reserve') }, ['reason']),
};
