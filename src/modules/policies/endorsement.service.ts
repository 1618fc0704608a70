import type { Principal } from '../../auth/principal.ts';
import { randomUUID } from 'node:crypto';
import { requireAbility } from '../../auth/principal.ts';
import type { Context } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { addDays, fromDbDate, isYmd, nairobiIso, todayNairobi, toDbDate } from '../../lib/dates.ts';
import { fromShillings, toShillings } from '../../lib/money.ts';
import { normaliseRegNo, isUuid } from '../../lib/identifiers.ts';
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
import { nextNumber } from '../clients/client.service.ts';
import { emitEvent } from '../events/event.service.ts';
import { type BindVehicleInput, DomainRuleError } from '../motor/bind.service.ts';
import { type MotorRisk, normaliseRisk, priceRisk } from '../motor/quote.service.ts';
import { breakdownOf, movePolicyPremium, raiseCreditNote, raiseDebitNote } from './notes.service.ts';
import { POLICY_RULES } from './policy-state.ts';
import { policyVisibility } from './policy.policy.ts';
import { findCoverClash, policyService } from './policy.service.ts';
import { type Period, periodDays, type Priced, priceTerms, remainingDays, type Term } from './proration.ts';
import { levyTable } from '../reference/reference.service.ts';

/**
 * Two-phase endorsements (README "Endorsements"): `endorse` prices a mid-term change and stores it `pending`
 * (valid POLICY_RULES.previewValidHours, tied to the policy's `revision`); `confirm` applies it under a lock on the
 * policy row (premium items, vehicles, a debit or credit note, policy totals and levy lines, revision, event, audit);
 * `discard` drops it. Money follows proration.ts: a change is a sum of signed terms ±U(B, e).
 */

export const ENDORSEMENT_OPERATIONS = ['add_vehicle', 'remove_vehicle', 'change_value', 'change_details'] as const;
export type EndorsementOperation = (typeof ENDORSEMENT_OPERATIONS)[number];

/** Registry reason id used when a vehicle's certificate is cancelled because the vehicle left the policy. */
export const REMOVE_VEHICLE_CERT_REASON = 8;

export class EndorsementStateError extends InvalidStateError {}
export class EndorsementStaleError extends PreviewStaleError {}
export class EndorsementExpiredError extends PreviewExpiredError {}

/** A vehicle to add: the bind's vehicle fields (benefits are not endorsed). */
export type EndorseVehicleInput = Omit<BindVehicleInput, 'benefits'>;

export interface EndorseDetailsInput {
  chassisNo?: string | null;
  engineNo?: string | null;
  make?: string | null;
  model?: string | null;
  bodyType?: string | null;
  limitsOfLiability?: unknown;
}

export interface EndorseInput {
  operation?: string | null;
  effectiveDate?: string | null;
  regNo?: string | null;
  vehicle?: EndorseVehicleInput | null;
  value?: number | null;
  details?: EndorseDetailsInput | null;
  note?: string | null;
}

/** The itemised effect as stored in `endorsements.effect` (JSON: cents as integers). */
export interface StoredEffect {
  basic_minor: number;
  taxes_minor: number;
  total_minor: number;
  levies: { code: string; name: string; amount_minor: number }[];
  days: { in_period: number; remaining: number };
  items: {
    regno: string;
    vehicle_id: number | null;
    annual_basic_before_minor: number | null;
    annual_basic_after_minor: number | null;
  }[];
  /** Live premium item replaced or ended (remove_vehicle, change_value). */
  item_id?: number | null;
}

const DETAIL_FIELDS = ['chassisNo', 'engineNo', 'make', 'model', 'bodyType'] as const;
const SNAKE: Record<string, string> = {
  chassisNo: 'chassis_no',
  engineNo: 'engine_no',
  make: 'make',
  model: 'model',
  bodyType: 'body_type',
};

