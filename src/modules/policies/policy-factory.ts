import { randomUUID } from 'node:crypto';
import { Prisma } from '../../generated/prisma/client.ts';
import type { Tx } from '../../db/client.ts';
import type { Context } from '../../context.ts';
import { recordAuditWith } from '../audit/audit.service.ts';
import type { CoverInsured } from '../covers/line.ts';
import type { CoverType, PaymentMode, VehicleClass } from '../../generated/prisma/enums.ts';
import { now } from '../../lib/clock.ts';
import { addMonths } from '../../lib/dates.ts';
import { counterDraw, pendingNumber, sequenceSql } from '../../db/counters.ts';
import { splitInstalments } from '../motor/rating.ts';
import { initialStatusSql, type TransitionMeta } from './policy-state.ts';

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

type Numbered = { id: number; tenantId: number; uuid: string; policyNo: string };

/**
 * The policy number, drawn last by a bind or a renewal (issue 28): <prefix>-<year>-<seq> (MTR motor, MED medical, TRV
 * travel, STD standard products; one gap-free sequence per organisation across lines) with its risk note
 * RN-<year>-<seq>, written over the stand-in on the policy and its debit notes' numbers in one statement, just before
 * the transaction ends. As CTEs: `n` the draw, `p` the policy's new numbers, `d` its debit notes.
 */
function policyNumberCtes(policy: Numbered, today: string, line: ProductLine): Prisma.Sql[] {
  const heads = numberHeads(today, line);
  const seq = sequenceSql('n.value');
  return [
    Prisma.sql`n AS (${counterDraw(policy.tenantId, 'policy_no')})`,
    Prisma.sql`p AS (
      UPDATE policies SET policy_no = ${heads.policyNo} || ${seq}, risk_note = ${heads.riskNote} || ${seq}
        FROM n WHERE policies.id = ${policy.id} AND policies.policy_no = ${policy.policyNo}
        RETURNING policies.policy_no, policies.risk_note)`,
    Prisma.sql`d AS (
      UPDATE debit_notes SET number = replace(number, ${policy.policyNo}, (SELECT policy_no FROM p))
        WHERE debit_notes.policy_id = ${policy.id})`,
  ];
}

/** The policy's numbers drawn and written (policyNumberCtes), alone. */
export async function drawPolicyNumbers(
  tx: Tx,
  policy: Numbered,
  today: string,
  line: ProductLine,
): Promise<{ policyNo: string; riskNote: string }> {
  const [drawn] = await tx.$queryRaw<{ policy_no: string; risk_note: string }[]>`
    WITH ${Prisma.join(policyNumberCtes(policy, today, line), ',\n')}
    SELECT policy_no, risk_note FROM p`;
  return { policyNo: drawn.policy_no, riskNote: drawn.risk_note };
}

/**
 * The policy's numbers drawn and written, and the audit entry of the bind or renewal that names them (`policy_no`
 * added to its changes), in one statement.
 */
