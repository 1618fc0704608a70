import type { AppServices } from '../../context.ts';
import {
  type CertificateRecord,
  type CertificateRegistry,
  type DoubleInsuranceConflict,
  type IssueCertificateRequest,
  type RegistryError,
  registryMessage,
} from '../../ports/certificate-registry.ts';

/**
 * The registry calls of one issue attempt (registry-issue.ts claims before and records after), made outside any
 * transaction, and what their answers amount to: the verdict the attempt records.
 */

export interface IssueClaim {
  id: number;
  tenantId: number;
  policyId: number;
  attempts: number;
  /** Y-m-d: the period certified (never before today: the registry refuses back-dated certificates). */
  start: string;
  end: string;
  /** A cancellation reached the row while an earlier call was unanswered: look for that call's certificate, issue nothing new. */
  withdrawn: boolean;
  request: IssueCertificateRequest;
}

export type IssueVerdict =
  | { kind: 'issued'; certificateNo: string; registryRef: string; issuedAt: string }
  | { kind: 'refused'; code: string; message: string }
  | { kind: 'withdrawn' }
  | { kind: 'unanswered'; err: unknown };

/** The calls, outside any transaction: double-insurance check, then issue unless the check settled it. A throw: no answer. */
export async function askRegistryToIssue(app: AppServices, claim: IssueClaim): Promise<IssueVerdict> {
  const registry = app.registry.registry;
  const req = claim.request;
  const di = await registry.doubleInsuranceCheck({
    registration: req.registrationNumber,
    chassis: req.chassisNumber,
    start: req.commencingDate,
    end: req.expiringDate,
  });
  if (!di.success) return refused(di.errors);
  const { lost, others } = await sortConflicts(app, registry, claim, di.conflicts);
  if (lost)
    return { kind: 'issued', certificateNo: lost.certificateNo, registryRef: di.referenceNo, issuedAt: lost.issuedAt };
  const other = others[0];
  if (other) {
    return {
      kind: 'refused',
      code: 'ER005',
      message: `Double insurance: ${other.message}: certificate ${other.certificateNo} with ${other.insurer}, cover ends ${other.coverEndDate}`,
    };
  }
  if (claim.withdrawn) return { kind: 'withdrawn' };
  const res = await registry.issue(req);
  if (!res.success || !res.certificateNo) return refused(res.errors);
  return {
    kind: 'issued',
    certificateNo: res.certificateNo,
    registryRef: res.referenceNo,
    issuedAt: app.registry.clock().toISOString(),
  };
}

const refused = (errors: RegistryError[]): IssueVerdict => ({ kind: 'refused', ...registryMessage(errors) });

/**
 * The check lists every active certificate on the vehicle; the policy's own never count against it. The registry
 * knows a policy by member company and policy number; the number we send carries the organisation
 * (src/ports/rail-reference.ts), as our policy numbers restart in each; a certificate a row records is that row's
 * policy's, whatever its number.
 */
async function sortConflicts(
  app: AppServices,
  registry: CertificateRegistry,
  claim: IssueClaim,
  conflicts: DoubleInsuranceConflict[],
) {
  const out: { lost?: CertificateRecord; others: DoubleInsuranceConflict[] } = { others: [] };
  if (!conflicts.length) return out;
  const recorded = await recordingPolicies(
    app,
    conflicts.map((c) => c.certificateNo),
  );
  for (const conflict of conflicts) {
    const rec = (await registry.get(conflict.certificateNo)).certificate;
    const kind = conflictKind(claim, rec, recorded.get(conflict.certificateNo));
    if (kind === 'lost') out.lost ??= rec;
    if (kind === 'other') out.others.push(conflict);
  }
  return out;
}

/**
 * `own`: this policy's certificate (recorded on it, or unrecorded under its member company and number); `lost`: an
 * own certificate no row records, for exactly this period: this row's earlier call whose answer never came.
 */
function conflictKind(
  claim: {
    policyId: number;
    request: Pick<IssueCertificateRequest, 'memberCompanyId' | 'policyNumber' | 'commencingDate' | 'expiringDate'>;
  },
  rec: CertificateRecord | undefined,
  recordedOnPolicy: number | undefined,
): 'own' | 'lost' | 'other' {
  const req = claim.request;
  if (!rec || rec.memberCompanyId !== req.memberCompanyId) return 'other';
  // A row records it: that policy's, whatever number it was issued under (numbers before they carried the organisation).
  if (recordedOnPolicy !== undefined) return recordedOnPolicy === claim.policyId ? 'own' : 'other';
  if (rec.policyNumber !== req.policyNumber) return 'other';
  return rec.commencingDate === req.commencingDate && rec.expiringDate === req.expiringDate ? 'lost' : 'own';
}

/** Certificate number → the policy whose row records it, across organisations (the registry is shared by all). */
async function recordingPolicies(app: AppServices, certificateNos: string[]): Promise<Map<string, number>> {
  const rows = await app.db.system((tx) =>
    tx.certificate.findMany({
      where: { certificateNo: { in: certificateNos } },
      select: { certificateNo: true, policyId: true },
    }),
  );
  return new Map(rows.map((r) => [r.certificateNo!, r.policyId]));
}
