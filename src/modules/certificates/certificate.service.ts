import { randomUUID } from 'node:crypto';
import type { AppServices, Context } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { requireAbility } from '../../auth/principal.ts';
import { addDays, addMonths, fromDbDate, todayNairobi, toDbDate } from '../../lib/dates.ts';
import { normaliseRegNo } from '../../lib/identifiers.ts';
import { AppError, notFound, ValidationError, InvalidStateError } from '../../lib/problem.ts';
import { recordAudit } from '../audit/audit.service.ts';
import type { MotorKind } from '../motor/classify.ts';
import { policyService } from '../policies/policy.service.ts';
import { policyVisibility } from '../policies/policy.policy.ts';
import { LIVE_AT_REGISTRY, transitionCertificate } from './certificate-state.ts';
import { cancelAtRegistry } from './registry-cancel.ts';
import { type AttemptRow, attemptIssue } from './registry-issue.ts';
import { registryOf, registryRuntime } from './registry-runtime.ts';
import {
  CANCEL_REASONS,
  certificateClass,
  type CertificateRecord,
  coverCode,
  formatRegistryDate,
  registryMessage,
} from './registry.ts';

export const COVER_NAMES: Record<number, string> = {
  100: 'Comprehensive',
  200: 'Third party only',
  300: 'Third party, fire and theft',
};

// ---- problems (typed results in GraphQL; REST adds success: false and message) -------------------------------

export class DoubleInsuranceError extends AppError {
  constructor(
    detail: string,
    readonly certificateNo: string | null,
  ) {
    super('double_insurance', { detail, extra: { message: detail, ...(certificateNo ? { certificateNo } : {}) } });
  }
}
export class CertificateStateError extends InvalidStateError {
  constructor(detail: string) {
    super(detail, { message: detail });
  }
}
export class RegistryRefusedError extends AppError {
  constructor(
    detail: string,
    readonly registryCode: string,
  ) {
    super('registry_refused', { detail, extra: { message: detail, registryCode } });
  }
}

// ---- stages -------------------------------------------------------------------------------------------------

export interface Stage {
  stage: number;
  start: string;
  end: string;
}

/**
 * The cover period split by instalment: n instalment debit notes (n > 1) → stage k from start + (k−1) months to
 * start + k months − 1 day, the last to the end date; one stage otherwise.
 */
export function stagesOf(startYmd: string, endYmd: string, instalments: number): Stage[] {
  const n = Math.max(1, instalments);
  const out: Stage[] = [];
  for (let k = 1; k <= n; k++) {
    const start = addMonths(startYmd, k - 1);
    const end = k === n ? endYmd : addDays(addMonths(startYmd, k), -1);
    out.push({ stage: k, start, end: end < start ? start : end });
  }
  return out;
}

const maxYmd = (a: string, b: string) => (a > b ? a : b);

type PolicyFull = NonNullable<Awaited<ReturnType<typeof loadPolicy>>>;

function loadPolicy(tx: Tx, policyId: number) {
  return tx.policy.findUnique({
    where: { id: policyId },
    include: {
      client: true,
      insurer: true,
      vehicles: { orderBy: { id: 'asc' } },
      debitNotes: { where: { kind: 'instalment' }, orderBy: [{ instalmentNo: 'asc' }, { id: 'asc' }] },
      certificates: { orderBy: [{ series: 'asc' }, { stage: 'asc' }, { id: 'asc' }] },
      statusHistory: { where: { fromStatus: 'cancelled', toStatus: 'active' }, orderBy: { id: 'desc' }, take: 1 },
    },
  });
}

/**
 * A vehicle's current series: a new one opens when the policy was reinstated after its certificates were cancelled.
 * null while that new series must wait: a certificate of the series it replaces is still cancel_pending, so the
 * registry holds it Active and would see the re-issue as double insurance. Recording the cancellation queues the
 * issue again (registry-cancel.ts).
 */
function seriesOf(p: PolicyFull, vehicleId: number): number | null {
  const mine = p.certificates.filter((c) => c.vehicleId === vehicleId);
  if (!mine.length) return 1;
  const series = Math.max(...mine.map((c) => c.series));
  const current = mine.filter((c) => c.series === series);
  const ended = current.some((c) => c.status === 'cancelled' || c.status === 'void' || c.status === 'cancel_pending');
  // The series began before the latest reinstatement and was ended (by the cancellation it reversed): re-issue.
  const reinstated = p.statusHistory[0]?.at;
  if (!ended || !reinstated || !current.every((c) => c.createdAt < reinstated)) return series;
  return current.some((c) => c.status === 'cancel_pending') ? null : series + 1;
}

