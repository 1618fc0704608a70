import { randomUUID } from 'node:crypto';
import { isUuid } from '../../lib/identifiers.ts';
import { requireAbility } from '../../auth/principal.ts';
import type { Context } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { addDays, fromDbDate, isYmd, nairobiIso, todayNairobi, toDbDate } from '../../lib/dates.ts';
import { amountOf } from '../../lib/money.ts';
import {
  AppError,
  type FieldError,
  notFound,
  ValidationError,
  InvalidStateError,
  PreviewExpiredError,
  PreviewStaleError,
} from '../../lib/problem.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { queueCertificateIssue, requestCertificateCancellation } from '../certificates/issuance.ts';
import { DoubleInsuranceError } from '../certificates/certificate.service.ts';
import { emitEvent } from '../events/event.service.ts';
import { breakdownOf, movePolicyPremium, raiseCreditNote, raiseDebitNote, reverseCreditNote } from './notes.service.ts';
import { POLICY_RULES, transitionPolicy } from './policy-state.ts';
import { policyVisibility } from './policy.policy.ts';
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
} from './proration.ts';
import { findCoverClash } from './policy.service.ts';
import { latestEndorsementDate } from './endorsement.service.ts';
import { levyTable } from '../reference/reference.service.ts';

/**
 * Cancellation of an active policy, two-phase (README "Cancellation and reinstatement"):
 *
 *   preview  → a `quoted` cancellation with the itemised refund, valid POLICY_RULES.previewValidHours
 *   confirm  → items ended at c − 1, credit note raised (applied to open debit notes, the rest to client credit),
 *              policy totals reduced, active → cancelled, registry certificates cancelled, `policy.cancelled`
 *   discard  → a quoted preview dropped
 *   reinstate → the latest confirmed cancellation reversed within POLICY_RULES.reinstatementDays
 *
 * Money (proration.ts): for every live premium item on cover at the effective date c (the first day without cover)
 * the credit is the term −U(B, c) (+U(B, to + 1) for an item already ending before the period end, 0 otherwise),
 * basic and each percent levy term by term. Flat levies (stamp duty) are never refunded.
 */

/** The documented reasons and the registry cancellation reason id each maps to (registry.ts CANCEL_REASONS). */
export const CANCELLATION_REASONS = {
  insured_request: { registryReasonId: 8, description: 'The insured asked to cancel' },
  vehicle_sold: { registryReasonId: 15, description: 'The vehicle was sold' },
  non_payment: { registryReasonId: 21, description: 'Premium not paid' },
  written_off: { registryReasonId: 29, description: 'The vehicle was written off' },
  stolen: { registryReasonId: 30, description: 'The vehicle was stolen' },
  insurer_request: { registryReasonId: 8, description: 'The insurer withdrew cover' },
  duplicate_cover: { registryReasonId: 8, description: 'The vehicle is insured elsewhere' },
} as const;
export type CancellationReason = keyof typeof CANCELLATION_REASONS;
export const CANCELLATION_REQUESTERS = ['insured', 'intermediary', 'insurer', 'lender'] as const;

/** Why a flat levy is kept. */
const NON_REFUNDABLE_REASON = 'Flat duty charged once per policy; not pro-rated or refunded';

export interface CancellationInput {
  reason?: string | null;
  requestedBy?: string | null;
  effectiveDate?: string | null;
  note?: string | null;
}

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
  outstanding_after_minor: string;
  /** The premium items the cancellation ends, with their end before it (reinstatement restores them). */
  items: {
    premium_item_id: number;
    vehicle_id: number;
    regno: string;
    annual_basic_minor: string;
    from: string;
    to: string;
    unearned_minor: string;
  }[];
}

const MAX_NOTE = 500;

type PolicyRow = NonNullable<Awaited<ReturnType<Tx['policy']['findFirst']>>>;

const periodOf = (p: PolicyRow): Period => ({ start: fromDbDate(p.startDate), end: fromDbDate(p.endDate) });

/** Premium items on cover (not ended by an endorsement or a cancellation). */
async function liveItems(tx: Tx, policyId: number) {
  return tx.policyPremiumItem.findMany({
    where: { policyId, endedByEndorsementId: null, endedByCancellationId: null },
    include: { vehicle: { select: { regNo: true } } },
    orderBy: { id: 'asc' },
  });
}

