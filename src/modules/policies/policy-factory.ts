import { randomUUID } from 'node:crypto';
import type { Tx } from '../../db/client.ts';
import type { CoverInsured } from '../covers/line.ts';
import type { CoverType, PaymentMode, VehicleClass } from '../../generated/prisma/enums.ts';
import { now } from '../../lib/clock.ts';
import { addMonths, toDbDate } from '../../lib/dates.ts';
import { counterDraw, pendingNumber, sequenceSql } from '../../db/counters.ts';
import { splitInstalments } from '../motor/rating.ts';
import { recordInitialStatus, type TransitionMeta } from './policy-state.ts';

/**
 * Creating a policy, shared by bind and renewal bind: the policy row with its levy lines, its vehicles, one premium
 * item per vehicle (its annual basic premium, PLL included, on cover for the whole period: what endorsements and
 * cancellation pro-rate), the first status-history row (pending_payment) and the instalment debit notes.
 */
export interface NewPolicyVehicle {
  regNo: string;
  chassisNo?: string | null;
  engineNo?: string | null;
  make?: string | null;
  model?: string | null;
  yearOfManufacture: number;
  valueMinor: bigint | null;
  bodyType?: string | null;
  tonnesMilli?: number | null;
  pll?: number | null;
  coverage?: string | null;
  benefits?: unknown;
  /** Annual basic premium of this vehicle (PLL included). */
  annualBasicMinor: bigint;
}

/** An insured person, traveller or item of a non-motor policy, with its own premium item when it has one. */
export type NewPolicyRisk = CoverInsured & {
  /** This risk's annual basic premium (a premium item of its own), or null when the policy is priced as a whole. */
  annualBasicMinor: bigint | null;
};

export type ProductLine = 'motor' | 'medical' | 'travel' | 'standard';

export interface NewPolicy {
  tenantId: number;
  clientId: number;
  insurerId: number;
  /** motor: the motor product (with vehicleClass and coverType); other lines: coverProductId. */
  motorProductId?: number | null;
  coverProductId?: number | null;
  productLine?: ProductLine;
  productVersion: number;
  quoteId?: number | null;
  vehicleClass?: VehicleClass | null;
  coverType?: CoverType | null;
  /** Non-motor lines: the cover as bound (covers/<line>). */
  coverDetails?: unknown;
  coverPeriod: string;
  days: number;
  /** Y-m-d */
  startDate: string;
  /** Y-m-d, inclusive */
  endDate: string;
  paymentMode: PaymentMode;
  instalmentCount: number;
  rateBps: number | null;
  basicMinor: bigint;
  taxesMinor: bigint;
  totalMinor: bigint;
  limitsOfLiability?: unknown;
  salesPersonId: number | null;
  createdByUserId: number | null;
  createdByApiClientId: number | null;
  renewalOfId?: number | null;
  taxes: { code: string; name: string; amountMinor: bigint }[];
  vehicles: NewPolicyVehicle[];
  /** Non-motor lines: the insured persons, travellers or items. */
  risks?: NewPolicyRisk[];
  /**
   * Non-motor lines priced as a whole (a standard cover): the policy's annual basic premium as one premium item with
   * no vehicle or risk. Lines priced per person give each risk its own annualBasicMinor instead.
   */
  policyPremiumMinor?: bigint | null;
  /** Source (bind or renewal), reason and actor of the first status-history row. */
  initialStatus: Omit<TransitionMeta, 'tenantId'>;
}

/** Policy-number prefix per product line. */
const POLICY_PREFIX: Record<ProductLine, string> = { motor: 'MTR', medical: 'MED', travel: 'TRV', standard: 'STD' };

/** What precedes the sequence in a policy number and its risk note: `MTR-2026-` and `RN-2026-`. */
function numberHeads(today: string, line: ProductLine) {
  const year = today.slice(0, 4);
  return { policyNo: `${POLICY_PREFIX[line]}-${year}-`, riskNote: `RN-${year}-` };
}

/** Stand-in numbers for a policy whose number is drawn last (drawPolicyNumbers): see pendingNumber. */
export function pendingPolicyNumbers(): { policyNo: string; riskNote: string } {
  const standIn = pendingNumber();
  return { policyNo: standIn, riskNote: standIn };
}

