import { now as clockNow } from '../../../lib/clock.ts';
import { motorOnly } from '../../motor/motor-policy.ts';
import { randomUUID } from 'node:crypto';
import type { AppServices, Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { requireAbility } from '../../../auth/principal.ts';
import { todayNairobi, toDbDate } from '../../../lib/dates.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import type { MotorKind } from '../../motor/classify.ts';
import { visiblePolicy } from '../../access/policy.visibility.ts';
import { transitionCertificate } from '../certificate-state.ts';
import { type AttemptRow, attemptIssue } from '../registry-issue.ts';
import { certificateClass, coverCode } from '../certificate-codes.ts';
import { type DuePlan, loadPolicy, type PolicyFull, planDue, UNSETTLED } from './due.ts';
import { CertificateStateError, DoubleInsuranceError, RegistryRefusedError, registryUnavailable } from './problems.ts';
import { policyCertificates } from './read.ts';

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
  const today = todayNairobi(app.registry.clock());
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
  const motor = motorOnly(p, 'A registry certificate');
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
        certificateClass: certificateClass(motor.vehicleClass, kindOf(v)),
        coverCode: coverCode(motor.coverType),
        startDate: toDbDate(c.start),
        endDate: toDbDate(c.end),
        // On the business clock, as the policy's status history is: due.ts orders the two (a sandbox's own clock).
        createdAt: clockNow(),
      },
    ],
    skipDuplicates: true,
  });
}

/** The registry does not know our tuktuks by class: a three-wheeler is recognised by its coverage or body type. */
function kindOf(v: { coverage: string | null; bodyType: string | null }): MotorKind {
  return /tuk/i.test(`${v.coverage ?? ''} ${v.bodyType ?? ''}`) ? 'tuktuk' : 'motor';
}

/**
 * Manual issue: what is due now, and failed ones again, synchronously. 409 invalid_state unless active;
 * 409 double_insurance when the registry saw an overlapping certificate; 422 registry_refused for its other
 * refusals. Returns the policy's certificates and whether any was issued by this call.
 */
export async function issueForPolicy(ctx: Context, policyUuid: string) {
  const p = await activePolicy(ctx, policyUuid);
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
  throwIfNotIssued(out);
  const certificates = await ctx.tx((tx) => policyCertificates(tx, p.id));
  return { certificates, issued };
}

async function activePolicy(ctx: Context, policyUuid: string) {
  const p = await visiblePolicy(ctx, policyUuid, {
    select: {
      id: true,
      status: true,
      tenantId: true,
      policyNo: true,
      productLine: true,
      motorProductId: true,
      vehicleClass: true,
      coverType: true,
    },
  });
  requireAbility(ctx.principal!, 'policies.create');
  motorOnly(p, 'A registry certificate');
  if (p.status !== 'active')
    throw new CertificateStateError(
      `Policy ${p.policyNo} is ${p.status}: certificates are issued for active policies only`,
    );
  return p;
}

/** Double insurance outranks the registry's other refusals, and any refusal outranks a call left unanswered. */
function throwIfNotIssued(out: IssueOutcome): void {
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
    throw registryUnavailable('The certificate registry did not answer; the issue is retried automatically');
}
