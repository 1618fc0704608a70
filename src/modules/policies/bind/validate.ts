import type { Principal } from '../../../auth/principal.ts';
import { addDays, daysBetween, isYmd, YMD_MESSAGE } from '../../../lib/dates.ts';
import { MAX_SHILLINGS } from '../../../lib/money.ts';
import { normaliseRegNo } from '../../../lib/identifiers.ts';
import { AppError, DomainRuleError, type FieldError, ValidationError } from '../../../lib/problem.ts';
import type { InsuredInput } from '../../clients/client-matching.ts';
import { type MotorRisk, normaliseRisk } from '../../motor/quote.service.ts';
import { NOT_OFFERED_TYPES } from '../../motor/rating.ts';

/** A bind's input and the checks that need no database: fields, premium finance on offer, the start date's reach. */

/** Business rules a bind must pass (422 domain_rule), documented in docs/motor-and-clients.md ("Binding"). */
export const BIND_RULES = {
  /** Cover may start at most this many days ahead. */
  maxDaysAhead: 90,
  /** A vehicle's chassis and engine numbers, make, model and body type: at most this many characters each. */
  vehicleTextMax: 200,
} as const;

export interface BindVehicleInput {
  regNo?: string | null;
  chassisNo?: string | null;
  engineNo?: string | null;
  make?: string | null;
  model?: string | null;
  yom?: number | null;
  value?: number | null;
  coverage?: string | null;
  bodyType?: string | null;
  tonnage?: number | null;
  pll?: number | null;
  benefits?: unknown;
}

export interface BindInput {
  client: InsuredInput;
  policy: {
    startDate?: string | null;
    endDate?: string | null;
    insurerId?: number | null;
    class?: string | null;
    coverage?: string | null;
    scope?: string | null;
    coverPeriod?: string | null;
    days?: number | null;
    totalBasic?: number | null;
    taxes?: number | null;
    premium?: number | null;
    premiumInstalments?: number | null;
    paymentMode?: string | null;
    limitsOfLiability?: unknown;
    /** Rating version the caller priced on (from a quote option); a newer version answers price_changed. */
    productVersion?: number | null;
  };
  vehicles: BindVehicleInput[];
  /** The prospect this policy is for (moves it to won; docs/motor-and-clients.md "Prospects"). */
  prospectUuid?: string | null;
}

export interface ValidBind {
  instalments: number;
  paymentMode: 'full' | 'ipf';
  regNo: string;
  days: number | null;
}

/** Premium finance is for brokerages and agencies: refused before anything else is checked. */
export function assertIpfOffered(p: Principal, input: { policy?: { paymentMode?: string | null } | null }): void {
  if ((input.policy?.paymentMode ?? '').toLowerCase() === 'ipf' && NOT_OFFERED_TYPES.includes(p.tenant.type)) {
    throw new AppError('ipf_not_offered', {
      detail: 'Premium finance is offered to brokerage and agency organisations only',
    });
  }
}

/** How the premium is paid (policy.payment_mode, policy.premium_instalments), its field errors added to `errors`. */
export function paymentPlan(
  pol: { paymentMode?: string | null; premiumInstalments?: number | null },
  errors: FieldError[],
): Pick<ValidBind, 'instalments' | 'paymentMode'> {
  const paymentMode = String(pol.paymentMode ?? 'full').toLowerCase();
  if (paymentMode !== 'full' && paymentMode !== 'ipf')
    errors.push({ field: 'policy.payment_mode', message: 'full or ipf' });
  const instalments = pol.premiumInstalments ?? 1;
  if (!Number.isInteger(instalments) || instalments < 1 || instalments > 4)
    errors.push({ field: 'policy.premium_instalments', message: '1–4' });
  else if (paymentMode === 'ipf' && instalments !== 1)
    errors.push({ field: 'policy.premium_instalments', message: 'premium finance is always one instalment' });
  return { instalments, paymentMode: paymentMode === 'ipf' ? 'ipf' : 'full' };
}

/**
 * What every line's bind checks of its policy fields before any rule runs (motor here, the cover lines in
 * cover-bind.ts): the insurer, the start date (when `startRequired`), and the figures the caller agrees to (premium,
 * and the basic and levies when shown) as whole shillings from 0 to the Money bound, each refusal with its code
 * (docs/api-conventions.md "Field refusals are data").
 */
