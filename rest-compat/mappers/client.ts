import type { SchemaObject } from 'openapi3-ts/oas31';
import { arr, bool, date, int, nullable, obj, str, timestamp } from '../schemas.ts';

const person = (u: any) => (u ? { id: u.databaseId, name: u.name, role: u.role, code: u.code } : null);

/** GraphQL Client → the spec's Client resource. */
export function clientToRest(c: any) {
  return {
    id: c.databaseId,
    client_no: c.clientNo,
    type: c.type,
    name: c.name,
    id_no: c.idNo,
    kra_pin: c.kraPin,
    phone: c.phone,
    email: c.email,
    date_of_birth: c.dateOfBirth,
    physical_address: c.physicalAddress,
    branch: c.branch ? { id: c.branch.databaseId, name: c.branch.name } : null,
    risk_manager: person(c.riskManager),
    sales_person: person(c.salesPerson),
    business_source: c.businessSource ? { id: c.businessSource.databaseId, name: c.businessSource.name } : null,
    prospect_type: c.prospectType
      ? { id: c.prospectType.databaseId, code: c.prospectType.code, name: c.prospectType.name }
      : null,
    sector: c.sector,
    alt_name: c.altName,
    alt_phone: c.altPhone,
    alt_email: c.altEmail,
    kyc_status: c.kycStatus,
    onboarded_via: c.onboardedVia,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

/** REST client body (legacy and current spellings) → GraphQL client input fields. */
export function clientFromRest(b: Record<string, unknown>) {
  return {
    type: b.type,
    name: b.name,
    phone: b.phone,
    email: b.email,
    idNo: b.id_no ?? b.idno,
    kraPin: b.kra_pin ?? b.pin,
    dateOfBirth: b.date_of_birth,
    physicalAddress: b.physical_address,
    branchId: b.branch_id,
    riskManagerId: b.risk_manager_id,
    salesPersonId: b.sales_person_id,
    businessSourceId: b.business_source_id,
    prospectTypeId: b.prospect_type_id,
    sector: b.sector,
    altName: b.alt_name,
    altPhone: b.alt_phone,
    altEmail: b.alt_email,
    force: b.force,
  };
}

const ref2 = (extra: Record<string, SchemaObject> = {}) => nullable(obj({ id: int(), name: str(), ...extra }));
const personSchema = nullable(obj({ id: int(), name: str(), role: str(), code: nullable(str()) }));

export const clientSchemas = {
  Client: obj({
    id: int(),
    client_no: str('Sequential per organisation, prefix C-'),
    type: { type: 'string', enum: ['individual', 'corporate'] },
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
  DuplicateClientProblem: {
    allOf: [
      { $ref: '#/components/schemas/Problem' },
      obj({
        matches: arr(
          obj({
            client_no: nullable(str('Null for a client the caller may not see')),
            name: nullable(str('Null for a client the caller may not see')),
            matched: arr(str('phone, id_no or kra_pin')),
            redacted: {
              type: 'boolean',
              description:
                'True when the caller may not see that client (client_no and name are then null): only which identifier collided is told.',
            },
          }),
        ),
      }),
    ],
  } as SchemaObject,
  ClientInput: obj(
    {
      type: { type: 'string', enum: ['individual', 'corporate'], default: 'individual' },
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
