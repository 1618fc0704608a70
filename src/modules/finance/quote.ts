import type { Context } from '../../context.ts';
import { isYmd, todayNairobi, YMD_MESSAGE } from '../../lib/dates.ts';
import { isUuid } from '../../lib/identifiers.ts';
import { boundsCode } from '../../lib/field-errors.ts';
import { fromShillings } from '../../lib/money.ts';
import { type FieldError, ValidationError } from '../../lib/problem.ts';
import { policyVisibility } from '../access/policy.visibility.ts';
import {
  type IpfLenderTerms,
  type IpfOffer,
  ipfOffersFor,
  ipfPremiumRefusal,
  ipfSchedule,
  type ScheduleLine,
} from '../reference/ipf-terms.ts';
import { IPF_RULES } from './ipf-state.ts';
import { offeredLenders } from './lenders.ts';
import { requireFinanceOffered } from './offered.ts';

/**
 * `POST /ipf/quote`, GraphQL `ipfQuote` (docs/premium-finance.md "Premium finance: quote, lenders and loans"): every offer of the
 * panel for a premium, each with its schedule from a start date. The premium is sent (whole shillings) or read from a
 * policy pending payment that the caller may see (its gross premium). Every figure comes from reference/ipf-terms.ts,
 * the arithmetic of the motor quote's `ipf_offers`; nothing is stored.
 */

export interface IpfQuoteInput {
  premium?: number | null;
  policyUuid?: string | null;
  lenderId?: number | null;
  tenorMonths?: number | null;
  startDate?: string | null;
}

export interface QuotedIpfOffer extends IpfOffer {
  schedule: ScheduleLine[];
}

export interface IpfQuote {
  premiumMinor: bigint;
  startDate: string;
  offers: QuotedIpfOffer[];
  /** Why nothing is offered (null when something is). */
  reason: string | null;
}

/** The largest premium a quote takes (KES 1 billion): beyond any policy, and far inside exact arithmetic. */
const MAX_PREMIUM = 1_000_000_000;
/** Shillings to the cent (a premium may carry cents: docs/api-conventions.md "Money"), so at least KES 0.01. */
const PREMIUM_RULE = `an amount in shillings from 0.01 to ${MAX_PREMIUM.toLocaleString('en')}`;
const TENOR_RULE = `a whole number of months from ${IPF_RULES.minTenorMonths} to ${IPF_RULES.maxTenorMonths}`;

/** The input's own checks, before anything is read: all of them at once. */
function checkInput(input: IpfQuoteInput, today: string): { startDate: string } {
  const errors: FieldError[] = [];
  const hasPremium = input.premium != null;
  const hasPolicy = input.policyUuid != null && input.policyUuid !== '';
  if (hasPremium === hasPolicy) {
    // Neither or both: the pair is refused under premium, the field a caller most often means to send.
    errors.push({
      field: 'input.premium',
      message: hasPremium
        ? 'send premium or policy, not both'
        : 'send premium (whole shillings) or policy (the uuid of a policy pending payment)',
    });
  } else if (hasPremium) {
    const code = boundsCode(input.premium!, { min: 0.01, max: MAX_PREMIUM });
    if (code)
      errors.push({
        field: 'input.premium',
        code,
        message: PREMIUM_RULE,
      });
  }
  const t = input.tenorMonths;
  const tenorCode =
    t == null ? null : boundsCode(t, { whole: true, min: IPF_RULES.minTenorMonths, max: IPF_RULES.maxTenorMonths });
  if (tenorCode) errors.push({ field: 'input.tenorMonths', code: tenorCode, message: TENOR_RULE });
  if (input.startDate != null && !isYmd(input.startDate))
    errors.push({ field: 'input.startDate', code: 'invalid_value', message: YMD_MESSAGE });
  if (errors.length) throw new ValidationError(errors);
  // The deposit is due the day the agreement is signed: a schedule never starts in the past.
  return { startDate: input.startDate && input.startDate > today ? input.startDate : today };
}

/** The panel narrowed to the chosen lender and tenor; a lender or tenor the panel does not have is refused. */
function chosenLenders(panel: IpfLenderTerms[], input: IpfQuoteInput): IpfLenderTerms[] {
  let lenders = panel;
  if (input.lenderId != null) {
    lenders = panel.filter((l) => l.id === input.lenderId);
    if (!lenders.length)
      throw new ValidationError([{ field: 'input.lenderId', message: 'not a lender on the panel (GET /ipf/lenders)' }]);
  }
  const months = input.tenorMonths;
  if (months == null) return lenders;
  lenders = lenders
    .map((l) => ({ ...l, tenors: l.tenors.filter((x) => x.months === months) }))
    .filter((l) => l.tenors.length);
  if (lenders.length || !panel.length) return lenders;
  const message =
    input.lenderId != null
      ? `${panel.find((l) => l.id === input.lenderId)!.name} does not offer ${months} months`
      : `No lender on the panel offers ${months} months`;
  throw new ValidationError([{ field: 'input.tenorMonths', message }]);
}

/** The premium to price: as sent, or the gross premium of a visible policy pending payment. */
async function premiumOf(ctx: Context, input: IpfQuoteInput): Promise<{ premiumMinor: bigint; eligible: boolean }> {
  if (input.premium != null) return { premiumMinor: fromShillings(input.premium), eligible: true };
  const uuid = input.policyUuid!;
  const policy = isUuid(uuid)
    ? await ctx.tx((tx) =>
        tx.policy.findFirst({
          where: { AND: [{ uuid }, policyVisibility(ctx.principal)] },
          select: {
            status: true,
            totalMinor: true,
            motorProduct: { select: { ipfEligible: true } },
            coverProduct: { select: { ipfEligible: true } },
          },
        }),
      )
    : null;
  if (!policy) throw new ValidationError([{ field: 'input.policyUuid', message: 'no such policy' }]);
  if (policy.status !== 'pending_payment')
    throw new ValidationError([{ field: 'input.policyUuid', message: `${policy.status}, not pending payment` }]);
  return {
    premiumMinor: policy.totalMinor,
    eligible: (policy.motorProduct ?? policy.coverProduct)?.ipfEligible ?? false,
  };
}

function reasonFor(premiumMinor: bigint, lenders: IpfLenderTerms[]): string {
  if (!lenders.length) return 'No premium-finance lender is on the panel';
  const refusals = lenders.map((l) => ipfPremiumRefusal(premiumMinor, l)).filter((r): r is string => r !== null);
  return refusals.length ? refusals.join('; ') : 'No lender on the panel finances this premium';
}

export async function ipfQuote(ctx: Context, input: IpfQuoteInput): Promise<IpfQuote> {
  requireFinanceOffered(ctx.principal!);
  const { startDate } = checkInput(input, todayNairobi());
  const lenders = chosenLenders(await offeredLenders(ctx), input);
  const { premiumMinor, eligible } = await premiumOf(ctx, input);
  if (!eligible)
    return {
      premiumMinor,
      startDate,
      offers: [],
      reason: 'This insurer does not accept premium finance for this cover',
    };
  const offers = ipfOffersFor(premiumMinor, lenders).map((o) => ({ ...o, schedule: ipfSchedule(o, startDate) }));
  return { premiumMinor, startDate, offers, reason: offers.length ? null : reasonFor(premiumMinor, lenders) };
}
