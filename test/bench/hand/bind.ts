/**
 * `POST /api/v1/motor/save` (bind) by hand: the work src/modules/policies/bind/bind.ts does with the REST facade's
 * exactly-once record around it (src/http/idempotency.ts), in ONE transaction, in the service's order:
 *  - the Idempotency-Key's advisory lock and stored answer (a retry replays the first answer, its client key redacted);
 *  - the risk priced on the tenant's rating tables (loaded once and kept while the tenant's rating version stands,
 *    as the service's rating cache does; read again inside the transaction when it moved) with the project's pure
 *    rating code (src/modules/motor/rating.ts priceOption), the caller held to that price (bind/price.ts
 *    checkAsSubmitted: version, figures within KES 1, instalments, premium finance);
 *  - no other pending or active cover on the registration for those dates (its advisory lock, then the lookup);
 *  - the client: linked by client_no (within the caller's reach), matched on its identifiers, or added (`force`),
 *    its number from the tenant's counter (tenant_counters 'client_no'), with its audit row;
 *  - the product's rating version read FOR SHARE (rate changes wait for this bind);
 *  - the policy number and risk note from the tenant's one gap-free counter (tenant_counters 'policy_no', as
 *    policy-factory.ts nextPolicyNumbers), so both servers' numbers stay one sequence;
 *  - in one statement: the policy, its levy lines, its vehicle, the vehicle's premium item, the first status-history
 *    row (pending_payment, source bind) and the instalment debit notes;
 *  - a client-area key when the client has none, the open prospects of the client (none for a new client; a bind that
 *    would move one answers 501 here), the audit row policy.bound (each audit row with its event-bus notice);
 *  - the answer stored under the Idempotency-Key.
 * A bind writes no outbox rows and queues no jobs (certificates follow payment): counted on a running service, a
 * bind adds rows to exactly these tables.
 *
 * Not done here: the per-client bind limit and the per-token rate limit (in the service's memory; the bench raises
 * both out of the way) and `prospect_uuid` (501).
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { CoverType, TenantType, VehicleClass } from '../../../src/generated/prisma/enums.ts';
import { canonicalJson } from '../../../src/http/body.ts';
import { newSecret, sha256Hex } from '../../../src/lib/crypto.ts';
import { addMonths, todayNairobi } from '../../../src/lib/dates.ts';
import { normaliseIdNo, normaliseKraPin, normalisePhone } from '../../../src/lib/identifiers.ts';
import {
  AppError,
  DomainRuleError,
  DuplicateClientError,
  type FieldError,
  PriceChangedError,
  ValidationError,
} from '../../../src/lib/problem.ts';
import { namesAgree } from '../../../src/modules/clients/client-matching.ts';
import { noQuote } from '../../../src/modules/motor/quote.service.ts';
import {
  NOT_OFFERED_TYPES,
  type PricedOption,
  priceOption,
  type RatingLender,
  type RatingLevy,
  type RatingProduct,
  splitInstalments,
} from '../../../src/modules/motor/rating.ts';
import { checkAsSubmitted } from '../../../src/modules/policies/bind/price.ts';
import {
  assertStartWithinReach,
  type BindInput,
  riskOf,
  validate,
} from '../../../src/modules/policies/bind/validate.ts';
import {
  type HandActor,
  type HandWriter,
  idempotencyKeyOf,
  inTransaction,
  recordAudit,
  requestIdOf,
  requireActor,
} from './actor.ts';
import { type HandAnswer, type HandRequest, type HandRoute, toShillings, authenticate } from './common.ts';
import { big, ratingLenders, ratingLevies } from './rating-rows.ts';

const IDEMPOTENCY_TTL_MS = Number(process.env.IDEMPOTENCY_TTL_HOURS || 48) * 3_600_000;
const REPLAY_NOTE = 'Replayed response: the client key was shown once, in the first response to this Idempotency-Key.';
const PORTAL_NOTE = 'The client already has client-area credentials; they keep working.';

// ---------------------------------------------------------------------------------------------------------------
// Rating tables, per tenant, kept while its rating version stands

interface Product extends RatingProduct {
  insurer: { id: number; name: string; active: boolean };
}

interface Tables {
  version: string;
  products: Product[];
  lenders: RatingLender[];
  levies: RatingLevy[];
}

/** The tenant's rating tables as of `c`'s snapshot ($1: the tenant; the superuser is not filtered by row-level security). */
async function loadTables(c: pg.PoolClient, tenantId: number): Promise<Tables> {
  const select = async (sql: string) => (await c.query(sql, [tenantId])).rows;
  const [version] = await select('SELECT version FROM rating_versions WHERE tenant_id = $1');
  const products = await select(`
    SELECT p.id, p.insurer_id, p.version, p.vehicle_class, p.cover_type, p.min_premium_minor, p.flat_premium_minor,
           p.pll_per_seat_minor, p.max_instalments, p.ipf_eligible, p.max_vehicle_age_years,
           i.name AS insurer_name, i.status AS insurer_status
      FROM motor_products p JOIN insurers i ON i.id = p.insurer_id
     WHERE p.tenant_id = $1 ORDER BY p.id`);
  const rateBands = await select(
    'SELECT motor_product_id, up_to_value_minor, rate_bps FROM motor_rate_bands WHERE tenant_id = $1 ORDER BY id',
  );
  const tonnageBands = await select(
    'SELECT motor_product_id, up_to_tonnes_milli, premium_minor FROM motor_tonnage_bands WHERE tenant_id = $1 ORDER BY id',
  );
  const lenders = await select(
    'SELECT id, name, min_premium_minor, max_premium_minor, pricing, deposit_rule, deposit_bps, max_instalment_to_income_bps, default_grace_days FROM ipf_lenders WHERE tenant_id = $1 AND active ORDER BY id',
  );
  const tenors = await select(
    'SELECT lender_id, months, charge_bps FROM ipf_tenors WHERE tenant_id = $1 ORDER BY months, id',
  );
  const feeBands = await select(
    'SELECT lender_id, up_to_premium_minor, fee_minor FROM ipf_fee_bands WHERE tenant_id = $1 ORDER BY id',
  );
  const levies = await select(
    'SELECT code, name, basis, rate_bps, amount_minor FROM levies WHERE tenant_id = $1 ORDER BY sort_order, id',
  );
  return {
    version: String(version?.version ?? '0'),
    products: products.map((p): Product => ({
      id: p.id,
      insurerId: p.insurer_id,
      version: p.version,
      vehicleClass: p.vehicle_class as VehicleClass,
      coverType: p.cover_type as CoverType,
      minPremiumMinor: big(p.min_premium_minor),
      flatPremiumMinor: big(p.flat_premium_minor),
      pllPerSeatMinor: BigInt(p.pll_per_seat_minor),
      maxInstalments: p.max_instalments,
      ipfEligible: p.ipf_eligible,
      maxVehicleAgeYears: p.max_vehicle_age_years,
      rateBands: rateBands
        .filter((b) => b.motor_product_id === p.id)
        .map((b) => ({ upToValueMinor: big(b.up_to_value_minor), rateBps: b.rate_bps })),
      tonnageBands: tonnageBands
        .filter((b) => b.motor_product_id === p.id)
        .map((b) => ({ upToTonnesMilli: b.up_to_tonnes_milli, premiumMinor: BigInt(b.premium_minor) })),
      insurer: { id: p.insurer_id, name: p.insurer_name, active: p.insurer_status === 'active' },
    })),
    lenders: ratingLenders(lenders, tenors, feeBands),
    levies: ratingLevies(levies),
  };
}

