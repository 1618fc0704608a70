import type { AppServices } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { fromDbDate, laterYmd, nairobiIso, todayNairobi, toDbDate } from '../../lib/dates.ts';
import { emitEvent } from '../events/event.service.ts';
import { certificateEventBase } from './certificate-events.ts';
import { transitionCertificate } from './certificate-state.ts';
import { type CoverCode, formatRegistryDate, type IssueCertificateRequest } from '../../ports/certificate-registry.ts';
import { orgRailReference } from '../../ports/rail-reference.ts';
import { askRegistryToIssue, type IssueClaim, type IssueVerdict } from './registry-issue-calls.ts';

/**
 * One issue at the registry for one certificate, on the rail's discipline: the attempt is claimed and committed
 * (`issuing`) before the registry is called, the calls run outside any transaction (no connection held while the
 * registry thinks), and the answer is recorded after. Every attempt starts with the double-insurance check, which also
 * finds an earlier attempt whose answer was lost, so a retry adopts that certificate instead of issuing a second.
 */

/** Seats sent as `licensedToCarry` for a class A (PSV) vehicle bound without a PLL seat count: a 14-seat matatu. */
export const DEFAULT_PSV_SEATS = 14;

/**
 * How long an `issuing` claim keeps other workers off the row. Far longer than any registry call (the simulator's own
 * transaction limit is 20 s): past it, the claimant is taken to have died mid-call.
 */
export const ISSUE_LEASE_MS = 120_000;

/** Recorded on an `issuing` row whose call got no answer: the next attempt may claim it at once. */
const UNANSWERED = 'registry_unavailable';

export interface AttemptRow {
  id: number;
  status: string;
  errorCode: string | null;
  errorMessage: string | null;
}

/**
 * One attempt for one certificate. `transient`: the registry did not answer (the row stays `issuing`, claimable by
 * the next attempt, which asks the registry before issuing again).
 */
export async function attemptIssue(
  app: AppServices,
  tenantId: number,
  certificateId: number,
): Promise<{ row: AttemptRow; transient?: unknown }> {
  const claimed = await claimIssue(app, tenantId, certificateId);
  if ('row' in claimed) return claimed;
  const verdict = await askRegistryToIssue(app, claimed.claim).catch((err: unknown): IssueVerdict => ({
    kind: 'unanswered',
    err,
  }));
  const { row, cancelNow } = await recordIssue(app, claimed.claim, verdict);
  if (cancelNow) await queueCancel(app, certificateId);
  return verdict.kind === 'unanswered' ? { row, transient: verdict.err } : { row };
}

const loadCertificate = (tx: Tx, id: number) =>
  tx.certificate.findUniqueOrThrow({
    where: { id },
    include: {
      vehicle: true,
      policy: { include: { client: true, insurer: true, tenant: { select: { code: true } } } },
    },
  });
type LoadedCertificate = Awaited<ReturnType<typeof loadCertificate>>;

const rowOf = (c: {
  id: number;
  status: string;
  errorCode: string | null;
  errorMessage: string | null;
}): AttemptRow => ({
  id: c.id,
  status: c.status,
  errorCode: c.errorCode,
  errorMessage: c.errorMessage,
});

/** A pending row; an `issuing` one whose call got no answer, or whose claimant outlived its lease. */
function claimable(c: { status: string; errorCode: string | null; updatedAt: Date }): boolean {
  if (c.status === 'pending') return true;
  return c.status === 'issuing' && (c.errorCode === UNANSWERED || c.updatedAt.getTime() < Date.now() - ISSUE_LEASE_MS);
}

/** The intent, committed: the row becomes `issuing` (attempts + 1) before anything is sent. */
async function claimIssue(
  app: AppServices,
  tenantId: number,
  certificateId: number,
): Promise<{ claim: IssueClaim } | { row: AttemptRow }> {
  return app.db.tenant(tenantId, async (tx) => {
    await tx.$queryRaw`SELECT id FROM certificates WHERE id = ${certificateId} FOR UPDATE`;
    const c = await loadCertificate(tx, certificateId);
    if (!claimable(c)) return { row: rowOf(c) };
    const attempts = c.attempts + 1;
    const start = laterYmd(fromDbDate(c.startDate), todayNairobi(app.registry.clock()));
    const end = fromDbDate(c.endDate);
    if (c.status === 'pending' && start > end) {
      return {
        row: await failIssue(app, tx, c, attempts, 'stage_over', `The stage ended on ${end}: nothing left to certify`),
      };
    }
    if (c.status === 'pending')
      await transitionCertificate(tx, c.id, 'pending', 'issuing', { attempts, errorCode: null, errorMessage: null });
    // Taken over, it stays `issuing`: the earlier call may have certified the vehicle, and this attempt asks first.
    else await tx.certificate.update({ where: { id: c.id }, data: { attempts, errorCode: null, errorMessage: null } });
    const claim = {
      id: c.id,
      tenantId,
      policyId: c.policyId,
      attempts,
      start,
      end,
      withdrawn: c.cancelReasonId != null,
      request: issueRequest(c, start, end),
    };
    return { claim };
  });
}

