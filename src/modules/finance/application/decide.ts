import type { AppServices } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { now as clockNow } from '../../../lib/clock.ts';
import { nairobiIso, toDbDate, todayNairobi } from '../../../lib/dates.ts';
import { amountOf } from '../../../lib/money.ts';
import type { LenderDecision, LenderDecisionRequest } from '../../../ports/ipf-lender.ts';
import { orgRailReference } from '../../../ports/rail-reference.ts';
import { emitEvent } from '../../events/event.service.ts';
import { IPF_RULES, transitionIpf } from '../ipf-state.ts';
import { type ApplicationRow, applicationEventRef, lockApplicationRow } from './common.ts';
import { lineOutstanding } from '../loan/balance.ts';

type Outcome = 'approved' | 'declined' | 'skipped';

/**
 * The lender's decision on one submitted application (queue ipf.decide), by the rail rule (docs/architecture.md "The rail rule"):
 * (1) the call is recorded (ipf_lender_calls, kind `decision`) in a short transaction, or the one recorded by an
 * earlier attempt is taken up with its very request; (2) app.lender.rail.decide runs outside any transaction; (3) one
 * transaction applies the answer to an application still `submitted` (approved | declined with reasons, the call
 * confirmed, ipf.decided). A retry, a twin job or the sweep finds the call and asks again with our reference, which
 * the lender treats as the same request; only a `submitted` application takes the answer, so it is applied once.
 */
export async function decideApplication(app: AppServices, applicationId: number): Promise<Outcome> {
  const port = app.lender;
  if (!port) throw new Error('decideApplication: no lender rail on this process');
  const head = await app.db.system((tx) =>
    tx.ipfApplication.findUnique({ where: { id: applicationId }, select: { tenantId: true, status: true } }),
  );
  if (!head || head.status !== 'submitted') return 'skipped';
  const call = await app.db.tenant(head.tenantId, (tx) => recordCall(tx, applicationId));
  if (!call) return 'skipped';
  const answer = await port.rail.decide(call.request);
  return app.db.tenant(head.tenantId, (tx) => applyDecision(app, tx, applicationId, call.id, answer));
}

/** (1) The call as recorded before it is made: the earlier attempt's if there is one (same request), else a new one. */
async function recordCall(tx: Tx, applicationId: number) {
  await lockApplicationRow(tx, applicationId);
  const a = await tx.ipfApplication.findUniqueOrThrow({ where: { id: applicationId } });
  if (a.status !== 'submitted') return null;
  const prior = await tx.ipfLenderCall.findFirst({
    where: { applicationId, kind: 'decision', status: 'recorded' },
    orderBy: { id: 'desc' },
  });
  if (prior) {
    await tx.ipfLenderCall.update({ where: { id: prior.id }, data: { attempts: { increment: 1 } } });
    return { id: prior.id, request: prior.request as unknown as LenderDecisionRequest };
  }
  const request = await decisionRequest(tx, a);
  const row = await tx.ipfLenderCall.create({
    data: { tenantId: a.tenantId, kind: 'decision', applicationId, request: request as never, attempts: 1 },
  });
  return { id: row.id, request };
}

/** What the lender is asked: the applicant, the figures as priced, its own terms as the panel records them now. */
async function decisionRequest(tx: Tx, a: ApplicationRow): Promise<LenderDecisionRequest> {
  const lender = await tx.ipfLender.findUniqueOrThrow({ where: { id: a.lenderId } });
  const org = await tx.tenant.findUniqueOrThrow({ where: { id: a.tenantId }, select: { code: true } });
  const payments = (a.schedule as { amount_minor: string }[]).map((l) => BigInt(l.amount_minor));
  const largest = payments.reduce((m, x) => (x > m ? x : m), 0n);
  return {
    // The lender keys on the reference across every organisation: the application number carries its organisation.
    reference: orgRailReference(org.code, a.applicationNo),
    application_no: a.applicationNo,
    lender: lender.name,
    applicant: {
      id_number: a.idNumber,
      kra_pin: a.kraPin,
      income_band: a.incomeBand,
      monthly_income_floor_minor: (IPF_RULES.incomeBands[a.incomeBand] ?? 0n).toString(),
    },
    premium_minor: a.premiumMinor.toString(),
    total_repayable_minor: a.totalRepayableMinor.toString(),
    max_payment_minor: largest.toString(),
    tenor_months: a.tenorMonths,
    terms: {
      min_premium_minor: lender.minPremiumMinor.toString(),
      max_premium_minor: lender.maxPremiumMinor?.toString() ?? null,
      max_instalment_to_income_bps: lender.maxInstalmentToIncomeBps,
    },
    existing_arrears: await hasArrears(tx, a),
  };
}

/**
 * Existing arrears: another loan of the same applicant (the same client, or an application declaring the same ID
 * number) in this organisation that has defaulted, or is active with an instalment past its due date and not fully
 * paid (or waived). A loan still awaiting its deposit is not counted: the lender has paid nothing on it yet.
 */
export async function hasArrears(tx: Tx, a: { id: number; clientId: number; idNumber: string }): Promise<boolean> {
  const today = toDbDate(todayNairobi());
  const loans = await tx.ipfLoan.findMany({
    where: {
      applicationId: { not: a.id },
      OR: [{ clientId: a.clientId }, { application: { idNumber: a.idNumber } }],
      status: { in: ['active', 'defaulted'] },
    },
    select: {
      status: true,
      instalments: {
        where: { dueOn: { lt: today } },
        select: { amountMinor: true, paidMinor: true, waivedMinor: true },
      },
    },
  });
  return loans.some((l) => l.status === 'defaulted' || l.instalments.some((i) => lineOutstanding(i) > 0n));
}

/** (3) The answer applied once: only to an application still submitted; the call confirmed either way. */
async function applyDecision(
  app: AppServices,
  tx: Tx,
  applicationId: number,
  callId: number,
  answer: LenderDecision,
): Promise<Outcome> {
  await lockApplicationRow(tx, applicationId);
  const a = await tx.ipfApplication.findUniqueOrThrow({ where: { id: applicationId } });
  const at = clockNow();
  await tx.ipfLenderCall.updateMany({
    where: { id: callId, status: 'recorded' },
    data: { status: 'confirmed', response: answer as never, confirmedAt: at },
  });
  if (a.status !== 'submitted') return 'skipped';
  const to = answer.decision === 'approved' ? 'approved' : 'declined';
  const why = to === 'approved' ? 'Approved by the lender' : answer.reasons.map((r) => r.code).join(', ');
  await transitionIpf(tx, 'application', a.id, 'submitted', to, {
    tenantId: a.tenantId,
    reason: why || 'Declined by the lender',
    actor: 'lender',
  });
  await tx.ipfApplication.update({
    where: { id: a.id },
    data: { decisionReasons: answer.reasons as never, lenderRef: answer.lender_ref, decidedAt: at },
  });
  await emitEvent(app, tx, a.tenantId, 'ipf.decided', {
    ...(await applicationEventRef(tx, a.id)),
    decision: to,
    reasons: answer.reasons.map((r) => ({ code: r.code, message: r.message })),
    lender_ref: answer.lender_ref,
    tenor_months: a.tenorMonths,
    premium: amountOf(a.premiumMinor),
    total_repayable: amountOf(a.totalRepayableMinor),
    decided_at: nairobiIso(at),
  });
  return to;
}
