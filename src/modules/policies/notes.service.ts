import type { Tx } from '../../db/client.ts';
import { nextNumber } from '../../db/counters.ts';
import type { LevyLine, Priced } from './proration.ts';

/**
 * Debit and credit notes raised after bind: endorsements, cancellations and reinstatements. Numbers:
 * `DN-<policy>-E<n>` (endorsement), `DN-<policy>-R<n>` (reinstatement), `CN-<policy>-<n>`; n counts per policy
 * (tenant_counters keyed by the policy id, so concurrent writers never share a number).
 *
 * A credit note is applied first to the policy's open debit notes, oldest due first (their `credited` grows, their
 * outstanding shrinks), and the rest is refunded to whom the policy's `refunds_to` names: the client's credit balance
 * (client_credits), or the premium-finance lender whose loan paid the premium (`refund_payee` lender: no client
 * credit; the loan records what the lender is owed).
 */

export interface NoteBreakdown {
  basic_minor: string;
  levies: { code: string; name: string; amount_minor: string }[];
  taxes_minor: string;
  total_minor: string;
  /** Free-form explanation lines (days on cover, vehicle, operation). */
  [k: string]: unknown;
}

export function breakdownOf(p: Priced, extra: Record<string, unknown> = {}): NoteBreakdown {
  return {
    ...extra,
    basic_minor: p.basicMinor.toString(),
    levies: p.levies.map((l: LevyLine) => ({ code: l.code, name: l.name, amount_minor: l.amountMinor.toString() })),
    taxes_minor: p.taxesMinor.toString(),
    total_minor: p.totalMinor.toString(),
  };
}

async function policyCounter(tx: Tx, tenantId: number, policyId: number, kind: string): Promise<bigint> {
  return nextNumber(tx, tenantId, `policy:${policyId}:${kind}`);
}

export interface PolicyRef {
  id: number;
  tenantId: number;
  policyNo: string;
}

/** A debit note for an endorsement (kind `endorsement`) or a reinstatement (kind `reinstatement`), due on `dueOn`. */
export async function raiseDebitNote(
  tx: Tx,
  policy: PolicyRef,
  args: {
    kind: 'endorsement' | 'reinstatement';
    amountMinor: bigint;
    dueOn: Date;
    endorsementId?: number | null;
    breakdown: NoteBreakdown;
    /** Already settled by a reversed credit note (reinstatement). */
    creditedMinor?: bigint;
  },
) {
  if (args.amountMinor <= 0n) throw new Error('a debit note needs a positive amount');
  const seq = await policyCounter(tx, policy.tenantId, policy.id, args.kind === 'endorsement' ? 'dn_e' : 'dn_r');
  const number = `DN-${policy.policyNo}-${args.kind === 'endorsement' ? 'E' : 'R'}${seq}`;
  return tx.debitNote.create({
    data: {
      tenantId: policy.tenantId,
      policyId: policy.id,
      number,
      instalmentNo: 0,
      instalmentCount: 0,
      dueOn: args.dueOn,
      amountMinor: args.amountMinor,
      kind: args.kind,
      endorsementId: args.endorsementId ?? null,
      breakdown: args.breakdown as never,
      creditedMinor: args.creditedMinor ?? 0n,
    },
  });
}

/**
 * A credit note for `amountMinor` (> 0), applied to the policy's open debit notes oldest due first, the rest
 * refunded to the policy's `refundsTo`: the client's credit, or the lender (refundPayee lender, no client credit).
 * Returns the note with what was applied and refunded.
 */
export async function raiseCreditNote(
  tx: Tx,
  policy: PolicyRef & { clientId: number },
  args: {
    kind: 'endorsement' | 'cancellation';
    priced: Priced;
    endorsementId?: number | null;
    cancellationId?: number | null;
    breakdown: NoteBreakdown;
    /** Apply to open debit notes before refunding (default true). */
    applyToOpenNotes?: boolean;
  },
) {
  const amountMinor = args.priced.totalMinor;
  if (amountMinor <= 0n) throw new Error('a credit note needs a positive amount');
  const seq = await policyCounter(tx, policy.tenantId, policy.id, 'cn');
  const number = `CN-${policy.policyNo}-${seq}`;
  let left = amountMinor;
  const applications: { debit_note_id: number; number: string; amount_minor: string }[] = [];
  if (args.applyToOpenNotes !== false) {
    const notes = await tx.debitNote.findMany({
      where: { policyId: policy.id },
      orderBy: [{ dueOn: 'asc' }, { instalmentNo: 'asc' }, { id: 'asc' }],
    });
    for (const n of notes) {
      const open = n.amountMinor - n.paidMinor - n.creditedMinor;
      if (open <= 0n || left <= 0n) continue;
      const take = open < left ? open : left;
      await tx.debitNote.update({ where: { id: n.id }, data: { creditedMinor: { increment: take } } });
      applications.push({ debit_note_id: n.id, number: n.number, amount_minor: take.toString() });
      left -= take;
    }
  }
  const { refundsTo } = await tx.policy.findUniqueOrThrow({ where: { id: policy.id }, select: { refundsTo: true } });
  const refundPayee = refundsTo === 'lender' ? 'lender' : 'client';
  const note = await tx.creditNote.create({
    data: {
      tenantId: policy.tenantId,
      policyId: policy.id,
      number,
      kind: args.kind,
      endorsementId: args.endorsementId ?? null,
      cancellationId: args.cancellationId ?? null,
      amountMinor,
      basicMinor: args.priced.basicMinor,
      taxesMinor: args.priced.taxesMinor,
      breakdown: args.breakdown as never,
      appliedMinor: amountMinor - left,
      applications: applications as never,
      refundedMinor: left,
      refundPayee,
    },
  });
  if (left > 0n && refundPayee === 'client') {
    await tx.clientCredit.create({
      data: { tenantId: policy.tenantId, clientId: policy.clientId, amountMinor: left, reason: `refund of ${number}` },
    });
  }
  return note;
}