/**
 * The policy number, drawn last by a bind or a renewal (issue 28): <prefix>-<year>-<seq> (MTR motor, MED medical, TRV
 * travel, STD standard products; one gap-free sequence per organisation across lines) with its risk note
 * RN-<year>-<seq>, written over the stand-in on the policy and its debit notes' numbers in one statement, just before
 * the transaction ends.
 */
export async function drawPolicyNumbers(
  tx: Tx,
  policy: { id: number; tenantId: number; policyNo: string },
  today: string,
  line: ProductLine,
): Promise<{ policyNo: string; riskNote: string }> {
  const heads = numberHeads(today, line);
  const seq = sequenceSql('n.value');
  const [drawn] = await tx.$queryRaw<{ policy_no: string; risk_note: string }[]>`
    WITH n AS (${counterDraw(policy.tenantId, 'policy_no')}),
    p AS (
      UPDATE policies SET policy_no = ${heads.policyNo} || ${seq}, risk_note = ${heads.riskNote} || ${seq}
        FROM n WHERE policies.id = ${policy.id} AND policies.policy_no = ${policy.policyNo}
        RETURNING policies.policy_no, policies.risk_note),
    d AS (
      UPDATE debit_notes SET number = replace(number, ${policy.policyNo}, (SELECT policy_no FROM p))
        WHERE debit_notes.policy_id = ${policy.id})
    SELECT policy_no, risk_note FROM p`;
  return { policyNo: drawn.policy_no, riskNote: drawn.risk_note };
}

/** What createPolicy answered, as its drawn numbers (drawPolicyNumbers) make it: the policy and its debit notes. */
export function withNumbers<P extends { policyNo: string }, D extends { number: string }>(
  made: { policy: P; debitNotes: D[] },
  numbers: { policyNo: string; riskNote: string },
): { policy: P; debitNotes: D[] } {
  return {
    policy: { ...made.policy, ...numbers },
    debitNotes: made.debitNotes.map((d) => ({
      ...d,
      number: d.number.replace(made.policy.policyNo, numbers.policyNo),
    })),
  };
}

/**
 * The product's rating version now, read FOR SHARE: rate changes wait until the calling bind commits, so a bind that
 * checked the version it priced on cannot be overtaken by a newer one. Undefined when the product is gone.
 */
export async function currentProductVersion(
  tx: Tx,
  productId: number,
  kind: 'motor' | 'cover' = 'motor',
): Promise<number | undefined> {
  const [current] =
    kind === 'motor'
      ? await tx.$queryRaw<{ version: number }[]>`SELECT version FROM motor_products WHERE id = ${productId} FOR SHARE`
      : await tx.$queryRaw<{ version: number }[]>`SELECT version FROM cover_products WHERE id = ${productId} FOR SHARE`;
  return current?.version;
}

export async function createPolicy(tx: Tx, np: NewPolicy, numbers: { policyNo: string; riskNote: string }) {
  const policy = await insertPolicy(tx, np, numbers);
  const vehicles = await insertVehicles(tx, np, policy.id);
  const risks = await insertRisks(tx, np, policy.id);
  await recordInitialStatus(tx, policy.id, { tenantId: np.tenantId, ...np.initialStatus });
  const debitNotes = await insertInstalmentNotes(tx, np, policy.id, numbers.policyNo);
  return { policy: { ...policy, vehicles, risks }, debitNotes };
}

/** The policy row, then its taxes in one statement (a nested create would read the policy back a second time). */
async function insertPolicy(tx: Tx, np: NewPolicy, numbers: { policyNo: string; riskNote: string }) {
  const { tenantId } = np;
  const policy = await tx.policy.create({
    data: {
      tenantId,
      uuid: randomUUID(),
      policyNo: numbers.policyNo,
      riskNote: numbers.riskNote,
      clientId: np.clientId,
      insurerId: np.insurerId,
      motorProductId: np.motorProductId ?? null,
      coverProductId: np.coverProductId ?? null,
      productVersion: np.productVersion,
      quoteId: np.quoteId ?? null,
      productLine: np.productLine ?? 'motor',
      vehicleClass: np.vehicleClass ?? null,
      coverType: np.coverType ?? null,
      coverDetails: (np.coverDetails ?? undefined) as never,
      coverPeriod: np.coverPeriod,
      days: np.days,
      startDate: toDbDate(np.startDate),
      endDate: toDbDate(np.endDate),
      paymentMode: np.paymentMode,
      instalmentCount: np.instalmentCount,
      rateBps: np.rateBps,
      basicMinor: np.basicMinor,
      taxesMinor: np.taxesMinor,
      totalMinor: np.totalMinor,
      limitsOfLiability: (np.limitsOfLiability ?? undefined) as never,
      salesPersonId: np.salesPersonId,
      createdByUserId: np.createdByUserId,
      createdByApiClientId: np.createdByApiClientId,
      renewalOfId: np.renewalOfId ?? null,
      // The bind instant on the service's clock: the lifecycle reads the bind day from it (not-taken-up window).
      createdAt: now(),
    },
  });
  if (np.taxes.length)
    await tx.policyTax.createMany({
      data: np.taxes.map((t) => ({
        tenantId,
        policyId: policy.id,
        code: t.code,
        name: t.name,
        amountMinor: t.amountMinor,
      })),
    });
  return policy;
}

