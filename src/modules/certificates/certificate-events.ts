/** The fields every certificate.* event carries (src/modules/events/catalogue.ts). */
export function certificateEventBase(
  c: { uuid: string; stage: number; stageCount: number },
  p: { policyNo: string; uuid: string; client: { clientNo: string } },
  regNo: string,
) {
  return {
    certificate_uuid: c.uuid,
    policy_no: p.policyNo,
    policy_uuid: p.uuid,
    client_no: p.client.clientNo,
    registration: regNo,
    stage: c.stage,
    stage_count: c.stageCount,
  };
}