interface DuePlan {
  create: { vehicleId: number; stage: number; series: number; start: string; end: string }[];
  retry: number[];
  /** Vehicles whose re-issue waits for the registry to confirm the cancellation of their previous series. */
  waiting: number[];
}

/** In flight or to attempt: the next stage waits for it. */
const UNSETTLED = ['pending', 'issuing'];

/**
 * What is due now: for each live vehicle and stage k (in order), instalment k paid in full (paid + credited ≥
 * amount) and stage k−1 live at the registry for the same vehicle and series. A stage that ended before the
 * vehicle's first day on cover (added by endorsement) or before today is not certified; the first stage still
 * running is the vehicle's first. `retry`: failed ones to send again (manual issue only).
 */
function planDue(p: PolicyFull, today: string, manual: boolean): DuePlan {
  const plan: DuePlan = { create: [], retry: [], waiting: [] };
  const notes = p.debitNotes;
  const stages = stagesOf(fromDbDate(p.startDate), fromDbDate(p.endDate), notes.length);
  const paid = (k: number) => {
    const n = notes.find((d) => d.instalmentNo === k) ?? (notes.length === 0 && k === 1 ? null : undefined);
    if (n === null) return p.status === 'active';
    return !!n && n.paidMinor + n.creditedMinor >= n.amountMinor;
  };
  for (const v of p.vehicles) {
    if (v.status !== 'active') continue;
    const series = seriesOf(p, v.id);
    if (series === null) {
      plan.waiting.push(v.id);
      continue;
    }
    const from = maxYmd(v.addedOn ? fromDbDate(v.addedOn) : fromDbDate(p.startDate), series > 1 ? today : '0000-00-00');
    let prevLive = true;
    for (const s of stages) {
      if (s.end < from || s.end < today) continue; // not needed: over before this vehicle (or series) was on cover
      const row = p.certificates.find((c) => c.vehicleId === v.id && c.stage === s.stage && c.series === series);
      if (!prevLive || !paid(s.stage)) break;
      if (!row) {
        plan.create.push({ vehicleId: v.id, stage: s.stage, series, start: maxYmd(s.start, from), end: s.end });
        break; // the next stage waits for this one
      }
      if (row.status === 'failed' && manual) {
        plan.retry.push(row.id);
        break;
      }
      prevLive = (LIVE_AT_REGISTRY as readonly string[]).includes(row.status);
      if (UNSETTLED.includes(row.status)) break;
    }
  }
  return plan;
}

// ---- issuance -------------------------------------------------------------------------------------------------

export interface IssueOutcome {
  /** Certificates attempted in this run, by id, with how they ended. */
  attempted: AttemptRow[];
  notActive: boolean;
  /** Vehicles whose re-issue waits for a cancellation at the registry (not failed: queued again when it is confirmed). */
  waiting: number[];
  /** The registry did not answer (the job rethrows it for a pg-boss retry; the certificate stays `issuing`). */
  transient?: unknown;
}

async function tenantOfPolicy(app: AppServices, policyId: number): Promise<number | null> {
  const row = await app.db.system((tx) =>
    tx.policy.findUnique({ where: { id: policyId }, select: { tenantId: true } }),
  );
  return row?.tenantId ?? null;
}

/**
 * Issues whatever is due for the policy, stage after stage, until nothing more is due. Idempotent: rows are
 * unique per (policy, vehicle, stage, series) and an attempt claims its row before calling the registry.
 */
export async function issueDue(
  app: AppServices,
  policyId: number,
  opts: { manual?: boolean; tenantId?: number } = {},
): Promise<IssueOutcome> {
  const tenantId = opts.tenantId ?? (await tenantOfPolicy(app, policyId));
  const out: IssueOutcome = { attempted: [], notActive: false, waiting: [] };
  if (tenantId == null) return out;
  const seen = new Set<number>();
  for (let round = 0; round < 50; round++) {
    const due = await createDue(app, tenantId, policyId, !!opts.manual && round === 0);
    out.notActive = !due.active;
    out.waiting = due.waiting;
    const fresh = due.toAttempt.filter((id) => !seen.has(id));
    if (!fresh.length) break;
    for (const id of fresh) {
      seen.add(id);
      const r = await attemptIssue(app, tenantId, id);
      out.attempted.push(r.row);
      if (r.transient) {
        out.transient = r.transient;
        return out;
      }
    }
  }
  return out;
}

