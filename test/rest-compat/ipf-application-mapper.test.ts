import { describe, expect, it } from 'vitest';
import type { IpfApplicationFieldsFragment } from '../../rest-compat/generated/operations.ts';
import {
  createIpfApplicationFromRest,
  ipfApplicationDetailToRest,
  ipfApplicationToRest,
} from '../../rest-compat/mappers/ipf-application.ts';
import { IPF_APPLICATION_STATUSES, IPF_INCOME_BANDS } from '../../rest-compat/schemas/ipf-application.ts';
import { APPLICATION_STATUSES, IPF_RULES } from '../../src/modules/finance/ipf-state.ts';
import { m } from './fixtures.ts';

const application: IpfApplicationFieldsFragment = {
  databaseId: 3,
  uuid: 'a-uuid',
  applicationNo: 'IPFA-2026-000003',
  applicationStatus: 'signed',
  policyUuid: 'p-uuid',
  policyNo: 'MTR-2026-000001',
  clientNo: 'C-000004',
  clientName: 'Achieng Otieno',
  lenderId: 1,
  lenderName: 'Mkopo Premium Finance',
  tenorMonths: 4,
  premium: m(52_776, 5_277_625),
  charge: m(1_161, 116_108),
  deposit: m(13_485, 1_348_533),
  instalment: m(13_484, 1_348_400),
  totalRepayable: m(53_937, 5_393_733),
  aprBps: 660,
  ratingVersion: 12,
  schedule: [
    { seq: 1, dueOn: '2026-06-15', amount: m(13_485, 1_348_533) },
    { seq: 2, dueOn: '2026-07-15', amount: m(13_484, 1_348_400) },
  ],
  kyc: { idNumber: '****6001', kraPin: 'A******331M', incomeBand: '100k_250k', consentAt: '2026-06-15T06:00:00.000Z' },
  decisionReasons: [],
  lenderRef: 'LND-1',
  decidedAt: '2026-06-15T06:00:01.000Z',
  agreementSha256: 'ab'.repeat(32),
  signing: { phone: '25471****001', codeSentAt: '2026-06-15T06:00:02.000Z', codeExpiresAt: null, attemptsLeft: null },
  signedAt: '2026-06-15T06:00:03.000Z',
  expiresAt: '2026-06-22T06:00:03.000Z',
  closedReason: null,
  loan: { uuid: 'l-uuid', loanNo: 'IPF-2026-000001', loanStatus: 'awaiting_deposit' },
  createdAt: '2026-06-15T06:00:00.000Z',
  updatedAt: '2026-06-15T06:00:03.000Z',
};

describe('the premium-finance application mapper', () => {
  it('renames and nests; money as whole shillings plus cents, never computed here', () => {
    const r = ipfApplicationToRest(application);
    expect(r).toMatchObject({
      application_no: 'IPFA-2026-000003',
      status: 'signed',
      policy: { uuid: 'p-uuid', policy_no: 'MTR-2026-000001' },
      client: { client_no: 'C-000004', name: 'Achieng Otieno' },
      lender: { id: 1, name: 'Mkopo Premium Finance' },
      premium: 52_776,
      premium_minor: 5_277_625,
      total_repayable: 53_937,
      total_repayable_minor: 5_393_733,
      schedule: [
        { seq: 1, due_on: '2026-06-15', amount: 13_485, amount_minor: 1_348_533 },
        { seq: 2, due_on: '2026-07-15', amount: 13_484, amount_minor: 1_348_400 },
      ],
      kyc: { id_number: '****6001', kra_pin: 'A******331M', income_band: '100k_250k' },
      decision: { lender_ref: 'LND-1', reasons: [] },
      signing: { phone: '25471****001', attempts_left: null },
      loan: { uuid: 'l-uuid', loan_no: 'IPF-2026-000001', status: 'awaiting_deposit' },
    });
    expect(ipfApplicationToRest({ ...application, decidedAt: null, loan: null })).toMatchObject({
      decision: null,
      loan: null,
    });
    const d = ipfApplicationDetailToRest({
      ...application,
      history: [{ from: 'draft', to: 'submitted', reason: 'r', actor: 'Wanjiku', at: 'x' }],
    });
    expect(d.history).toEqual([{ from: 'draft', to: 'submitted', reason: 'r', by: 'Wanjiku', at: 'x' }]);
  });

  it('reads the legacy spellings idno, pin and policy; the new spellings win', () => {
    // The body as its definition parsed it (the required fields present; the identifiers may be null).
    const base = {
      lender_id: 1,
      tenor_months: 4,
      id_number: null,
      kra_pin: null,
      income_band: 'below_20k',
      consent: true,
    };
    expect(createIpfApplicationFromRest({ ...base, policy: 'u', idno: '1', pin: 'p' })).toMatchObject({
      policyUuid: 'u',
      idNumber: '1',
      kraPin: 'p',
      lenderId: 1,
    });
    expect(
      createIpfApplicationFromRest({
        ...base,
        policy_uuid: 'n',
        policy: 'o',
        id_number: '2',
        idno: '1',
        kra_pin: 'k',
        pin: 'p',
      }),
    ).toMatchObject({ policyUuid: 'n', idNumber: '2', kraPin: 'k' });
  });

  it("lists the finance module's statuses and income bands", () => {
    expect(IPF_APPLICATION_STATUSES).toEqual(APPLICATION_STATUSES);
    expect(IPF_INCOME_BANDS).toEqual(Object.keys(IPF_RULES.incomeBands));
  });
});
