import { randomUUID } from 'node:crypto';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Prisma, Tx } from '../../../db/client.ts';
import { addDays, annualEnd, fromDbDate, todayNairobi, toDbDate } from '../../../lib/dates.ts';
import { normaliseRegNo } from '../../../lib/identifiers.ts';
import { fromShillings } from '../../../lib/money.ts';
import { DomainRuleError, type FieldError, ValidationError } from '../../../lib/problem.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { type MotorRisk, noQuote, priceRisk } from '../../motor/quote.service.ts';
import { splitInstalments } from '../../motor/rating.ts';
import { isMotor, type MotorPolicy } from '../../motor/motor-policy.ts';
import { policyService } from '../policy.service.ts';
import { type CoverRated, rateInsured } from './cover.ts';
import { type LevyLine, type Period, periodDays, periodPremium } from '../proration.ts';
import { levyTable } from '../../reference/reference.service.ts';
import {
  assertRenewable,
  RENEWAL_RULES,
  type RenewalFigures,
  RenewalStateError,
  type RenewalVehicleInput,
} from './shared.ts';

type QuotedPolicy = Prisma.PolicyGetPayload<{
  include: { renewal: true; vehicles: true; risks: true; premiumItems: true };
}>;
type Vehicle = QuotedPolicy['vehicles'][number];

/** The vehicles priced on current rates, with the product terms the quote carries. */
interface Rated {
  productId: number | null;
  productVersion: number;
  rateBps: number | null;
  maxParts: number;
  vehicles: RenewalFigures['vehicles'];
  /** Each premium item's new annual basic. */
  basics: bigint[];
}

interface Totals {
  basicMinor: bigint;
  levies: LevyLine[];
  taxesMinor: bigint;
  totalMinor: bigint;
}

/** Prices the next annual period on current rates and stores the quote (status quoted, valid RENEWAL_RULES.quoteValidDays). */
export async function quote(ctx: Context, policyUuid: string, input: { vehicles?: RenewalVehicleInput[] | null }) {
  const p = ctx.principal!;
  const actor = requireAbility(p, 'policies.create');
  const base = await policyService.get(ctx, policyUuid);
  const overrides = validateVehicles(input.vehicles);
  const today = todayNairobi();
  return ctx.tx(async (tx) => {
    const { policy, live } = await loadRenewable(tx, base.id, overrides, today);
    const start = addDays(fromDbDate(policy.endDate), 1);
    const period = { start, end: annualEnd(start) };
    const rated: Rated | CoverRated = isMotor(policy)
      ? await rateVehicles(ctx, tx, policy, live, overrides, period)
      : await rateInsured(ctx, tx, policy, period);
    const totals = await priceLevies(tx, rated.basics);
    const q = await tx.renewalQuote.create({
      data: {
        tenantId: p.tenant.id,
        uuid: randomUUID(),
        policyId: policy.id,
        startDate: toDbDate(period.start),
        endDate: toDbDate(period.end),
        productVersion: rated.productVersion,
        basicMinor: totals.basicMinor,
        taxesMinor: totals.taxesMinor,
        totalMinor: totals.totalMinor,
        figures: figuresFor(policy, rated, totals) as never,
        validUntil: toDbDate(addDays(today, RENEWAL_RULES.quoteValidDays)),
        createdByUserId: actor.userId,
      },
    });
    await recordAudit(ctx, tx, p.tenant.id, {
      action: 'policy.renewal_quoted',
      entityType: 'policy',
      entityId: policy.uuid,
      changes: {
        renewal_quote_uuid: q.uuid,
        start_date: period.start,
        end_date: period.end,
        total_minor: totals.totalMinor.toString(),
        product_version: rated.productVersion,
      },
    });
    return q;
  });
}

/** New sums insured by registration; 422 naming each bad entry. */
function validateVehicles(vehicles: RenewalVehicleInput[] | null | undefined): Map<string, bigint> {
  const overrides = new Map<string, bigint>();
  if (vehicles == null) return overrides;
  const errors: FieldError[] = [];
  if (!Array.isArray(vehicles)) throw new ValidationError([{ field: 'vehicles', message: 'a list of {regno, value}' }]);
  vehicles.forEach((v, i) => {
    const reg = typeof v?.regNo === 'string' ? normaliseRegNo(v.regNo) : null;
    if (!reg) errors.push({ field: `vehicles.${i}.regno`, message: 'a registration on this policy' });
    const value = v?.value;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 1_000_000_000) {
      errors.push({
        field: `vehicles.${i}.value`,
        message: 'the new sum insured, a positive amount in whole shillings',
      });
    } else if (reg) {
      if (overrides.has(reg)) errors.push({ field: `vehicles.${i}.regno`, message: 'listed twice' });
      overrides.set(reg, fromShillings(value));
    }
  });
  if (errors.length) throw new ValidationError(errors);
  return overrides;
}

/**
 * The policy with its vehicles (or insured) and premium items, renewable, with each override naming a vehicle on
 * cover (a medical or standard policy takes none).
 */
