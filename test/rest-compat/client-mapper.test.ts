import { describe, expect, it } from 'vitest';
import type { ClientFieldsFragment } from '../../rest-compat/generated/operations.ts';
import { clientFromRest, clientToRest } from '../../rest-compat/mappers/client.ts';
import { ClientInput } from '../../rest-compat/schemas/client.ts';

const client: ClientFieldsFragment = {
  databaseId: 12,
  clientNo: 'C-000012',
  type: 'individual',
  name: 'Achieng Otieno',
  idNo: '12345678',
  kraPin: 'A012345678Z',
  phone: '254712345678',
  email: null,
  dateOfBirth: '1990-05-01',
  physicalAddress: null,
  branch: { databaseId: 1, name: 'Nairobi' },
  riskManager: { databaseId: 2, name: 'Otieno', role: 'account_exec', code: null },
  salesPerson: null,
  businessSource: null,
  prospectType: { databaseId: 3, code: 'WALKIN', name: 'Walk-in' },
  sector: null,
  altName: null,
  altPhone: null,
  altEmail: null,
  kycStatus: 'unverified',
  onboardedVia: 'api',
  createdAt: '2025-01-01T06:00:00.000Z',
  updatedAt: '2025-01-02T06:00:00.000Z',
};

describe('client mapper', () => {
  it('the record: id_no and kra_pin, related records by id, null where absent', () => {
    expect(clientToRest(client)).toEqual({
      id: 12,
      client_no: 'C-000012',
      type: 'individual',
      name: 'Achieng Otieno',
      id_no: '12345678',
      kra_pin: 'A012345678Z',
      phone: '254712345678',
      email: null,
      date_of_birth: '1990-05-01',
      physical_address: null,
      branch: { id: 1, name: 'Nairobi' },
      risk_manager: { id: 2, name: 'Otieno', role: 'account_exec', code: null },
      sales_person: null,
      business_source: null,
      prospect_type: { id: 3, code: 'WALKIN', name: 'Walk-in' },
      sector: null,
      alt_name: null,
      alt_phone: null,
      alt_email: null,
      kyc_status: 'unverified',
      onboarded_via: 'api',
      created_at: '2025-01-01T06:00:00.000Z',
      updated_at: '2025-01-02T06:00:00.000Z',
    });
  });

  it('the request: legacy `idno` and `pin` accepted; `id_no` and `kra_pin` win when both are sent', () => {
    expect(clientFromRest({ name: 'A', phone: '0712345678', idno: '1', pin: 'P1' })).toEqual({
      type: undefined,
      name: 'A',
      phone: '0712345678',
      email: undefined,
      idNo: '1',
      kraPin: 'P1',
      dateOfBirth: undefined,
      physicalAddress: undefined,
      branchId: undefined,
      riskManagerId: undefined,
      salesPersonId: undefined,
      businessSourceId: undefined,
      prospectTypeId: undefined,
      sector: undefined,
      altName: undefined,
      altPhone: undefined,
      altEmail: undefined,
      force: undefined,
    });
    expect(clientFromRest({ id_no: '2', idno: '1', kra_pin: 'P2', pin: 'P1' })).toMatchObject({
      idNo: '2',
      kraPin: 'P2',
    });
  });

  it('wrong-typed values are refused by the body definition before the mapper, each under its own name', () => {
    const r = ClientInput.safeParse({ name: 42, phone: '0712345678', branch_id: '7', force: 'yes' });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.')).sort()).toEqual(['branch_id', 'force', 'name']);
  });
});
