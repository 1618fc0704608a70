/**
 * The floor for the motor quote: the work the service does for `POST /api/v1/motor/quote` (and for the GraphQL
 * MotorQuote operation the bench sends), written by hand on bare node:http and pg, with no GraphQL, no Prisma and
 * no REST facade. It answers the bench's requests with the same status, content type and body bytes as the service
 * (run.ts checks that before measuring).
 *
 * At start it loads the tenant's rating tables once, with plain SQL (DATABASE_URL's user is the embedded server's
 * superuser, which row-level security does not filter, so every statement names the tenant): motor products with
 * their insurer, rate and tonnage bands and benefits, the active premium-finance lenders with their tenors, and the
 * levy table. Derived figures that depend on those tables alone (benefit ids) are computed then too.
 *
 * Per request, as the service does: read and parse the JSON body; look the bearer token up in PostgreSQL with the
 * service's own one statement (app_authenticate, a named prepared statement; nothing about a token is cached) and
 * refuse an unknown, expired or revoked one, a suspended tenant or a missing `quote` scope; validate and normalise the
 * risk (`normaliseRisk`); price every product that rates it with the project's pure rating code (`priceOption`:
 * basic premium, levies, instalment plans, premium-finance offers); sort cheapest first; build the JSON.
 *
 *   DATABASE_URL=… node --import tsx test/bench/quote-baseline.ts <tenant code>   → prints {"port": N} once listening
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import type { CoverType, TenantType, VehicleClass } from '../../src/generated/prisma/enums.ts';
import { toShillings } from '../../src/lib/money.ts';
import { AppError, toProblemDocument } from '../../src/lib/problem.ts';
import { type MotorQuoteInput, type MotorRisk, noQuote, normaliseRisk } from '../../src/modules/motor/quote.service.ts';
import {
  type PricedOption,
  priceOption,
  type RatingLender,
  type RatingLevy,
  type RatingProduct,
} from '../../src/modules/motor/rating.ts';
import { motorBenefitId } from '../../src/modules/reference/reference.service.ts';
import { authenticate } from './hand/common.ts';
import { big, ratingLenders, ratingLevies } from './hand/rating-rows.ts';

/** The operation the bench sends over GraphQL (scenarios.ts): the only one this server answers at /graphql. */
const MOTOR_QUOTE_GQL = readFileSync(
  path.resolve(import.meta.dirname, '../../rest-compat/operations/MotorQuote.graphql'),
  'utf8',
);

interface Product extends RatingProduct {
  insurer: { id: number; name: string; monogram: string; commissionRateBps: number; active: boolean };
  excess: string;
  benefits: { id: string; name: string; limitMinor: bigint | null }[];
}

interface Tables {
  tenantId: number;
  products: Product[];
  lenders: RatingLender[];
  levies: RatingLevy[];
}

type Priced = PricedOption & { product: Product };

const PRODUCTS_SQL = `
  SELECT p.id, p.insurer_id, p.version, p.vehicle_class, p.cover_type, p.excess_text, p.min_premium_minor,
         p.flat_premium_minor, p.pll_per_seat_minor, p.max_instalments, p.ipf_eligible, p.max_vehicle_age_years,
         i.name AS insurer_name, i.monogram, i.commission_rate_bps, i.status AS insurer_status
    FROM motor_products p JOIN insurers i ON i.id = p.insurer_id
   WHERE p.tenant_id = $1 ORDER BY p.id`;

