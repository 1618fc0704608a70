/**
 * Premium-finance arithmetic: pure, in integer cents, over a lender's terms (tables ipf_lenders, ipf_tenors,
 * ipf_fee_bands). The motor quote's `ipf_offers`, `POST /ipf/quote`, an application and a loan's schedule all come
 * from here, so there is one arithmetic (property-tested in test/ipf-terms.property.test.ts). docs/premium-finance.md "Premium finance".
 *
 * - Principal: the policy's whole gross premium (the lender pays the insurer all of it once the deposit is paid).
 * - Charge (the cost of credit): `rate_per_tenor`: the tenor's charge_bps of the premium, rounded half away from zero
 *   to the cent; `flat_fee_by_band`: the fee of the first band whose inclusive upper bound covers the premium.
 * - Total repayable = premium + charge, paid in `months` payments of which the first is the deposit:
 *   `one_instalment`: the total split evenly, payments 2..n rounded DOWN to a whole shilling, the deposit taking the
 *   rest; `percent`: the deposit is deposit_bps of the total rounded down to a whole shilling, and the rest is split
 *   over the remaining payments the same way (the first of them taking the rest). Either way the payments sum to the
 *   total exactly.
 * - apr_bps, the flat rate annualised: charge ÷ premium × 12 ÷ months (for `rate_per_tenor` exactly
 *   charge_bps × 12 ÷ months), rounded half up to a whole basis point.
 * - Due dates: the deposit on the day the agreement is signed, payment k (k ≥ 2) k − 1 months later on the same day
 *   of the month (the month's last day when it has fewer).
 * - Early-settlement rebate: the charge is earned evenly per scheduled payment; each payment not yet due on the
 *   settlement date leaves charge ÷ months unearned, so rebate = ⌊charge × not_yet_due ÷ months⌋ (rounded down to the
 *   cent, in the lender's favour), never more than what is still owed. Payoff = total − paid − rebate.
 */
import { addMonths } from '../../lib/dates.ts';
import { applyBps } from '../../lib/money.ts';

export type IpfPricing = 'rate_per_tenor' | 'flat_fee_by_band';
export type IpfDepositRule = 'one_instalment' | 'percent';

export interface IpfLenderTerms {
  id: number;
  name: string;
  minPremiumMinor: bigint;
  maxPremiumMinor: bigint | null;
  pricing: IpfPricing;
  depositRule: IpfDepositRule;
  depositBps: number | null;
  maxInstalmentToIncomeBps: number;
  defaultGraceDays: number;
  tenors: readonly { months: number; chargeBps: number }[];
  feeBands: readonly { upToPremiumMinor: bigint | null; feeMinor: bigint }[];
}

export interface IpfOffer {
  lenderId: number;
  lenderName: string;
  tenorMonths: number;
  premiumMinor: bigint;
  chargeMinor: bigint;
  totalRepayableMinor: bigint;
  depositMinor: bigint;
  /** The regular payment after the deposit (payment 2; the deposit alone when months is 1). */
  instalmentMinor: bigint;
  /** Every payment, the deposit first: `months` of them, summing to totalRepayableMinor. */
  paymentsMinor: bigint[];
  aprBps: number;
}

const WHOLE = 100n;

/** Parts 2..n the amount ÷ n rounded down to a whole shilling; part 1 the rest (so they sum exactly). */
export function splitEvenly(totalMinor: bigint, parts: number): bigint[] {
  const n = BigInt(parts);
  const later = (totalMinor / n / WHOLE) * WHOLE;
  const first = totalMinor - later * (n - 1n);
  return [first, ...Array.from({ length: parts - 1 }, () => later)];
}

/** The lender's charge for this premium and tenor, or null when the tenor is not offered. */
export function ipfCharge(premiumMinor: bigint, lender: IpfLenderTerms, months: number): bigint | null {
  const tenor = lender.tenors.find((t) => t.months === months);
  if (!tenor) return null;
  if (lender.pricing === 'rate_per_tenor') return applyBps(premiumMinor, tenor.chargeBps);
  const band = lender.feeBands.find((b) => b.upToPremiumMinor === null || premiumMinor <= b.upToPremiumMinor);
  return band ? band.feeMinor : null;
}

