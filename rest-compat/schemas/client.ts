import { arr, bool, date, int, nullable, obj, str, timestamp, type Schema, oneOf, allOf, json } from './builders.ts';

const ref2 = (extra: Record<string, Schema> = {}) => nullable(obj({ id: int(), name: str(), ...extra }));
const personSchema = nullable(obj({ id: int(), name: str(), role: str(), code: nullable(str()) }));

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
  ClientInput: obj(
    {
      type: oneOf(['individual', 'corporate']).default('individual'),
      name: str(),
      phone: str('Kenyan mobile, any format; duplicate-checked'),
      email: str(),
      id_no: str('Duplicate-checked'),
      kra_pin: str('Duplicate-checked'),
      date_of_birth: date(),
      physical_address: str(),
      branch_id: int("Default: the acting user's branch"),
      risk_manager_id: int('Default: the acting account executive'),
      sales_person_id: int('Default: the acting agent; that sales person then sees the client'),
      business_source_id: int(),
      prospect_type_id: int(),
      sector: str(),
      alt_name: str(),
      alt_phone: str(),
      alt_email: str(),
      force: bool('Create despite a matching phone, ID number or tax PIN'),
    },
    ['name', 'phone'],
  ),
};