const tablesByTenant = new Map<number, Tables>();

/** The tables at the version the transaction sees: the kept copy when it is that version, else read in `c`. */
async function ratingTables(c: pg.PoolClient, tenantId: number): Promise<Tables> {
  const { rows } = await c.query<{ version: string }>({
    name: 'hand_bind_rating_version',
    text: 'SELECT version FROM rating_versions WHERE tenant_id = $1',
    values: [tenantId],
  });
  const version = rows[0]?.version ?? '0';
  const kept = tablesByTenant.get(tenantId);
  if (kept && kept.version === version) return kept;
  const fresh = await loadTables(c, tenantId);
  if (fresh.version === version) tablesByTenant.set(tenantId, fresh);
  return fresh;
}

type Option = PricedOption & { insurer: { id: number; name: string } };

/** As the service prices a bind (quote.service.ts priceRisk): the chosen insurer's products for the risk, cheapest first. */
function price(t: Tables, risk: ReturnType<typeof riskOf>, tenantType: string) {
  const tonnesMilli = risk.tonnage == null ? null : Math.round(risk.tonnage * 1000);
  const ratingRisk = {
    valueMinor: risk.valueMinor,
    tonnesMilli,
    pll: risk.pll,
    yearOfManufacture: risk.year,
    startYear: Number(risk.startDate.slice(0, 4)),
  };
  const options: Option[] = [];
  const refusals: string[] = [];
  for (const product of t.products) {
    if (product.vehicleClass !== risk.vehicleClass || product.coverType !== risk.coverType) continue;
    if (!product.insurer.active || (risk.insurerIds && !risk.insurerIds.includes(product.insurer.id))) continue;
    const priced = priceOption(product, ratingRisk, t.levies, {
      tenantType: tenantType as TenantType,
      lenders: t.lenders,
    });
    if ('ineligible' in priced) refusals.push(`${product.insurer.name}: ${priced.ineligible}`);
    else options.push({ ...priced, insurer: { id: product.insurer.id, name: product.insurer.name } });
  }
  options.sort((a, b) =>
    a.totalMinor < b.totalMinor ? -1 : a.totalMinor > b.totalMinor ? 1 : a.insurer.name.localeCompare(b.insurer.name),
  );
  return { options, refusals };
}

