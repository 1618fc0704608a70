import type { Tx } from '../../../db/client.ts';
import { addDays, fromDbDate } from '../../../lib/dates.ts';
import { levyTable } from '../../reference/reference.service.ts';
import type { RefundPayee } from '../policy.service.ts';
import {
  flatLevies,
  type LevyRate,
  type Period,
  periodDays,
  type Priced,
  priceTerms,
  remainingDays,
  type Term,
  unearned,
} from '../proration.ts';
import { periodOf, type PolicyRow } from './shared.ts';

/**
 * The money of a cancellation (proration.ts): for every live premium item on cover at the effective date c (the first
 * day without cover) the credit is the term −U(B, c) (+U(B, to + 1) for an item already ending before the period end,
 * 0 otherwise), basic and each percent levy term by term. Flat levies (stamp duty) are never refunded.
 */

/** Why a flat levy is kept. */
const NON_REFUNDABLE_REASON = 'Flat duty charged once per policy; not pro-rated or refunded';

/** The itemised refund as stored in cancellations.refund (cents as decimal strings). */
export interface RefundJson {
  effective_date: string;
  days: { in_period: number; covered: number; unearned: number };
  basic_minor: string;
  levies: { code: string; name: string; amount_minor: string }[];
  taxes_minor: string;
  non_refundable: { code: string; name: string; amount_minor: string; reason: string }[];
  credit_total_minor: string;
  applied_to_debit_notes: { number: string; amount_minor: string }[];
  applied_total_minor: string;
  refund_to_client_minor: string;
  /**
   * Who the rest goes to: the client's credit balance, or the premium-finance lender whose loan paid the premium
   * (policy.refunds_to; then refund_to_client is 0). Absent on cancellations priced before the field existed: client.
   */
  refund_payee?: RefundPayee;
  refund_to_lender_minor?: string;
  outstanding_after_minor: string;
  /** The premium items the cancellation ends, with their end before it (reinstatement restores them). */
  items: {
    premium_item_id: number;
    /** The vehicle (motor) or the insured person, traveller or item (other lines); null: the policy as a whole. */
    vehicle_id: number | null;
    regno: string | null;
    risk_id?: number | null;
    insured?: string | null;
    annual_basic_minor: string;
    from: string;
    to: string;
    unearned_minor: string;
  }[];
}

/** The rest of a credit split by payee: all to the client, or all to the lender. */
export function refundSplit(payee: string, restMinor: bigint) {
  const lender = payee === 'lender';
  const to: RefundPayee = lender ? 'lender' : 'client';
  return {
    refund_payee: to,
    refund_to_client_minor: (lender ? 0n : restMinor).toString(),
    refund_to_lender_minor: (lender ? restMinor : 0n).toString(),
  };
}

type Span = { annualBasicMinor: bigint; from: string; to: string };

/** The signed terms of cancelling at c: −U(B, max(c, from)) + U(B, to + 1) per live item (pure). */
export function cancellationTerms(items: Span[], c: string): Term[] {
  const terms: Term[] = [];
  for (const it of items) {
    const at = c > it.from ? c : it.from;
    if (at > it.to) continue;
    terms.push({ annualBasicMinor: it.annualBasicMinor, at, sign: -1 });
    terms.push({ annualBasicMinor: it.annualBasicMinor, at: addDays(it.to, 1), sign: 1 });
  }
  return terms;
}

/** The credit (positive) for cancelling at c: the negated price of the cancellation terms. */
export function cancellationCredit(period: Period, items: Span[], c: string, table: LevyRate[]): Priced {
  const priced = priceTerms(period, cancellationTerms(items, c), table);
  return {
    basicMinor: -priced.basicMinor,
    levies: priced.levies.map((l) => ({ ...l, amountMinor: -l.amountMinor })),
    taxesMinor: -priced.taxesMinor,
    totalMinor: -priced.totalMinor,
  };
}

/** One item's unearned basic premium at c: U(B, max(c, from)) − U(B, to + 1). */
function itemUnearned(period: Period, b: bigint, from: string, to: string, c: string): bigint {
  const at = c > from ? c : from;
  return at > to ? 0n : unearned(period, b, at) - unearned(period, b, addDays(to, 1));
}

