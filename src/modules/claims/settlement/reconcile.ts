/**
 * The money of a claim's settlement, pure (no I/O), in integer cents, property-tested against a naive oracle
 * (test/claim-money.property.test.ts). The payout service takes every figure it writes from here:
 *
 *   remaining  = net payable − paid − committed      what a new payout may take
 *   commit     committed += amount                   a B2C payout is instructed (pending)
 *   release    committed −= amount                   it failed: the money is free again
 *   apply      paid += amount, committed −= amount (B2C only), reserve −= amount (a `payment` movement),
 *              settled when paid reaches net payable
 *
 * `reconcile` checks a claim's ledger as stored and names every way it disagrees with these rules.
 */

export interface ClaimMoney {
  reserveMinor: bigint;
  paidMinor: bigint;
  committedMinor: bigint;
  netPayableMinor: bigint | null;
}

/** A reserve movement as the ledger stores it: the signed change and the balance after it. */
export interface ReserveEntry {
  amountMinor: bigint;
  balanceAfterMinor: bigint;
}

/** What a payout may still take: net payable less what is paid and what is instructed; 0 before approval. */
export function remainingMinor(c: ClaimMoney): bigint {
  if (c.netPayableMinor == null) return 0n;
  const rest = c.netPayableMinor - c.paidMinor - c.committedMinor;
  return rest > 0n ? rest : 0n;
}

/** A B2C payout instructed. Refuses (RangeError) an amount that is not positive or exceeds the remainder. */
export function commitPayout<C extends ClaimMoney>(c: C, amountMinor: bigint): C {
  if (amountMinor <= 0n || amountMinor > remainingMinor(c))
    throw new RangeError(`cannot commit ${amountMinor}: ${remainingMinor(c)} remains`);
  return { ...c, committedMinor: c.committedMinor + amountMinor };
}

/** A B2C payout failed: its commitment is released. */
export function releasePayout<C extends ClaimMoney>(c: C, amountMinor: bigint): C {
  if (amountMinor <= 0n || amountMinor > c.committedMinor)
    throw new RangeError(`cannot release ${amountMinor}: ${c.committedMinor} is committed`);
  return { ...c, committedMinor: c.committedMinor - amountMinor };
}

/** A movement of `amountMinor` (signed) on a reserve of `balanceMinor`. */
export function reserveMove(balanceMinor: bigint, amountMinor: bigint): ReserveEntry {
  return { amountMinor, balanceAfterMinor: balanceMinor + amountMinor };
}

export interface AppliedPayment<C extends ClaimMoney> {
  claim: C;
  /** The `payment` movement: −amount. */
  movement: ReserveEntry;
  /** Paid now equals net payable: the claim is settled by this payment. */
  settles: boolean;
}

/**
 * A payment confirmed (by the rail, or a recorded bank transfer): paid, the commitment of a B2C payout consumed, the
 * reserve consumed by a `payment` movement. Refuses (RangeError) a payment that would take paid past net payable.
 */
export function applyPayment<C extends ClaimMoney>(
  c: C,
  amountMinor: bigint,
  { committed }: { committed: boolean },
): AppliedPayment<C> {
  if (c.netPayableMinor == null) throw new RangeError('no net payable: the claim is not approved');
  if (amountMinor <= 0n) throw new RangeError(`cannot pay ${amountMinor}`);
  const paid = c.paidMinor + amountMinor;
  if (paid > c.netPayableMinor) throw new RangeError(`paying ${amountMinor} would pass the net payable`);
  if (committed && amountMinor > c.committedMinor)
    throw new RangeError(`cannot consume ${amountMinor}: ${c.committedMinor} is committed`);
  const movement = reserveMove(c.reserveMinor, -amountMinor);
  return {
    claim: {
      ...c,
      paidMinor: paid,
      committedMinor: committed ? c.committedMinor - amountMinor : c.committedMinor,
      reserveMinor: movement.balanceAfterMinor,
    },
    movement,
    settles: paid === c.netPayableMinor,
  };
}

export interface StoredLedger extends ClaimMoney {
  status: string;
  approvedAmountMinor: bigint | null;
  excessMinor: bigint | null;
  /** In ledger order. */
  movements: ReserveEntry[];
  payments: { amountMinor: bigint; status: string; method: string }[];
}

const OPEN_PAYOUT = new Set(['pending', 'sending', 'sent']);

/** Every way a claim's stored ledger disagrees with the rules above; empty when it reconciles to the cent. */
export function reconcile(l: StoredLedger): string[] {
  const out: string[] = [];
  let balance = 0n;
  l.movements.forEach((m, i) => {
    balance += m.amountMinor;
    if (m.balanceAfterMinor !== balance)
      out.push(`movement ${i}: balance after ${m.balanceAfterMinor}, sum ${balance}`);
  });
  if (balance !== l.reserveMinor) out.push(`reserve ${l.reserveMinor} ≠ Σ movements ${balance}`);
  if (l.approvedAmountMinor != null && l.netPayableMinor !== l.approvedAmountMinor - (l.excessMinor ?? 0n))
    out.push(`net payable ${l.netPayableMinor} ≠ approved − excess`);
  const sum = (pred: (p: StoredLedger['payments'][number]) => boolean) =>
    l.payments.filter(pred).reduce((s, p) => s + p.amountMinor, 0n);
  const paid = sum((p) => p.status === 'paid');
  if (paid !== l.paidMinor) out.push(`paid ${l.paidMinor} ≠ Σ paid payments ${paid}`);
  const open = sum((p) => p.method === 'mpesa_b2c' && OPEN_PAYOUT.has(p.status));
  if (open !== l.committedMinor) out.push(`committed ${l.committedMinor} ≠ Σ open payouts ${open}`);
  if (l.netPayableMinor != null && l.paidMinor + l.committedMinor > l.netPayableMinor)
    out.push('paid + committed passes the net payable');
  const fullyPaid = l.netPayableMinor != null && l.paidMinor === l.netPayableMinor;
  if ((l.status === 'settled') !== fullyPaid && l.status !== 'closed')
    out.push(`status ${l.status} but paid ${l.paidMinor} of ${l.netPayableMinor}`);
  if (l.status === 'settled' && l.reserveMinor !== 0n) out.push(`settled with reserve ${l.reserveMinor}`);
  return out;
}