async function loadTables(pool: pg.Pool, tenantCode: string): Promise<Tables> {
  const tenant = await pool.query<{ id: number }>('SELECT id FROM tenants WHERE code = $1', [tenantCode]);
  if (!tenant.rows[0]) throw new Error(`no tenant ${tenantCode}`);
  const tenantId = tenant.rows[0].id;
  // Rows of one of the tenant's tables ($1: the tenant): the superuser is not filtered by row-level security.
  const select = async (sql: string) => (await pool.query(sql, [tenantId])).rows;
  const products = await select(PRODUCTS_SQL);
  const rateBands = await select(
    'SELECT motor_product_id, up_to_value_minor, rate_bps FROM motor_rate_bands WHERE tenant_id = $1 ORDER BY id',
  );
  const tonnageBands = await select(
    'SELECT motor_product_id, up_to_tonnes_milli, premium_minor FROM motor_tonnage_bands WHERE tenant_id = $1 ORDER BY id',
  );
  const benefits = await select(
    'SELECT motor_product_id, name, limit_minor FROM motor_product_benefits WHERE tenant_id = $1 ORDER BY sort_order, id',
  );
  const lenders = await select(
    'SELECT id, name, min_premium_minor, max_premium_minor, pricing, deposit_rule, deposit_bps, max_instalment_to_income_bps, default_grace_days FROM ipf_lenders WHERE tenant_id = $1 AND active ORDER BY id',
  );
  const tenors = await select('SELECT lender_id, months, charge_bps FROM ipf_tenors WHERE tenant_id = $1 ORDER BY id');
  const feeBands = await select(
    'SELECT lender_id, up_to_premium_minor, fee_minor FROM ipf_fee_bands WHERE tenant_id = $1 ORDER BY up_to_premium_minor NULLS LAST',
  );
  const levies = await select(
    'SELECT code, name, basis, rate_bps, amount_minor FROM levies WHERE tenant_id = $1 ORDER BY sort_order, id',
  );
  const of = <R extends { motor_product_id: number }>(rows: R[], id: number) =>
    rows.filter((r) => r.motor_product_id === id);
  return {
    tenantId,
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
      rateBands: of(rateBands, p.id).map((b) => ({
        upToValueMinor: big(b.up_to_value_minor),
        rateBps: b.rate_bps,
      })),
      tonnageBands: of(tonnageBands, p.id).map((b) => ({
        upToTonnesMilli: b.up_to_tonnes_milli,
        premiumMinor: BigInt(b.premium_minor),
      })),
      insurer: {
        id: p.insurer_id,
        name: p.insurer_name,
        monogram: p.monogram,
        commissionRateBps: p.commission_rate_bps,
        active: p.insurer_status === 'active',
      },
      excess: p.excess_text,
      benefits: of(benefits, p.id).map((b) => ({
        id: motorBenefitId(b.name),
        name: b.name,
        limitMinor: big(b.limit_minor),
      })),
    })),
    lenders: ratingLenders(lenders, tenors, feeBands),
    levies: ratingLevies(levies),
  };
}

/** As the service prices a risk (priceRisk): every product of the class and cover of an active insurer, cheapest first. */
function price(tables: Tables, risk: MotorRisk, tenantType: TenantType): Priced[] {
  const tonnesMilli = risk.tonnage == null ? null : Math.round(risk.tonnage * 1000);
  const ratingRisk = {
    valueMinor: risk.valueMinor,
    tonnesMilli,
    pll: risk.pll,
    yearOfManufacture: risk.year,
    startYear: Number(risk.startDate.slice(0, 4)),
  };
  const options: Priced[] = [];
  const refusals: string[] = [];
  for (const product of tables.products) {
    if (product.vehicleClass !== risk.vehicleClass || product.coverType !== risk.coverType) continue;
    if (!product.insurer.active || (risk.insurerIds && !risk.insurerIds.includes(product.insurer.id))) continue;
    const priced = priceOption(product, ratingRisk, tables.levies, { tenantType, lenders: tables.lenders });
    if ('ineligible' in priced) refusals.push(`${product.insurer.name}: ${priced.ineligible}`);
    else options.push({ ...priced, product });
  }
  if (!options.length) throw noQuote(risk, refusals);
  return options.sort((a, b) =>
    a.totalMinor < b.totalMinor
      ? -1
      : a.totalMinor > b.totalMinor
        ? 1
        : a.product.insurer.name.localeCompare(b.product.insurer.name),
  );
}

const sh = (c: bigint | null) => (c === null ? null : toShillings(c));
const minor = (c: bigint | null) => (c === null ? null : Number(c));
const money = (c: bigint | null) => (c === null ? null : { amount: toShillings(c), amountMinor: Number(c) });

const message = (n: number) => `${n} insurer${n === 1 ? '' : 's'} rate${n === 1 ? 's' : ''} this risk`;