/** Premium items on cover (not ended by an endorsement or a cancellation). */
async function liveItems(tx: Tx, policyId: number) {
  return tx.policyPremiumItem.findMany({
    where: { policyId, endedByEndorsementId: null, endedByCancellationId: null },
    include: { vehicle: { select: { regNo: true } }, risk: { select: { name: true } } },
    orderBy: { id: 'asc' },
  });
}
type LiveItem = Awaited<ReturnType<typeof liveItems>>[number];

const spanOf = (i: LiveItem): Span => ({
  annualBasicMinor: i.annualBasicMinor,
  from: fromDbDate(i.fromDate),
  to: fromDbDate(i.toDate),
});

async function nonRefundableLevies(tx: Tx, policyId: number, table: LevyRate[]) {
  const taxes = await tx.policyTax.findMany({ where: { policyId }, orderBy: { id: 'asc' } });
  const flatCodes = new Set(flatLevies(table).map((l) => l.code));
  return taxes
    .filter((t) => flatCodes.has(t.code))
    .map((t) => ({
      code: t.code,
      name: t.name,
      amount_minor: t.amountMinor.toString(),
      reason: NON_REFUNDABLE_REASON,
    }));
}

async function openDebitNotes(tx: Tx, policyId: number) {
  const notes = await tx.debitNote.findMany({
    where: { policyId },
    orderBy: [{ dueOn: 'asc' }, { instalmentNo: 'asc' }, { id: 'asc' }],
  });
  return notes
    .map((n) => ({ number: n.number, open: n.amountMinor - n.paidMinor - n.creditedMinor }))
    .filter((n) => n.open > 0n);
}

/** The credit's allocation to open debit notes, oldest due first, projected as raiseCreditNote will apply it. */
async function projectAllocation(tx: Tx, policyId: number, creditTotal: bigint) {
  let left = creditTotal > 0n ? creditTotal : 0n;
  const applied: { number: string; amount_minor: string }[] = [];
  let openTotal = 0n;
  for (const n of await openDebitNotes(tx, policyId)) {
    openTotal += n.open;
    if (left <= 0n) continue;
    const take = n.open < left ? n.open : left;
    applied.push({ number: n.number, amount_minor: take.toString() });
    left -= take;
  }
  const appliedTotal = applied.reduce((s, a) => s + BigInt(a.amount_minor), 0n);
  return { applied, appliedTotal, left, openTotal };
}

function refundItem(period: Period, i: LiveItem, c: string): RefundJson['items'][number] {
  return {
    premium_item_id: i.id,
    vehicle_id: i.vehicleId,
    regno: i.vehicle?.regNo ?? null,
    risk_id: i.riskId,
    insured: i.risk?.name ?? null,
    annual_basic_minor: i.annualBasicMinor.toString(),
    from: fromDbDate(i.fromDate),
    to: fromDbDate(i.toDate),
    unearned_minor: itemUnearned(
      period,
      i.annualBasicMinor,
      fromDbDate(i.fromDate),
      fromDbDate(i.toDate),
      c,
    ).toString(),
  };
}

/** Prices a cancellation at c: the itemised refund (allocation to open debit notes projected as raiseCreditNote applies it). */
export async function priceCancellation(tx: Tx, policy: PolicyRow, c: string) {
  const period = periodOf(policy);
  const table = await levyTable(tx);
  const items = await liveItems(tx, policy.id);
  const credit = cancellationCredit(period, items.map(spanOf), c, table);
  const nonRefundable = await nonRefundableLevies(tx, policy.id, table);
  const allocation = await projectAllocation(tx, policy.id, credit.totalMinor);
  const d = periodDays(period);
  const unearnedDays = remainingDays(period, c);
  const refund: RefundJson = {
    effective_date: c,
    days: { in_period: d, covered: d - unearnedDays, unearned: unearnedDays },
    basic_minor: credit.basicMinor.toString(),
    levies: credit.levies.map((l) => ({ code: l.code, name: l.name, amount_minor: l.amountMinor.toString() })),
    taxes_minor: credit.taxesMinor.toString(),
    non_refundable: nonRefundable,
    credit_total_minor: credit.totalMinor.toString(),
    applied_to_debit_notes: allocation.applied,
    applied_total_minor: allocation.appliedTotal.toString(),
    ...refundSplit(policy.refundsTo, allocation.left),
    outstanding_after_minor: (allocation.openTotal - allocation.appliedTotal).toString(),
    items: items.map((i) => refundItem(period, i, c)),
  };
  return { refund, credit };
}