const scopeLabel = (c: string) => (c === 'tpo' ? 'TPO' : c === 'tpft' ? 'TPFT' : 'Comprehensive');
const kindLabel = (vc: string) => (vc === 'motorcycle' ? 'Motorcycle' : 'Motor');
const cleanText = (v: string | null | undefined, max = 100) => {
  const s = v?.trim();
  return s ? s.slice(0, max) : null;
};

/** Synchronous shape checks: every field error at once, in the caller's spelling. */
function validateShape(input: EndorseInput): { op: EndorsementOperation; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const op = (input.operation ?? '').trim() as EndorsementOperation;
  if (!ENDORSEMENT_OPERATIONS.includes(op))
    errors.push({ field: 'operation', message: `one of ${ENDORSEMENT_OPERATIONS.join(', ')}` });
  if (input.effectiveDate != null && !isYmd(input.effectiveDate))
    errors.push({ field: 'effective_date', message: 'a date, Y-m-d' });
  if (input.note != null && input.note.length > 500) errors.push({ field: 'note', message: 'at most 500 characters' });
  const needsReg =
    op === 'remove_vehicle' ||
    op === 'change_value' ||
    (op === 'change_details' && DETAIL_FIELDS.some((k) => input.details?.[k] != null));
  if (needsReg && !(input.regNo && normaliseRegNo(input.regNo)))
    errors.push({ field: 'regno', message: 'the registration of a vehicle on this policy' });
  if (op === 'add_vehicle') {
    const v = input.vehicle;
    if (!v) errors.push({ field: 'vehicle', message: 'required: regno, chassis_no, make, model, yom, value' });
    else {
      if (!(v.regNo && normaliseRegNo(v.regNo)))
        errors.push({ field: 'vehicle.regno', message: 'a registration such as KAA 123A' });
      if (!cleanText(v.chassisNo))
        errors.push({ field: 'vehicle.chassis_no', message: 'required (the registry certificate needs it)' });
      if (!cleanText(v.make)) errors.push({ field: 'vehicle.make', message: 'required' });
      if (!cleanText(v.model)) errors.push({ field: 'vehicle.model', message: 'required' });
      if (v.yom == null) errors.push({ field: 'vehicle.yom', message: 'year of manufacture required' });
    }
  }
  if (op === 'change_value') {
    if (input.value == null || !Number.isFinite(input.value) || input.value <= 0 || input.value > 1_000_000_000) {
      errors.push({ field: 'value', message: 'the new sum insured, a positive amount in whole shillings' });
    }
  }
  if (op === 'change_details') {
    const d = input.details;
    const any = d && (DETAIL_FIELDS.some((k) => cleanText(d[k]) != null) || d.limitsOfLiability != null);
    if (!any)
      errors.push({
        field: 'details',
        message: `at least one of ${DETAIL_FIELDS.map((k) => SNAKE[k]).join(', ')}, limits_of_liability`,
      });
    if (d?.limitsOfLiability != null && typeof d.limitsOfLiability !== 'object') {
      errors.push({ field: 'details.limits_of_liability', message: 'an object or a list' });
    }
  }
  return { op, errors };
}

type PolicyRow = NonNullable<Awaited<ReturnType<typeof loadPolicy>>>;

async function loadPolicy(tx: Tx, policyId: number) {
  return tx.policy.findUnique({
    where: { id: policyId },
    include: {
      client: true,
      insurer: true,
      vehicles: { orderBy: { id: 'asc' } },
      premiumItems: {
        where: { endedByEndorsementId: null, endedByCancellationId: null },
        orderBy: [{ fromDate: 'desc' }, { id: 'desc' }],
      },
    },
  });
}

const periodOf = (p: { startDate: Date; endDate: Date }): Period => ({
  start: fromDbDate(p.startDate),
  end: fromDbDate(p.endDate),
});

/** The live premium item of a vehicle: not ended by an endorsement or a cancellation, the latest to start. */
function liveItem(pol: PolicyRow, vehicleId: number) {
  return pol.premiumItems.find((i) => i.vehicleId === vehicleId) ?? null;
}

