/**
 * Hand-written GraphQL results (the generated operation types) shared by the mapper tests: what execute() returns for
 * the REST operations' fragments. Money is given as the core gives it, whole shillings and cents side by side.
 */
import type {
  CancellationFieldsFragment,
  CertificateFieldsFragment,
  EndorsementFieldsFragment,
  MoneyFieldsFragment,
} from '../../rest-compat/generated/operations.ts';

export const m = (amount: number, amountMinor: number): MoneyFieldsFragment => ({ amount, amountMinor });

export const issuedCertificate: CertificateFieldsFragment = {
  uuid: 'cert-1',
  certificateNo: 'CC0000123',
  certificateStatus: 'issued',
  regNo: 'KDA123A',
  chassisNo: 'JTD1',
  certificateClass: 'C',
  coverCode: 100,
  coverName: 'Comprehensive',
  stage: 1,
  stageCount: 2,
  series: 1,
  startDate: '2025-01-01',
  endDate: '2025-06-30',
  registryRef: 'REG-9',
  attempts: 1,
  error: null,
  issuedAt: '2025-01-01T06:00:00.000Z',
  cancelledAt: null,
  cancelReasonId: null,
  policy: { uuid: 'pol-1', policyNo: 'MTR-2025-000001' },
};

/** A pending endorsement adding a vehicle (no note yet). */
export const addVehicle: EndorsementFieldsFragment = {
  uuid: 'end-1',
  number: 'END-MTR-2025-000001-1',
  operation: 'add_vehicle',
  endorsementStatus: 'pending',
  effectiveDate: '2025-03-01',
  changesWithShillings: {
    vehicle: { regno: 'KDB456B', chassis_no: 'JTD2', value: 2_000_000, value_minor: 200_000_000, pll: null },
    remark: 'second car',
  },
  remark: 'second car',
  basedOnRevision: 3,
  premiumEffect: {
    basicPremium: m(41_096, 4_109_589),
    taxes: m(103, 10_274),
    total: m(41_199, 4_119_863),
    levies: [{ code: 'TL', name: 'Training levy', amount: m(82, 8_219) }],
  },
  days: { inPeriod: 365, remaining: 306 },
  items: [{ regNo: 'KDB456B', insured: null, annualBasicBefore: null, annualBasicAfter: m(49_000, 4_900_000) }],
  debitNote: null,
  creditNote: null,
  policy: { uuid: 'pol-1', policyNo: 'MTR-2025-000001' },
  expiresAt: '2025-03-04T06:00:00.000Z',
  createdAt: '2025-03-01T06:00:00.000Z',
  confirmedAt: null,
  discardedAt: null,
};

/** A confirmed cancellation with its credit note (no reinstatement). */
export const cancellation: CancellationFieldsFragment = {
  databaseId: 7,
  uuid: 'can-1',
  cancellationStatus: 'confirmed',
  reason: 'vehicle_sold',
  registryReasonId: 15,
  requestedBy: 'insured',
  note: null,
  effectiveDate: '2025-07-01',
  basedOnRevision: 4,
  creditNote: {
    number: 'CN-MTR-2025-000001-1',
    amount: m(20_000, 2_000_050),
    applied: m(5_000, 500_000),
    refunded: m(15_001, 1_500_050),
    refundPayee: 'client',
  },
  reinstatementDebitNote: null,
  expiresAt: '2025-07-04T06:00:00.000Z',
  confirmedAt: '2025-07-01T07:00:00.000Z',
  reinstatedAt: null,
  createdAt: '2025-07-01T06:00:00.000Z',
  policy: { uuid: 'pol-1', policyNo: 'MTR-2025-000001', status: 'cancelled' },
  refund: {
    days: { inPeriod: 365, covered: 181, unearned: 184 },
    basicPremium: m(19_900, 1_990_000),
    levies: [{ code: 'TL', name: 'Training levy', amount: m(40, 3_980) }],
    taxes: m(100, 10_050),
    nonRefundable: [{ code: 'SD', name: 'Stamp duty', reason: 'Flat duty, charged once', amount: m(40, 4_000) }],
    creditTotal: m(20_000, 2_000_050),
    appliedToDebitNotes: [{ debitNoteNo: 'DN-MTR-2025-000001-2/2', amount: m(5_000, 500_000) }],
    appliedTotal: m(5_000, 500_000),
    refundToClient: m(15_001, 1_500_050),
    refundPayee: 'client',
    refundToLender: m(0, 0),
    outstandingAfter: m(0, 0),
    items: [
      {
        regNo: 'KDA123A',
        insured: null,
        annualBasicPremium: m(39_500, 3_950_000),
        from: '2025-07-01',
        to: '2025-12-31',
        unearnedBasicPremium: m(19_900, 1_990_000),
      },
    ],
  },
};