function issueRequest(c: LoadedCertificate, start: string, end: string): IssueCertificateRequest {
  const { policy: p, vehicle: v } = c;
  return {
    memberCompanyId: p.insurer.registryMemberId,
    certificateClass: c.certificateClass as IssueCertificateRequest['certificateClass'],
    typeOfCover: c.coverCode as CoverCode,
    policyHolder: p.client.name,
    // The registry knows a policy by member company and policy number, across every intermediary selling for that
    // insurer; our policy numbers restart in each organisation, so the number it keys on carries the organisation.
    policyNumber: orgRailReference(p.tenant.code, p.policyNo),
    commencingDate: formatRegistryDate(toDbDate(start)),
    expiringDate: formatRegistryDate(toDbDate(end)),
    registrationNumber: v.regNo,
    chassisNumber: v.chassisNo ?? '',
    engineNumber: v.engineNo ?? '',
    phoneNumber: p.client.phone,
    email: p.client.email ?? '',
    bodyType: v.bodyType ?? '',
    ...(c.coverCode === 100 || c.coverCode === 300
      ? { sumInsured: v.valueMinor != null ? Number(v.valueMinor / 100n) : 0 }
      : {}),
    ...(c.certificateClass === 'A'
      ? { licensedToCarry: v.pll && v.pll > 0 ? Math.min(v.pll, 200) : DEFAULT_PSV_SEATS }
      : {}),
    ...(c.certificateClass === 'B' ? { tonnage: v.tonnesMilli != null ? v.tonnesMilli / 1000 : 0 } : {}),
  };
}

/**
 * The answer, recorded against the claim, only while the row is still `issuing` (a takeover may have recorded first).
 * A row withdrawn during the call (its policy or vehicle cancelled) is voided, or, when the registry did certify it,
 * recorded and marked for cancellation at once (`cancelNow`).
 */
async function recordIssue(
  app: AppServices,
  claim: IssueClaim,
  verdict: IssueVerdict,
): Promise<{ row: AttemptRow; cancelNow: boolean }> {
  return app.db.tenant(claim.tenantId, async (tx) => {
    await tx.$queryRaw`SELECT id FROM certificates WHERE id = ${claim.id} FOR UPDATE`;
    const c = await loadCertificate(tx, claim.id);
    if (c.status !== 'issuing') return { row: rowOf(c), cancelNow: false };
    const withdrawn = c.cancelReasonId != null;
    if (verdict.kind === 'issued') return recordIssued(app, tx, c, claim, verdict, withdrawn);
    if (verdict.kind === 'unanswered') {
      const message = (verdict.err instanceof Error ? verdict.err.message : String(verdict.err)).slice(0, 500);
      await tx.certificate.update({ where: { id: c.id }, data: { errorCode: UNANSWERED, errorMessage: message } });
      return { row: rowOf({ ...c, errorCode: UNANSWERED, errorMessage: message }), cancelNow: false };
    }
    if (verdict.kind === 'withdrawn' || withdrawn) {
      await transitionCertificate(tx, c.id, 'issuing', 'void');
      return { row: rowOf({ ...c, status: 'void' }), cancelNow: false };
    }
    return { row: await failIssue(app, tx, c, claim.attempts, verdict.code, verdict.message), cancelNow: false };
  });
}

async function recordIssued(
  app: AppServices,
  tx: Tx,
  c: LoadedCertificate,
  claim: IssueClaim,
  v: Extract<IssueVerdict, { kind: 'issued' }>,
  withdrawn: boolean,
): Promise<{ row: AttemptRow; cancelNow: boolean }> {
  const issuedAt = new Date(v.issuedAt);
  await transitionCertificate(tx, c.id, 'issuing', 'issued', {
    certificateNo: v.certificateNo,
    registryRef: v.registryRef,
    issuedAt,
    startDate: toDbDate(claim.start),
    errorCode: null,
    errorMessage: null,
  });
  await emitEvent(app, tx, claim.tenantId, 'certificate.issued', {
    ...certificateEventBase(c, c.policy, c.vehicle.regNo),
    certificate_no: v.certificateNo,
    certificate_class: c.certificateClass,
    cover_code: c.coverCode,
    start_date: claim.start,
    end_date: claim.end,
    registry_ref: v.registryRef,
    issued_at: nairobiIso(issuedAt),
  });
  if (!withdrawn)
    return { row: rowOf({ ...c, status: 'issued', errorCode: null, errorMessage: null }), cancelNow: false };
  await transitionCertificate(tx, c.id, 'issued', 'cancel_pending');
  return { row: rowOf({ ...c, status: 'cancel_pending', errorCode: null, errorMessage: null }), cancelNow: true };
}

async function failIssue(
  app: AppServices,
  tx: Tx,
  c: LoadedCertificate,
  attempts: number,
  code: string,
  message: string,
): Promise<AttemptRow> {
  await transitionCertificate(tx, c.id, ['pending', 'issuing'], 'failed', {
    attempts,
    errorCode: code,
    errorMessage: message,
  });
  await emitEvent(app, tx, c.tenantId, 'certificate.failed', {
    ...certificateEventBase(c, c.policy, c.vehicle.regNo),
    error_code: code,
    message,
    attempts,
    final: true,
  });
  return rowOf({ id: c.id, status: 'failed', errorCode: code, errorMessage: message });
}

/** After commit; a lost send is caught by the minute sweep (cancel_pending idle for 30 seconds). */
async function queueCancel(app: AppServices, certificateId: number): Promise<void> {
  await app.registry
    .send?.('cancel', { certificateId })
    .catch((err) => app.log.error({ err, certificate_id: certificateId }, 'certificate cancel not queued'));
}