async function loadRenewable(tx: Tx, policyId: number, overrides: Map<string, bigint>, today: string) {
  const policy = await tx.policy.findUniqueOrThrow({
    where: { id: policyId },
    include: {
      renewal: true,
      vehicles: { orderBy: { id: 'asc' } },
      risks: { orderBy: { id: 'asc' } },
      premiumItems: { orderBy: { id: 'asc' } },
    },
  });
  assertRenewable(policy, today);
  if (!isMotor(policy)) {
    if (overrides.size) throw new ValidationError([{ field: 'vehicles', message: 'this policy has no vehicles' }]);
    return { policy, live: [] };
  }
  const live = policy.vehicles.filter((v) => v.status === 'active');
  const errors: FieldError[] = [];
  [...overrides.keys()].forEach((reg, i) => {
    if (!live.some((v) => v.regNo === reg))
      errors.push({ field: `vehicles.${i}.regno`, message: `${reg} is not a vehicle on cover under this policy` });
  });
  if (errors.length) throw new ValidationError(errors);
  if (!live.length) throw new RenewalStateError(`Policy ${policy.policyNo} has no vehicle on cover`);
  return { policy, live };
}

function renewalRisk(
  policy: MotorPolicy<QuotedPolicy>,
  v: Vehicle,
  valueMinor: bigint | null,
  period: Period,
): MotorRisk {
  return {
    kind: policy.vehicleClass === 'motorcycle' ? 'motorcycle' : 'motor',
    classLabel: policy.vehicleClass,
    coverage: v.coverage ?? 'Private',
    scopeLabel: policy.coverType,
    vehicleClass: policy.vehicleClass,
    coverType: policy.coverType,
    coverPeriod: 'annual',
    days: periodDays(period),
    startDate: period.start,
    endDate: period.end,
    year: v.yearOfManufacture,
    valueMinor,
    tonnage: v.tonnesMilli == null ? null : v.tonnesMilli / 1000,
    pll: v.pll ?? 0,
    insurerIds: [policy.insurerId],
  };
}

/** Each vehicle on cover priced with the policy's insurer (its product preferred), beside its expiring premium. */
async function rateVehicles(
  ctx: Context,
  tx: Tx,
  policy: MotorPolicy<QuotedPolicy>,
  live: Vehicle[],
  overrides: Map<string, bigint>,
  period: Period,
): Promise<Rated> {
  const rated: Rated = { productId: null, productVersion: 0, rateBps: null, maxParts: 4, vehicles: [], basics: [] };
  for (const v of live) {
    const valueMinor = overrides.get(v.regNo) ?? v.valueMinor;
    const risk = renewalRisk(policy, v, valueMinor, period);
    const { options, refusals } = await priceRisk(ctx, tx, risk);
    const option = options.find((o) => o.productId === policy.motorProductId) ?? options[0];
    if (!option) {
      if (refusals.length) throw new DomainRuleError(`${v.regNo}: ${refusals.join('; ')}`);
      throw noQuote(risk, refusals);
    }
    rated.productId ??= option.productId;
    rated.productVersion = option.productVersion;
    rated.rateBps ??= option.rateBps;
    rated.maxParts = Math.min(rated.maxParts, option.instalments.length || 1);
    const items = policy.premiumItems.filter(
      (it) => it.vehicleId === v.id && it.endedByEndorsementId == null && it.endedByCancellationId == null,
    );
    const previous = items.at(-1)?.annualBasicMinor ?? (live.length === 1 ? policy.basicMinor : 0n);
    rated.vehicles.push({
      vehicleId: v.id,
      regNo: v.regNo,
      valueMinor: valueMinor?.toString() ?? null,
      previousAnnualBasicMinor: previous.toString(),
      renewalAnnualBasicMinor: option.basicMinor.toString(),
    });
    rated.basics.push(option.basicMinor);
  }
  return rated;
}

/** Percent levies term by term on +U(B, start) = B for each premium item; flat levies once per policy. */
async function priceLevies(tx: Tx, basics: bigint[]): Promise<Totals> {
  return periodPremium(basics, await levyTable(tx));
}

function figuresFor(policy: QuotedPolicy, rated: Rated | CoverRated, totals: Totals): RenewalFigures {
  const cover = 'insured' in rated ? rated : null;
  return {
    productId: rated.productId!,
    productKind: cover ? 'cover' : 'motor',
    ...(cover ? { insured: cover.insured, policyPremium: cover.policyPremium } : {}),
    basedOnRevision: policy.revision,
    rateBps: rated.rateBps,
    vehicles: 'vehicles' in rated ? rated.vehicles : [],
    levies: totals.levies.map((l) => ({ code: l.code, name: l.name, amountMinor: l.amountMinor.toString() })),
    instalments: Array.from({ length: rated.maxParts }, (_, i) => ({
      parts: i + 1,
      amountsMinor: splitInstalments(totals.totalMinor, i + 1).map(String),
    })),
    previous: {
      basicMinor: policy.basicMinor.toString(),
      taxesMinor: policy.taxesMinor.toString(),
      totalMinor: policy.totalMinor.toString(),
    },
  };
}