// ---------------------------------------------------------------------------------------------------------------
// The request

/** Numbers sent as numeric strings by legacy clients ("2019") are read as numbers (rest-compat/mappers/motor.ts num0). */
function num0(v: unknown): unknown {
  return typeof v === 'string' && v.trim() !== '' && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : v;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** The body as JSON (malformed: 400, before anything else). */
function readJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (e) {
    throw new AppError('invalid_request', { detail: `Malformed JSON body: ${(e as Error).message.slice(0, 120)}` });
  }
}

/** The JSON body read into the bind's input (the facade's bindFromRest), its types checked as the schema does. */
function bindInput(b: unknown): BindInput & { prospectUuid?: string | null } {
  if (!isObj(b)) throw new ValidationError([{ field: 'body', message: 'a JSON object' }]);
  const errors: FieldError[] = [];
  const str = (o: Obj, k: string, field: string) => {
    const v = o[k];
    if (v == null) return null;
    if (typeof v !== 'string') errors.push({ field, message: 'a string' });
    return typeof v === 'string' ? v : null;
  };
  const numb = (o: Obj, k: string, field: string, int = false) => {
    const v = num0(o[k]);
    if (v == null) return null;
    if (typeof v !== 'number' || !Number.isFinite(v) || (int && !Number.isInteger(v))) {
      errors.push({ field, message: int ? 'a whole number' : 'a number' });
      return null;
    }
    return v;
  };
  const c = b.client == null ? {} : b.client;
  if (!isObj(c)) errors.push({ field: 'client', message: 'an object' });
  const cl = isObj(c) ? c : {};
  const pol = isObj(b.policy) ? b.policy : {};
  if (!isObj(b.policy)) errors.push({ field: 'policy', message: 'an object' });
  if (!Array.isArray(b.vehicles)) errors.push({ field: 'vehicles', message: 'a list' });
  const vehicles = (Array.isArray(b.vehicles) ? b.vehicles : []).map((v: unknown, i) => {
    const o = isObj(v) ? v : {};
    const f = (k: string) => `vehicles.${i}.${k}`;
    return {
      regNo: str(o, 'regno', f('regno')) ?? str(o, 'reg_no', f('reg_no')),
      chassisNo: str(o, 'chassis_no', f('chassis_no')),
      engineNo: str(o, 'engine_no', f('engine_no')),
      make: str(o, 'make', f('make')),
      model: str(o, 'model', f('model')),
      yom: numb(o, 'yom', f('yom'), true),
      value: numb(o, 'value', f('value')),
      coverage: str(o, 'coverage', f('coverage')),
      bodyType: str(o, 'body_type', f('body_type')),
      tonnage: numb(o, 'tonnage', f('tonnage')),
      pll: numb(o, 'pll', f('pll'), true),
      benefits: o.benefits,
    };
  });
  const input = {
    client: {
      name: str(cl, 'name', 'client.name'),
      phone: str(cl, 'phone', 'client.phone'),
      email: str(cl, 'email', 'client.email'),
      idNo: str(cl, 'idno', 'client.idno') ?? str(cl, 'id_no', 'client.id_no'),
      kraPin: str(cl, 'pin', 'client.pin') ?? str(cl, 'kra_pin', 'client.kra_pin'),
      riskManagerId: numb(cl, 'risk_manager_id', 'client.risk_manager_id', true),
      branchId: numb(cl, 'branch_id', 'client.branch_id', true),
      salesPersonId: numb(cl, 'sales_person_id', 'client.sales_person_id', true),
      agentCode: str(cl, 'agentcode', 'client.agentcode'),
      clientNo: str(cl, 'client_no', 'client.client_no'),
      force: cl.force == null ? null : cl.force === true,
      type: str(cl, 'type', 'client.type'),
    },
    policy: {
      startDate: str(pol, 'start_date', 'policy.start_date'),
      endDate: str(pol, 'end_date', 'policy.end_date'),
      insurerId: numb(pol, 'insurer_id', 'policy.insurer_id', true),
      class: str(pol, 'class', 'policy.class'),
      coverage: str(pol, 'coverage', 'policy.coverage'),
      scope: str(pol, 'scope', 'policy.scope'),
      coverPeriod: str(pol, 'cover_period', 'policy.cover_period'),
      days: numb(pol, 'days', 'policy.days', true),
      totalBasic: numb(pol, 'total_basic', 'policy.total_basic'),
      taxes: numb(pol, 'taxes', 'policy.taxes'),
      premium: numb(pol, 'premium', 'policy.premium'),
      premiumInstalments: numb(pol, 'premium_instalments', 'policy.premium_instalments', true),
      paymentMode: str(pol, 'payment_mode', 'policy.payment_mode'),
      limitsOfLiability: pol.limits_of_liability,
      productVersion: numb(pol, 'product_version', 'policy.product_version', true),
    },
    vehicles,
    prospectUuid: str(b, 'prospect_uuid', 'prospect_uuid'),
  };
  if (cl.force != null && typeof cl.force !== 'boolean')
    errors.push({ field: 'client.force', message: 'true or false' });
  if (errors.length) throw new ValidationError(errors);
  return input;
}