function activeVehicle(pol: PolicyRow, regNo: string) {
  return pol.vehicles.find((v) => v.regNo === regNo && v.status === 'active') ?? null;
}

/** The effective date of the latest confirmed endorsement: no later change (or cancellation) may take effect before it. */
export async function latestEndorsementDate(tx: Tx, policyId: number): Promise<string | null> {
  const last = await tx.endorsement.findFirst({
    where: { policyId, status: 'confirmed' },
    orderBy: [{ effectiveDate: 'desc' }, { id: 'desc' }],
  });
  return last ? fromDbDate(last.effectiveDate) : null;
}

/**
 * One vehicle's annual basic premium (PLL included) on the CURRENT rates of the policy's insurer, class and cover.
 * The vehicle's age is taken at the policy start, as at bind.
 */
async function annualBasic(
  ctx: Context,
  tx: Tx,
  pol: PolicyRow,
  v: {
    year: number | null | undefined;
    value: number | null | undefined;
    tonnage: number | null | undefined;
    pll: number | null | undefined;
    coverage: string | null | undefined;
    coverageGiven?: boolean;
  },
  fields: Record<string, string>,
): Promise<{ basicMinor: bigint; productVersion: number; risk: MotorRisk }> {
  const start = fromDbDate(pol.startDate);
  let risk: MotorRisk;
  try {
    risk = normaliseRisk(
      {
        class: kindLabel(pol.vehicleClass),
        coverage: v.coverage,
        scope: scopeLabel(pol.coverType),
        year: v.year,
        value: v.value,
        tonnage: v.tonnage,
        pll: v.pll,
        insurerIds: [pol.insurerId],
      },
      { prefix: 'vehicle', today: start },
    );
  } catch (e) {
    if (e instanceof ValidationError) {
      throw new ValidationError((e.errors ?? []).map((f) => ({ ...f, field: fields[f.field] ?? f.field })));
    }
    throw e;
  }
  if (v.coverageGiven && risk.vehicleClass !== pol.vehicleClass) {
    throw new ValidationError([
      {
        field: 'vehicle.coverage',
        message: `this policy covers ${pol.vehicleClass} vehicles; ${risk.coverage} rates as ${risk.vehicleClass}`,
      },
    ]);
  }
  risk = {
    ...risk,
    vehicleClass: pol.vehicleClass,
    coverType: pol.coverType,
    startDate: start,
    endDate: fromDbDate(pol.endDate),
    insurerIds: [pol.insurerId],
  };
  const { options, refusals } = await priceRisk(ctx, tx, risk);
  const option = options.find((o) => o.productId === pol.motorProductId) ?? options[0];
  if (!option) {
    throw new DomainRuleError(
      refusals.length
        ? refusals.join('; ')
        : `${pol.insurer.name} no longer rates ${pol.vehicleClass} ${pol.coverType} cover`,
    );
  }
  return { basicMinor: option.basicMinor, productVersion: option.productVersion, risk };
}

/** Another pending or active policy (or this one) already covers the registration on or after `from`. */
async function registrationClash(
  tx: Tx,
  viewer: Principal,
  pol: { id: number; endDate: Date },
  regNo: string,
  from: string,
): Promise<string | null> {
  const clash = await findCoverClash(tx, { regNos: [regNo], from, to: fromDbDate(pol.endDate) }, viewer);
  if (!clash) return null;
  return clash.policyId === pol.id
    ? `${regNo} is already on this policy`
    : `${regNo} already has cover for these dates (${clash.policyRef})`;
}

const n = (x: bigint) => Number(x);

function storedEffect(
  p: Priced,
  period: Period,
  e: string,
  items: StoredEffect['items'],
  itemId: number | null = null,
): StoredEffect {
  return {
    basic_minor: n(p.basicMinor),
    taxes_minor: n(p.taxesMinor),
    total_minor: n(p.totalMinor),
    levies: p.levies.map((l) => ({ code: l.code, name: l.name, amount_minor: n(l.amountMinor) })),
    days: { in_period: periodDays(period), remaining: remainingDays(period, e) },
    items,
    item_id: itemId,
  };
}

