import { requireAbility } from '../../auth/principal.ts';
import type { Context } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { enforceBindLimit } from '../../http/rate-limits.ts';
import { addDays, daysBetween, isYmd, todayNairobi, toDbDate } from '../../lib/dates.ts';
import { newSecret, sha256Hex } from '../../lib/crypto.ts';
import { normaliseRegNo } from '../../lib/identifiers.ts';
import { AppError, type FieldError, ValidationError } from '../../lib/problem.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { type InsuredInput, resolveInsured } from '../clients/client-matching.ts';
import { NOT_OFFERED_TYPES } from './rating.ts';
import { noQuote, normaliseRisk, priceRisk } from './quote.service.ts';
import { createPolicy, nextPolicyNumbers } from '../policies/policy-factory.ts';
import { findCoverClash } from '../policies/policy.service.ts';
import { figuresOff, mismatchError } from './save-quote.service.ts';

/** Business rules a bind must pass (422 domain_rule), documented in the README. */
export const BIND_RULES = {
  /** Cover may start at most this many days ahead. */
  maxDaysAhead: 90,
} as const;

export class DomainRuleError extends AppError {
  constructor(detail: string) {
    super('domain_rule', { detail });
  }
}

export class PriceChangedError extends AppError {
  constructor(detail: string) {
    super('price_changed', { detail });
  }
}

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
}

function validate(input: BindInput): {
  instalments: number;
  paymentMode: 'full' | 'ipf';
  regNo: string;
  days: number | null;
} {
  const errors: FieldError[] = [];
  const pol = input.policy ?? {};
  if (pol.insurerId == null) errors.push({ field: 'policy.insurer_id', message: 'required' });
  if (pol.premium == null)
    errors.push({ field: 'policy.premium', message: 'required (gross premium, whole shillings)' });
  if (!pol.startDate) errors.push({ field: 'policy.start_date', message: 'required, Y-m-d' });
  const paymentMode = (pol.paymentMode ?? 'full').toLowerCase();
  if (paymentMode !== 'full' && paymentMode !== 'ipf')
    errors.push({ field: 'policy.payment_mode', message: 'full or ipf' });
  const instalments = pol.premiumInstalments ?? 1;
  if (!Number.isInteger(instalments) || instalments < 1 || instalments > 4)
    errors.push({ field: 'policy.premium_instalments', message: '1–4' });
  else if (paymentMode === 'ipf' && instalments !== 1)
    errors.push({ field: 'policy.premium_instalments', message: 'premium finance is always one instalment' });
  if (!Array.isArray(input.vehicles) || input.vehicles.length !== 1) {
    errors.push({ field: 'vehicles', message: 'exactly one vehicle per save; add more by endorsement (add_vehicle)' });
  }
  const v = input.vehicles?.[0] ?? {};
  const regNo = v.regNo ? normaliseRegNo(v.regNo) : null;
  if (input.vehicles?.length === 1) {
    if (!regNo) errors.push({ field: 'vehicles.0.regno', message: 'a registration such as KAA 123A' });
    if (v.yom == null) errors.push({ field: 'vehicles.0.yom', message: 'year of manufacture required' });
  }
  // Time on risk without days: the end date sets them.
  let days: number | null = pol.days ?? null;
  if (
    (pol.coverPeriod ?? '').toLowerCase() === 'tor' &&
    days == null &&
    pol.endDate &&
    pol.startDate &&
    isYmd(pol.endDate) &&
    isYmd(pol.startDate)
  ) {
    days = daysBetween(pol.startDate, pol.endDate);
  }
  if (errors.length) throw new ValidationError(errors);
  return { instalments, paymentMode: paymentMode as 'full' | 'ipf', regNo: regNo!, days };
}