// ---------------------------------------------------------------------------------------------------------------
// The client

interface ResolvedClient {
  id: number;
  clientNo: string;
  salesPersonId: number | null;
}

/** An agent's reach over clients (client.visibility.ts clientVisibility), $2: whether it applies, $3: the agent. */
const CLIENT_REACH = `(NOT $2::boolean OR c.created_by_user_id = $3 OR c.sales_person_id = $3
  OR EXISTS (SELECT 1 FROM policies p WHERE p.client_id = c.id AND (p.created_by_user_id = $3 OR p.sales_person_id = $3)))`;

/** The identifiers' advisory locks (clients/client/identity.ts lockIdentifiers): one person is created once. */
async function lockIdentifiers(c: pg.PoolClient, tenantId: number, ids: (string | null)[]): Promise<void> {
  for (const k of [...new Set(ids.filter((v): v is string => !!v))].sort())
    await c.query({
      name: 'hand_bind_identity_lock',
      text: 'SELECT pg_advisory_xact_lock($1::int, hashtext($2))',
      values: [tenantId, `client-identity:${k}`],
    });
}

/** The bind's client (clients/client-matching.ts resolveInsured): linked by number, matched, or added. */
async function resolveClient(
  c: pg.PoolClient,
  w: HandWriter,
  actor: HandActor,
  input: BindInput['client'],
  requestId: string,
): Promise<ResolvedClient> {
  const reach = [w.ownRecordsOnly, actor.userId];
  if (input.clientNo) {
    const { rows } = await c.query<{ id: number; client_no: string; sales_person_id: number | null }>(
      `SELECT c.id, c.client_no, c.sales_person_id FROM clients c
        WHERE c.tenant_id = $1 AND c.client_no = $4 AND ${CLIENT_REACH}`,
      [w.tenantId, ...reach, input.clientNo],
    );
    if (!rows[0])
      throw new ValidationError([
        { field: 'client.client_no', message: 'no client with this number that you can see' },
      ]);
    return { id: rows[0].id, clientNo: rows[0].client_no, salesPersonId: rows[0].sales_person_id };
  }
  let salesPersonId = input.salesPersonId ?? null;
  if (salesPersonId == null && input.agentCode) {
    const { rows } = await c.query<{ id: number }>(
      'SELECT id FROM users WHERE tenant_id = $1 AND agent_code = $2 AND NOT disabled ORDER BY id LIMIT 1',
      [w.tenantId, input.agentCode],
    );
    if (!rows[0]) throw new ValidationError([{ field: 'client.agentcode', message: 'no agent with this code' }]);
    salesPersonId = rows[0].id;
  }
  // The new client's fields, as the client schema reads them (clients/client/input.ts).
  const errors: FieldError[] = [];
  const name = (input.name ?? '').trim();
  if (name.length < 2 || name.length > 200)
    errors.push({
      field: 'client.name',
      message: name.length < 2 ? 'at least 2 characters' : 'at most 200 characters',
    });
  const phone = input.phone ? normalisePhone(input.phone) : null;
  if (!phone) errors.push({ field: 'client.phone', message: 'not a Kenyan mobile number (07…, 01…, +254…)' });
  const email = input.email ? input.email.trim().toLowerCase() : null;
  if (email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
    errors.push({ field: 'client.email', message: 'not an email address' });
  const idNo = input.idNo ? normaliseIdNo(input.idNo) : null;
  if (input.idNo && !idNo)
    errors.push({
      field: 'client.id_no',
      message: 'national ID (6–14 digits) or passport number (6–12 letters and digits)',
    });
  const kraPin = input.kraPin ? normaliseKraPin(input.kraPin) : null;
  if (input.kraPin && !kraPin)
    errors.push({ field: 'client.kra_pin', message: 'KRA PIN is A or P, 9 digits and a letter (e.g. A004416331M)' });
  const type = input.type ?? null;
  if (type !== null && type !== 'individual' && type !== 'corporate')
    errors.push({ field: 'client.type', message: 'individual or corporate' });
  if (errors.length) throw new ValidationError(errors);
  await assertRefs(c, w.tenantId, { branchId: input.branchId, riskManagerId: input.riskManagerId, salesPersonId });

  await lockIdentifiers(c, w.tenantId, [phone, idNo, kraPin]);
  if (!input.force) {
    const { rows } = await c.query<{
      id: number;
      client_no: string;
      name: string;
      phone: string;
      id_no: string | null;
      kra_pin: string | null;
      created_by_user_id: number | null;
      sales_person_id: number | null;
    }>(
      `SELECT id, client_no, name, phone, id_no, kra_pin, created_by_user_id, sales_person_id FROM clients
        WHERE tenant_id = $1 AND (phone = $2 OR id_no = $3 OR kra_pin = $4) ORDER BY id LIMIT 20`,
      [w.tenantId, phone, idNo, kraPin],
    );
    if (rows.length) {
      const owns = (m: (typeof rows)[number]) =>
        !w.ownRecordsOnly || m.created_by_user_id === actor.userId || m.sales_person_id === actor.userId;
      const matched = (m: (typeof rows)[number]) => [
        ...(m.phone === phone ? ['phone'] : []),
        ...(idNo && m.id_no === idNo ? ['id_no'] : []),
        ...(kraPin && m.kra_pin === kraPin ? ['kra_pin'] : []),
      ];
      const reusable = rows.find((m) => {
        const on = matched(m);
        return (on.includes('id_no') || on.includes('kra_pin')) && namesAgree(m.name, name) && owns(m);
      });
      if (reusable) return { id: reusable.id, clientNo: reusable.client_no, salesPersonId: reusable.sales_person_id };
      throw new DuplicateClientError(
        rows.map((m) => ({
          clientNo: owns(m) ? m.client_no : null,
          name: owns(m) ? m.name : null,
          matched: matched(m),
          redacted: !owns(m),
        })),
      );
    }
  }
  const counter = await nextNumber(c, w.tenantId, 'client_no');
  const clientNo = `C-${counter.padStart(6, '0')}`;
  const branchId = input.branchId ?? actor.branchId;
  const riskManagerId = input.riskManagerId ?? (actor.role === 'account_exec' ? actor.userId : null);
  const spId = salesPersonId ?? (actor.role === 'agent' ? actor.userId : null);
  const { rows } = await c.query<{ id: number }>({
    name: 'hand_bind_client_insert',
    text: `INSERT INTO clients (tenant_id, client_no, type, name, phone, email, id_no, kra_pin, branch_id, risk_manager_id,
                                sales_person_id, onboarded_via, created_by_user_id, created_by_api_client_id, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'api', $12, $13, now()) RETURNING id`,
    values: [
      w.tenantId,
      clientNo,
      type ?? 'individual',
      name,
      phone,
      email,
      idNo,
      kraPin,
      branchId,
      riskManagerId,
      spId,
      actor.userId,
      w.apiClientPk,
    ],
  });
  // The audit row names the fields as the client schema gave them (null for those it fills), the forced add flagged.
  await recordAudit(c, w, requestId, {
    action: 'client.created',
    entityType: 'client',
    entityId: clientNo,
    changes: {
      ...(type !== null ? { type } : {}),
      name,
      phone,
      ...(email !== null ? { email } : {}),
      id_no: idNo,
      kra_pin: kraPin,
      physical_address: null,
      ...(input.branchId != null ? { branch_id: input.branchId } : {}),
      ...(input.riskManagerId != null ? { risk_manager_id: input.riskManagerId } : {}),
      sales_person_id: salesPersonId,
      sector: null,
      alt_name: null,
      alt_phone: null,
      ...(input.force ? { forced_despite_matches: true } : {}),
    },
  });
  return { id: rows[0].id, clientNo, salesPersonId: spId };
}

/** The people and branch a new client names exist (clients/client/references.ts assertRefs). */
async function assertRefs(
  c: pg.PoolClient,
  tenantId: number,
  d: { branchId?: number | null; riskManagerId?: number | null; salesPersonId?: number | null },
): Promise<void> {
  if (d.branchId == null && d.riskManagerId == null && d.salesPersonId == null) return;
  const errors: FieldError[] = [];
  if (d.branchId != null) {
    const r = await c.query('SELECT 1 FROM branches WHERE tenant_id = $1 AND id = $2', [tenantId, d.branchId]);
    if (!r.rows.length) errors.push({ field: 'client.branch_id', message: 'no such branch' });
  }
  const user = async (id: number, roles: string[]) =>
    (
      await c.query('SELECT 1 FROM users WHERE tenant_id = $1 AND id = $2 AND NOT disabled AND role::text = ANY($3)', [
        tenantId,
        id,
        roles,
      ])
    ).rows.length > 0;
  if (d.riskManagerId != null && !(await user(d.riskManagerId, ['account_exec'])))
    errors.push({ field: 'client.risk_manager_id', message: 'no such risk manager' });
  if (d.salesPersonId != null && !(await user(d.salesPersonId, ['agent'])))
    errors.push({ field: 'client.sales_person_id', message: 'no such sales person' });
  if (errors.length) throw new ValidationError(errors);
}

/** The tenant's next number of `name`, gap-free (db/counters.ts): the counter row stays locked until commit. */
async function nextNumber(c: pg.PoolClient, tenantId: number, name: string): Promise<string> {
  const { rows } = await c.query<{ value: string }>({
    name: 'hand_bind_counter',
    text: `INSERT INTO tenant_counters (tenant_id, name, value) VALUES ($1, $2, 1)
           ON CONFLICT (tenant_id, name) DO UPDATE SET value = tenant_counters.value + 1 RETURNING value`,
    values: [tenantId, name],
  });
  return String(rows[0].value);
}

// ---------------------------------------------------------------------------------------------------------------
// The bind

/** The policy with its levy lines, vehicle, premium item, first status row and debit notes, in one statement. */
const CREATE_POLICY_SQL = `
  WITH p AS (
    INSERT INTO policies (tenant_id, uuid, policy_no, risk_note, client_id, insurer_id, motor_product_id, product_version,
                          product_line, vehicle_class, cover_type, cover_period, days, start_date, end_date, payment_mode,
                          instalment_count, rate_bps, basic_minor, taxes_minor, total_minor, limits_of_liability,
                          sales_person_id, created_by_user_id, created_by_api_client_id, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'motor', $9, $10, $11, $12, $13::date, $14::date, $15, $16, $17, $18, $19,
            $20, $21::jsonb, $22, $23, $24, now(), now())
    RETURNING id
  ), taxes AS (
    INSERT INTO policy_taxes (tenant_id, policy_id, code, name, amount_minor)
    SELECT $1, p.id, t.code, t.name, t.amount FROM p, unnest($25::text[], $26::text[], $27::bigint[]) AS t(code, name, amount)
  ), v AS (
    INSERT INTO policy_vehicles (tenant_id, policy_id, reg_no, chassis_no, engine_no, make, model, year_of_manufacture,
                                 value_minor, body_type, tonnes_milli, pll, coverage, benefits, added_on)
    SELECT $1, p.id, $28, $29, $30, $31, $32, $33, $34, $35, $36, $37, $38, $39::jsonb, $13::date FROM p
    RETURNING id, policy_id
  ), item AS (
    INSERT INTO policy_premium_items (tenant_id, policy_id, vehicle_id, annual_basic_minor, from_date, to_date)
    SELECT $1, v.policy_id, v.id, $18, $13::date, $14::date FROM v
  ), status AS (
    INSERT INTO policy_status_changes (tenant_id, policy_id, from_status, to_status, source, actor_user_id)
    SELECT $1, p.id, NULL, 'pending_payment', 'bind', $23 FROM p
  ), notes AS (
    INSERT INTO debit_notes (tenant_id, policy_id, number, instalment_no, instalment_count, due_on, amount_minor)
    SELECT $1, p.id, n.number, n.no, $16, n.due, n.amount
      FROM p, unnest($40::text[], $41::int[], $42::date[], $43::bigint[]) AS n(number, no, due, amount)
  )
  SELECT id FROM p`;

async function bind({ pool, req, raw }: HandRequest): Promise<HandAnswer> {
  const w = await authenticate(pool, req.headers.authorization, 'bind');
  // As the facade: the JSON read, the key checked, then (inside the transaction, after the key's lookup) the fields.
  const json = readJson(raw);
  const key = idempotencyKeyOf(req.headers['idempotency-key']);
  const requestId = requestIdOf(req);
  // What an Idempotency-Key's request hash covers (src/http/rest.ts): method, path below /api/v1, canonical body, user.
  const requestHash = sha256Hex(`POST /motor/save\n${canonicalJson(json)}\n${w.actor?.userId ?? ''}`);
  const origin = `http://${req.headers.host ?? 'localhost'}`;

  return inTransaction(pool, async (c) => {
    await c.query({
      name: 'hand_bind_key_lock',
      text: 'SELECT pg_advisory_xact_lock($1::int, hashtext($2))',
      values: [w.apiClientPk, key],
    });
    const prior = (
      await c.query<{
        id: string;
        request_hash: string;
        response_status: number;
        response_body: string;
        expires_at: Date;
      }>({
        name: 'hand_bind_key_find',
        text: 'SELECT id, request_hash, response_status, response_body, expires_at FROM idempotency_keys WHERE api_client_id = $1 AND key = $2',
        values: [w.apiClientPk, key],
      })
    ).rows[0];
    if (prior && prior.expires_at.getTime() > Date.now()) {
      if (prior.request_hash !== requestHash)
        throw new AppError('idempotency_key_reused', {
          detail: `Idempotency-Key was first used for a different request (saveMotorPolicy); use a new key for a new request`,
        });
      return { status: prior.response_status, body: prior.response_body, headers: { 'idempotent-replayed': 'true' } };
    }
    if (prior) await c.query('DELETE FROM idempotency_keys WHERE id = $1', [prior.id]);

    // The checks that need no database (bind/validate.ts), in the service's order.
    const input = bindInput(json);
    const actor = requireActor(w, 'policies.create');
    if ((input.policy.paymentMode ?? '').toLowerCase() === 'ipf' && NOT_OFFERED_TYPES.includes(w.tenantType))
      throw new AppError('ipf_not_offered', {
        detail: 'Premium finance is offered to brokerage and agency organisations only',
      });
    const v = validate(input);
    const risk = riskOf(input, v.days);
    const today = todayNairobi();
    assertStartWithinReach(risk, today);
    if (input.prospectUuid)
      throw new AppError('internal_error', { status: 501, detail: 'prospect_uuid: not in the hand-written baseline' });

    // The server's price, the caller held to it.
    const tables = await ratingTables(c, w.tenantId);
    const { options, refusals } = price(tables, risk, w.tenantType);
    const option = options[0];
    if (!option) {
      const insurer = await c.query('SELECT 1 FROM insurers WHERE tenant_id = $1 AND id = $2', [
        w.tenantId,
        input.policy.insurerId,
      ]);
      if (!insurer.rows.length)
        throw new ValidationError([{ field: 'policy.insurer_id', message: 'no such insurer on your panel' }]);
      if (refusals.length) throw new DomainRuleError(refusals.join('; '));
      throw noQuote(risk, refusals);
    }
    checkAsSubmitted(option, input.policy, v);

    // No other cover on the registration for these dates (policy.service.ts findCoverClash).
    await c.query({
      name: 'hand_bind_cover_lock',
      text: 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))',
      values: [`cover:${v.regNo}`],
    });
    const clash = (
      await c.query<{ policy_id: number; policy_no: string; visible: boolean }>({
        name: 'hand_bind_cover_clash',
        text: `SELECT pv.policy_id, p.policy_no,
                      (NOT $5::boolean OR p.created_by_user_id = $6 OR p.sales_person_id = $6
                        OR EXISTS (SELECT 1 FROM clients c WHERE c.id = p.client_id
                                    AND (c.created_by_user_id = $6 OR c.sales_person_id = $6))) AS visible
                 FROM policy_vehicles pv JOIN policies p ON p.id = pv.policy_id
                WHERE pv.tenant_id = $1 AND pv.reg_no = $2 AND (pv.removed_on IS NULL OR pv.removed_on > $3::date)
                  AND p.status IN ('pending_payment', 'active') AND p.start_date <= $4::date AND p.end_date >= $3::date
                ORDER BY pv.id LIMIT 1`,
        values: [w.tenantId, v.regNo, risk.startDate, risk.endDate, w.ownRecordsOnly, actor.userId],
      })
    ).rows[0];
    if (clash)
      throw new DomainRuleError(
        `${v.regNo} already has cover for these dates (${clash.visible ? `policy ${clash.policy_no}` : 'another policy'})`,
      );

    const client = await resolveClient(c, w, actor, input.client, requestId);

    // The product's version, held FOR SHARE until commit (policy-factory.ts currentProductVersion).
    const current = await c.query<{ version: number }>({
      name: 'hand_bind_product_version',
      text: 'SELECT version FROM motor_products WHERE id = $1 FOR SHARE',
      values: [option.productId],
    });
    if (current.rows[0]?.version !== option.productVersion)
      throw new PriceChangedError(`${option.insurer.name} changed its rates during this save; quote again`);

    const seq = (await nextNumber(c, w.tenantId, 'policy_no')).padStart(6, '0');
    const year = today.slice(0, 4);
    const policyNo = `MTR-${year}-${seq}`;
    const riskNote = `RN-${year}-${seq}`;
    const salesPersonId = client.salesPersonId ?? (actor.role === 'agent' ? actor.userId : null);
    const uuid = randomUUID();
    const vehicle = input.vehicles[0];
    const amounts = splitInstalments(option.totalMinor, v.instalments);
    const notes = amounts.map((amountMinor, i) => ({
      number: `DN-${policyNo}-${i + 1}/${v.instalments}`,
      instalmentNo: i + 1,
      dueOn: i === 0 ? risk.startDate : addMonths(risk.startDate, i),
      amountMinor,
    }));
    const asJsonb = (x: unknown) => (x === undefined || x === null ? null : JSON.stringify(x));
    const created = await c.query<{ id: number }>({
      name: 'hand_bind_create_policy',
      text: CREATE_POLICY_SQL,
      values: [
        w.tenantId,
        uuid,
        policyNo,
        riskNote,
        client.id,
        option.insurer.id,
        option.productId,
        option.productVersion,
        risk.vehicleClass,
        risk.coverType,
        risk.coverPeriod,
        risk.days,
        risk.startDate,
        risk.endDate,
        v.paymentMode,
        v.instalments,
        option.rateBps,
        option.basicMinor.toString(),
        option.taxesMinor.toString(),
        option.totalMinor.toString(),
        asJsonb(input.policy.limitsOfLiability),
        salesPersonId,
        actor.userId,
        w.apiClientPk,
        option.taxes.map((t) => t.code),
        option.taxes.map((t) => t.name),
        option.taxes.map((t) => t.amountMinor.toString()),
        v.regNo,
        vehicle.chassisNo?.trim().toUpperCase() || null,
        vehicle.engineNo?.trim().toUpperCase() || null,
        vehicle.make ?? null,
        vehicle.model ?? null,
        risk.year,
        risk.valueMinor === null ? null : risk.valueMinor.toString(),
        vehicle.bodyType ?? null,
        risk.tonnage == null ? null : Math.round(risk.tonnage * 1000),
        risk.pll || null,
        risk.coverage,
        asJsonb(vehicle.benefits),
        notes.map((n) => n.number),
        notes.map((n) => n.instalmentNo),
        notes.map((n) => n.dueOn),
        notes.map((n) => n.amountMinor.toString()),
      ],
    });
    const policyId = created.rows[0].id;

    // A client-area key when the client has none (shown once).
    const hasKey = await c.query({
      name: 'hand_bind_client_key_find',
      text: 'SELECT 1 FROM client_keys WHERE client_id = $1 AND revoked_at IS NULL LIMIT 1',
      values: [client.id],
    });
    let clientKey: string | null = null;
    if (!hasKey.rows.length) {
      clientKey = newSecret('bck');
      await c.query({
        name: 'hand_bind_client_key_insert',
        text: `INSERT INTO client_keys (tenant_id, client_id, key_hash, kind) VALUES ($1, $2, $3, 'policy')`,
        values: [w.tenantId, client.id, sha256Hex(clientKey)],
      });
    }
    // The client's open prospects would move to won (prospects/prospect/sale-hooks.ts): not in this baseline.
    const prospects = await c.query({
      name: 'hand_bind_open_prospects',
      text: `SELECT 1 FROM prospects WHERE client_id = $1 AND status IN ('new', 'contacted', 'qualified', 'quoted') LIMIT 1`,
      values: [client.id],
    });
    if (prospects.rows.length)
      throw new AppError('internal_error', { status: 501, detail: 'open prospects: not in the hand-written baseline' });
    await recordAudit(c, w, requestId, {
      action: 'policy.bound',
      entityType: 'policy',
      entityId: uuid,
      changes: {
        policy_no: policyNo,
        client_no: client.clientNo,
        insurer_id: option.insurer.id,
        total_minor: option.totalMinor.toString(),
        instalments: v.instalments,
        payment_mode: v.paymentMode,
      },
    });

    // The answer (rest-compat/mappers/motor.ts boundPolicyToRest), stored under the key with its secret redacted.
    const money = (name: string, minor: bigint) => ({ [name]: toShillings(minor), [`${name}_minor`]: Number(minor) });
    const answer = {
      message: 'Policy saved, pending payment',
      id: policyId,
      uuid,
      risknote: riskNote,
      policy_no: policyNo,
      client_no: client.clientNo,
      client_key: clientKey,
      status: 'pending_payment',
      product_line: 'motor',
      start_date: risk.startDate,
      end_date: risk.endDate,
      payment_mode: v.paymentMode,
      instalments: v.instalments,
      premium: {
        ...money('basic_premium', option.basicMinor),
        ...money('taxes', option.taxesMinor),
        ...money('total', option.totalMinor),
      },
      debit_note: {
        number: `DN-${policyNo}`,
        due_on: notes[0]?.dueOn ?? null,
        ...money('amount', option.totalMinor),
        instalments: notes.map((n) => ({
          number: n.number,
          instalment_no: n.instalmentNo,
          due_on: n.dueOn,
          ...money('amount', n.amountMinor),
        })),
      },
      portal: { client_no: client.clientNo, client_key: clientKey, ...(clientKey ? {} : { note: PORTAL_NOTE }) },
      links: { policy: `${origin}/api/v1/policies/${uuid}` },
    };
    const bodyText = JSON.stringify(answer);
    const stored = {
      ...answer,
      client_key: null,
      portal: { ...answer.portal, client_key: null },
      replay_note: REPLAY_NOTE,
    };
    await c.query({
      name: 'hand_bind_key_store',
      text: `INSERT INTO idempotency_keys (tenant_id, api_client_id, key, request_hash, operation, response_status,
                                           response_body, expires_at)
             VALUES ($1, $2, $3, $4, 'saveMotorPolicy', 201, $5, $6)`,
      values: [
        w.tenantId,
        w.apiClientPk,
        key,
        requestHash,
        JSON.stringify(stored),
        new Date(Date.now() + IDEMPOTENCY_TTL_MS),
      ],
    });
    return { status: 201, body: bodyText };
  });
}

export const routes: HandRoute[] = [{ method: 'POST', pattern: /^\/api\/v1\/motor\/save$/, handle: bind }];
