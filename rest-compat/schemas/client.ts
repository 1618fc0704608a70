import { normaliseIdNo, normaliseKraPin, normalisePhone } from '../../src/lib/identifiers.ts';
import { now } from '../../src/lib/clock.ts';
import { optionalText, ymd } from '../../src/lib/validate.ts';
import { emailIn, identifierIn, idIn, personName, phoneIn } from './inputs.ts';
import { arr, bool, date, int, nullable, obj, str, timestamp, type Schema, oneOf, allOf, json } from './builders.ts';

/** The client types (src/modules/clients/client/input.ts). */
export const CLIENT_TYPES = ['individual', 'corporate'] as const;
export const ID_NO_MESSAGE = 'national ID (6–14 digits) or passport number (6–12 letters and digits)';
export const KRA_PIN_MESSAGE = 'KRA PIN is A or P, 9 digits and a letter (e.g. A004416331M)';

const idNo = (description: string) => identifierIn(normaliseIdNo, ID_NO_MESSAGE, `${description}; ${ID_NO_MESSAGE}`);
const kraPin = (description: string) =>
  identifierIn(normaliseKraPin, KRA_PIN_MESSAGE, `${description}; ${KRA_PIN_MESSAGE}`);

/**
 * POST /clients as src/modules/clients/client/input.ts reads it (createSchema): the same bounds, normalisers and
 * words; `idno`/`pin` are the legacy spellings of `id_no`/`kra_pin` (the current one wins when both are sent).
 */
const clientFields = {
  type: oneOf(CLIENT_TYPES, 'individual (the default) or corporate').nullish(),
  name: personName(),
  phone: phoneIn('Kenyan mobile, any format; duplicate-checked'),
  email: emailIn(),
  id_no: idNo('Duplicate-checked'),
  idno: idNo('Legacy spelling of id_no'),
  kra_pin: kraPin('Duplicate-checked'),
  pin: kraPin('Legacy spelling of kra_pin'),
  date_of_birth: ymd()
    .refine((d) => Date.parse(`${d}T00:00:00Z`) < now().getTime(), 'a past date')
    .nullish()
    .describe('Y-m-d, in the past (null clears it on PATCH)'),
  physical_address: optionalText(500).describe('Up to 500 characters'),
  branch_id: idIn("Default: the acting user's branch"),
  risk_manager_id: idIn(
    'An id from GET /risk-managers (an active account executive). Default: the acting account executive',
  ),
  sales_person_id: idIn(
    'An id from GET /sales-people (an active agent). Default: the acting agent; that sales person then sees the client',
  ),
  business_source_id: idIn(),
  prospect_type_id: idIn(),
  sector: optionalText(100).describe('Up to 100 characters'),
  alt_name: optionalText(200).describe('Up to 200 characters'),
  alt_phone: identifierIn(normalisePhone, 'not a Kenyan mobile number', 'Kenyan mobile, any format'),
  alt_email: emailIn(),
  force: bool('Create despite a matching phone, ID number or tax PIN').nullish(),
};

const ref2 = (extra: Record<string, Schema> = {}) => nullable(obj({ id: int(), name: str(), ...extra }));
const personSchema = nullable(obj({ id: int(), name: str(), role: str(), code: nullable(str()) }));

export const ClientInput = obj(clientFields, ['name', 'phone']);
export const ClientPatch = obj(
  { ...clientFields, name: clientFields.name.nullish(), phone: clientFields.phone.nullish() },
  [],
  'Same fields as POST /clients, all optional: only what is sent changes (null leaves a field as it is, except date_of_birth, which it clears)',
);

export const clientSchemas = {
  Client: obj({
    id: int(),
    client_no: str('Sequential per organisation, prefix C-'),
    type: oneOf(['individual', 'corporate']),
    name: str(),
    id_no: nullable(str('Normalised national ID or passport number')),
    kra_pin: nullable(str('Upper case')),
    phone: str('Normalised 2547XXXXXXXX / 2541XXXXXXXX'),
    email: nullable(str()),
    date_of_birth: nullable(date()),
    physical_address: nullable(str()),
    branch: ref2(),
    risk_manager: personSchema,
    sales_person: personSchema,
    business_source: ref2(),
    prospect_type: ref2({ code: str() }),
    sector: nullable(str()),
    alt_name: nullable(str()),
    alt_phone: nullable(str()),
    alt_email: nullable(str()),
    kyc_status: str('`unverified` occurs'),
    onboarded_via: str('`api` occurs'),
    created_at: timestamp(),
    updated_at: timestamp(),
  }),
  DuplicateClientProblem: allOf(
    json({ $ref: '#/components/schemas/Problem' }),
    obj({
      matches: arr(
        obj(
          {
            client_no: nullable(str('Null for a client the caller may not see')),
            name: nullable(str('Null for a client the caller may not see')),
            matched: arr(str('phone, id_no or kra_pin')),
            redacted: {
              type: 'boolean',
              description:
                'True when the caller may not see that client (client_no and name are then null): only which identifier collided is told.',
            },
            kind: oneOf(['client', 'prospect'], 'On /prospects paths only'),
            prospect_no: nullable(str('On /prospects paths only: a matching prospect the caller may see')),
          },
          ['client_no', 'name', 'matched', 'redacted'],
        ),
      ),
    }),
  ),
  ClientInput,
  ClientPatch,
};
