import { arr, bool, date, int, money, nullable, obj, str, timestamp, describe, oneOf } from './builders.ts';

/**
 * The values of the GraphQL enums and of PROSPECT_RULES (src/modules/prospects/prospect-state.ts), written out because
 * the facade imports no module; test/rest-compat/prospect-mapper.test.ts fails when they drift apart.
 */
export const PROSPECT_VALUES = {
  statuses: ['new', 'contacted', 'qualified', 'quoted', 'won', 'lost'],
  types: ['individual', 'business'],
  sources: ['walk_in', 'referral', 'website', 'social_media', 'event', 'cold_call', 'bancassurance', 'other'],
  interests: ['motor', 'medical', 'travel', 'standard', 'ipf'],
  lostReasons: ['price', 'competitor', 'no_need', 'unreachable', 'not_eligible', 'duplicate', 'other'],
} as const;
const personSchema = nullable(obj({ id: int(), name: str(), role: str(), code: nullable(str()) }));

const prospect = {
  id: int(),
  uuid: str(),
  prospect_no: str('P-NNNNNN, sequential per organisation'),
  type: oneOf(PROSPECT_VALUES.types),
  name: str(),
  phone: nullable(str('Normalised 2547XXXXXXXX / 2541XXXXXXXX')),
  email: nullable(str()),
  id_no: nullable(str('Normalised national ID or passport number')),
  kra_pin: nullable(str('Upper case')),
  source: nullable(oneOf(PROSPECT_VALUES.sources)),
  interests: arr(oneOf(PROSPECT_VALUES.interests, 'A product line')),
  ...money('estimated_premium', true),
  status: oneOf(PROSPECT_VALUES.statuses),
  lost_reason: nullable(oneOf(PROSPECT_VALUES.lostReasons, 'Set while the prospect is lost')),
  assignee: personSchema,
  created_by: personSchema,
  next_follow_up_on: nullable(date()),
  client_no: nullable(str('The client it became or was linked to; null when the caller may not see that client')),
  status_changed_at: timestamp(),
  created_at: timestamp(),
  updated_at: timestamp(),
};

/** The fields create and update take; PATCH sends only what changes (a null clears the fields that say so). */
const inputFields = {
  type: oneOf(PROSPECT_VALUES.types).default('individual'),
  name: str(),
  phone: str('Kenyan mobile, any format; duplicate-checked against clients and prospects (null clears on PATCH)'),
  email: str('null clears on PATCH'),
  id_no: str('Duplicate-checked (null clears on PATCH)'),
  kra_pin: str('Duplicate-checked (null clears on PATCH)'),
  source: oneOf(PROSPECT_VALUES.sources, 'null clears on PATCH'),
  interests: arr(oneOf(PROSPECT_VALUES.interests)),
  estimated_premium: int('Whole shillings a year (null clears on PATCH)')
    .min(0)
    .max(10_000_000_000)
    .meta({ example: 1_200_000 }),
  assignee_id: int('A user who may work prospects; default the acting agent (null unassigns on PATCH)'),
  next_follow_up_on: describe(date(), 'Y-m-d, today or later (null clears on PATCH)'),
  note: str('Added to the timeline; with a status move, why it moved'),
  force: bool('Save despite a matching phone, ID number or tax PIN (recorded in the audit trail)'),
};

export const prospectSchemas = {
  Prospect: obj(prospect),
  ProspectRecord: obj({
    ...prospect,
    timeline: arr(
      obj({
        id: int(),
        kind: oneOf(['created', 'note', 'status_changed', 'converted', 'quote_saved', 'policy_bound']),
        body: nullable(str('The note, or why the status moved (a lost reason, a quote or policy number)')),
        from_status: nullable(oneOf(PROSPECT_VALUES.statuses)),
        to_status: nullable(oneOf(PROSPECT_VALUES.statuses)),
        actor_id: nullable(int('The user who wrote or moved it')),
        at: timestamp(),
      }),
    ),
  }),
  ProspectInput: obj(inputFields, ['name']),
  ProspectPatch: obj(
    {
      ...inputFields,
      status: oneOf(
        PROSPECT_VALUES.statuses,
        'A move through the state machine (docs/motor-and-clients.md "Prospects"); 409 invalid_state otherwise',
      ),
      lost_reason: oneOf(PROSPECT_VALUES.lostReasons, 'Required with status lost, refused otherwise'),
    },
    [],
  ),
  ProspectNoteInput: obj({ body: str('1–2000 characters') }),
  ProspectConvertInput: obj(
    {
      client_no: str('Link this existing client (one you may see) instead of creating one'),
      force: bool('Create the client despite matching clients'),
      phone: str("Fills or corrects the prospect's details for the new client"),
      email: str(),
      id_no: str(),
      kra_pin: str(),
      date_of_birth: date(),
      physical_address: str(),
      branch_id: int(),
      risk_manager_id: int(),
      sales_person_id: int("Default: the prospect's assignee when they sell (agent or account executive)"),
    },
    [],
  ),
};
