import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import type { Endorsement } from '../../../generated/prisma/client.ts';
import { fromDbDate } from '../../../lib/dates.ts';
import { isUuid } from '../../../lib/identifiers.ts';
import {
  type FieldError,
  InvalidStateError,
  notFound,
  PreviewExpiredError,
  PreviewStaleError,
} from '../../../lib/problem.ts';
import { policyVisibility, visiblePolicy } from '../../access/policy.visibility.ts';
import type { MedicalMemberInput } from '../../covers/medical/medical.ts';
import type { BindVehicleInput } from '../bind.service.ts';
import { type LevyRate, type Period, periodDays, type Priced, remainingDays } from '../proration.ts';

/**
 * What every endorsement operation shares: its input and stored shapes, the policy it reads, and the small rules
 * (live premium item, active vehicle, registration clash) the operations in this folder apply.
 */

export const ENDORSEMENT_OPERATIONS = [
  'add_vehicle',
  'remove_vehicle',
  'change_value',
  'change_details',
  'add_member',
  'remove_member',
  'change_sum_insured',
] as const;
export type EndorsementOperation = (typeof ENDORSEMENT_OPERATIONS)[number];

/** The product lines an operation applies to. */
export const MOTOR = ['motor'] as const;
export const ALL_LINES = ['motor', 'medical', 'travel', 'standard'] as const;

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

/** A medical member to add (add_member): as a medical quote takes one. */
export type EndorseMemberInput = MedicalMemberInput;

export interface EndorseInput {
  operation?: string | null;
  effectiveDate?: string | null;
  regNo?: string | null;
  vehicle?: EndorseVehicleInput | null;
  value?: number | null;
  details?: EndorseDetailsInput | null;
  /** add_member */
  member?: EndorseMemberInput | null;
  /** remove_member, change_sum_insured: an insured of the policy record (insured[].id). */
  insuredId?: number | null;
  /** change_sum_insured: the item's new sum insured, whole shillings. */
  sumInsured?: number | null;
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
    /** Motor: the vehicle; other lines null. */
    regno: string | null;
    vehicle_id: number | null;
    /** Other lines: the insured person or item (null: the policy's premium as a whole), and its policy_risks id. */
    insured?: string | null;
    risk_id?: number | null;
    /** The live premium item this line ends (changes of several items). */
    premium_item_id?: number | null;
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
  /** The product lines it applies to (any other: 422 domain_rule). */
  lines: readonly string[];
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

export const cleanText = (v: string | null | undefined, max = 100) => {
  const s = v?.trim();
  return s ? s.slice(0, max) : null;
};

export const n = (x: bigint) => Number(x);

export type PolicyRow = NonNullable<Awaited<ReturnType<typeof loadPolicy>>>;

export async function loadPolicy(tx: Tx, policyId: number) {
  return tx.policy.findUnique({
    where: { id: policyId },
    include: {
      client: true,
      insurer: true,
      vehicles: { orderBy: { id: 'asc' } },
      risks: { orderBy: { id: 'asc' } },
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

/** The effective date of the latest confirmed endorsement: no later change (or cancellation) may take effect before it. */
export async function latestEndorsementDate(tx: Tx, policyId: number): Promise<string | null> {
  const last = await tx.endorsement.findFirst({
    where: { policyId, status: 'confirmed' },
    orderBy: [{ effectiveDate: 'desc' }, { id: 'desc' }],
  });
  return last ? fromDbDate(last.effectiveDate) : null;
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

/** Ends the premium item the change was priced on the day before it takes effect; stale if it has moved since. */
export function endPricedItem(a: ApplyArgs, dayBefore: Date) {
  return endItem(a, a.effect.item_id, dayBefore);
}

/** Ends the live premium item `id` on `dayBefore` (ended by this endorsement); stale if it has moved since pricing. */
export async function endItem(a: ApplyArgs, id: number | null | undefined, dayBefore = a.dayBefore) {
  const item = a.pol.premiumItems.find((i) => i.id === id);
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
