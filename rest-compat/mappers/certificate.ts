import { snake } from '../route.ts';

/** A GraphQL Certificate (operations' CertificateFields) → the REST certificate record. */
export function certificateToRest(c: any) {
  return {
    uuid: c.uuid,
    certificate_no: c.certificateNo ?? null,
    // `certificateStatus` where an operation aliases it (beside the Problem's integer `status` in one union).
    status: c.certificateStatus ?? c.status,
    policy_no: c.policy?.policyNo ?? null,
    policy_uuid: c.policy?.uuid ?? null,
    regno: c.regNo,
    chassis_no: c.chassisNo ?? null,
    certificate_class: c.certificateClass,
    cover_code: c.coverCode,
    cover: c.coverName,
    stage: c.stage,
    stage_count: c.stageCount,
    series: c.series,
    start_date: c.startDate,
    end_date: c.endDate,
    registry_ref: c.registryRef ?? null,
    attempts: c.attempts,
    error: c.error ? { code: c.error.code, message: c.error.message } : null,
    issued_at: c.issuedAt ?? null,
    cancelled_at: c.cancelledAt ?? null,
    cancel_reason_id: c.cancelReasonId ?? null,
  };
}

/** The registry check → REST (snake_case). */
export function certificateCheckToRest(c: any) {
  const cert = c.certificate;
  return {
    valid: c.valid,
    message: c.message,
    certificate: cert ? Object.fromEntries(Object.entries(cert).map(([k, v]) => [snake(k), v])) : null,
    conflicts: (c.conflicts ?? []).map((x: any) => ({
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
