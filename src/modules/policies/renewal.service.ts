import { requireAbility } from '../../auth/principal.ts';
import type { Context } from '../../context.ts';
import type { Prisma, Tx } from '../../db/client.ts';
import { enforceBindLimit } from '../../http/rate-limits.ts';
import { addDays, annualEnd, fromDbDate, todayNairobi, toDbDate } from '../../lib/dates.ts';
import { normaliseRegNo, isUuid } from '../../lib/identifiers.ts';
import { fromShillings } from '../../lib/money.ts';
import {
  AppError,
  type FieldError,
  notFound,
  ValidationError,
  InvalidStateError,
  PreviewExpiredError,
  PreviewStaleError,
} from '../../lib/problem.ts';
import { randomUUID } from 'node:crypto';
import { recordAudit } from '../audit/audit.service.ts';
import { DomainRuleError, PriceChangedError } from '../motor/bind.service.ts';
import { type MotorRisk, noQuote, priceRisk } from '../motor/quote.service.ts';
import { splitInstalments } from '../motor/rating.ts';
import { PREMIUM_TOLERANCE_MINOR, PremiumMismatchError } from '../motor/save-quote.service.ts';
import { createPolicy, nextPolicyNumbers } from './policy-factory.ts';
import { policyVisibility } from './policy.policy.ts';
import { findCoverClash, policyService } from './policy.service.ts';
import { POLICY_RULES } from './policy-state.ts';
import { flatLevies, type LevyLine, periodDays, priceTerms } from './proration.ts';
import { levyTable } from '../reference/reference.service.ts';

/**
 * Renewal (README "Renewal"): a quote for the next annual period priced on the insurer's CURRENT rates, with the
 * expiring period's figures beside it; a bind of that quote into a new policy linked to the old one. The old policy
 * becomes `renewed` only when the renewal's first instalment is paid (payment-hooks.ts).
 */
export const RENEWAL_RULES = {
  /** A renewal quote can be bound until the end of the day this many days after it was given (72 hours). */
  quoteValidDays: POLICY_RULES.previewValidHours / 24,
  /** renewals-due: the largest window a caller may ask for. */
  maxDueWithinDays: 120,
} as const;

export class RenewalStateError extends InvalidStateError {}
export class RenewalQuoteExpiredError extends PreviewExpiredError {}
export class RenewalQuoteStaleError extends PreviewStaleError {}

export interface RenewalVehicleInput {
  regNo?: string | null;
  value?: number | null;
}

export interface RenewPolicyInput {
  renewalQuoteUuid?: string | null;
  premium?: number | null;
  premiumInstalments?: number | null;
}

/** What a renewal quote stores in `figures` (cents as decimal strings). */
export interface RenewalFigures {
  productId: number;
  basedOnRevision: number;
  rateBps: number | null;
  vehicles: {
    vehicleId: number;
    regNo: string;
    valueMinor: string | null;
    previousAnnualBasicMinor: string;
    renewalAnnualBasicMinor: string;
  }[];
  levies: { code: string; name: string; amountMinor: string }[];
  instalments: { parts: number; amountsMinor: string[] }[];
  previous: { basicMinor: string; taxesMinor: string; totalMinor: string };
}

export const figuresOf = (q: { figures: unknown }) => q.figures as RenewalFigures;

type PolicyRow = Prisma.PolicyGetPayload<{ include: { renewal: true } }>;

/** Active, or expired within the reinstatement window, and not renewed yet. */
function assertRenewable(policy: PolicyRow, today: string): void {
  if (policy.renewal)
    throw new RenewalStateError(`Policy ${policy.policyNo} is already renewed by ${policy.renewal.policyNo}`);
  if (policy.status === 'active') return;
  if (policy.status === 'expired' && addDays(fromDbDate(policy.endDate), POLICY_RULES.reinstatementDays) >= today)
    return;
  throw new RenewalStateError(
    policy.status === 'expired'
      ? `Policy ${policy.policyNo} expired more than ${POLICY_RULES.reinstatementDays} days ago; bind a new policy`
      : `A ${policy.status} policy cannot be renewed`,
  );
}

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

