import type { Tx } from '../../../db/client.ts';
import { addDays, addMonths, fromDbDate, laterYmd } from '../../../lib/dates.ts';
import { LIVE_AT_REGISTRY } from '../certificate-state.ts';

/** What is due for a policy: its stages, each vehicle's current series, and the plan a run of issueDue carries out. */

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

export type PolicyFull = NonNullable<Awaited<ReturnType<typeof loadPolicy>>>;

export function loadPolicy(tx: Tx, policyId: number) {
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

export interface DuePlan {
  create: { vehicleId: number; stage: number; series: number; start: string; end: string }[];
  retry: number[];
  /** Vehicles whose re-issue waits for the registry to confirm the cancellation of their previous series. */
  waiting: number[];
}

/** In flight or to attempt: the next stage waits for it. */
export const UNSETTLED = ['pending', 'issuing'];

/**
 * What is due now: for each live vehicle and stage k (in order), instalment k paid in full (paid + credited ≥
 * amount) and stage k−1 live at the registry for the same vehicle and series. A stage that ended before the
 * vehicle's first day on cover (added by endorsement) or before today is not certified; the first stage still
 * running is the vehicle's first. `retry`: failed ones to send again (manual issue only).
 */
export function planDue(p: PolicyFull, today: string, manual: boolean): DuePlan {
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
    const from = laterYmd(
      v.addedOn ? fromDbDate(v.addedOn) : fromDbDate(p.startDate),
      series > 1 ? today : '0000-00-00',
    );
    let prevLive = true;
    for (const s of stages) {
      if (s.end < from || s.end < today) continue; // not needed: over before this vehicle (or series) was on cover
      const row = p.certificates.find((c) => c.vehicleId === v.id && c.stage === s.stage && c.series === series);
      if (!prevLive || !paid(s.stage)) break;
      if (!row) {
        plan.create.push({ vehicleId: v.id, stage: s.stage, series, start: laterYmd(s.start, from), end: s.end });
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