/** Each vehicle with its premium item, on cover for the whole period. */
async function insertVehicles(tx: Tx, np: NewPolicy, policyId: number) {
  const { tenantId } = np;
  const vehicles = [];
  for (const v of np.vehicles) {
    const row = await tx.policyVehicle.create({
      data: {
        tenantId,
        policyId,
        regNo: v.regNo,
        chassisNo: v.chassisNo ?? null,
        engineNo: v.engineNo ?? null,
        make: v.make ?? null,
        model: v.model ?? null,
        yearOfManufacture: v.yearOfManufacture,
        valueMinor: v.valueMinor,
        bodyType: v.bodyType ?? null,
        tonnesMilli: v.tonnesMilli ?? null,
        pll: v.pll || null,
        coverage: v.coverage ?? null,
        benefits: (v.benefits ?? undefined) as never,
        addedOn: toDbDate(np.startDate),
      },
    });
    vehicles.push(row);
    await tx.policyPremiumItem.create({
      data: {
        tenantId,
        policyId,
        vehicleId: row.id,
        annualBasicMinor: v.annualBasicMinor,
        fromDate: toDbDate(np.startDate),
        toDate: toDbDate(np.endDate),
      },
    });
  }
  return vehicles;
}

/** Each insured person, traveller or item, with its premium item when priced on its own; or the policy's one item. */
async function insertRisks(tx: Tx, np: NewPolicy, policyId: number) {
  const { tenantId } = np;
  const span = { fromDate: toDbDate(np.startDate), toDate: toDbDate(np.endDate) };
  const risks = [];
  for (const r of np.risks ?? []) {
    const row = await tx.policyRisk.create({
      data: {
        tenantId,
        policyId,
        kind: r.kind,
        name: r.name,
        relationship: r.relationship ?? null,
        dateOfBirth: r.dateOfBirth ? toDbDate(r.dateOfBirth) : null,
        ageYears: r.ageYears ?? null,
        inSchool: r.inSchool ?? null,
        idNo: r.idNo ?? null,
        sumInsuredMinor: r.sumInsuredMinor ?? null,
        details: (r.details ?? undefined) as never,
        addedOn: span.fromDate,
      },
    });
    risks.push(row);
    if (r.annualBasicMinor != null) {
      await tx.policyPremiumItem.create({
        data: { tenantId, policyId, riskId: row.id, annualBasicMinor: r.annualBasicMinor, ...span },
      });
    }
  }
  if (np.policyPremiumMinor != null) {
    await tx.policyPremiumItem.create({
      data: { tenantId, policyId, annualBasicMinor: np.policyPremiumMinor, ...span },
    });
  }
  return risks;
}

/** The instalment debit notes: the first due on the start date, each next one a month later. */
async function insertInstalmentNotes(tx: Tx, np: NewPolicy, policyId: number, policyNo: string) {
  const amounts = splitInstalments(np.totalMinor, np.instalmentCount);
  const debitNotes = [];
  for (const [i, amountMinor] of amounts.entries()) {
    debitNotes.push(
      await tx.debitNote.create({
        data: {
          tenantId: np.tenantId,
          policyId,
          number: `DN-${policyNo}-${i + 1}/${np.instalmentCount}`,
          instalmentNo: i + 1,
          instalmentCount: np.instalmentCount,
          dueOn: toDbDate(i === 0 ? np.startDate : addMonths(np.startDate, i)),
          amountMinor,
        },
      }),
    );
  }
  return debitNotes;
}