export const renewalService = {
  /** Prices the next annual period on current rates and stores the quote (status quoted, valid RENEWAL_RULES.quoteValidDays). */
  async quote(ctx: Context, policyUuid: string, input: { vehicles?: RenewalVehicleInput[] | null }) {
    const p = ctx.principal!;
    const actor = requireAbility(p, 'policies.create');
    const base = await policyService.get(ctx, policyUuid);
    const overrides = validateVehicles(input.vehicles);
    const today = todayNairobi();
    return ctx.tx(async (tx) => {
      const policy = await tx.policy.findUniqueOrThrow({
        where: { id: base.id },
        include: { renewal: true, vehicles: { orderBy: { id: 'asc' } }, premiumItems: { orderBy: { id: 'asc' } } },
      });
      assertRenewable(policy, today);
      const live = policy.vehicles.filter((v) => v.status === 'active');
      const errors: FieldError[] = [];
      [...overrides.keys()].forEach((reg, i) => {
        if (!live.some((v) => v.regNo === reg))
          errors.push({ field: `vehicles.${i}.regno`, message: `${reg} is not a vehicle on cover under this policy` });
      });
      if (errors.length) throw new ValidationError(errors);
      if (!live.length) throw new RenewalStateError(`Policy ${policy.policyNo} has no vehicle on cover`);

      const start = addDays(fromDbDate(policy.endDate), 1);
      const end = annualEnd(start);
      const period = { start, end };
      let productId: number | null = null;
      let productVersion = 0;
      let rateBps: number | null = null;
      let maxParts = 4;
      const vehicles: RenewalFigures['vehicles'] = [];
      for (const v of live) {
        const valueMinor = overrides.get(v.regNo) ?? v.valueMinor;
        const risk: MotorRisk = {
          kind: policy.vehicleClass === 'motorcycle' ? 'motorcycle' : 'motor',
          classLabel: policy.vehicleClass,
          coverage: v.coverage ?? 'Private',
          scopeLabel: policy.coverType,
          vehicleClass: policy.vehicleClass,
          coverType: policy.coverType,
          coverPeriod: 'annual',
          days: periodDays(period),
          startDate: start,
          endDate: end,
          year: v.yearOfManufacture,
          valueMinor,
          tonnage: v.tonnesMilli == null ? null : v.tonnesMilli / 1000,
          pll: v.pll ?? 0,
          insurerIds: [policy.insurerId],
        };
        const { options, refusals } = await priceRisk(ctx, tx, risk);
        const option = options.find((o) => o.productId === policy.motorProductId) ?? options[0];
        if (!option) {
          if (refusals.length) throw new DomainRuleError(`${v.regNo}: ${refusals.join('; ')}`);
          throw noQuote(risk, refusals);
        }
        productId ??= option.productId;
        productVersion = option.productVersion;
        rateBps ??= option.rateBps;
        maxParts = Math.min(maxParts, option.instalments.length || 1);
        const items = policy.premiumItems.filter(
          (it) => it.vehicleId === v.id && it.endedByEndorsementId == null && it.endedByCancellationId == null,
        );
        const previous = items.at(-1)?.annualBasicMinor ?? (live.length === 1 ? policy.basicMinor : 0n);
        vehicles.push({
          vehicleId: v.id,
          regNo: v.regNo,
          valueMinor: valueMinor?.toString() ?? null,
          previousAnnualBasicMinor: previous.toString(),
          renewalAnnualBasicMinor: option.basicMinor.toString(),
        });
      }
      // Percent levies term by term on +U(B, start) = B for each vehicle; flat levies once per policy.
      const table = await levyTable(tx);
      const priced = priceTerms(
        period,
        vehicles.map((v) => ({ annualBasicMinor: BigInt(v.renewalAnnualBasicMinor), at: start, sign: 1 as const })),
        table,
      );
      const levies: LevyLine[] = [...priced.levies, ...flatLevies(table)];
      const taxesMinor = levies.reduce((s, l) => s + l.amountMinor, 0n);
      const totalMinor = priced.basicMinor + taxesMinor;
      const figures: RenewalFigures = {
        productId: productId!,
        basedOnRevision: policy.revision,
        rateBps,
        vehicles,
        levies: levies.map((l) => ({ code: l.code, name: l.name, amountMinor: l.amountMinor.toString() })),
        instalments: Array.from({ length: maxParts }, (_, i) => ({
          parts: i + 1,
          amountsMinor: splitInstalments(totalMinor, i + 1).map(String),
        })),
        previous: {
          basicMinor: policy.basicMinor.toString(),
          taxesMinor: policy.taxesMinor.toString(),
          totalMinor: policy.totalMinor.toString(),
        },
      };
      const quote = await tx.renewalQuote.create({
        data: {
          tenantId: p.tenant.id,
          uuid: randomUUID(),
          policyId: policy.id,
          startDate: toDbDate(start),
          endDate: toDbDate(end),
          productVersion,
          basicMinor: priced.basicMinor,
          taxesMinor,
          totalMinor,
          figures: figures as never,
          validUntil: toDbDate(addDays(today, RENEWAL_RULES.quoteValidDays)),
          createdByUserId: actor.userId,
        },
      });
      await recordAudit(ctx, tx, p.tenant.id, {
        action: 'policy.renewal_quoted',
        entityType: 'policy',
        entityId: policy.uuid,
        changes: {
          renewal_quote_uuid: quote.uuid,
          start_date: start,
          end_date: end,
          total_minor: totalMinor.toString(),
          product_version: productVersion,
        },
      });
      return quote;
    });
  },

  /** Binds a renewal quote into a new policy (pending_payment, renewalOfId = the old one). */
  async renew(ctx: Context, policyUuid: string, input: RenewPolicyInput) {
    const p = ctx.principal!;
    const actor = requireAbility(p, 'policies.create');
    const errors: FieldError[] = [];
    const quoteUuid = input.renewalQuoteUuid;
    if (!isUuid(quoteUuid)) {
      errors.push({ field: 'renewal_quote_uuid', message: 'the uuid of a renewal quote of this policy' });
    }
    if (
      typeof input.premium !== 'number' ||
      !Number.isFinite(input.premium) ||
      input.premium < 0 ||
      input.premium > 1_000_000_000
    ) {
      errors.push({ field: 'premium', message: "required: the quote's total premium, whole shillings" });
    }
    const instalments = input.premiumInstalments ?? 1;
    if (!Number.isInteger(instalments) || instalments < 1 || instalments > 4)
      errors.push({ field: 'premium_instalments', message: '1–4' });
    if (errors.length) throw new ValidationError(errors);
    const base = await policyService.get(ctx, policyUuid);
    await enforceBindLimit(ctx.app, p);
    const today = todayNairobi();
    return ctx.tx(
      async (tx) => {
        // One renewal bind of a policy at a time.
        await tx.$queryRaw`SELECT id FROM policies WHERE id = ${base.id} FOR UPDATE`;
        const policy = await tx.policy.findUniqueOrThrow({
          where: { id: base.id },
          include: { renewal: true, vehicles: true },
        });
        const quote = await tx.renewalQuote.findFirst({ where: { uuid: quoteUuid!, policyId: policy.id } });
        if (!quote) throw notFound('Renewal quote');
        if (quote.status === 'expired')
          throw new RenewalQuoteExpiredError('This renewal quote has expired; ask for a new one');
        if (quote.status !== 'quoted') throw new RenewalStateError(`This renewal quote is ${quote.status}`);
        assertRenewable(policy, today);
        if (fromDbDate(quote.validUntil) < today)
          throw new RenewalQuoteExpiredError(
            `This renewal quote was valid until ${fromDbDate(quote.validUntil)}; ask for a new one`,
          );
        const figures = figuresOf(quote);
        if (figures.basedOnRevision !== policy.revision)
          throw new RenewalQuoteStaleError('The policy changed since this renewal was quoted; ask for a new one');
        const d = fromShillings(input.premium!) - quote.totalMinor;
        if ((d < 0n ? -d : d) > PREMIUM_TOLERANCE_MINOR) {
          throw new PremiumMismatchError("The premium differs from the renewal quote's total by more than KES 1", [
            {
              insurerId: policy.insurerId,
              basicMinor: quote.basicMinor,
              taxesMinor: quote.taxesMinor,
              totalMinor: quote.totalMinor,
            },
          ]);
        }
        if (instalments > figures.instalments.length) {
          throw new DomainRuleError(
            `The insurer allows at most ${figures.instalments.length} instalment${figures.instalments.length === 1 ? '' : 's'} for this cover`,
          );
        }
        // FOR SHARE holds rate changes off until this bind commits; a version moved since the quote answers price_changed.
        const [current] = await tx.$queryRaw<
          { version: number }[]
        >`SELECT version FROM motor_products WHERE id = ${figures.productId} FOR SHARE`;
        if (current?.version !== quote.productVersion) {
          throw new PriceChangedError(
            `The insurer changed its rates since this renewal was quoted (version ${quote.productVersion} → ${current?.version ?? 'withdrawn'}); ask for a new renewal quote`,
          );
        }
        const start = fromDbDate(quote.startDate);
        const end = fromDbDate(quote.endDate);
        const byId = new Map(policy.vehicles.map((v) => [v.id, v]));
        const vehicles = figures.vehicles.map((fv) => {
          const v = byId.get(fv.vehicleId);
          if (!v || v.status !== 'active')
            throw new RenewalQuoteStaleError(
              "The policy's vehicles changed since this renewal was quoted; ask for a new one",
            );
          return { v, fv };
        });
        const clash = await findCoverClash(
          tx,
          { regNos: vehicles.map((x) => x.v.regNo), from: start, to: end, excludePolicyId: policy.id },
          ctx.principal!,
        );
        if (clash) throw new DomainRuleError(`${clash.regNo} already has cover for these dates (${clash.policyRef})`);

        const numbers = await nextPolicyNumbers(tx, p.tenant.id, today);
        const { policy: renewal } = await createPolicy(
          tx,
          {
            tenantId: p.tenant.id,
            clientId: policy.clientId,
            insurerId: policy.insurerId,
            motorProductId: figures.productId,
            productVersion: quote.productVersion,
            vehicleClass: policy.vehicleClass,
            coverType: policy.coverType,
            coverPeriod: 'annual',
            days: periodDays({ start, end }),
            startDate: start,
            endDate: end,
            paymentMode: 'full',
            instalmentCount: instalments,
            rateBps: figures.rateBps,
            basicMinor: quote.basicMinor,
            taxesMinor: quote.taxesMinor,
            totalMinor: quote.totalMinor,
            limitsOfLiability: policy.limitsOfLiability,
            salesPersonId: policy.salesPersonId,
            createdByUserId: actor.userId,
            createdByApiClientId: p.apiClient.id,
            renewalOfId: policy.id,
            taxes: figures.levies.map((l) => ({ code: l.code, name: l.name, amountMinor: BigInt(l.amountMinor) })),
            vehicles: vehicles.map(({ v, fv }) => ({
              regNo: v.regNo,
              chassisNo: v.chassisNo,
              engineNo: v.engineNo,
              make: v.make,
              model: v.model,
              yearOfManufacture: v.yearOfManufacture,
              valueMinor: fv.valueMinor == null ? null : BigInt(fv.valueMinor),
              bodyType: v.bodyType,
              tonnesMilli: v.tonnesMilli,
              pll: v.pll,
              coverage: v.coverage,
              benefits: v.benefits,
              annualBasicMinor: BigInt(fv.renewalAnnualBasicMinor),
            })),
            initialStatus: { source: 'renewal', reason: `renewal of ${policy.policyNo}`, actorUserId: actor.userId },
          },
          numbers,
        );
        const bound = await tx.renewalQuote.updateMany({
          where: { id: quote.id, status: 'quoted' },
          data: { status: 'bound', newPolicyId: renewal.id },
        });
        if (bound.count !== 1) throw new RenewalStateError('This renewal quote was bound meanwhile');
        await recordAudit(ctx, tx, p.tenant.id, {
          action: 'policy.renewal_bound',
          entityType: 'policy',
          entityId: renewal.uuid,
          changes: {
            policy_no: renewal.policyNo,
            renewal_of: policy.policyNo,
            renewal_quote_uuid: quote.uuid,
            total_minor: quote.totalMinor.toString(),
            instalments,
          },
        });
        return { policy: renewal, renewalOf: policy };
      },
      { timeout: 20_000 },
    );
  },

  /** Where of renewals-due: active, visible, ending within N days of today, no renewal bound. */
  dueWhere(ctx: Context, withinDays: number | null | undefined): Prisma.PolicyWhereInput {
    const n = withinDays ?? POLICY_RULES.renewalNoticeDays;
    if (!Number.isInteger(n) || n < 0 || n > RENEWAL_RULES.maxDueWithinDays) {
      throw new ValidationError([
        { field: 'within_days', message: `an integer from 0 to ${RENEWAL_RULES.maxDueWithinDays}` },
      ]);
    }
    const today = todayNairobi();
    return {
      AND: [
        policyVisibility(ctx.principal),
        {
          status: 'active',
          renewal: { is: null },
          endDate: { gte: toDbDate(today), lte: toDbDate(addDays(today, n)) },
        },
      ],
    };
  },

  due(ctx: Context, withinDays: number | null | undefined, query: Prisma.PolicyFindManyArgs) {
    const where = renewalService.dueWhere(ctx, withinDays);
    return ctx.tx((tx) => tx.policy.findMany({ ...query, where, orderBy: [{ endDate: 'asc' }, { id: 'asc' }] }));
  },
};