/** The REST body, as rest-compat/mappers/motor.ts spells it. */
function restBody(risk: MotorRisk, options: Priced[]) {
  return {
    message: message(options.length),
    quote: {
      class: risk.classLabel,
      coverage: risk.coverage,
      scope: risk.scopeLabel,
      vehicle_class: risk.vehicleClass,
      cover_type: risk.coverType,
      cover_period: risk.coverPeriod,
      days: risk.days,
      start_date: risk.startDate,
      end_date: risk.endDate,
      year: risk.year,
      tonnage: risk.tonnage,
      pll: risk.pll,
      value: sh(risk.valueMinor),
      value_minor: minor(risk.valueMinor),
    },
    options: options.map((o) => ({
      insurer_id: o.product.insurer.id,
      insurer_name: o.product.insurer.name,
      monogram: o.product.insurer.monogram,
      motor_product_id: o.productId,
      vehicle_class: o.product.vehicleClass,
      cover_type: o.product.coverType,
      rate: o.rateBps === null ? null : o.rateBps / 100,
      rate_bps: o.rateBps,
      value: sh(risk.valueMinor),
      value_minor: minor(risk.valueMinor),
      basic_premium: sh(o.basicMinor),
      basic_premium_minor: minor(o.basicMinor),
      taxes: o.taxes.map((t) => ({
        code: t.code,
        name: t.name,
        amount: sh(t.amountMinor),
        amount_minor: minor(t.amountMinor),
      })),
      taxes_total: sh(o.taxesMinor),
      taxes_total_minor: minor(o.taxesMinor),
      total: sh(o.totalMinor),
      total_minor: minor(o.totalMinor),
      commission_rate_bps: o.product.insurer.commissionRateBps,
      benefits: o.product.benefits.map((b) => ({ id: b.id, name: b.name })),
      limits_of_liability: o.product.benefits.map((b) => ({ benefit_id: b.id, item: b.name, limit: sh(b.limitMinor) })),
      excess: o.product.excess,
      pll: risk.pll,
      tonnage: risk.tonnage,
      instalments: o.instalments.map((i) => ({
        parts: i.parts,
        amounts: i.amountsMinor.map(sh),
        amounts_minor: i.amountsMinor.map(minor),
      })),
      ipf_offers: o.ipfOffers.map((x) => ({
        tenor_months: x.tenorMonths,
        deposit: sh(x.depositMinor),
        deposit_minor: minor(x.depositMinor),
        instalment: sh(x.instalmentMinor),
        instalment_minor: minor(x.instalmentMinor),
        apr_bps: x.aprBps,
        lender_name: x.lenderName,
      })),
      ipf_reason: o.ipfReason,
      product_version: o.productVersion,
    })),
  };
}

/** The GraphQL result, its fields in the order MotorQuote.graphql selects them. */
function graphqlBody(risk: MotorRisk, options: Priced[]) {
  const motorQuote = {
    __typename: 'MotorQuote',
    message: message(options.length),
    quote: {
      class: risk.classLabel,
      coverage: risk.coverage,
      scope: risk.scopeLabel,
      vehicleClass: risk.vehicleClass,
      coverType: risk.coverType,
      coverPeriod: risk.coverPeriod,
      days: risk.days,
      startDate: risk.startDate,
      endDate: risk.endDate,
      year: risk.year,
      tonnage: risk.tonnage,
      pll: risk.pll,
      value: money(risk.valueMinor),
    },
    options: options.map((o) => ({
      insurerId: o.product.insurer.id,
      insurerName: o.product.insurer.name,
      monogram: o.product.insurer.monogram,
      motorProductId: o.productId,
      productVersion: o.productVersion,
      vehicleClass: o.product.vehicleClass,
      coverType: o.product.coverType,
      rate: o.rateBps === null ? null : o.rateBps / 100,
      rateBps: o.rateBps,
      value: money(risk.valueMinor),
      basicPremium: money(o.basicMinor),
      taxes: o.taxes.map((t) => ({ code: t.code, name: t.name, amount: money(t.amountMinor) })),
      taxesTotal: money(o.taxesMinor),
      total: money(o.totalMinor),
      commissionRateBps: o.product.insurer.commissionRateBps,
      benefits: o.product.benefits.map((b) => ({ id: b.id, name: b.name })),
      limitsOfLiability: o.product.benefits.map((b) => ({
        benefitId: b.id,
        item: b.name,
        limit: b.limitMinor === null ? null : { amount: toShillings(b.limitMinor) },
      })),
      excess: o.product.excess,
      pll: risk.pll,
      tonnage: risk.tonnage,
      instalments: o.instalments.map((i) => ({ parts: i.parts, amounts: i.amountsMinor.map(money) })),
      ipfOffers: o.ipfOffers.map((x) => ({
        lenderName: x.lenderName,
        tenorMonths: x.tenorMonths,
        deposit: money(x.depositMinor),
        instalment: money(x.instalmentMinor),
        aprBps: x.aprBps,
      })),
      ipfReason: o.ipfReason,
    })),
  };
  return { data: { motorQuote } };
}