function pricedOf(effect: StoredEffect): Priced {
  return {
    basicMinor: BigInt(effect.basic_minor),
    taxesMinor: BigInt(effect.taxes_minor),
    totalMinor: BigInt(effect.total_minor),
    levies: effect.levies.map((l) => ({ code: l.code, name: l.name, amountMinor: BigInt(l.amount_minor) })),
  };
}

const negate = (p: Priced): Priced => ({
  basicMinor: -p.basicMinor,
  taxesMinor: -p.taxesMinor,
  totalMinor: -p.totalMinor,
  levies: p.levies.map((l) => ({ ...l, amountMinor: -l.amountMinor })),
});

function checkUuid(uuid: string, what: string) {
  if (!isUuid(uuid)) throw notFound(what);
}

export const endorsementService = {
  /** Prices a change and stores it `pending`. Nothing about the cover or the money changes yet. */
  async endorse(ctx: Context, policyUuid: string, input: EndorseInput) {
    const p = ctx.principal!;
    const actor = requireAbility(p, 'policies.create');
    const visible = await policyService.get(ctx, policyUuid ?? '');
    const { op, errors } = validateShape(input ?? {});
    if (errors.length) throw new ValidationError(errors);

    return ctx.tx(
      async (tx) => {
        const pol = await loadPolicy(tx, visible.id);
        if (!pol) throw notFound('Policy');
        if (pol.status !== 'active')
          throw new EndorsementStateError(`Only an active policy can be endorsed; ${pol.policyNo} is ${pol.status}`);
        const period = periodOf(pol);
        // Default: today (Nairobi), or the start of cover when it has not begun yet.
        const today = todayNairobi();
        const e = input.effectiveDate ?? (today < period.start ? period.start : today);
        const floor = (await latestEndorsementDate(tx, pol.id)) ?? period.start;
        if (e < period.start || e > period.end) {
          throw new ValidationError([
            { field: 'effective_date', message: `within the policy period ${period.start} to ${period.end}` },
          ]);
        }
        if (e < floor) {
          throw new ValidationError([
            {
              field: 'effective_date',
              message: `on or after ${floor}, the effective date of the latest confirmed endorsement`,
            },
          ]);
        }
        const table = await levyTable(tx);
        let changes: Record<string, unknown>;
        let effect: StoredEffect;
        let productVersion: number | null = null;

        if (op === 'add_vehicle') {
          const v = input.vehicle!;
          const regNo = normaliseRegNo(v.regNo!)!;
          const {
            basicMinor,
            productVersion: pv,
            risk,
          } = await annualBasic(
            ctx,
            tx,
            pol,
            {
              year: v.yom,
              value: v.value,
              tonnage: v.tonnage,
              pll: v.pll,
              coverage: v.coverage ?? pol.vehicles[0]?.coverage,
              coverageGiven: v.coverage != null,
            },
            {
              'vehicle.year': 'vehicle.yom',
            },
          );
          const clash = await registrationClash(tx, ctx.principal!, pol, regNo, e);
          if (clash) throw new DomainRuleError(clash);
          productVersion = pv;
          const priced = priceTerms(period, [{ annualBasicMinor: basicMinor, at: e, sign: 1 }], table);
          changes = {
            vehicle: {
              regno: regNo,
              chassis_no: cleanText(v.chassisNo)!.toUpperCase(),
              engine_no: cleanText(v.engineNo)?.toUpperCase() ?? null,
              make: cleanText(v.make),
              model: cleanText(v.model),
              yom: risk.year,
              value_minor: risk.valueMinor == null ? null : n(risk.valueMinor),
              body_type: cleanText(v.bodyType),
              tonnage: risk.tonnage,
              pll: risk.pll || null,
              coverage: risk.coverage,
            },
          };
          effect = storedEffect(priced, period, e, [
            {
              regno: regNo,
              vehicle_id: null,
              annual_basic_before_minor: null,
              annual_basic_after_minor: n(basicMinor),
            },
          ]);
        } else if (op === 'remove_vehicle') {
          const regNo = normaliseRegNo(input.regNo!)!;
          const vehicle = activeVehicle(pol, regNo);
          if (!vehicle)
            throw new ValidationError([{ field: 'regno', message: `${regNo} is not on cover under this policy` }]);
          if (pol.vehicles.filter((x) => x.status === 'active').length < 2) {
            throw new DomainRuleError('The last vehicle on a policy cannot be removed; cancel the policy instead');
          }
          const item = liveItem(pol, vehicle.id);
          if (!item) throw new DomainRuleError(`${regNo} has no premium on cover to remove`);
          const priced = priceTerms(period, [{ annualBasicMinor: item.annualBasicMinor, at: e, sign: -1 }], table);
          changes = { regno: regNo, vehicle_id: vehicle.id };
          effect = storedEffect(
            priced,
            period,
            e,
            [
              {
                regno: regNo,
                vehicle_id: vehicle.id,
                annual_basic_before_minor: n(item.annualBasicMinor),
                annual_basic_after_minor: null,
              },
            ],
            item.id,
          );
        } else if (op === 'change_value') {
          const regNo = normaliseRegNo(input.regNo!)!;
          const vehicle = activeVehicle(pol, regNo);
          if (!vehicle)
            throw new ValidationError([{ field: 'regno', message: `${regNo} is not on cover under this policy` }]);
          if (pol.coverType !== 'comprehensive')
            throw new DomainRuleError('The sum insured can be changed on comprehensive cover only');
          const item = liveItem(pol, vehicle.id);
          if (!item) throw new DomainRuleError(`${regNo} has no premium on cover to change`);
          const { basicMinor, productVersion: pv } = await annualBasic(
            ctx,
            tx,
            pol,
            {
              year: vehicle.yearOfManufacture,
              value: input.value,
              tonnage: vehicle.tonnesMilli == null ? null : vehicle.tonnesMilli / 1000,
              pll: vehicle.pll,
              coverage: vehicle.coverage,
            },
            { 'vehicle.value': 'value' },
          );
          productVersion = pv;
          const terms: Term[] = [
            { annualBasicMinor: basicMinor, at: e, sign: 1 },
            { annualBasicMinor: item.annualBasicMinor, at: e, sign: -1 },
          ];
          const priced = priceTerms(period, terms, table);
          changes = {
            regno: regNo,
            vehicle_id: vehicle.id,
            value_minor: n(fromShillings(input.value!)),
            previous_value_minor: vehicle.valueMinor == null ? null : n(vehicle.valueMinor),
          };
          effect = storedEffect(
            priced,
            period,
            e,
            [
              {
                regno: regNo,
                vehicle_id: vehicle.id,
                annual_basic_before_minor: n(item.annualBasicMinor),
                annual_basic_after_minor: n(basicMinor),
              },
            ],
            item.id,
          );
        } else {
          const d = input.details!;
          const set: Record<string, string> = {};
          const before: Record<string, string | null> = {};
          let vehicleId: number | null = null;
          let regNo: string | null = null;
          if (DETAIL_FIELDS.some((k) => cleanText(d[k]) != null)) {
            regNo = normaliseRegNo(input.regNo!)!;
            const vehicle = activeVehicle(pol, regNo);
            if (!vehicle)
              throw new ValidationError([{ field: 'regno', message: `${regNo} is not on cover under this policy` }]);
            vehicleId = vehicle.id;
            for (const k of DETAIL_FIELDS) {
              const val = cleanText(d[k]);
              if (val == null) continue;
              const norm = k === 'chassisNo' || k === 'engineNo' ? val.toUpperCase() : val;
              set[SNAKE[k]] = norm;
              before[SNAKE[k]] = (vehicle as unknown as Record<string, unknown>)[k] as string | null;
            }
          }
          changes = {
            ...(regNo ? { regno: regNo, vehicle_id: vehicleId, details: set, previous_details: before } : {}),
            ...(d.limitsOfLiability != null
              ? {
                  limits_of_liability: d.limitsOfLiability,
                  previous_limits_of_liability: pol.limitsOfLiability ?? null,
                }
              : {}),
          };
          const zero = priceTerms(period, [], table);
          effect = storedEffect(
            zero,
            period,
            e,
            regNo
              ? [
                  {
                    regno: regNo,
                    vehicle_id: vehicleId,
                    annual_basic_before_minor: null,
                    annual_basic_after_minor: null,
                  },
                ]
              : [],
          );
        }
        const remark = cleanText(input.note, 500);
        if (remark) changes.remark = remark;

        const seq = await nextNumber(tx, pol.tenantId, `policy:${pol.id}:end`);
        const row = await tx.endorsement.create({
          data: {
            tenantId: pol.tenantId,
            uuid: randomUUID(),
            policyId: pol.id,
            number: `END-${pol.policyNo}-${seq}`,
            operation: op,
            status: 'pending',
            effectiveDate: toDbDate(e),
            changes: changes as never,
            effect: effect as never,
            basicDeltaMinor: BigInt(effect.basic_minor),
            taxesDeltaMinor: BigInt(effect.taxes_minor),
            totalDeltaMinor: BigInt(effect.total_minor),
            productVersion,
            basedOnRevision: pol.revision,
            createdByUserId: actor.userId,
            expiresAt: new Date(Date.now() + POLICY_RULES.previewValidHours * 3600_000),
          },
          include: { debitNote: true, creditNote: true },
        });
        await recordAudit(ctx, tx, pol.tenantId, {
          action: 'endorsement.priced',
          entityType: 'endorsement',
          entityId: row.uuid,
          changes: {
            policy_no: pol.policyNo,
            number: row.number,
            operation: op,
            effective_date: e,
            total_delta_minor: effect.total_minor.toString(),
          },
        });
        return row;
      },
      { timeout: 20_000 },
    );
  },

  /** Applies a pending endorsement: cover, notes, totals, revision, event and audit in one transaction. */
  async confirm(ctx: Context, uuid: string, policyUuid?: string | null) {
    const p = ctx.principal!;
    const actor = requireAbility(p, 'policies.create');
    const found = await findVisible(ctx, uuid, policyUuid);
    let addedVehicle = false;
    const result = await ctx.tx(
      async (tx) => {
        // One writer per policy at a time: a second confirm waits here, then sees the bumped revision.
        await tx.$queryRaw`SELECT id FROM policies WHERE id = ${found.policyId} FOR UPDATE`;
        const end = await tx.endorsement.findUniqueOrThrow({ where: { id: found.id } });
        const pol = await loadPolicy(tx, end.policyId);
        if (!pol) throw notFound('Endorsement');
        if (end.status === 'expired')
          throw new EndorsementExpiredError(`${end.number} expired at ${end.expiresAt.toISOString()}; endorse again`);
        if (end.status !== 'pending')
          throw new EndorsementStateError(
            `${end.number} is ${end.status}; only a pending endorsement can be confirmed`,
          );
        const now = new Date();
        if (end.expiresAt <= now)
          throw new EndorsementExpiredError(`${end.number} expired at ${end.expiresAt.toISOString()}; endorse again`);
        if (pol.status !== 'active')
          throw new EndorsementStateError(`Only an active policy can be endorsed; ${pol.policyNo} is ${pol.status}`);
        if (end.basedOnRevision !== pol.revision) {
          throw new EndorsementStaleError(
            `${pol.policyNo} changed since ${end.number} was priced (revision ${end.basedOnRevision} → ${pol.revision}); endorse again`,
          );
        }
        const e = fromDbDate(end.effectiveDate);
        const eMinus1 = toDbDate(addDays(e, -1));
        const policyEnd = pol.endDate;
        const changes = end.changes as Record<string, any>;
        const effect = end.effect as unknown as StoredEffect;
        const priced = pricedOf(effect);

        /** The vehicle's new premium item: its priced annual basic, from the effective date to the end of the period. */
        const startItem = (vehicleId: number) =>
          tx.policyPremiumItem.create({
            data: {
              tenantId: pol.tenantId,
              policyId: pol.id,
              vehicleId,
              annualBasicMinor: BigInt(effect.items[0].annual_basic_after_minor!),
              fromDate: end.effectiveDate,
              toDate: policyEnd,
              endorsementId: end.id,
            },
          });

        if (end.operation === 'add_vehicle') {
          const v = changes.vehicle;
          const clash = await registrationClash(tx, ctx.principal!, pol, v.regno, e);
          if (clash) throw new DomainRuleError(clash);
          const vehicle = await tx.policyVehicle.create({
            data: {
              tenantId: pol.tenantId,
              policyId: pol.id,
              regNo: v.regno,
              chassisNo: v.chassis_no,
              engineNo: v.engine_no,
              make: v.make,
              model: v.model,
              yearOfManufacture: v.yom,
              valueMinor: v.value_minor == null ? null : BigInt(v.value_minor),
              bodyType: v.body_type,
              tonnesMilli: v.tonnage == null ? null : Math.round(v.tonnage * 1000),
              pll: v.pll,
              coverage: v.coverage,
              addedOn: end.effectiveDate,
              addedByEndorsementId: end.id,
            },
          });
          await startItem(vehicle.id);
          effect.items[0].vehicle_id = vehicle.id;
          addedVehicle = true;
        } else if (end.operation === 'remove_vehicle' || end.operation === 'change_value') {
          const item = pol.premiumItems.find((i) => i.id === effect.item_id);
          if (!item)
            throw new EndorsementStaleError(`The premium item ${end.number} was priced on has changed; endorse again`);
          await tx.policyPremiumItem.update({
            where: { id: item.id },
            data: { toDate: eMinus1, endedByEndorsementId: end.id },
          });
          if (end.operation === 'remove_vehicle') {
            await tx.policyVehicle.update({
              where: { id: item.vehicleId },
              data: { status: 'removed', removedOn: end.effectiveDate },
            });
            await requestCertificateCancellation(
              ctx.app,
              tx,
              { vehicleId: item.vehicleId },
              REMOVE_VEHICLE_CERT_REASON,
            );
          } else {
            await startItem(item.vehicleId);
            await tx.policyVehicle.update({
              where: { id: item.vehicleId },
              data: { valueMinor: BigInt(changes.value_minor) },
            });
          }
        } else {
          if (changes.vehicle_id != null) {
            const d = changes.details as Record<string, string>;
            await tx.policyVehicle.update({
              where: { id: changes.vehicle_id },
              data: {
                ...(d.chassis_no != null ? { chassisNo: d.chassis_no } : {}),
                ...(d.engine_no != null ? { engineNo: d.engine_no } : {}),
                ...(d.make != null ? { make: d.make } : {}),
                ...(d.model != null ? { model: d.model } : {}),
                ...(d.body_type != null ? { bodyType: d.body_type } : {}),
              },
            });
          }
          if (changes.limits_of_liability !== undefined) {
            await tx.policy.update({
              where: { id: pol.id },
              data: { limitsOfLiability: changes.limits_of_liability as never },
            });
          }
        }

        // The note: a debit note for a positive effect, a credit note (applied to open debit notes first) for a negative one.
        let debitNoteId: number | null = null;
        let creditNoteId: number | null = null;
        let note: { kind: 'debit' | 'credit'; number: string } | null = null;
        const breakdown = breakdownOf(priced.totalMinor < 0n ? negate(priced) : priced, {
          endorsement_no: end.number,
          operation: end.operation,
          effective_date: e,
          days: effect.days,
          items: effect.items,
        });
        if (priced.totalMinor > 0n) {
          const today = todayNairobi();
          const dn = await raiseDebitNote(tx, pol, {
            kind: 'endorsement',
            amountMinor: priced.totalMinor,
            dueOn: toDbDate(e > today ? e : today),
            endorsementId: end.id,
            breakdown,
          });
          debitNoteId = dn.id;
          note = { kind: 'debit', number: dn.number };
        } else if (priced.totalMinor < 0n) {
          const cn = await raiseCreditNote(tx, pol, {
            kind: 'endorsement',
            priced: negate(priced),
            endorsementId: end.id,
            breakdown,
          });
          creditNoteId = cn.id;
          note = { kind: 'credit', number: cn.number };
        }

        // Policy figures move by the effect, so the policy total stays Σ debit notes − Σ credit notes.
        await movePolicyPremium(tx, pol, 1n, priced.basicMinor, priced.levies);
        await tx.policy.update({ where: { id: pol.id }, data: { revision: { increment: 1 } } });

        const updated = await tx.endorsement.update({
          where: { id: end.id },
          data: { status: 'confirmed', confirmedAt: now, debitNoteId, creditNoteId, effect: effect as never },
          include: { debitNote: true, creditNote: true },
        });
        await emitEvent(ctx, tx, pol.tenantId, 'policy.endorsed', {
          policy_no: pol.policyNo,
          policy_uuid: pol.uuid,
          client_no: pol.client.clientNo,
          endorsement_no: end.number,
          endorsement_uuid: end.uuid,
          operation: end.operation,
          effective_date: e,
          premium_effect: { amount: toShillings(priced.totalMinor), amount_minor: n(priced.totalMinor) },
          note,
          confirmed_at: nairobiIso(now),
        });
        await recordAudit(ctx, tx, pol.tenantId, {
          action: 'policy.endorsed',
          entityType: 'policy',
          entityId: pol.uuid,
          changes: {
            endorsement_no: end.number,
            operation: end.operation,
            effective_date: e,
            total_delta_minor: priced.totalMinor.toString(),
            note: note?.number ?? null,
            revision: pol.revision + 1,
            actor_user_id: actor.userId,
          },
        });
        return updated;
      },
      { timeout: 20_000 },
    );
    if (addedVehicle) await ctx.afterCommit(() => queueCertificateIssue(ctx.app, found.policyId));
    return result;
  },

  /** Drops a pending endorsement; nothing else changes. */
  async discard(ctx: Context, uuid: string, policyUuid?: string | null) {
    const p = ctx.principal!;
    requireAbility(p, 'policies.create');
    const found = await findVisible(ctx, uuid, policyUuid);
    return ctx.tx(async (tx) => {
      const now = new Date();
      const r = await tx.endorsement.updateMany({
        where: { id: found.id, status: 'pending' },
        data: { status: 'discarded', discardedAt: now },
      });
      const row = await tx.endorsement.findUniqueOrThrow({
        where: { id: found.id },
        include: { debitNote: true, creditNote: true },
      });
      if (r.count !== 1)
        throw new EndorsementStateError(`${row.number} is ${row.status}; only a pending endorsement can be discarded`);
      await recordAudit(ctx, tx, row.tenantId, {
        action: 'endorsement.discarded',
        entityType: 'endorsement',
        entityId: row.uuid,
        changes: { number: row.number },
      });
      return row;
    });
  },
};

/**
 * An endorsement the caller may see, else 404. Under a policy path the policy is read through policyService.get
 * (visibility) and the endorsement must belong to it; without one (GraphQL) visibility goes through its policy.
 */
async function findVisible(ctx: Context, uuid: string, policyUuid?: string | null) {
  checkUuid(uuid ?? '', 'Endorsement');
  const policy = policyUuid != null ? await policyService.get(ctx, policyUuid) : null;
  const row = await ctx.tx((tx) =>
    tx.endorsement.findFirst({
      where: policy ? { uuid, policyId: policy.id } : { uuid, policy: policyVisibility(ctx.principal) },
      select: { id: true, policyId: true },
    }),
  );
  if (!row) throw notFound('Endorsement');
  return row;
}