export function policyFieldErrors(
  pol: { insurerId?: number | null; startDate?: string | null; premium?: number | null } & AgreedFigures,
  startRequired: boolean,
): FieldError[] {
  const errors: FieldError[] = [];
  if (pol.insurerId == null)
    errors.push({ field: 'policy.insurer_id', code: 'required', message: 'required, an insurer id' });
  else if (!Number.isInteger(pol.insurerId))
    errors.push({ field: 'policy.insurer_id', code: 'not_a_whole_number', message: 'must be a whole number' });
  if (pol.premium == null)
    errors.push({
      field: 'policy.premium',
      code: 'required',
      message: 'required (gross premium, whole shillings)',
    });
  for (const [field, v] of [
    ['policy.premium', pol.premium],
    ['policy.total_basic', pol.totalBasic],
    ['policy.taxes', pol.taxes],
  ] as const) {
    if (v == null) continue;
    if (!Number.isFinite(v)) errors.push({ field, code: 'not_a_number', message: 'must be a number' });
    else if (v < 0) errors.push({ field, code: 'too_small', message: 'must be at least 0' });
    else if (v > MAX_SHILLINGS) errors.push({ field, code: 'too_large', message: `must be at most ${MAX_SHILLINGS}` });
  }
  if (startRequired && !pol.startDate)
    errors.push({ field: 'policy.start_date', code: 'required', message: `required, ${YMD_MESSAGE}` });
  else if (pol.startDate != null && !isYmd(pol.startDate))
    errors.push({ field: 'policy.start_date', code: 'invalid_value', message: YMD_MESSAGE });
  return errors;
}

/** The figures a bind agrees to, whole shillings: checked against the server price when sent. */
interface AgreedFigures {
  totalBasic?: number | null;
  taxes?: number | null;
}

export function validate(input: BindInput): ValidBind {
  const pol = input.policy ?? {};
  const errors = policyFieldErrors(pol, true);
  const { instalments, paymentMode } = paymentPlan(pol, errors);
  if (!Array.isArray(input.vehicles) || input.vehicles.length !== 1) {
    errors.push({ field: 'vehicles', message: 'exactly one vehicle per save; add more by endorsement (add_vehicle)' });
  }
  const v = input.vehicles?.[0] ?? {};
  const regNo = v.regNo ? normaliseRegNo(v.regNo) : null;
  if (input.vehicles?.length === 1) {
    if (!regNo) errors.push({ field: 'vehicles.0.regno', message: 'a registration such as KAA 123A' });
    if (v.yom == null)
      errors.push({ field: 'vehicles.0.yom', code: 'required', message: 'year of manufacture required' });
    // The vehicle's particulars, kept as sent (the registry's certificate prints them): short texts, as every name is.
    for (const [name, text] of [
      ['chassis_no', v.chassisNo],
      ['engine_no', v.engineNo],
      ['make', v.make],
      ['model', v.model],
      ['body_type', v.bodyType],
    ] as const)
      if (typeof text === 'string' && text.length > BIND_RULES.vehicleTextMax)
        errors.push({
          field: `vehicles.0.${name}`,
          code: 'too_large',
          message: `must be at most ${BIND_RULES.vehicleTextMax} characters`,
        });
  }
  const days = torDays(pol);
  if (errors.length) throw new ValidationError(errors);
  return { instalments, paymentMode, regNo: regNo!, days };
}

/** Time on risk without days: the end date sets them. */
function torDays(pol: BindInput['policy']): number | null {
  const days: number | null = pol.days ?? null;
  if (
    (pol.coverPeriod ?? '').toLowerCase() === 'tor' &&
    days == null &&
    pol.endDate &&
    pol.startDate &&
    isYmd(pol.endDate) &&
    isYmd(pol.startDate)
  ) {
    return daysBetween(pol.startDate, pol.endDate);
  }
  return days;
}

/** The risk to price, as a quote would read it, field errors under `policy.`. */
export function riskOf(input: BindInput, days: number | null): MotorRisk {
  const pol = input.policy;
  const vehicle = input.vehicles[0];
  return normaliseRisk(
    {
      class: pol.class,
      coverage: pol.coverage ?? vehicle.coverage,
      scope: pol.scope,
      coverPeriod: pol.coverPeriod,
      days,
      year: vehicle.yom,
      value: vehicle.value,
      tonnage: vehicle.tonnage,
      pll: vehicle.pll,
      insurerIds: [pol.insurerId!],
      startDate: pol.startDate,
    },
    { prefix: 'policy' },
  );
}

export function assertStartWithinReach(risk: { startDate: string }, today: string): void {
  if (risk.startDate > addDays(today, BIND_RULES.maxDaysAhead)) {
    throw new DomainRuleError(`Cover may start at most ${BIND_RULES.maxDaysAhead} days ahead`);
  }
}