/** Legacy REST clients send numbers as numeric strings ("2019"): read as numbers, as the facade does. */
function num(v: unknown): unknown {
  return typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v;
}

/** The REST body's names onto the quote input (rest-compat's quoteInputFromRest, by hand). */
function restInput(b: Record<string, unknown>): MotorQuoteInput {
  const ids = b.insurer_id;
  return {
    class: b.class,
    coverage: b.coverage,
    scope: b.scope,
    coverPeriod: b.cover_period,
    days: num(b.days),
    year: num(b.year),
    value: num(b.value),
    tonnage: num(b.tonnage),
    pll: num(b.pll),
    insurerIds: ids == null || ids === '' ? undefined : Array.isArray(ids) ? ids.map(num) : [num(ids)],
    startDate: b.start_date,
  } as MotorQuoteInput;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function send(res: http.ServerResponse, status: number, contentType: string, body: unknown): void {
  const buf = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'content-type': contentType, 'content-length': String(buf.length) });
  res.end(buf);
}

const JSON_TYPE = 'application/json; charset=utf-8';

async function handle(pool: pg.Pool, tables: Tables, req: http.IncomingMessage, raw: Buffer) {
  const graphql = req.url === '/graphql';
  if (req.method !== 'POST' || (!graphql && req.url !== '/api/v1/motor/quote'))
    throw new AppError('not_found', { detail: 'This server answers the motor quote only' });
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError('invalid_request', { detail: 'The body is not JSON' });
  }
  if (!isObject(body)) throw new AppError('invalid_request', { detail: 'The body must be a JSON object' });
  const principal = await authenticate(pool, req.headers.authorization, 'quote');
  if (principal.tenantId !== tables.tenantId)
    throw new AppError('actor_forbidden', { detail: "This server holds one organisation's rating tables" });
  let input: MotorQuoteInput;
  if (graphql) {
    const variables = body.variables;
    if (body.query !== MOTOR_QUOTE_GQL || !isObject(variables) || !isObject(variables.input))
      throw new AppError('invalid_request', { detail: 'Only the MotorQuote operation, with variables.input' });
    input = variables.input;
  } else input = restInput(body);
  const risk = normaliseRisk(input);
  const options = price(tables, risk, principal.tenantType);
  return graphql ? graphqlBody(risk, options) : restBody(risk, options);
}

async function main(): Promise<void> {
  const tenantCode = process.argv[2];
  if (!tenantCode || !process.env.DATABASE_URL)
    throw new Error('usage: DATABASE_URL=… quote-baseline.ts <tenant code>');
  const pool = new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: 20,
    application_name: 'bench-quote-baseline',
  });
  pool.on('error', () => undefined);
  const tables = await loadTables(pool, tenantCode);

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(pool, tables, req, Buffer.concat(chunks)).then(
        (body) => send(res, 200, JSON_TYPE, body),
        (err: unknown) => {
          // Failures are never measured: a problem document close enough to the service's for a person to read.
          const e = err instanceof AppError ? err : new AppError('internal_error', { detail: String(err) });
          send(res, e.status, 'application/problem+json; charset=utf-8', toProblemDocument(e, randomUUID()));
        },
      );
    });
  });
  server.keepAliveTimeout = 5_000;
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  });
  const stop = () => {
    server.close(() => void pool.end().finally(() => process.exit(0)));
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  console.error(`quote-baseline: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});