/**
 * Reverses a credit note's effects (reinstatement): its applications to debit notes are undone (those notes are
 * owed again, on their own due dates) and the refunded part is taken back from the client's credit as far as the
 * balance allows. The caller raises a reinstatement debit note for the credit note's amount, credited with
 * `appliedMinor + recoveredMinor`, so only `unrecoveredMinor` (refund the client already used) is newly owed on it
 * and debit notes − credit notes is the full premium again. A refund that went to the lender is not the client's to
 * give back: all of it is unrecovered (owed again on the reinstatement debit note).
 */
export async function reverseCreditNote(
  tx: Tx,
  policy: PolicyRef & { clientId: number },
  creditNoteId: number,
): Promise<{ appliedMinor: bigint; recoveredMinor: bigint; unrecoveredMinor: bigint }> {
  const note = await tx.creditNote.findUniqueOrThrow({ where: { id: creditNoteId } });
  for (const a of note.applications as { debit_note_id: number; amount_minor: string }[]) {
    await tx.debitNote.update({
      where: { id: a.debit_note_id },
      data: { creditedMinor: { decrement: BigInt(a.amount_minor) } },
    });
  }
  let unrecoveredMinor = 0n;
  let recoveredMinor = 0n;
  if (note.refundedMinor > 0n && note.refundPayee === 'lender') {
    unrecoveredMinor = note.refundedMinor;
  } else if (note.refundedMinor > 0n) {
    const bal = await tx.clientCredit.aggregate({ where: { clientId: policy.clientId }, _sum: { amountMinor: true } });
    const available = bal._sum.amountMinor ?? 0n;
    const take = available < note.refundedMinor ? (available > 0n ? available : 0n) : note.refundedMinor;
    if (take > 0n) {
      await tx.clientCredit.create({
        data: {
          tenantId: policy.tenantId,
          clientId: policy.clientId,
          amountMinor: -take,
          reason: `reversal of ${note.number}`,
        },
      });
    }
    recoveredMinor = take;
    unrecoveredMinor = note.refundedMinor - take;
  }
  return { appliedMinor: note.appliedMinor, recoveredMinor, unrecoveredMinor };
}

/**
 * Moves the policy's premium (basic, taxes, total and its levy lines) by `sign × (basic + levies)` of a note just
 * raised, so the policy total stays Σ debit notes − Σ credit notes. A levy line the policy lacks is added.
 */
export async function movePolicyPremium(
  tx: Tx,
  policy: { id: number; tenantId: number },
  sign: 1n | -1n,
  basicMinor: bigint,
  levies: LevyLine[],
): Promise<void> {
  const taxesMinor = levies.reduce((s, l) => s + l.amountMinor, 0n);
  for (const l of levies) {
    if (l.amountMinor === 0n) continue;
    const line = await tx.policyTax.findFirst({ where: { policyId: policy.id, code: l.code }, orderBy: { id: 'asc' } });
    if (line)
      await tx.policyTax.update({ where: { id: line.id }, data: { amountMinor: { increment: sign * l.amountMinor } } });
    else
      await tx.policyTax.create({
        data: {
          tenantId: policy.tenantId,
          policyId: policy.id,
          code: l.code,
          name: l.name,
          amountMinor: sign * l.amountMinor,
        },
      });
  }
  await tx.policy.update({
    where: { id: policy.id },
    data: {
      basicMinor: { increment: sign * basicMinor },
      taxesMinor: { increment: sign * taxesMinor },
      totalMinor: { increment: sign * (basicMinor + taxesMinor) },
    },
  });
}