/**
 * Under the policy lock: creates the rows now due and lists those to attempt. A policy no longer active gets
 * nothing new, but a call of its left unanswered is still settled (its certificate is found, then cancelled).
 */
async function createDue(app: AppServices, tenantId: number, policyId: number, manual: boolean) {
  const today = todayNairobi(registryRuntime(app).clock());
  return app.db.tenant(tenantId, async (tx) => {
    await tx.$queryRaw`SELECT id FROM policies WHERE id = ${policyId} FOR UPDATE`;
    const p = await loadPolicy(tx, policyId);
    const active = p?.status === 'active';
    const plan = p && active ? planDue(p, today, manual) : { create: [], retry: [], waiting: [] };
    for (const c of plan.create) await createCertificate(tx, tenantId, p!, c);
    for (const id of plan.retry)
      await transitionCertificate(tx, id, 'failed', 'pending', { errorCode: null, errorMessage: null });
    const rows = await tx.certificate.findMany({
      where: { policyId, status: { in: active ? UNSETTLED : ['issuing'] } },
      orderBy: [{ stage: 'asc' }, { vehicleId: 'asc' }],
      select: { id: true },
    });
    return { active, waiting: plan.waiting, toAttempt: rows.map((r) => r.id) };
  });
}

async function createCertificate(tx: Tx, tenantId: number, p: PolicyFull, c: DuePlan['create'][number]): Promise<void> {
  const v = p.vehicles.find((x) => x.id === c.vehicleId)!;
  await tx.certificate.createMany({
    data: [
      {
        tenantId,
        uuid: randomUUID(),
        policyId: p.id,
        vehicleId: c.vehicleId,
        stage: c.stage,
        stageCount: Math.max(1, p.debitNotes.length),
        series: c.series,
        certificateClass: certificateClass(p.vehicleClass, kindOf(v)),
        coverCode: coverCode(p.coverType),
        startDate: toDbDate(c.start),
        endDate: toDbDate(c.end),
      },
    ],
    skipDuplicates: true,
  });
}

/** The registry does not know our tuktuks by class: a three-wheeler is recognised by its coverage or body type. */
function kindOf(v: { coverage: string | null; bodyType: string | null }): MotorKind {
  return /tuk/i.test(`${v.coverage ?? ''} ${v.bodyType ?? ''}`) ? 'tuktuk' : 'motor';
}

// ---- sweep ----------------------------------------------------------------------------------------------------

/**
 * The minute sweep (job payments.reconcile), queueing for issue: active policies with a due-but-missing
 * certificate (a paid instalment with no certificate for a live vehicle and that stage, where one ended before the
 * latest reinstatement does not count) or a pending one untouched for a minute; any policy with an unanswered or
 * abandoned `issuing` call. cancel_pending certificates untouched for 30 seconds are queued for cancellation.
 */
export async function sweepCertificates(app: AppServices): Promise<{ issue: number; cancel: number }> {
  const send = registryRuntime(app).send;
  if (!send) return { issue: 0, cancel: 0 };
  const { issue, cancel } = await app.db.system(async (tx) => {
    const issue = await tx.$queryRaw<{ id: number }[]>`
      SELECT policy_id AS id FROM certificates WHERE status = 'issuing' AND updated_at < now() - interval '1 minute'
      UNION
      SELECT p.id FROM policies p
      WHERE p.status = 'active' AND (
        EXISTS (SELECT 1 FROM certificates c WHERE c.policy_id = p.id AND c.status = 'pending' AND c.updated_at < now() - interval '1 minute')
        OR EXISTS (
          SELECT 1 FROM policy_vehicles v
          JOIN debit_notes d ON d.policy_id = p.id AND d.kind = 'instalment' AND d.paid_minor + d.credited_minor >= d.amount_minor
          WHERE v.policy_id = p.id AND v.status = 'active'
            AND NOT EXISTS (
              SELECT 1 FROM certificates c WHERE c.vehicle_id = v.id AND c.stage = d.instalment_no
                AND (c.status NOT IN ('cancelled', 'void') OR c.created_at >= COALESCE(
                  (SELECT max(h.at) FROM policy_status_changes h WHERE h.policy_id = p.id AND h.from_status = 'cancelled' AND h.to_status = 'active'),
                  '-infinity')))
            AND (v.added_on IS NULL OR v.added_on <= p.start_date OR d.due_on >= v.added_on - interval '1 month')
            -- a stage already over is never certified (planDue skips it): don't queue for it every minute
            AND (CASE WHEN d.instalment_no >= d.instalment_count THEN p.end_date
                      ELSE (p.start_date + d.instalment_no * interval '1 month' - interval '1 day')::date END)
                >= (now() AT TIME ZONE 'Africa/Nairobi')::date))
      ORDER BY id LIMIT 200`;
    const cancel = await tx.$queryRaw<{ id: number }[]>`
      SELECT id FROM certificates WHERE status = 'cancel_pending' AND updated_at < now() - interval '30 seconds' ORDER BY id LIMIT 200`;
    return { issue, cancel };
  });
  for (const p of issue) await send('issue', { policyId: p.id });
  for (const c of cancel) await send('cancel', { certificateId: c.id });
  return { issue: issue.length, cancel: cancel.length };
}

