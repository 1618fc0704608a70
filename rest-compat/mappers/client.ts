import type { ClientFieldsFragment, CreateClientInput } from '../generated/operations.ts';
import type { z } from 'zod';
import type { SentInput } from '../route.ts';
import type { ClientPatch } from '../schemas/client.ts';

type Person = ClientFieldsFragment['riskManager'];
/** A staff member as the CRM resources show one (clients' people, a prospect's assignee). */
export const person = (u: Person) => (u ? { id: u.databaseId, name: u.name, role: u.role, code: u.code } : null);

/** GraphQL Client → the spec's Client resource. */
export function clientToRest(c: ClientFieldsFragment) {
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

/**
 * REST client body as ClientInput/ClientPatch parsed it (legacy `idno`/`pin` and current `id_no`/`kra_pin`
 * spellings) → GraphQL client input fields.
 */
export function clientFromRest(b: z.output<typeof ClientPatch>): SentInput<CreateClientInput> {
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
