import { describe, expect, it } from 'vitest';
import type { ClaimFieldsFragment } from '../../rest-compat/generated/operations.ts';
import { claimHistoryToRest, claimToRest, registerClaimFromRest } from '../../rest-compat/mappers/claim.ts';
import { CLAIM_CHANNELS, CLAIM_STATUSES, REPUDIATION_REASONS } from '../../rest-compat/schemas/claim.ts';
import { ClaimStatus } from '../../src/generated/prisma/enums.ts';
import { CLAIM_RULES } from '../../src/modules/claims/claim-state.ts';
import { m } from './fixtures.ts';

const claim: ClaimFieldsFragment = {
  databaseId: 7,
  uuid: '7b0c3c1e-0000-4000-8000-000000000007',
  claimNo: 'CLM-2026-000007',
  claimStatus: 'approved',
  policyUuid: 'p-uuid',
  policyNo: 'POL-1',
  clientNo: 'C-000001',
  clientName: 'Achieng Otieno',
  insurer: { databaseId: 3, name: 'Simba General' },
  registration: 'KDE123A',
  insured: null,
  productLine: 'motor',
  cause: 'accident',
  lossDate: '2026-06-15',
  lossTime: '07:30',
  lossPlace: 'Thika Road',
  description: 'Rear-ended',
  thirdParties: [{ name: 'Jane', phone: null }],
  witnesses: [],
  policeAbstractNo: null,
  antiTheftDevice: null,
  reporterName: 'Achieng Otieno',
  reporterPhone: '254712345678',
  reporterRelationship: 'policyholder',
  channel: 'api',
  reportedAt: '2026-06-15T06:00:00.000Z',
  lateNotification: false,
  estimatedLoss: null,
  sumInsured: m(1_500_000, 150_000_000),
  reserve: m(162_500, 16_250_000),
  assessorName: 'Kilimo Assessors',
  assessorPhone: null,
  assessorFirm: null,
  assessorAppointedAt: '2026-06-16T06:00:00.000Z',
  assessedAmount: null,
  salvage: null,
  assessmentNotes: null,
  assessedAt: null,
  approvedAmount: m(200_000, 20_000_000),
  excess: m(37_500, 3_750_000),
  netPayable: m(162_500, 16_250_000),
  approvedAt: '2026-06-17T06:00:00.000Z',
  paid: m(0, 0),
  outstanding: m(162_500, 16_250_000),
  repudiationReason: null,
  repudiationNote: null,
  assignee: null,
  statusChangedAt: '2026-06-17T06:00:00.000Z',
  slaDueAt: '2026-06-24T06:00:00.000Z',
  slaBreached: false,
  closedAt: null,
  createdAt: '2026-06-15T06:00:00.000Z',
  updatedAt: '2026-06-17T06:00:00.000Z',
};

describe('claim mapper', () => {
  it('renames, pairs money as shillings and cents, and nests what belongs together', () => {
    const r = claimToRest(claim);
    expect(r).toMatchObject({
      id: 7,
      claim_no: 'CLM-2026-000007',
      status: 'approved',
      policy: { uuid: 'p-uuid', policy_no: 'POL-1' },
      loss: { date: '2026-06-15', time: '07:30', place: 'Thika Road', description: 'Rear-ended' },
      approved_amount: 200_000,
      approved_amount_minor: 20_000_000,
      excess: 37_500,
      excess_minor: 3_750_000,
      estimated_loss: null,
      estimated_loss_minor: null,
      assessor: { name: 'Kilimo Assessors', phone: null, firm: null },
      assessment: null,
      repudiation: null,
      sla: { status_since: '2026-06-17T06:00:00.000Z', due_at: '2026-06-24T06:00:00.000Z', breached: false },
    });
    expect(r.insured).toBeNull();
    const medical = claimToRest({
      ...claim,
      registration: null,
      productLine: 'medical',
      insured: { databaseId: 41, kind: 'member', name: 'Amina Wanjiru' },
    });
    expect(medical).toMatchObject({
      registration: null,
      product_line: 'medical',
      insured: { id: 41, kind: 'member', name: 'Amina Wanjiru' },
    });
  });

  it('maps the history with who moved the claim', () => {
    expect(
      claimHistoryToRest({
        history: [
          {
            from: null,
            to: 'registered',
            source: 'api',
            reason: 'FNOL',
            actorName: 'Wanjiku',
            actorUserId: 4,
            at: 'x',
          },
        ],
      }),
    ).toEqual([
      { from: null, to: 'registered', source: 'api', reason: 'FNOL', by: { name: 'Wanjiku', user_id: 4 }, at: 'x' },
    ]);
  });

  it('accepts the legacy registration spellings and a flat or nested reporter', () => {
    expect(registerClaimFromRest({ regno: 'KDE 123A', policy_uuid: 'u' })).toMatchObject({
      registration: 'KDE 123A',
      policyId: 'u',
    });
    expect(registerClaimFromRest({ reg_no: 'KDE 123A' }).registration).toBe('KDE 123A');
    expect(registerClaimFromRest({ insured_id: 41 }).insuredId).toBe(41);
    expect(registerClaimFromRest({ reporter: { name: 'A', phone: '07' } })).toMatchObject({
      reporterName: 'A',
      reporterPhone: '07',
    });
    expect(registerClaimFromRest({ reporter_name: 'B' }).reporterName).toBe('B');
    expect(registerClaimFromRest({ third_parties: [{ name: 'J', idno: '1' }] }).thirdParties).toEqual([
      {
        name: 'J',
        phone: undefined,
        idNo: '1',
        registration: undefined,
        insurer: undefined,
        injured: undefined,
        damage: undefined,
      },
    ]);
  });
});

describe('the OpenAPI value lists', () => {
  it('match the claims module and the database enum', () => {
    expect(CLAIM_STATUSES).toEqual(Object.values(ClaimStatus));
    expect(CLAIM_CHANNELS).toEqual([...CLAIM_RULES.channels]);
    expect(REPUDIATION_REASONS).toEqual([...CLAIM_RULES.repudiationReasons]);
  });
});