export const bindService = {
  async bind(ctx: Context, input: BindInput) {
    const p = ctx.principal!;
    const actor = requireAbility(p, 'policies.create');
    if ((input.policy?.paymentMode ?? '').toLowerCase() === 'ipf' && NOT_OFFERED_TYPES.includes(p.tenant.type)) {
      throw new AppError('ipf_not_offered', {
        detail: 'Premium finance is offered to brokerage and agency organisations only',
      });
    }
    const { instalments, paymentMode, regNo, days } = validate(input);
    const pol = input.policy;
    const vehicle = input.vehicles[0];
    const risk = normaliseRisk(
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
    const today = todayNairobi();
    if (risk.startDate > addDays(today, BIND_RULES.maxDaysAhead)) {
      throw new DomainRuleError(`Cover may start at most ${BIND_RULES.maxDaysAhead} days ahead`);
    }
    await enforceBindLimit(ctx.app, p);

    const saved = await ctx.tx(
      async (tx: Tx) => {
        const { options, refusals } = await priceRisk(ctx, tx, risk);
        const option = options[0];
        if (!option) {
          const insurer = await tx.insurer.findUnique({ where: { id: pol.insurerId! } });
          if (!insurer)
            throw new ValidationError([{ field: 'policy.insurer_id', message: 'no such insurer on your panel' }]);
          // The insurer rates this class but refuses this vehicle (age, value band): a business rule, not a missing quote.
          if (refusals.length) throw new DomainRuleError(refusals.join('; '));
          throw noQuote(risk, refusals);
        }
        if (pol.productVersion != null && pol.productVersion !== option.productVersion) {
          throw new PriceChangedError(
            `${option.insurer.name} changed its rates since this price was given (version ${pol.productVersion} → ${option.productVersion}); quote again`,
          );
        }
        const off = figuresOff(option, { basic: pol.totalBasic, taxes: pol.taxes, total: pol.premium });
        if (off.length)
          throw mismatchError(
            [option],
            `Submitted ${off.join(', ')} ${off.length === 1 ? 'differs' : 'differ'} from the server price by more than KES 1`,
          );
        if (instalments > option.instalments.length) {
          throw new DomainRuleError(
            `${option.insurer.name} allows at most ${option.instalments.length} instalment${option.instalments.length === 1 ? '' : 's'} for this cover`,
          );
        }
        if (paymentMode === 'ipf' && option.ipfReason) throw new DomainRuleError(option.ipfReason);

        const clash = await findCoverClash(
          tx,
          { regNos: [regNo], from: risk.startDate, to: risk.endDate },
          ctx.principal!,
        );
        if (clash) throw new DomainRuleError(`${regNo} already has cover for these dates (${clash.policyRef})`);

        const client = await resolveInsured(ctx, tx, input.client ?? {});
        // Rates changed by a transaction that committed after we priced: refuse rather than bind a stale price. FOR SHARE
        // holds further rate changes off until this bind commits.
        const [current] = await tx.$queryRaw<
          { version: number }[]
        >`SELECT version FROM motor_products WHERE id = ${option.productId} FOR SHARE`;
        if (current?.version !== option.productVersion) {
          throw new PriceChangedError(`${option.insurer.name} changed its rates during this save; quote again`);
        }
        const numbers = await nextPolicyNumbers(tx, p.tenant.id, today);
        const policyNo = numbers.policyNo;
        const clientRow = await tx.client.findUniqueOrThrow({ where: { id: client.id } });
        const { policy, debitNotes } = await createPolicy(
          tx,
          {
            tenantId: p.tenant.id,
            clientId: client.id,
            insurerId: option.insurer.id,
            motorProductId: option.productId,
            productVersion: option.productVersion,
            vehicleClass: risk.vehicleClass,
            coverType: risk.coverType,
            coverPeriod: risk.coverPeriod,
            days: risk.days,
            startDate: risk.startDate,
            endDate: risk.endDate,
            paymentMode,
            instalmentCount: instalments,
            rateBps: option.rateBps,
            basicMinor: option.basicMinor,
            taxesMinor: option.taxesMinor,
            totalMinor: option.totalMinor,
            limitsOfLiability: pol.limitsOfLiability,
            salesPersonId: clientRow.salesPersonId ?? (actor.role === 'agent' ? actor.userId : null),
            createdByUserId: actor.userId,
            createdByApiClientId: p.apiClient.id,
            taxes: option.taxes,
            vehicles: [
              {
                regNo,
                chassisNo: vehicle.chassisNo?.trim().toUpperCase() || null,
                engineNo: vehicle.engineNo?.trim().toUpperCase() || null,
                make: vehicle.make ?? null,
                model: vehicle.model ?? null,
                yearOfManufacture: risk.year,
                valueMinor: risk.valueMinor,
                bodyType: vehicle.bodyType ?? null,
                tonnesMilli: risk.tonnage == null ? null : Math.round(risk.tonnage * 1000),
                pll: risk.pll || null,
                coverage: risk.coverage,
                benefits: vehicle.benefits,
                // The vehicle's annual basic premium (PLL included) on cover for the whole period.
                annualBasicMinor: option.basicMinor,
              },
            ],
            initialStatus: { source: 'bind', actorUserId: actor.userId },
          },
          numbers,
        );
        // Client-area credentials: a key only when the client has none yet; existing keys keep working.
        const hasKey = await tx.clientKey.findFirst({ where: { clientId: client.id, revokedAt: null } });
        let clientKey: string | null = null;
        if (!hasKey) {
          clientKey = newSecret('bck');
          await tx.clientKey.create({
            data: { tenantId: p.tenant.id, clientId: client.id, keyHash: sha256Hex(clientKey), kind: 'policy' },
          });
        }
        await recordAudit(ctx, tx, p.tenant.id, {
          action: 'policy.bound',
          entityType: 'policy',
          entityId: policy.uuid,
          changes: {
            policy_no: policyNo,
            client_no: client.clientNo,
            insurer_id: option.insurer.id,
            total_minor: option.totalMinor.toString(),
            instalments,
            payment_mode: paymentMode,
          },
        });
        return { policy, clientNo: client.clientNo, clientKey, debitNotes, option };
      },
      { timeout: 20_000 },
    );
    return saved;
  },
};
