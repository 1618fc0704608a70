import { describe, expect, it } from 'vitest';
import type { PolicyRecordFragment } from '../../rest-compat/generated/operations.ts';
import { cancellationToRest } from '../../rest-compat/mappers/cancellation.ts';
import { certificateToRest } from '../../rest-compat/mappers/certificate.ts';
import { endorsementToRest } from '../../rest-compat/mappers/endorsement.ts';
import { policyToRest } from '../../rest-compat/mappers/policy.ts';
import { addVehicle, cancellation, issuedCertificate, m } from './fixtures.ts';

const policy: PolicyRecordFragment = {
  databaseId: 1,
  uuid: 'pol-1',
  policyNo: 'MTR-2025-000001',
  riskNote: 'RN-000001',
  status: 'active',
  productLine: 'motor',
  startDate: '2025-01-01',
  endDate: '2025-12-31T00:00:00.000+03:00',
  paymentMode: 'full',
  instalments: 2,
  basicPremium: m(39_500, 3_950_000),
  taxes: m(139, 13_850),
  total: m(39_639, 3_963_850),
  vehicleClass: 'private',
  coverType: 'comprehensive',
  coverPeriod: 'annual',
  createdAt: '2024-12-30T06:00:00.000Z',
  client: { clientNo: 'C-000012', name: 'Achieng Otieno', phone: '254712345678' },
  insurer: { databaseId: 3, name: 'Jubilee' },
  salesPerson: null,
  coverProduct: null,
  coverDetails: null,
  insured: [],
  vehicles: [
    {
      regNo: 'KDA123A',
      chassisNo: 'JTD1',
      engineNo: null,
      make: 'Toyota',
      model: 'Axio',
      yearOfManufacture: 2019,
      value: m(1_000_000, 100_000_000),
      bodyType: null,
      coverage: 'private',
      status: 'removed',
      addedOn: '2025-03-01',
      removedOn: '2025-06-15',
    },
  ],
  levies: [{ code: 'SD', name: 'Stamp duty', amount: m(40, 4_000) }],
  debitNotes: [
    {
      number: 'DN-MTR-2025-000001-1/2',
      kind: 'instalment',
      instalmentNo: 1,
      dueOn: '2025-01-01',
      amount: m(19_820, 1_981_925),
      paid: m(19_820, 1_981_925),
      credited: m(0, 0),
      outstanding: m(0, 0),
    },
  ],
  receipts: [
    {
      receiptNo: 'RCT-2025-000001',
      transactionRef: 'QWE123',
      method: 'mpesa',
      purpose: 'premium',
      account: 'MTR-2025-000001',
      paidAt: '2025-01-01T06:00:00.000Z',
      amount: m(19_820, 1_981_925),
      unallocated: m(0, 0),
      allocations: [{ debitNoteNo: 'DN-MTR-2025-000001-1/2', amount: m(19_820, 1_981_925) }],
    },
  ],
  statusHistory: [
    { fromStatus: null, toStatus: 'pending_payment', source: 'bind', reason: null, at: '2024-12-30T06:00:00.000Z' },
    {
      fromStatus: 'pending_payment',
      toStatus: 'active',
      source: 'payment',
      reason: null,
      at: '2025-01-01T06:00:00.000Z',
    },
  ],
  renewalOf: null,
  renewal: { uuid: 'pol-2', policyNo: 'MTR-2026-000001', status: 'pending_payment' },
  creditNotes: [
    {
      number: 'CN-MTR-2025-000001-1',
      kind: 'cancellation',
      createdAt: '2025-07-01T07:00:00.000Z',
      amount: m(20_000, 2_000_050),
      basicPremium: m(19_900, 1_990_000),
      taxes: m(100, 10_050),
      applied: m(5_000, 500_000),
      refunded: m(15_001, 1_500_050),
      applications: [{ debitNoteNo: 'DN-MTR-2025-000001-2/2', amount: m(5_000, 500_000) }],
    },
  ],
  endorsements: [addVehicle],
  cancellations: [cancellation],
  certificates: [issuedCertificate],
};

