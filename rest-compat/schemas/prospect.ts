import { z } from 'zod';
import { todayNairobi } from '../../src/lib/dates.ts';
import { normaliseIdNo, normaliseKraPin } from '../../src/lib/identifiers.ts';
import { ymd } from '../../src/lib/validate.ts';
import { arr, bool, date, int, money, nullable, obj, str, timestamp, oneOf } from './builders.ts';
import { ID_NO_MESSAGE, KRA_PIN_MESSAGE } from './client.ts';
import { documentAs, jsonSchemaOf } from './json-schema.ts';
import { emailIn, identifierIn, idIn, onText, personName, phoneIn, whole } from './inputs.ts';

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

/** One of a GraphQL enum's values: refused in its words (the values in the SDL's order, sorted). */
const enumIn = <const T extends readonly [string, ...string[]]>(values: T, description?: string) => {
  const s = z.enum(values, { message: `must be one of: ${[...values].sort().join(', ')}` });
  return description ? s.describe(description) : s;
};
const interest = enumIn(PROSPECT_VALUES.interests, 'A product line');
const interestList = z.array(interest).max(PROSPECT_VALUES.interests.length);
/** A list of product lines; a lone one reads as a list of one (GraphQL's list coercion). */
const interests = documentAs(
  z.preprocess((v) => (typeof v === 'string' ? [v] : v), interestList),
  () => ({ anyOf: [jsonSchemaOf(interestList), jsonSchemaOf(interest)] }),
);

/**
 * The fields create and update take, as src/modules/prospects/prospect/input.ts reads them (the clients' contact
 * rules, the same bounds and words); PATCH sends only what changes (a null clears the fields that say so).
 */
const inputFields = {
  type: oneOf(PROSPECT_VALUES.types, 'individual (the default) or business').nullish(),
  name: personName(),
  phone: phoneIn(
    'Kenyan mobile, any format; duplicate-checked against clients and prospects (null clears on PATCH)',
  ).nullish(),
  email: emailIn('null clears on PATCH'),
  id_no: identifierIn(normaliseIdNo, ID_NO_MESSAGE, 'Duplicate-checked (null clears on PATCH)'),
  idno: identifierIn(normaliseIdNo, ID_NO_MESSAGE, 'Legacy spelling of id_no (id_no wins when both are sent)'),
  kra_pin: identifierIn(normaliseKraPin, KRA_PIN_MESSAGE, 'Duplicate-checked (null clears on PATCH)'),
  pin: identifierIn(normaliseKraPin, KRA_PIN_MESSAGE, 'Legacy spelling of kra_pin (kra_pin wins when both are sent)'),
  source: enumIn(PROSPECT_VALUES.sources, 'null clears on PATCH').nullish(),
  interests: interests.nullish().describe('Product lines (a lone one reads as a list of one; repeats are dropped)'),
  estimated_premium: whole(z.int().min(0).max(10_000_000_000))
    .nullish()
    .describe('Whole shillings a year (null clears on PATCH)')
    .meta({ example: 1_200_000 }),
  assignee_id: idIn('A user who may work prospects; default the acting agent (null unassigns on PATCH)'),
  next_follow_up_on: ymd()
    .refine((d) => d >= todayNairobi(), 'today or a later date')
    .nullish()
    .describe('Y-m-d, today or later (null clears on PATCH)'),
  note: z
    .string()
    .trim()
    .min(1, { ...onText, message: 'required' })
    .max(2000, onText)
    .nullish()
    .describe('Added to the timeline; with a status move, why it moved (1–2000 characters)'),
  force: bool('Save despite a matching phone, ID number or tax PIN (recorded in the audit trail)').nullish(),
};

export const ProspectInput = obj(inputFields, ['name']);
export const ProspectPatch = obj(
  {
    ...inputFields,
    name: inputFields.name.nullish(),
    status: enumIn(
      PROSPECT_VALUES.statuses,
      'A move through the state machine (docs/motor-and-clients.md "Prospects"); 409 invalid_state otherwise',
    ).nullish(),
    lost_reason: enumIn(PROSPECT_VALUES.lostReasons, 'Required with status lost, refused otherwise').nullish(),
  },
  [],
);
export const ProspectNoteInput = obj({
  body: z
    .string()
    .trim()
    .min(1, { ...onText, message: 'required' })
    .max(2000, onText)
    .describe('1–2000 characters'),
});
/** As convertSchema reads it: the fields that fill or correct the client are checked when the client is made. */
export const ProspectConvertInput = obj(
  {
    client_no: z
      .string()
      .trim()
      .min(1, onText)
      .nullish()
      .describe('Link this existing client (one you may see) instead of creating one'),
    force: bool('Create the client despite matching clients').nullish(),
    phone: str("Fills or corrects the prospect's details for the new client").nullish(),
    email: str().nullish(),
    id_no: str().nullish(),
    idno: str('Legacy spelling of id_no').nullish(),
    kra_pin: str().nullish(),
    pin: str('Legacy spelling of kra_pin').nullish(),
    date_of_birth: str('Y-m-d, in the past').nullish(),
    physical_address: str().nullish(),
    branch_id: whole(z.int()).nullish(),
    risk_manager_id: whole(z.int())
      .nullish()
      .describe("An id from GET /risk-managers. Default: the prospect's assignee when an account executive"),
    sales_person_id: whole(z.int())
      .nullish()
      .describe("An id from GET /sales-people. Default: the prospect's assignee when an agent"),
  },
  [],
);

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
  ProspectInput,
  ProspectPatch,
  ProspectNoteInput,
  ProspectConvertInput,
};