export async function drawPolicyNumbersAudited(
  ctx: Context,
  tx: Tx,
  policy: Numbered,
  today: string,
  line: ProductLine,
  entry: { action: string; changes: Record<string, unknown> },
): Promise<{ policyNo: string; riskNote: string }> {
  const drawn = await recordAuditWith<{ policy_no: string; risk_note: string }>(
    ctx,
    tx,
    policy.tenantId,
    { ...entry, entityType: 'policy', entityId: policy.uuid },
    {
      before: policyNumberCtes(policy, today, line),
      changes: Prisma.sql`jsonb_build_object('policy_no', (SELECT policy_no FROM p))`,
      answer: Prisma.sql`(SELECT policy_no FROM p) AS policy_no, (SELECT risk_note FROM p) AS risk_note`,
    },
  );
  // Never without a number: the stand-in is this transaction's own row.
  if (!drawn?.policy_no) throw new Error(`policy ${policy.id}: its number was not drawn (stand-in not found)`);
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

/** What createPolicy wrote: the policy's identity and the ids of the rows that hang off it, in the order given. */
export interface CreatedPolicy {
  policy: { id: number; tenantId: number; clientId: number; uuid: string; policyNo: string; riskNote: string };
  vehicles: { id: number; regNo: string }[];
  risks: { id: number; kind: string; name: string; sumInsuredMinor: bigint | null }[];
  debitNotes: { id: number; number: string; instalmentNo: number; amountMinor: bigint }[];
}

/**
 * The policy and every row a new policy starts with — its levy lines, vehicles, insured persons or items, premium
 * items, first status-history row and instalment debit notes — in one statement (issue 28: these were 6–12 statements
 * through Prisma, each its own round trip and result mapping). Vehicles and risks take ids drawn here in the order
 * given, and each premium item names its vehicle or risk by that id.
 */
export async function createPolicy(
  tx: Tx,
  np: NewPolicy,
  numbers: { policyNo: string; riskNote: string },
): Promise<CreatedPolicy> {
  const { tenantId } = np;
  const uuid = randomUUID();
  // What Prisma set on its own: the bind instant on the service's clock (the lifecycle reads the bind day from it),
  // and the wall clock for the rows' own timestamps.
  const createdAt = now();
  const wall = new Date();
  const json = (v: unknown) => (v == null ? null : JSON.stringify(v));
  const span = Prisma.sql`${np.startDate}::date, ${np.endDate}::date`;
  const ctes: Prisma.Sql[] = [
    Prisma.sql`pol AS (
      INSERT INTO policies (tenant_id, uuid, policy_no, risk_note, client_id, insurer_id, motor_product_id,
        cover_product_id, product_version, quote_id, product_line, vehicle_class, cover_type, cover_details,
        cover_period, days, start_date, end_date, payment_mode, instalment_count, rate_bps, basic_minor, taxes_minor,
        total_minor, limits_of_liability, sales_person_id, created_by_user_id, created_by_api_client_id,
        renewal_of_id, created_at, updated_at)
      VALUES (${tenantId}::int, ${uuid}::uuid, ${numbers.policyNo}, ${numbers.riskNote}, ${np.clientId}::int,
        ${np.insurerId}::int, ${np.motorProductId ?? null}::int, ${np.coverProductId ?? null}::int,
        ${np.productVersion}::int, ${np.quoteId ?? null}::int, ${np.productLine ?? 'motor'},
        ${np.vehicleClass ?? null}::"VehicleClass", ${np.coverType ?? null}::"CoverType",
        ${json(np.coverDetails)}::jsonb, ${np.coverPeriod}, ${np.days}::int, ${np.startDate}::date,
        ${np.endDate}::date, ${np.paymentMode}::"PaymentMode", ${np.instalmentCount}::int, ${np.rateBps}::int,
        ${np.basicMinor}::bigint, ${np.taxesMinor}::bigint, ${np.totalMinor}::bigint,
        ${json(np.limitsOfLiability)}::jsonb, ${np.salesPersonId}::int, ${np.createdByUserId}::int,
        ${np.createdByApiClientId}::int, ${np.renewalOfId ?? null}::int, ${createdAt}::timestamptz,
        ${wall}::timestamptz)
      RETURNING id)`,
    Prisma.sql`st AS (${initialStatusSql('pol', { tenantId, ...np.initialStatus }, createdAt)})`,
  ];
  if (np.taxes.length)
    ctes.push(Prisma.sql`tx AS (
      INSERT INTO policy_taxes (tenant_id, policy_id, code, name, amount_minor)
      SELECT ${tenantId}::int, pol.id, t.code, t.name, t.amount_minor
      FROM pol, (VALUES ${Prisma.join(
        np.taxes.map((t, i) => Prisma.sql`(${i + 1}::int, ${t.code}::text, ${t.name}::text, ${t.amountMinor}::bigint)`),
      )}) AS t (o, code, name, amount_minor)
      ORDER BY t.o)`);
  // Vehicles and risks take ids drawn here, in the order given (one nextval per row, in order), so each premium item
  // names its own vehicle or risk and every table lists the rows in the order they were submitted.
  const risks = np.risks ?? [];
  const drawIds = (name: string, table: string, n: number) =>
    Prisma.sql`${Prisma.raw(name)} AS (
      SELECT o, nextval(${`${table}_id_seq`}::regclass)::int AS id FROM generate_series(1, ${n}::int) AS o)`;
  if (np.vehicles.length)
    ctes.push(
      drawIds('vid', 'policy_vehicles', np.vehicles.length),
      Prisma.sql`veh AS (
        INSERT INTO policy_vehicles (id, tenant_id, policy_id, reg_no, chassis_no, engine_no, make, model,
          year_of_manufacture, value_minor, body_type, tonnes_milli, pll, coverage, benefits, added_on)
        SELECT vid.id, ${tenantId}::int, pol.id, x.reg_no, x.chassis_no, x.engine_no, x.make, x.model, x.yom,
          x.value_minor, x.body_type, x.tonnes_milli, x.pll, x.coverage, x.benefits, ${np.startDate}::date
        FROM pol, vid JOIN (VALUES ${Prisma.join(
          np.vehicles.map(
            (v, i) => Prisma.sql`(${i + 1}::int, ${v.regNo}::text, ${v.chassisNo ?? null}::text,
              ${v.engineNo ?? null}::text, ${v.make ?? null}::text, ${v.model ?? null}::text,
              ${v.yearOfManufacture}::int, ${v.valueMinor}::bigint, ${v.bodyType ?? null}::text,
              ${v.tonnesMilli ?? null}::int, ${v.pll || null}::int, ${v.coverage ?? null}::text,
              ${json(v.benefits)}::jsonb)`,
          ),
        )}) AS x (o, reg_no, chassis_no, engine_no, make, model, yom, value_minor, body_type, tonnes_milli, pll,
          coverage, benefits) ON x.o = vid.o
        ORDER BY vid.o)`,
    );
  if (risks.length)
    ctes.push(
      drawIds('rid', 'policy_risks', risks.length),
      Prisma.sql`rsk AS (
        INSERT INTO policy_risks (id, tenant_id, policy_id, kind, name, relationship, date_of_birth, age_years,
          in_school, id_no, sum_insured_minor, details, added_on)
        SELECT rid.id, ${tenantId}::int, pol.id, x.kind, x.name, x.relationship, x.date_of_birth, x.age_years,
          x.in_school, x.id_no, x.sum_insured_minor, x.details, ${np.startDate}::date
        FROM pol, rid JOIN (VALUES ${Prisma.join(
          risks.map(
            (r, i) => Prisma.sql`(${i + 1}::int, ${r.kind}::text, ${r.name}::text, ${r.relationship ?? null}::text,
              ${r.dateOfBirth ?? null}::date, ${r.ageYears ?? null}::int, ${r.inSchool ?? null}::boolean,
              ${r.idNo ?? null}::text, ${r.sumInsuredMinor ?? null}::bigint, ${json(r.details)}::jsonb)`,
          ),
        )}) AS x (o, kind, name, relationship, date_of_birth, age_years, in_school, id_no, sum_insured_minor,
          details) ON x.o = rid.o
        ORDER BY rid.o)`,
    );
  // The premium items, in this order: each vehicle's, each risk's priced on its own, the policy's as a whole.
  const items = [
    ...np.vehicles.map(
      (v, i) => Prisma.sql`((SELECT id FROM vid WHERE o = ${i + 1}::int), NULL::int, ${v.annualBasicMinor}::bigint)`,
    ),
    ...risks.flatMap((r, i) =>
      r.annualBasicMinor == null
        ? []
        : [Prisma.sql`(NULL::int, (SELECT id FROM rid WHERE o = ${i + 1}::int), ${r.annualBasicMinor}::bigint)`],
    ),
    ...(np.policyPremiumMinor == null ? [] : [Prisma.sql`(NULL::int, NULL::int, ${np.policyPremiumMinor}::bigint)`]),
  ];
  if (items.length)
    ctes.push(Prisma.sql`pi AS (
      INSERT INTO policy_premium_items (tenant_id, policy_id, vehicle_id, risk_id, annual_basic_minor, from_date,
        to_date, created_at)
      SELECT ${tenantId}::int, pol.id, i.vehicle_id, i.risk_id, i.annual_basic_minor, ${span}, ${wall}::timestamptz
      FROM pol, (SELECT *, row_number() OVER () AS o FROM (VALUES ${Prisma.join(items)}) AS v (vehicle_id, risk_id,
        annual_basic_minor)) AS i
      ORDER BY i.o)`);
  // The instalment debit notes: the first due on the start date, each next one a month later.
  const notes = splitInstalments(np.totalMinor, np.instalmentCount).map((amountMinor, i) => ({
    number: `DN-${numbers.policyNo}-${i + 1}/${np.instalmentCount}`,
    instalmentNo: i + 1,
    dueOn: i === 0 ? np.startDate : addMonths(np.startDate, i),
    amountMinor,
  }));
  ctes.push(Prisma.sql`dn AS (
    INSERT INTO debit_notes (tenant_id, policy_id, number, instalment_no, instalment_count, due_on, amount_minor,
      created_at)
    SELECT ${tenantId}::int, pol.id, d.number, d.instalment_no, ${np.instalmentCount}::int, d.due_on, d.amount_minor,
      ${wall}::timestamptz
    FROM pol, (VALUES ${Prisma.join(
      notes.map((d) => Prisma.sql`(${d.number}, ${d.instalmentNo}::int, ${d.dueOn}::date, ${d.amountMinor}::bigint)`),
    )}) AS d (number, instalment_no, due_on, amount_minor)
    ORDER BY d.instalment_no
    RETURNING id, instalment_no)`);
  const ids = (cte: string, n: number) =>
    Prisma.raw(n ? `(SELECT array_agg(id ORDER BY o) FROM ${cte})` : `'{}'::int[]`);
  const [row] = await tx.$queryRaw<{ id: number; vehicles: number[]; risks: number[]; notes: number[] }[]>`
    WITH ${Prisma.join(ctes, ',\n')}
    SELECT pol.id, ${ids('vid', np.vehicles.length)} AS vehicles, ${ids('rid', risks.length)} AS risks,
      (SELECT array_agg(id ORDER BY instalment_no) FROM dn) AS notes
    FROM pol`;
  return {
    policy: { id: row.id, tenantId, clientId: np.clientId, uuid, ...numbers },
    vehicles: np.vehicles.map((v, i) => ({ id: row.vehicles[i], regNo: v.regNo })),
    risks: risks.map((r, i) => ({
      id: row.risks[i],
      kind: r.kind,
      name: r.name,
      sumInsuredMinor: r.sumInsuredMinor ?? null,
    })),
    debitNotes: notes.map((d, i) => ({
      id: row.notes[i],
      number: d.number,
      instalmentNo: d.instalmentNo,
      amountMinor: d.amountMinor,
    })),
  };
}