describe('policy mapper', () => {
  it('the full record: legacy names (risknote, class, scope, regno, yom), dates Y-m-d, money pairs', () => {
    expect(policyToRest(policy)).toEqual({
      id: 1,
      uuid: 'pol-1',
      policy_no: 'MTR-2025-000001',
      risknote: 'RN-000001',
      status: 'active',
      product_line: 'motor',
      class: 'private',
      scope: 'comprehensive',
      cover_period: 'annual',
      start_date: '2025-01-01',
      end_date: '2025-12-31',
      payment_mode: 'full',
      instalments: 2,
      client: { client_no: 'C-000012', name: 'Achieng Otieno', phone: '254712345678' },
      insurer: { id: 3, name: 'Jubilee' },
      sales_person: null,
      product: null,
      cover: null,
      insured: [],
      premium: {
        basic_premium: 39_500,
        basic_premium_minor: 3_950_000,
        taxes: 139,
        taxes_minor: 13_850,
        total: 39_639,
        total_minor: 3_963_850,
        levies: [{ code: 'SD', name: 'Stamp duty', amount: 40, amount_minor: 4_000 }],
      },
      vehicles: [
        {
          regno: 'KDA123A',
          chassis_no: 'JTD1',
          engine_no: null,
          make: 'Toyota',
          model: 'Axio',
          yom: 2019,
          value: 1_000_000,
          value_minor: 100_000_000,
          body_type: null,
          coverage: 'private',
          status: 'removed',
          added_on: '2025-03-01',
          removed_on: '2025-06-15',
        },
      ],
      debit_notes: [
        {
          number: 'DN-MTR-2025-000001-1/2',
          kind: 'instalment',
          instalment_no: 1,
          due_on: '2025-01-01',
          amount: 19_820,
          amount_minor: 1_981_925,
          paid: 19_820,
          paid_minor: 1_981_925,
          credited: 0,
          credited_minor: 0,
          outstanding: 0,
          outstanding_minor: 0,
        },
      ],
      credit_notes: [
        {
          number: 'CN-MTR-2025-000001-1',
          kind: 'cancellation',
          amount: 20_000,
          amount_minor: 2_000_050,
          basic_premium: 19_900,
          basic_premium_minor: 1_990_000,
          taxes: 100,
          taxes_minor: 10_050,
          applied: 5_000,
          applied_minor: 500_000,
          refunded: 15_001,
          refunded_minor: 1_500_050,
          applications: [{ debit_note_no: 'DN-MTR-2025-000001-2/2', amount: 5_000, amount_minor: 500_000 }],
          created_at: '2025-07-01T07:00:00.000Z',
        },
      ],
      receipts: [
        {
          receipt_no: 'RCT-2025-000001',
          transaction_ref: 'QWE123',
          method: 'mpesa',
          purpose: 'premium',
          account: 'MTR-2025-000001',
          paid_at: '2025-01-01T06:00:00.000Z',
          amount: 19_820,
          amount_minor: 1_981_925,
          unallocated: 0,
          unallocated_minor: 0,
          allocations: [{ debit_note_no: 'DN-MTR-2025-000001-1/2', amount: 19_820, amount_minor: 1_981_925 }],
        },
      ],
      // Each nested record has its own mapper and test.
      endorsements: [endorsementToRest(addVehicle)],
      cancellations: [cancellationToRest(cancellation)],
      certificates: [certificateToRest(issuedCertificate)],
      status_history: [
        { from: null, to: 'pending_payment', source: 'bind', reason: null, at: '2024-12-30T06:00:00.000Z' },
        { from: 'pending_payment', to: 'active', source: 'payment', reason: null, at: '2025-01-01T06:00:00.000Z' },
      ],
      renewal_of: null,
      renewed_by: { uuid: 'pol-2', policy_no: 'MTR-2026-000001', status: 'pending_payment' },
      created_at: '2024-12-30T06:00:00.000Z',
    });
  });

  it('a renewal links back to its predecessor; an agent-sold policy shows the sales person; no value is null', () => {
    const out = policyToRest({
      ...policy,
      renewalOf: { uuid: 'pol-0', policyNo: 'MTR-2024-000009' },
      renewal: null,
      salesPerson: { databaseId: 5, name: 'Wanjiru', role: 'agent', code: 'AG01' },
      vehicles: [{ ...policy.vehicles[0], value: null }],
    });
    expect(out.renewal_of).toEqual({ uuid: 'pol-0', policy_no: 'MTR-2024-000009' });
    expect(out.renewed_by).toBeNull();
    expect(out.sales_person).toEqual({ id: 5, name: 'Wanjiru', role: 'agent', code: 'AG01' });
    expect(out.vehicles[0]).toMatchObject({ value: null, value_minor: null });
  });

  it('a non-motor policy: its cover product, the cover as bound and the insured, no class, scope or vehicles', () => {
    const out = policyToRest({
      ...policy,
      policyNo: 'MED-2026-000004',
      productLine: 'medical',
      vehicleClass: null,
      coverType: null,
      vehicles: [],
      coverProduct: { databaseId: 7, code: 'MEDICAL', name: 'Jubilee Family Medical' },
      coverDetails: { cover_type: 'family', inpatient_limit_minor: 100_000_000 },
      insured: [
        {
          databaseId: 41,
          kind: 'member',
          name: 'Amina Wanjiru',
          relationship: 'principal',
          age: 40,
          dateOfBirth: '1986-03-02',
          inSchool: null,
          idNo: '24681357',
          sumInsured: null,
          details: null,
          status: 'removed',
          addedOn: '2026-06-15',
          removedOn: '2026-09-01',
        },
      ],
    });
    expect(out).toMatchObject({
      product_line: 'medical',
      class: null,
      scope: null,
      product: { id: 7, code: 'MEDICAL', name: 'Jubilee Family Medical' },
      cover: { cover_type: 'family', inpatient_limit_minor: 100_000_000 },
      vehicles: [],
    });
    expect(out.insured).toEqual([
      {
        id: 41,
        kind: 'member',
        name: 'Amina Wanjiru',
        relationship: 'principal',
        age: 40,
        date_of_birth: '1986-03-02',
        in_school: null,
        id_no: '24681357',
        sum_insured: null,
        sum_insured_minor: null,
        details: null,
        status: 'removed',
        added_on: '2026-06-15',
        removed_on: '2026-09-01',
      },
    ]);
  });
});
