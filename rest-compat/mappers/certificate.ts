import type { CertificateFieldsFragment, CheckCertificateQuery } from '../generated/operations.ts';

/** A GraphQL Certificate (operations' CertificateFields) → the REST certificate record. */
export function certificateToRest(c: CertificateFieldsFragment) {
  return {
    uuid: c.uuid,
    certificate_no: c.certificateNo,
    // Aliased in the operations: a Problem's `status` (the HTTP status) shares the selection.
    status: c.certificateStatus,
    policy_no: c.policy.policyNo,
    policy_uuid: c.policy.uuid,
    regno: c.regNo,
    chassis_no: c.chassisNo,
    certificate_class: c.certificateClass,
    cover_code: c.coverCode,
    cover: c.coverName,
    stage: c.stage,
    stage_count: c.stageCount,
    series: c.series,
    start_date: c.startDate,
    end_date: c.endDate,
    registry_ref: c.registryRef,
    attempts: c.attempts,
    error: c.error ? { code: c.error.code, message: c.error.message } : null,
    issued_at: c.issuedAt,
    cancelled_at: c.cancelledAt,
    cancel_reason_id: c.cancelReasonId,
  };
}

/** The registry check → REST (snake_case). */
export function certificateCheckToRest(c: CheckCertificateQuery['checkCertificate']) {
  const cert = c.certificate;
  return {
    valid: c.valid,
    message: c.message,
    certificate: cert
      ? {
          certificate_no: cert.certificateNo,
          certificate_class: cert.certificateClass,
          cover_code: cert.coverCode,
          insurer: cert.insurer,
          member_company_id: cert.memberCompanyId,
          registration: cert.registration,
          start_date: cert.startDate,
          end_date: cert.endDate,
          status: cert.status,
        }
      : null,
    conflicts: c.conflicts.map((x) => ({
      certificate_no: x.certificateNo,
      insurer: x.insurer,
      cover_ends: x.coverEnds,
      message: x.message,
    })),
  };
}

/** The spec's rule for certificate endpoints: every failure also carries `success: false` and `message`. */
export function certificateProblemExtra(
  extra: Record<string, unknown>,
  problem: { detail: string },
): Record<string, unknown> {
  return { success: false, message: problem.detail, ...extra };
}

/** Every certificate answer: `{success: true, data}`. */
export const certificateOk = <T>(data: T, status = 200) => ({ status, body: { success: true as const, data } });