/** The payments of a total over `months`, the deposit first, by the lender's deposit rule. */
export function ipfPayments(totalMinor: bigint, lender: IpfLenderTerms, months: number): bigint[] {
  if (lender.depositRule === 'one_instalment' || months < 2 || !lender.depositBps)
    return splitEvenly(totalMinor, months);
  const deposit = (applyBps(totalMinor, lender.depositBps) / WHOLE) * WHOLE;
  return [deposit, ...splitEvenly(totalMinor - deposit, months - 1)];
}

/** The annualised flat rate in basis points. */
export function ipfAprBps(premiumMinor: bigint, chargeMinor: bigint, lender: IpfLenderTerms, months: number): number {
  const tenor = lender.tenors.find((t) => t.months === months);
  if (lender.pricing === 'rate_per_tenor' && tenor) return Math.round((tenor.chargeBps * 12) / months);
  const num = chargeMinor * 10_000n * 12n;
  const den = premiumMinor * BigInt(months);
  return Number((num * 2n + den) / (den * 2n));
}

/** Why this lender cannot finance this premium, or null. */
export function ipfPremiumRefusal(premiumMinor: bigint, lender: IpfLenderTerms): string | null {
  if (premiumMinor < lender.minPremiumMinor)
    return `${lender.name} finances premiums from KES ${shillings(lender.minPremiumMinor)}`;
  if (lender.maxPremiumMinor !== null && premiumMinor > lender.maxPremiumMinor)
    return `${lender.name} finances premiums up to KES ${shillings(lender.maxPremiumMinor)}`;
  return null;
}

/** One lender's offer for one tenor, or null when the lender cannot offer it. */
export function ipfOffer(premiumMinor: bigint, lender: IpfLenderTerms, months: number): IpfOffer | null {
  if (ipfPremiumRefusal(premiumMinor, lender)) return null;
  const chargeMinor = ipfCharge(premiumMinor, lender, months);
  if (chargeMinor === null) return null;
  const totalRepayableMinor = premiumMinor + chargeMinor;
  const paymentsMinor = ipfPayments(totalRepayableMinor, lender, months);
  return {
    lenderId: lender.id,
    lenderName: lender.name,
    tenorMonths: months,
    premiumMinor,
    chargeMinor,
    totalRepayableMinor,
    depositMinor: paymentsMinor[0],
    instalmentMinor: paymentsMinor[1] ?? paymentsMinor[0],
    paymentsMinor,
    aprBps: ipfAprBps(premiumMinor, chargeMinor, lender, months),
  };
}

/** Every offer of every lender for this premium, by lender (their order) then tenor (shortest first). */
export function ipfOffersFor(premiumMinor: bigint, lenders: readonly IpfLenderTerms[]): IpfOffer[] {
  return lenders.flatMap((l) =>
    [...l.tenors]
      .sort((a, b) => a.months - b.months)
      .map((t) => ipfOffer(premiumMinor, l, t.months))
      .filter((o): o is IpfOffer => o !== null),
  );
}

export interface ScheduleLine {
  seq: number;
  dueOn: string;
  amountMinor: bigint;
}

/** The schedule of an offer signed on `signedOn`: the deposit that day, then monthly. */
export function ipfSchedule(offer: Pick<IpfOffer, 'paymentsMinor'>, signedOn: string): ScheduleLine[] {
  return offer.paymentsMinor.map((amountMinor, i) => ({ seq: i + 1, dueOn: addMonths(signedOn, i), amountMinor }));
}

/** The rebate of unearned charges and the payoff for settling on `on` (YYYY-MM-DD). */
export function earlySettlement(
  loan: { chargeMinor: bigint; totalRepayableMinor: bigint; paidMinor: bigint; tenorMonths: number },
  schedule: readonly { dueOn: string }[],
  on: string,
): { rebateMinor: bigint; payoffMinor: bigint; notYetDue: number } {
  const notYetDue = schedule.filter((l) => l.dueOn > on).length;
  const owed = loan.totalRepayableMinor - loan.paidMinor;
  let rebateMinor = (loan.chargeMinor * BigInt(notYetDue)) / BigInt(loan.tenorMonths);
  if (rebateMinor > owed) rebateMinor = owed;
  if (rebateMinor < 0n) rebateMinor = 0n;
  return { rebateMinor, payoffMinor: owed - rebateMinor, notYetDue };
}

function shillings(minor: bigint): string {
  return (minor / WHOLE).toLocaleString('en-KE');
}
