import { describe, expect, it } from 'vitest';
import {
  certificateCheckToRest,
  certificateOk,
  certificateProblemExtra,
  certificateToRest,
} from '../../rest-compat/mappers/certificate.ts';
import { issuedCertificate } from './fixtures.ts';

describe('certificate mapper', () => {
  it('an issued certificate as the legacy record (regno, cover, status from the alias)', () => {
    expect(certificateToRest(issuedCertificate)).toEqual({
      uuid: 'cert-1',
      certificate_no: 'CC0000123',
      status: 'issued',
      policy_no: 'MTR-2025-000001',
      policy_uuid: 'pol-1',
      regno: 'KDA123A',
      chassis_no: 'JTD1',
      certificate_class: 'C',
      cover_code: 100,
      cover: 'Comprehensive',
      stage: 1,
      stage_count: 2,
      series: 1,
      start_date: '2025-01-01',
      end_date: '2025-06-30',
      registry_ref: 'REG-9',
      attempts: 1,
      error: null,
      issued_at: '2025-01-01T06:00:00.000Z',
      cancelled_at: null,
      cancel_reason_id: null,
    });
  });

  it('a failed one keeps its nulls and shows the registry error', () => {
    const out = certificateToRest({
      ...issuedCertificate,
      certificateNo: null,
      certificateStatus: 'failed',
      chassisNo: null,
      registryRef: null,
      issuedAt: null,
      error: { code: 'ER005', message: 'Double insurance' },
    });
    expect(out).toMatchObject({
      certificate_no: null,
      status: 'failed',
      chassis_no: null,
      registry_ref: null,
      issued_at: null,
      error: { code: 'ER005', message: 'Double insurance' },
    });
  });

  it("the registry check: the registry's record in snake_case, and conflicts", () => {
    expect(
      certificateCheckToRest({
        valid: true,
        message: 'Active',
        certificate: {
          certificateNo: 'CC0000123',
          certificateClass: 'C',
          coverCode: 100,
          insurer: 'Jubilee',
          memberCompanyId: 12,
          registration: 'KDA 123A',
          startDate: '2025-01-01',
          endDate: '2025-12-31',
          status: 'Active',
        },
        conflicts: [{ certificateNo: 'CC0000999', insurer: 'APA', coverEnds: '2025-05-01', message: 'Overlaps' }],
      }),
    ).toEqual({
      valid: true,
      message: 'Active',
      certificate: {
        certificate_no: 'CC0000123',
        certificate_class: 'C',
        cover_code: 100,
        insurer: 'Jubilee',
        member_company_id: 12,
        registration: 'KDA 123A',
        start_date: '2025-01-01',
        end_date: '2025-12-31',
        status: 'Active',
      },
      conflicts: [{ certificate_no: 'CC0000999', insurer: 'APA', cover_ends: '2025-05-01', message: 'Overlaps' }],
    });
    expect(certificateCheckToRest({ valid: false, message: 'Not found', certificate: null, conflicts: [] })).toEqual({
      valid: false,
      message: 'Not found',
      certificate: null,
      conflicts: [],
    });
  });

  it('every answer is {success: true, data}; every problem also carries success: false and message', () => {
    expect(certificateOk([1], 201)).toEqual({ status: 201, body: { success: true, data: [1] } });
    expect(certificateOk('x')).toEqual({ status: 200, body: { success: true, data: 'x' } });
    expect(certificateProblemExtra({ certificate_no: 'CC1' }, { detail: 'Already insured' })).toEqual({
      success: false,
      message: 'Already insured',
      certificate_no: 'CC1',
    });
  });
});