/** The signed terms of cancelling at c: −U(B, max(c, from)) + U(B, to + 1) per live item (pure). */
export function cancellationTerms(items: { annualBasicMinor: bigint; from: string; to: string }[], c: string): Term[] {
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
export function cancellationCredit(
  period: Period,
  items: { annualBasicMinor: bigint; from: string; to: string }[],
  c: string,
  table: LevyRate[],
): Priced {
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

async function openDebitNotes(tx: Tx, policyId: number) {
  const notes = await tx.debitNote.findMany({
    where: { policyId },
    orderBy: [{ dueOn: 'asc' }, { instalmentNo: 'asc' }, { id: 'asc' }],
  });
  return notes
    .map((n) => ({ number: n.number, open: n.amountMinor - n.paidMinor - n.creditedMinor }))
    .filter((n) => n.open > 0n);
}

/** Prices a cancellation at c: the itemised refund (allocation to open debit notes projected as raiseCreditNote applies it). */
async function priceCancellation(tx: Tx, policy: PolicyRow, c: string) {
  const period = periodOf(policy);
  const table = await levyTable(tx);
  const items = await liveItems(tx, policy.id);
  const spans = items.map((i) => ({
    annualBasicMinor: i.annualBasicMinor,
    from: fromDbDate(i.fromDate),
    to: fromDbDate(i.toDate),
  }));
  const credit = cancellationCredit(period, spans, c, table);
  const taxes = await tx.policyTax.findMany({ where: { policyId: policy.id }, orderBy: { id: 'asc' } });
  const flatCodes = new Set(flatLevies(table).map((l) => l.code));
  const nonRefundable = taxes
    .filter((t) => flatCodes.has(t.code))
    .map((t) => ({
      code: t.code,
      name: t.name,
      amount_minor: t.amountMinor.toString(),
      reason: NON_REFUNDABLE_REASON,
    }));
  let left = credit.totalMinor > 0n ? credit.totalMinor : 0n;
  const applied: { number: string; amount_minor: string }[] = [];
  let openTotal = 0n;
  for (const n of await openDebitNotes(tx, policy.id)) {
    openTotal += n.open;
    if (left <= 0n) continue;
    const take = n.open < left ? n.open : left;
    applied.push({ number: n.number, amount_minor: take.toString() });
    left -= take;
  }
  const appliedTotal = applied.reduce((s, a) => s + BigInt(a.amount_minor), 0n);
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
    applied_to_debit_notes: applied,
    applied_total_minor: appliedTotal.toString(),
    refund_to_client_minor: left.toString(),
    outstanding_after_minor: (openTotal - appliedTotal).toString(),
    items: items.map((i) => ({
      premium_item_id: i.id,
      vehicle_id: i.vehicleId,
      regno: i.vehicle.regNo,
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
    })),
  };
  return { refund, credit };
}

function validateInput(input: CancellationInput): {
  reason: CancellationReason;
  requestedBy: string;
  effectiveDate: string | null;
  note: string | null;
} {
  const errors: FieldError[] = [];
  const reason = typeof input.reason === 'string' ? input.reason.trim().toLowerCase() : '';
  if (!Object.hasOwn(CANCELLATION_REASONS, reason))
    errors.push({ field: 'reason', message: `one of ${Object.keys(CANCELLATION_REASONS).join(', ')}` });
  const requestedBy = typeof input.requestedBy === 'string' ? input.requestedBy.trim().toLowerCase() : '';
  if (!(CANCELLATION_REQUESTERS as readonly string[]).includes(requestedBy))
    errors.push({ field: 'requestedBy', message: `one of ${CANCELLATION_REQUESTERS.join(', ')}` });
  const eff = input.effectiveDate ?? null;
  if (eff != null && !isYmd(eff)) errors.push({ field: 'effectiveDate', message: 'a date Y-m-d' });
  const note = input.note == null ? null : String(input.note).trim() || null;
  if (note && note.length > MAX_NOTE) errors.push({ field: 'note', message: `at most ${MAX_NOTE} characters` });
  if (errors.length) throw new ValidationError(errors);
  return { reason: reason as CancellationReason, requestedBy, effectiveDate: eff, note };
}

async function visiblePolicy(ctx: Context, tx: Tx, where: { uuid: string } | { id: number }): Promise<PolicyRow> {
  if ('uuid' in where && !isUuid(where.uuid)) throw notFound('Policy');
  const row = await tx.policy.findFirst({ where: { AND: [where, policyVisibility(ctx.principal)] } });
  if (!row) throw notFound('Policy');
  return row;
}

async function lockPolicy(tx: Tx, policyId: number): Promise<PolicyRow> {
  await tx.$queryRaw`SELECT id FROM policies WHERE id = ${policyId} FOR UPDATE`;
  return tx.policy.findUniqueOrThrow({ where: { id: policyId } });
}

/** A cancellation by uuid whose policy the caller may see (and, when given, that belongs to `policyUuid`); else 404. */
async function visibleCancellation(ctx: Context, tx: Tx, uuid: string, policyUuid?: string | null) {
  if (!isUuid(uuid)) throw notFound('Cancellation');
  const c = await tx.cancellation.findUnique({ where: { uuid } });
  if (!c) throw notFound('Cancellation');
  const policy = await tx.policy.findFirst({ where: { AND: [{ id: c.policyId }, policyVisibility(ctx.principal)] } });
  if (!policy || (policyUuid != null && policy.uuid !== policyUuid)) throw notFound('Cancellation');
  return { c, policy };
}

const sumLines = (xs: { amount_minor: string }[]) => xs.reduce((s, x) => s + BigInt(x.amount_minor), 0n);

export const cancellationService = {
  reasons: CANCELLATION_REASONS,

  /** Prices a cancellation: a `quoted` record with the itemised refund, valid POLICY_RULES.previewValidHours. */
  async preview(ctx: Context, policyUuid: string, input: CancellationInput) {
    const p = ctx.principal!;
    const actor = requireAbility(p, 'policies.create');
    return ctx.tx(async (tx) => {
      const policy = await visiblePolicy(ctx, tx, { uuid: policyUuid });
      const v = validateInput(input ?? {});
      if (policy.status !== 'active') {
        throw new InvalidStateError(
          `Only an active policy can be cancelled; this one is ${policy.status}` +
            (policy.status === 'pending_payment' ? ' (a policy never paid becomes not_taken_up by schedule)' : ''),
        );
      }
      const period = periodOf(policy);
      const latest = await latestEndorsementDate(tx, policy.id);
      const lower = latest && latest > period.start ? latest : period.start;
      const upper = addDays(period.end, 1);
      let c = v.effectiveDate ?? todayNairobi();
      // Any date on or before the start is the start: the whole period is unearned.
      if (c < period.start) c = period.start;
      if (c < lower || c > upper) {
        throw new ValidationError([
          {
            field: 'effectiveDate',
            message: `between ${lower}${latest && latest > period.start ? ' (the latest endorsement)' : ''} and ${upper} (the day after the end)`,
          },
        ]);
      }
      const { refund, credit } = await priceCancellation(tx, policy, c);
      const now = new Date();
      const row = await tx.cancellation.create({
        data: {
          tenantId: policy.tenantId,
          uuid: randomUUID(),
          policyId: policy.id,
          reason: v.reason,
          requestedBy: v.requestedBy,
          note: v.note,
          effectiveDate: toDbDate(c),
          basedOnRevision: policy.revision,
          refund: refund as never,
          unearnedMinor: credit.basicMinor,
          refundMinor: BigInt(refund.refund_to_client_minor),
          createdByUserId: actor.userId,
          createdAt: now,
          expiresAt: new Date(now.getTime() + POLICY_RULES.previewValidHours * 3600_000),
        },
      });
      await recordAudit(ctx, tx, policy.tenantId, {
        action: 'cancellation.quoted',
        entityType: 'policy',
        entityId: policy.uuid,
        changes: {
          cancellation_uuid: row.uuid,
          reason: v.reason,
          effective_date: c,
          credit_total_minor: refund.credit_total_minor,
        },
      });
      return row;
    });
  },

  async confirm(ctx: Context, uuid: string, policyUuid?: string | null) {
    const p = ctx.principal!;
    const actor = requireAbility(p, 'policies.create');
    return ctx.tx(
      async (tx) => {
        const found = await visibleCancellation(ctx, tx, uuid, policyUuid);
        const policy = await lockPolicy(tx, found.policy.id);
        const c = await tx.cancellation.findUniqueOrThrow({ where: { id: found.c.id } });
        if (c.status !== 'quoted')
          throw new InvalidStateError(`This cancellation is ${c.status}; only a quoted one can be confirmed`);
        if (c.expiresAt.getTime() < Date.now())
          throw new PreviewExpiredError(`This preview expired at ${nairobiIso(c.expiresAt)}; preview again`);
        if (c.basedOnRevision !== policy.revision)
          throw new PreviewStaleError('The policy changed since this cancellation was priced; preview again');
        if (policy.status !== 'active')
          throw new InvalidStateError(`Only an active policy can be cancelled; this one is ${policy.status}`);
        const eff = fromDbDate(c.effectiveDate);
        const { refund, credit } = await priceCancellation(tx, policy, eff);
        const quoted = c.refund as unknown as RefundJson;
        if (refund.credit_total_minor !== quoted.credit_total_minor)
          throw new PreviewStaleError('The levy rates changed since this cancellation was priced; preview again');

        for (const it of refund.items) {
          const newTo = addDays(eff > it.from ? eff : it.from, -1);
          await tx.policyPremiumItem.update({
            where: { id: it.premium_item_id },
            data: { toDate: toDbDate(newTo), endedByCancellationId: c.id },
          });
        }
        const ref = { id: policy.id, tenantId: policy.tenantId, policyNo: policy.policyNo, clientId: policy.clientId };
        let note: Awaited<ReturnType<typeof raiseCreditNote>> | null = null;
        if (credit.totalMinor > 0n) {
          note = await raiseCreditNote(tx, ref, {
            kind: 'cancellation',
            priced: credit,
            cancellationId: c.id,
            breakdown: breakdownOf(credit, {
              operation: 'cancellation',
              cancellation_uuid: c.uuid,
              effective_date: eff,
              days: refund.days,
            }),
          });
          await movePolicyPremium(tx, policy, -1n, credit.basicMinor, credit.levies);
        }
        const apps = (note?.applications ?? []) as { number: string; amount_minor: string }[];
        const applied = apps.map((a) => ({ number: a.number, amount_minor: a.amount_minor }));
        const actual: RefundJson = {
          ...refund,
          applied_to_debit_notes: applied,
          applied_total_minor: (note?.appliedMinor ?? 0n).toString(),
          refund_to_client_minor: (note?.refundedMinor ?? 0n).toString(),
          outstanding_after_minor: (
            BigInt(refund.outstanding_after_minor) +
            BigInt(refund.applied_total_minor) -
            sumLines(applied)
          ).toString(),
        };
        const reason = c.reason as CancellationReason;
        const moved = await transitionPolicy(tx, policy.id, 'active', 'cancelled', {
          tenantId: policy.tenantId,
          source: 'api',
          reason: `${reason} (requested by ${c.requestedBy})`,
          actorUserId: actor.userId,
        });
        if (!moved) throw new InvalidStateError('The policy is no longer active');
        await requestCertificateCancellation(
          ctx.app,
          tx,
          { policyId: policy.id },
          CANCELLATION_REASONS[reason].registryReasonId,
        );
        await tx.policy.update({ where: { id: policy.id }, data: { revision: { increment: 1 } } });
        const now = new Date();
        const updated = await tx.cancellation.update({
          where: { id: c.id },
          data: {
            status: 'confirmed',
            confirmedAt: now,
            creditNoteId: note?.id ?? null,
            refund: actual as never,
            refundMinor: note?.refundedMinor ?? 0n,
          },
        });
        const client = await tx.client.findUniqueOrThrow({
          where: { id: policy.clientId },
          select: { clientNo: true },
        });
        await emitEvent(ctx, tx, policy.tenantId, 'policy.cancelled', {
          policy_no: policy.policyNo,
          policy_uuid: policy.uuid,
          client_no: client.clientNo,
          cancellation_uuid: c.uuid,
          reason,
          requested_by: c.requestedBy,
          effective_date: eff,
          credit_note_no: note?.number ?? null,
          credit: amountOf(credit.totalMinor),
          refund: amountOf(note?.refundedMinor ?? 0n),
          cancelled_at: nairobiIso(now),
        });
        await recordAudit(ctx, tx, policy.tenantId, {
          action: 'policy.cancelled',
          entityType: 'policy',
          entityId: policy.uuid,
          changes: {
            cancellation_uuid: c.uuid,
            reason,
            requested_by: c.requestedBy,
            effective_date: eff,
            credit_note_no: note?.number ?? null,
            credit_total_minor: credit.totalMinor.toString(),
            applied_minor: actual.applied_total_minor,
            refunded_minor: actual.refund_to_client_minor,
          },
        });
        return updated;
      },
      { timeout: 20_000 },
    );
  },

  async discard(ctx: Context, uuid: string, policyUuid?: string | null) {
    const p = ctx.principal!;
    requireAbility(p, 'policies.create');
    return ctx.tx(async (tx) => {
      const { c, policy } = await visibleCancellation(ctx, tx, uuid, policyUuid);
      // Serialised with confirmations through the policy row, so a discard never overtakes a confirmation.
      await lockPolicy(tx, policy.id);
      const r = await tx.cancellation.updateMany({
        where: { id: c.id, status: 'quoted' },
        data: { status: 'discarded' },
      });
      if (r.count !== 1)
        throw new InvalidStateError(`This cancellation is ${c.status}; only a quoted one can be discarded`);
      await recordAudit(ctx, tx, policy.tenantId, {
        action: 'cancellation.discarded',
        entityType: 'policy',
        entityId: policy.uuid,
        changes: { cancellation_uuid: c.uuid },
      });
      return tx.cancellation.findUniqueOrThrow({ where: { id: c.id } });
    });
  },

  /** Reverses the latest confirmed cancellation within POLICY_RULES.reinstatementDays of its confirmation. */
  async reinstate(ctx: Context, policyUuid: string, noteText?: string | null) {
    const p = ctx.principal!;
    const actor = requireAbility(p, 'policies.create');
    const note = noteText == null ? null : String(noteText).trim() || null;
    if (note && note.length > MAX_NOTE)
      throw new ValidationError([{ field: 'note', message: `at most ${MAX_NOTE} characters` }]);
    const result = await ctx.tx(
      async (tx) => {
        const visible = await visiblePolicy(ctx, tx, { uuid: policyUuid });
        const policy = await lockPolicy(tx, visible.id);
        if (policy.status !== 'cancelled')
          throw new InvalidStateError(`Only a cancelled policy can be reinstated; this one is ${policy.status}`);
        const c = await tx.cancellation.findFirst({
          where: { policyId: policy.id, status: 'confirmed' },
          orderBy: [{ confirmedAt: 'desc' }, { id: 'desc' }],
        });
        if (!c || !c.confirmedAt) throw new InvalidStateError('This policy has no confirmed cancellation to reverse');
        const deadline = new Date(c.confirmedAt.getTime() + POLICY_RULES.reinstatementDays * 86_400_000);
        if (Date.now() > deadline.getTime()) {
          throw new InvalidStateError(
            `A cancellation can be reversed within ${POLICY_RULES.reinstatementDays} days of its confirmation; this one was confirmed ${nairobiIso(c.confirmedAt)} (window closed ${nairobiIso(deadline)})`,
          );
        }
        const refund = c.refund as unknown as RefundJson;
        // The cover comes back from the effective date: a vehicle insured elsewhere since then cannot be covered twice.
        const eff = fromDbDate(c.effectiveDate);
        const regNos = [...new Set(refund.items.map((i) => i.regno))];
        const clash = await findCoverClash(
          tx,
          { regNos, from: eff, to: fromDbDate(policy.endDate), excludePolicyId: policy.id },
          ctx.principal!,
        );
        if (clash)
          throw new DoubleInsuranceError(
            `${clash.regNo} has had other cover for these dates since the cancellation (${clash.policyRef})`,
            null,
          );
        for (const it of refund.items) {
          await tx.policyPremiumItem.updateMany({
            where: { id: it.premium_item_id, endedByCancellationId: c.id },
            data: { toDate: toDbDate(it.to), endedByCancellationId: null },
          });
        }
        const ref = { id: policy.id, tenantId: policy.tenantId, policyNo: policy.policyNo, clientId: policy.clientId };
        let debitNote: Awaited<ReturnType<typeof raiseDebitNote>> | null = null;
        if (c.creditNoteId) {
          const cn = await tx.creditNote.findUniqueOrThrow({ where: { id: c.creditNoteId } });
          const back = await reverseCreditNote(tx, ref, cn.id);
          const bd = cn.breakdown as { levies?: { code: string; name: string; amount_minor: string }[] };
          const levies = (bd.levies ?? []).map((l) => ({
            code: l.code,
            name: l.name,
            amountMinor: BigInt(l.amount_minor),
          }));
          debitNote = await raiseDebitNote(tx, ref, {
            kind: 'reinstatement',
            amountMinor: cn.amountMinor,
            dueOn: toDbDate(todayNairobi()),
            creditedMinor: back.appliedMinor + back.recoveredMinor,
            breakdown: breakdownOf(
              { basicMinor: cn.basicMinor, levies, taxesMinor: cn.taxesMinor, totalMinor: cn.amountMinor },
              {
                operation: 'reinstatement',
                cancellation_uuid: c.uuid,
                reverses: cn.number,
                applied_minor: back.appliedMinor.toString(),
                recovered_minor: back.recoveredMinor.toString(),
                unrecovered_minor: back.unrecoveredMinor.toString(),
              },
            ),
          });
          await movePolicyPremium(tx, policy, 1n, cn.basicMinor, levies);
        }
        const moved = await transitionPolicy(tx, policy.id, 'cancelled', 'active', {
          tenantId: policy.tenantId,
          source: 'reinstatement',
          reason: note ?? `reverses cancellation ${c.uuid}`,
          actorUserId: actor.userId,
        });
        if (!moved) throw new InvalidStateError('The policy is no longer cancelled');
        await tx.policy.update({ where: { id: policy.id }, data: { revision: { increment: 1 } } });
        const now = new Date();
        const updated = await tx.cancellation.update({
          where: { id: c.id },
          data: { status: 'reinstated', reinstatedAt: now, reinstatementNoteId: debitNote?.id ?? null },
        });
        const client = await tx.client.findUniqueOrThrow({
          where: { id: policy.clientId },
          select: { clientNo: true },
        });
        await emitEvent(ctx, tx, policy.tenantId, 'policy.reinstated', {
          policy_no: policy.policyNo,
          policy_uuid: policy.uuid,
          client_no: client.clientNo,
          cancellation_uuid: c.uuid,
          previous_status: 'cancelled',
          debit_note_no: debitNote?.number ?? null,
          reinstated_at: nairobiIso(now),
        });
        await recordAudit(ctx, tx, policy.tenantId, {
          action: 'policy.reinstated',
          entityType: 'policy',
          entityId: policy.uuid,
          changes: { cancellation_uuid: c.uuid, debit_note_no: debitNote?.number ?? null, note },
        });
        return { cancellation: updated, policyId: policy.id };
      },
      { timeout: 20_000 },
    );
    // The certificates module re-certifies the reinstated cover; never throws (a lost queueing is caught by its sweep).
    await ctx.afterCommit(() => queueCertificateIssue(ctx.app, result.policyId));
    return result.cancellation;
  },

  /** The policy's cancellations, newest first (visibility through the policy). */
  async list(ctx: Context, policyUuid: string, query: object = {}) {
    return ctx.tx(async (tx) => {
      const policy = await visiblePolicy(ctx, tx, { uuid: policyUuid });
      return tx.cancellation.findMany({ ...query, where: { policyId: policy.id }, orderBy: { id: 'desc' } });
    });
  },
};

/** Status as shown: a quoted preview past its expiry reads `expired`. */
export function displayStatus(c: { status: string; expiresAt: Date }): string {
  return c.status === 'quoted' && c.expiresAt.getTime() < Date.now() ? 'expired' : c.status;
}