// ---- API-facing service (ctx: visibility, abilities, audit) ---------------------------------------------------

const CERT_NO = /^C[ABCD]\d{7}$/;

/** A certificate the caller may see (through its policy's visibility), or 404. */
async function visibleCertificate(ctx: Context, certificateNo: string) {
  if (typeof certificateNo !== 'string' || !CERT_NO.test(certificateNo.trim().toUpperCase()))
    throw notFound('Certificate');
  const row = await ctx.tx((tx) =>
    tx.certificate.findFirst({
      where: { certificateNo: certificateNo.trim().toUpperCase(), policy: policyVisibility(ctx.principal) },
    }),
  );
  if (!row) throw notFound('Certificate');
  return row;
}

export interface CertificateCheck {
  valid: boolean;
  message: string;
  certificate: CertificateRecord | null;
  conflicts: { certificateNo: string; insurer: string; coverEndDate: string; message: string }[];
}

const registryYmd = (d: string) => `${d.slice(6, 10)}-${d.slice(3, 5)}-${d.slice(0, 2)}`;

export const certificateService = {
  async listForPolicy(ctx: Context, policyUuid: string) {
    const p = await policyService.get(ctx, policyUuid, { select: { id: true } });
    return ctx.tx((tx) =>
      tx.certificate.findMany({
        where: { policyId: p.id },
        orderBy: [{ series: 'asc' }, { stage: 'asc' }, { vehicleId: 'asc' }, { id: 'asc' }],
      }),
    );
  },

  get: visibleCertificate,

  /**
   * Manual issue: what is due now, and failed ones again, synchronously. 409 invalid_state unless active;
   * 409 double_insurance when the registry saw an overlapping certificate; 422 registry_refused for its other
   * refusals. Returns the policy's certificates and whether any was issued by this call.
   */
  async issue(ctx: Context, policyUuid: string) {
    const p = await policyService.get(ctx, policyUuid, {
      select: { id: true, status: true, tenantId: true, policyNo: true },
    });
    requireAbility(ctx.principal!, 'policies.create');
    if (p.status !== 'active')
      throw new CertificateStateError(
        `Policy ${p.policyNo} is ${p.status}: certificates are issued for active policies only`,
      );
    const out = await issueDue(ctx.app, p.id, { manual: true, tenantId: p.tenantId });
    if (out.notActive) throw new CertificateStateError(`Policy ${p.policyNo} is not active`);
    const issued = out.attempted.filter((a) => a.status === 'issued').length;
    // Recorded beside the registry's answers, which stand even when this request ends in a problem document.
    await ctx.app.db.tenant(p.tenantId, (tx) =>
      recordAudit(ctx, tx, p.tenantId, {
        action: 'certificates.issue',
        entityType: 'policy',
        entityId: p.id,
        changes: { attempted: out.attempted.length, issued },
      }),
    );
    const di = out.attempted.find((a) => a.status === 'failed' && a.errorCode === 'ER005');
    if (di) {
      const no = /certificate (C[ABCD]\d{7})/.exec(di.errorMessage ?? '')?.[1] ?? null;
      throw new DoubleInsuranceError(di.errorMessage ?? 'Double insurance', no);
    }
    const refused = out.attempted.find((a) => a.status === 'failed');
    if (refused)
      throw new RegistryRefusedError(
        refused.errorMessage ?? 'The registry refused the certificate',
        refused.errorCode ?? 'ER002',
      );
    if (out.transient)
      throw new AppError('service_unavailable', {
        detail: 'The certificate registry did not answer; the issue is retried automatically',
        extra: { message: 'The certificate registry did not answer; the issue is retried automatically' },
      });
    const certificates = await ctx.tx((tx) =>
      tx.certificate.findMany({
        where: { policyId: p.id },
        orderBy: [{ series: 'asc' }, { stage: 'asc' }, { vehicleId: 'asc' }, { id: 'asc' }],
      }),
    );
    return { certificates, issued };
  },

  /** Cancels one certificate at the registry now; past 24 hours the registry refuses (422 registry_refused). */
  async cancel(ctx: Context, certificateNo: string, reasonId: number) {
    requireAbility(ctx.principal!, 'policies.create');
    if (!Number.isInteger(reasonId) || !(reasonId in CANCEL_REASONS)) {
      throw new ValidationError([{ field: 'reasonId', message: `one of ${Object.keys(CANCEL_REASONS).join(', ')}` }]);
    }
    const c = await visibleCertificate(ctx, certificateNo);
    if (!['issued', 'cancel_refused', 'cancel_pending'].includes(c.status))
      throw new CertificateStateError(`Certificate ${c.certificateNo} is ${c.status}`);
    // Its own transaction, not the request's: the registry's answer (cancelled or cancel_refused) is kept even
    // when the request ends in a problem document (which rolls the request's transaction back).
    const status = await cancelAtRegistry(ctx.app, c.id, c.tenantId, {
      reasonId,
      audit: (tx) =>
        recordAudit(ctx, tx, c.tenantId, {
          action: 'certificates.cancel',
          entityType: 'certificate',
          entityId: c.id,
          changes: { certificate_no: c.certificateNo, reason_id: reasonId },
        }),
    }).catch((err) => {
      if (err instanceof AppError) throw err;
      ctx.log.warn({ err }, 'registry cancel failed');
      const detail =
        'The certificate registry did not answer; the cancellation stays cancel_pending and is retried automatically';
      throw new AppError('service_unavailable', { detail, extra: { message: detail } });
    });
    if (status !== 'cancelled' && status !== 'cancel_refused')
      throw new CertificateStateError(`Certificate ${c.certificateNo} is ${status}`);
    const row = await ctx.tx((tx) => tx.certificate.findUniqueOrThrow({ where: { id: c.id } }));
    if (status === 'cancel_refused')
      throw new RegistryRefusedError(row.errorMessage ?? 'Cancellation refused', row.errorCode ?? 'ER007');
    return row;
  },

  /** Validates at the registry by certificate number, or looks a registration up for an active certificate today. */
  async check(ctx: Context, args: { certificateNo?: string | null; regNo?: string | null }): Promise<CertificateCheck> {
    const no = args.certificateNo?.trim().toUpperCase();
    const reg = args.regNo ? normaliseRegNo(args.regNo) : null;
    if (!no && !args.regNo)
      throw new ValidationError([{ field: 'certificateNo', message: 'certificate_no or regno is required' }]);
    if (args.regNo && !reg) throw new ValidationError([{ field: 'regNo', message: 'not a registration number' }]);
    const registry = await registryOf(ctx.app);
    const today = formatRegistryDate(toDbDate(todayNairobi(registryRuntime(ctx.app).clock())));
    if (no) {
      const got = await registry.get(no);
      if (!got.success || !got.certificate) {
        return { valid: false, message: registryMessage(got.errors).message, certificate: null, conflicts: [] };
      }
      const rec = got.certificate;
      if (reg && rec.registrationNumber !== reg)
        return { valid: false, message: `${no} is not for ${reg}`, certificate: null, conflicts: [] };
      const t = registryYmd(today);
      const inForce =
        rec.status === 'Active' && registryYmd(rec.commencingDate) <= t && t <= registryYmd(rec.expiringDate);
      return {
        valid: inForce,
        message: inForce
          ? 'Certificate is active'
          : rec.status === 'Active'
            ? 'Certificate is not in force today'
            : 'Certificate is cancelled',
        certificate: rec,
        conflicts: [],
      };
    }
    const di = await registry.doubleInsuranceCheck({ registration: reg!, chassis: '', start: today, end: today });
    if (!di.success)
      return { valid: false, message: registryMessage(di.errors).message, certificate: null, conflicts: [] };
    const first = di.conflicts[0];
    const rec = first ? ((await registry.get(first.certificateNo)).certificate ?? null) : null;
    return {
      valid: !!first,
      message: first
        ? `${reg} is covered: certificate ${first.certificateNo} with ${first.insurer}, cover ends ${first.coverEndDate}`
        : `No active certificate for ${reg} today`,
      certificate: rec,
      conflicts: di.conflicts.map((c) => ({
        certificateNo: c.certificateNo,
        insurer: c.insurer,
        coverEndDate: c.coverEndDate,
        message: c.message,
      })),
    };
  },
};
