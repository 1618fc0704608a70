import type { Principal } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import type { Endorsement } from '../../../generated/prisma/client.ts';
import { fromDbDate } from '../../../lib/dates.ts';
import { isUuid, normaliseRegNo } from '../../../lib/identifiers.ts';
import {
  type FieldError,
  InvalidStateError,
  notFound,
  PreviewExpiredError,
  PreviewStaleError,
  ValidationError,
} from '../../../lib/problem.ts';
import { policyVisibility, visiblePolicy } from '../../access/policy.visibility.ts';
import type { BindVehicleInput } from '../bind.service.ts';
import { findCoverClash } from '../policy.service.ts';
import { type LevyRate, type Period, periodDays, type Priced, remainingDays } from '../proration.ts';

/**
 * What every endorsement operation shares: its input and stored shapes, the policy it reads, and the small rules
 * (live premium item, active vehicle, registration clash) the operations in this folder apply.
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

/** The stored `changes` JSON of an endorsement, as each operation wrote it (see the operation's `price`). */
export type StoredChanges = Record<string, unknown>;

/** What one operation does in each phase. `price` stores nothing; `apply` runs inside confirm's locked transaction. */
export interface EndorsementOperationRules {
  /** Field errors of this operation's own inputs (after the common ones), in the caller's spelling. */
  validate(input: EndorseInput): FieldError[];
  price(a: PriceArgs): Promise<PricedChange>;
  apply(a: ApplyArgs): Promise<{ addedVehicle?: boolean }>;
}

export interface PriceArgs {
  ctx: Context;
  tx: Tx;
  pol: PolicyRow;
  input: EndorseInput;
  /** Effective date, Y-m-d, already checked against the period and the latest endorsement. */
  e: string;
  period: Period;
  table: LevyRate[];
}

export interface PricedChange {
  changes: StoredChanges;
  effect: StoredEffect;
  productVersion: number | null;
}

export interface ApplyArgs {
  ctx: Context;
  tx: Tx;
  pol: PolicyRow;
  end: Endorsement;
  changes: StoredChanges;
  /** Mutable: add_vehicle records the new vehicle's id on its item. */
  effect: StoredEffect;
  e: string;
  /** The day before the effective date (a DATE column value): when a replaced premium item ends. */
  dayBefore: Date;
}

export const DETAIL_FIELDS = ['chassisNo', 'engineNo', 'make', 'model', 'bodyType'] as const;
export const SNAKE: Record<string, string> = {
  chassisNo: 'chassis_no',
  engineNo: 'engine_no',
  make: 'make',
  model: 'model',
  bodyType: 'body_type',
};

export const cleanText = (v: string | null | undefined, max = 100) => {
  const s = v?.trim();
  return s ? s.slice(0, max) : null;
};

export const n = (x: bigint) => Number(x);

/** The registration an operation on an existing vehicle names: required, and a well-formed one. */
export function regNoErrors(input: EndorseInput): FieldError[] {
  return input.regNo && normaliseRegNo(input.regNo)
    ? []
    : [{ field: 'regno', message: 'the registration of a vehicle on this policy' }];
}

/** The active vehicle `input.regNo` names, or 422 naming the registration. */
export function namedVehicle(pol: PolicyRow, input: EndorseInput) {
  const regNo = normaliseRegNo(input.regNo!)!;
  const vehicle = activeVehicle(pol, regNo);
  if (!vehicle) throw new ValidationError([{ field: 'regno', message: `${regNo} is not on cover under this policy` }]);
  return { regNo, vehicle };
}

export type PolicyRow = NonNullable<Awaited<ReturnType<typeof loadPolicy>>>;

export async function loadPolicy(tx: Tx, policyId: number) {
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

export const periodOf = (p: { startDate: Date; endDate: Date }): Period => ({
  start: fromDbDate(p.startDate),
  end: fromDbDate(p.endDate),
});

/** The live premium item of a vehicle: not ended by an endorsement or a cancellation, the latest to start. */
export function liveItem(pol: PolicyRow, vehicleId: number) {
  return pol.premiumItems.find((i) => i.vehicleId === vehicleId) ?? null;
}

export function activeVehicle(pol: PolicyRow, regNo: string) {
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

/** Another pending or active policy (or this one) already covers the registration on or after `from`. */
export async function registrationClash(
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

export function storedEffect(
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

export function pricedOf(effect: StoredEffect): Priced {
  return {
    basicMinor: BigInt(effect.basic_minor),
    taxesMinor: BigInt(effect.taxes_minor),
    totalMinor: BigInt(effect.total_minor),
    levies: effect.levies.map((l) => ({ code: l.code, name: l.name, amountMinor: BigInt(l.amount_minor) })),
  };
}

export const negate = (p: Priced): Priced => ({
  basicMinor: -p.basicMinor,
  taxesMinor: -p.taxesMinor,
  totalMinor: -p.totalMinor,
  levies: p.levies.map((l) => ({ ...l, amountMinor: -l.amountMinor })),
});

/** The vehicle's new premium item: its priced annual basic, from the effective date to the end of the period. */
export function startItem(a: ApplyArgs, vehicleId: number) {
  return a.tx.policyPremiumItem.create({
    data: {
      tenantId: a.pol.tenantId,
      policyId: a.pol.id,
      vehicleId,
      annualBasicMinor: BigInt(a.effect.items[0].annual_basic_after_minor!),
      fromDate: a.end.effectiveDate,
      toDate: a.pol.endDate,
      endorsementId: a.end.id,
    },
  });
}

/** Ends the premium item the change was priced on the day before it takes effect; stale if it has moved since. */
export async function endPricedItem(a: ApplyArgs, dayBefore: Date) {
  const item = a.pol.premiumItems.find((i) => i.id === a.effect.item_id);
  if (!item)
    throw new EndorsementStaleError(`The premium item ${a.end.number} was priced on has changed; endorse again`);
  await a.tx.policyPremiumItem.update({
    where: { id: item.id },
    data: { toDate: dayBefore, endedByEndorsementId: a.end.id },
  });
  return item;
}

/**
 * An endorsement the caller may see, else 404. Under a policy path the policy is read through visiblePolicy and the
 * endorsement must belong to it; without one (GraphQL) visibility goes through its policy.
 */
export async function findVisibleEndorsement(ctx: Context, uuid: string, policyUuid?: string | null) {
  if (!isUuid(uuid ?? '')) throw notFound('Endorsement');
  const policy = policyUuid != null ? await visiblePolicy(ctx, policyUuid) : null;
  const row = await ctx.tx((tx) =>
    tx.endorsement.findFirst({
      where: policy ? { uuid, policyId: policy.id } : { uuid, policy: policyVisibility(ctx.principal) },
      select: { id: true, policyId: true },
    }),
  );
  if (!row) throw notFound('Endorsement');
  return row;
}
