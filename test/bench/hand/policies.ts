/**
 * GET /api/v1/policies and GET /api/v1/policies/{uuid} written by hand: the full policy record (rest-compat's
 * policyDetailToRest over the PolicyDetail fragment) read with plain SQL and built as the service builds it, key for
 * key.
 *
 * Per request: the token looked up (common.ts; `read` scope, as the route asks); then one statement for the page (or
 * the one policy): what belongs to each policy one-to-one joined in (client, insurer, sales person, cover product, the
 * policy it renews and the one renewing it) and each child table as a JSON array from a correlated subquery on its
 * policy_id index (vehicles, levy lines, insured, debit notes, receipts with their allocations, status history, credit
 * notes, confirmed endorsements and cancellations with their notes, certificates with their vehicle, claims): the
 * shape of the service's own Prisma statement (relationJoins), written by hand. Orderings are the service's
 * (policy.query.ts, notes.type.ts, endorsement.type.ts, cancellation.type.ts, certificate.type.ts, claim.type.ts).
 * Every statement and subquery names the tenant; an agent's key also filters on reach (access/policy.visibility.ts,
 * in SQL).
 *
 * Types as the service prints them: cents are `*_minor` integers and whole shillings come from toShillings; dates
 * are read as text (Y-m-d, never through a local-time Date); timestamps are formatted by PostgreSQL as the DateTime
 * scalar prints them (ISO 8601 UTC with milliseconds); jsonb (cover details, endorsement changes and effects,
 * cancellation refunds, credit-note applications) as PostgreSQL returns it.
 */
import { ValidationError, notFound } from '../../../src/lib/problem.ts';
import { authenticate, type HandPrincipal, type HandRequest, type HandRoute, toShillings } from './common.ts';

type Cents = string | number | bigint | null;
type Row = Record<string, any>;

/** A money pair as the facade spells it: `{[name]: whole shillings, [name_minor]: cents}`, nulls when absent. */
function pair<N extends string>(name: N, cents: Cents): Record<string, number | null> {
  if (cents == null) return { [name]: null, [`${name}_minor`]: null };
  const c = BigInt(cents);
  return { [name]: toShillings(c), [`${name}_minor`]: Number(c) };
}

/** Levy lines of stored JSON (`{code, name, amount_minor}`). */
const levyLines = (ls: { code: string; name: string; amount_minor: Cents }[]) =>
  ls.map((l) => ({ code: l.code, name: l.name, ...pair('amount', l.amount_minor) }));

const LOWER_CAMEL = /^[a-z][a-zA-Z0-9]*$/;
/** Stored JSON with every key in snake_case (rest-compat's rule: only lower camelCase keys are renamed). */
function snake(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(snake);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [
      LOWER_CAMEL.test(k) ? k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : k,
      snake(x),
    ]),
  );
}

/** Limits of liability are shown as the caller gave them. */
const AS_GIVEN = new Set(['limits_of_liability', 'previous_limits_of_liability']);

/**
 * An endorsement's stored changes as the record shows them: each cents amount `x_minor` preceded by its whole
 * shillings `x`, and the internal `vehicle_id`s left out (endorsement.type.ts withShillings, then the mapper).
 */
function changesOut(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(changesOut);
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (k === 'vehicle_id') continue;
    if (k.endsWith('_minor') && (x === null || (typeof x === 'number' && Number.isSafeInteger(x))))
      out[k.slice(0, -6)] = x === null ? null : toShillings(BigInt(x));
    out[k] = AS_GIVEN.has(k) ? x : changesOut(x);
  }
  return out;
}

/** The registry's cancellation reason ids (cancellation/shared.ts CANCELLATION_REASONS); 8 for any other. */
const REGISTRY_REASON: Record<string, number> = {
  insured_request: 8,
  vehicle_sold: 15,
  non_payment: 21,
  written_off: 29,
  stolen: 30,
  insurer_request: 8,
  duplicate_cover: 8,
};

/** Certificate covers in words (certificate.service.ts COVER_NAMES). */
const COVER_NAMES: Record<number, string> = {
  100: 'Comprehensive',
  200: 'Third party only',
  300: 'Third party, fire and theft',
};

/** An agent's reach over `policies p` (policyVisibility): created or sold by them, or a client they own. */
const REACH = `(p.created_by_user_id = $R OR p.sales_person_id = $R OR EXISTS (
  SELECT 1 FROM clients oc WHERE oc.id = p.client_id AND (oc.created_by_user_id = $R OR oc.sales_person_id = $R)))`;

/** A timestamp as the DateTime scalar prints it (toISOString: UTC, milliseconds, Z), made by PostgreSQL. */
const ts = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A child table's rows as one JSON array (`[]` for none), ordered as the service orders them. */
const many = (as: string, order: string, select: string) =>
  `(SELECT coalesce(json_agg(x ORDER BY ${order}), '[]') FROM (${select}) x) AS ${as}`;

/**
 * The policy with everything the record shows, in one statement: its own columns, what it has one of (joined) and
 * each child table as a JSON array (correlated subqueries on the children's policy_id indexes; the service's Prisma
 * reads the same way, relationJoins). `$1` is the tenant; every subquery names it too.
 */
const POLICY_SELECT = `
SELECT p.id, p.uuid, p.policy_no, p.risk_note, p.status, p.product_line, p.vehicle_class, p.cover_type,
       p.cover_period, p.start_date::text AS start_date, p.end_date::text AS end_date, p.payment_mode,
       p.instalment_count, p.basic_minor, p.taxes_minor, p.total_minor, p.cover_details,
       ${ts('p.created_at')} AS created_at, p.motor_product_id,
       c.client_no, c.name AS client_name, c.phone AS client_phone,
       i.id AS insurer_id, i.name AS insurer_name,
       u.id AS sp_id, u.name AS sp_name, u.role AS sp_role, u.agent_code AS sp_code,
       cp.id AS cp_id, cp.code AS cp_code, cp.name AS cp_name,
       ro.uuid AS ro_uuid, ro.policy_no AS ro_no,
       rn.uuid AS rn_uuid, rn.policy_no AS rn_no, rn.status AS rn_status,
       ${many(
         'vehicles',
         'x.id',
         `SELECT id, reg_no, chassis_no, engine_no, make, model, year_of_manufacture, value_minor, body_type, coverage,
                 status, added_on::text AS added_on, removed_on::text AS removed_on
            FROM policy_vehicles WHERE tenant_id = $1 AND policy_id = p.id`,
       )},
       ${many(
         'levies',
         'x.id',
         `SELECT id, code, name, amount_minor FROM policy_taxes WHERE tenant_id = $1 AND policy_id = p.id`,
       )},
       ${many(
         'insured',
         'x.id',
         `SELECT id, kind, name, relationship, age_years, date_of_birth::text AS date_of_birth, in_school, id_no,
                 sum_insured_minor, details, status, added_on::text AS added_on, removed_on::text AS removed_on
            FROM policy_risks WHERE tenant_id = $1 AND policy_id = p.id`,
       )},
       ${many(
         'debit_notes',
         'x.due_on, x.instalment_no, x.id',
         `SELECT id, number, kind, instalment_no, due_on::text AS due_on, amount_minor, paid_minor, credited_minor
            FROM debit_notes WHERE tenant_id = $1 AND policy_id = p.id`,
       )},
       ${many(
         'receipts',
         'x.id',
         `SELECT r.id, r.receipt_no, r.transaction_ref, r.method, r.purpose, r.account, ${ts('r.paid_at')} AS paid_at, r.amount_minor,
                 r.unallocated_minor,
                 (SELECT coalesce(json_agg(json_build_object('n', d.number, 'a', a.amount_minor) ORDER BY a.id), '[]')
                    FROM receipt_allocations a JOIN debit_notes d ON d.id = a.debit_note_id
                   WHERE a.tenant_id = $1 AND a.receipt_id = r.id) AS allocations
            FROM receipts r WHERE r.tenant_id = $1 AND r.policy_id = p.id`,
       )},
       ${many(
         'history',
         'x.id',
         `SELECT id, from_status, to_status, source, reason, ${ts('at')} AS at
            FROM policy_status_changes WHERE tenant_id = $1 AND policy_id = p.id`,
       )},
       ${many(
         'credit_notes',
         'x.id',
         `SELECT id, number, kind, amount_minor, basic_minor, taxes_minor, applied_minor, applications, refunded_minor,
                 ${ts('created_at')} AS created_at
            FROM credit_notes WHERE tenant_id = $1 AND policy_id = p.id`,
       )},
       ${many(
         'endorsements',
         'x.id DESC',
         `SELECT e.id, e.uuid, e.number, e.operation, e.status, e.effective_date::text AS effective_date, e.changes,
                 e.effect, e.based_on_revision, ${ts('e.expires_at')} AS expires_at,
                 ${ts('e.created_at')} AS created_at, ${ts('e.confirmed_at')} AS confirmed_at,
                 ${ts('e.discarded_at')} AS discarded_at,
                 dn.number AS dn_number, dn.due_on::text AS dn_due_on, dn.amount_minor AS dn_amount,
                 cn.number AS cn_number, cn.amount_minor AS cn_amount, cn.applied_minor AS cn_applied,
                 cn.refunded_minor AS cn_refunded, cn.applications AS cn_applications
            FROM endorsements e
            LEFT JOIN debit_notes dn ON dn.id = e.debit_note_id
            LEFT JOIN credit_notes cn ON cn.id = e.credit_note_id
           WHERE e.tenant_id = $1 AND e.policy_id = p.id AND e.status = 'confirmed'`,
       )},
       ${many(
         'cancellations',
         'x.id DESC',
         `SELECT k.id, k.uuid, k.status, k.reason, k.requested_by, k.note, k.effective_date::text AS effective_date,
                 k.based_on_revision, k.refund, ${ts('k.expires_at')} AS expires_at,
                 ${ts('k.confirmed_at')} AS confirmed_at, ${ts('k.reinstated_at')} AS reinstated_at,
                 ${ts('k.created_at')} AS created_at,
                 cn.number AS cn_number, cn.amount_minor AS cn_amount, cn.applied_minor AS cn_applied,
                 cn.refunded_minor AS cn_refunded, cn.refund_payee AS cn_payee,
                 rd.number AS rd_number, rd.amount_minor AS rd_amount, rd.credited_minor AS rd_credited
            FROM cancellations k
            LEFT JOIN credit_notes cn ON cn.id = k.credit_note_id
            LEFT JOIN debit_notes rd ON rd.id = k.reinstatement_note_id
           WHERE k.tenant_id = $1 AND k.policy_id = p.id AND k.status IN ('confirmed', 'reinstated')`,
       )},
       ${many(
         'certificates',
         'x.series, x.stage, x.vehicle_id, x.id',
         `SELECT k.id, k.vehicle_id, k.uuid, k.certificate_no, k.status, v.reg_no, v.chassis_no, k.certificate_class,
                 k.cover_code, k.stage, k.stage_count, k.series, k.start_date::text AS start_date,
                 k.end_date::text AS end_date, k.registry_ref, k.attempts, k.error_code, k.error_message,
                 ${ts('k.issued_at')} AS issued_at, ${ts('k.cancelled_at')} AS cancelled_at, k.cancel_reason_id
            FROM certificates k JOIN policy_vehicles v ON v.id = k.vehicle_id
           WHERE k.tenant_id = $1 AND k.policy_id = p.id`,
       )},
       ${many(
         'claims',
         'x.id DESC',
         `SELECT id, uuid, claim_no, status, cause_code, loss_date::text AS loss_date, reg_no
            FROM claims WHERE tenant_id = $1 AND policy_id = p.id`,
       )}
  FROM policies p
  JOIN clients c ON c.id = p.client_id
  JOIN insurers i ON i.id = p.insurer_id
  LEFT JOIN users u ON u.id = p.sales_person_id
  LEFT JOIN cover_products cp ON cp.id = p.cover_product_id
  LEFT JOIN policies ro ON ro.id = p.renewal_of_id
  LEFT JOIN policies rn ON rn.renewal_of_id = p.id
 WHERE p.tenant_id = $1`;

/** Named (prepared once per connection) by its text: the list's text depends only on which filters are sent. */
const statementNames = new Map<string, string>();
function statement(text: string, values: unknown[]) {
  let name = statementNames.get(text);
  if (!name) statementNames.set(text, (name = `hand_policies_${statementNames.size}`));
  return { name, text, values };
}

/** One policy as policyDetailToRest prints it, key for key. */
function policyOut(p: Row) {
  const of = (k: string) => p[k] as Row[];
  const policyRef = { uuid: p.uuid, policy_no: p.policy_no };
  return {
    id: p.id,
    uuid: p.uuid,
    policy_no: p.policy_no,
    risknote: p.risk_note,
    status: p.status,
    product_line: p.product_line,
    class: p.vehicle_class,
    scope: p.cover_type,
    cover_period: p.cover_period,
    start_date: p.start_date,
    end_date: p.end_date,
    payment_mode: p.payment_mode,
    instalments: p.instalment_count,
    client: { client_no: p.client_no, name: p.client_name, phone: p.client_phone },
    insurer: { id: p.insurer_id, name: p.insurer_name },
    sales_person: p.sp_id == null ? null : { id: p.sp_id, name: p.sp_name, role: p.sp_role, code: p.sp_code },
    premium: {
      ...pair('basic_premium', p.basic_minor),
      ...pair('taxes', p.taxes_minor),
      ...pair('total', p.total_minor),
      levies: of('levies').map((l) => ({ code: l.code, name: l.name, ...pair('amount', l.amount_minor) })),
    },
    product: p.cp_id == null ? null : { id: p.cp_id, code: p.cp_code, name: p.cp_name },
    cover: snake(p.cover_details ?? null),
    insured: of('insured').map((x) => ({
      id: x.id,
      kind: x.kind,
      name: x.name,
      relationship: x.relationship,
      age: x.age_years,
      date_of_birth: x.date_of_birth,
      in_school: x.in_school,
      id_no: x.id_no,
      ...pair('sum_insured', x.sum_insured_minor),
      details: snake(x.details ?? null),
      status: x.status,
      added_on: x.added_on,
      removed_on: x.removed_on,
    })),
    vehicles: of('vehicles').map((v) => ({
      regno: v.reg_no,
      chassis_no: v.chassis_no,
      engine_no: v.engine_no,
      make: v.make,
      model: v.model,
      yom: v.year_of_manufacture,
      ...pair('value', v.value_minor),
      body_type: v.body_type,
      coverage: v.coverage,
      status: v.status,
      added_on: v.added_on,
      removed_on: v.removed_on,
    })),
    debit_notes: of('debit_notes').map((d) => {
      const open = BigInt(d.amount_minor) - BigInt(d.paid_minor) - BigInt(d.credited_minor);
      return {
        number: d.number,
        kind: d.kind,
        instalment_no: d.instalment_no,
        due_on: d.due_on,
        ...pair('amount', d.amount_minor),
        ...pair('paid', d.paid_minor),
        ...pair('credited', d.credited_minor),
        ...pair('outstanding', open > 0n ? open : 0n),
      };
    }),
    credit_notes: of('credit_notes').map((c) => ({
      number: c.number,
      kind: c.kind,
      ...pair('amount', c.amount_minor),
      ...pair('basic_premium', c.basic_minor),
      ...pair('taxes', c.taxes_minor),
      ...pair('applied', c.applied_minor),
      ...pair('refunded', c.refunded_minor),
      applications: applications(c.applications),
      created_at: c.created_at,
    })),
    receipts: of('receipts').map((x) => ({
      receipt_no: x.receipt_no,
      transaction_ref: x.transaction_ref,
      method: x.method,
      purpose: x.purpose,
      account: x.account,
      paid_at: x.paid_at,
      ...pair('amount', x.amount_minor),
      ...pair('unallocated', x.unallocated_minor),
      allocations: (x.allocations as { n: string; a: string }[]).map((a) => ({
        debit_note_no: a.n,
        ...pair('amount', a.a),
      })),
    })),
    endorsements: of('endorsements').map((e) => endorsementOut(e, policyRef)),
    cancellations: of('cancellations').map((x) => cancellationOut(x, p)),
    certificates: of('certificates').map((k) => ({
      uuid: k.uuid,
      certificate_no: k.certificate_no,
      status: k.status,
      policy_no: p.policy_no,
      policy_uuid: p.uuid,
      regno: k.reg_no,
      chassis_no: k.chassis_no,
      certificate_class: k.certificate_class,
      cover_code: k.cover_code,
      cover: COVER_NAMES[k.cover_code] ?? String(k.cover_code),
      stage: k.stage,
      stage_count: k.stage_count,
      series: k.series,
      start_date: k.start_date,
      end_date: k.end_date,
      registry_ref: k.registry_ref,
      attempts: k.attempts,
      error: k.error_code ? { code: k.error_code, message: k.error_message ?? '' } : null,
      issued_at: k.issued_at,
      cancelled_at: k.cancelled_at,
      cancel_reason_id: k.cancel_reason_id,
    })),
    status_history: of('history').map((h) => ({
      from: h.from_status,
      to: h.to_status,
      source: h.source,
      reason: h.reason,
      at: h.at,
    })),
    renewal_of: p.ro_uuid == null ? null : { uuid: p.ro_uuid, policy_no: p.ro_no },
    renewed_by: p.rn_uuid == null ? null : { uuid: p.rn_uuid, policy_no: p.rn_no, status: p.rn_status },
    created_at: p.created_at,
    claims: of('claims').map((c) => ({
      uuid: c.uuid,
      claim_no: c.claim_no,
      status: c.status,
      cause: c.cause_code,
      loss_date: c.loss_date,
      registration: c.reg_no,
    })),
  };
}

/** A credit note's stored applications (`{debit_note_id, number, amount_minor}`). */
const applications = (a: { number: string; amount_minor: Cents }[] | null) =>
  (a ?? []).map((x) => ({ debit_note_no: x.number, ...pair('amount', x.amount_minor) }));

function endorsementOut(e: Row, policy: { uuid: string; policy_no: string }) {
  const fx = e.effect;
  return {
    uuid: e.uuid,
    number: e.number,
    operation: e.operation,
    // Only confirmed ones are listed, so the pending-past-expiry rule (→ expired) never applies.
    status: e.status,
    effective_date: e.effective_date,
    policy,
    changes: changesOut(e.changes),
    premium_effect: {
      ...pair('basic_premium', fx.basic_minor),
      ...pair('taxes', fx.taxes_minor),
      ...pair('total', fx.total_minor),
      levies: levyLines(fx.levies),
    },
    days: { in_period: fx.days.in_period, remaining: fx.days.remaining },
    items: (fx.items as Row[]).map((i) => ({
      regno: i.regno ?? null,
      insured: i.insured ?? null,
      ...pair('annual_basic_before', i.annual_basic_before_minor),
      ...pair('annual_basic_after', i.annual_basic_after_minor),
    })),
    note:
      e.dn_number != null
        ? { kind: 'debit', number: e.dn_number, ...pair('amount', e.dn_amount), due_on: e.dn_due_on }
        : e.cn_number != null
          ? {
              kind: 'credit',
              number: e.cn_number,
              ...pair('amount', e.cn_amount),
              ...pair('applied', e.cn_applied),
              ...pair('refunded', e.cn_refunded),
              applications: applications(e.cn_applications),
            }
          : null,
    remark: (e.changes as Row | null)?.remark ?? null,
    based_on_revision: e.based_on_revision,
    expires_at: e.expires_at,
    created_at: e.created_at,
    confirmed_at: e.confirmed_at,
    discarded_at: e.discarded_at,
  };
}

function cancellationOut(x: Row, p: Row) {
  const r = x.refund;
  return {
    id: x.id,
    uuid: x.uuid,
    policy: { uuid: p.uuid, policy_no: p.policy_no, status: p.status },
    // Only confirmed and reinstated ones are listed: the quoted-past-expiry rule (→ expired) never applies.
    status: x.status,
    reason: x.reason,
    registry_reason_id: p.motor_product_id == null ? null : (REGISTRY_REASON[x.reason] ?? 8),
    requested_by: x.requested_by,
    note: x.note,
    effective_date: x.effective_date,
    based_on_revision: x.based_on_revision,
    refund: {
      days: { in_period: r.days.in_period, covered: r.days.covered, unearned: r.days.unearned },
      ...pair('basic_premium', r.basic_minor),
      levies: levyLines(r.levies),
      ...pair('taxes', r.taxes_minor),
      non_refundable: (r.non_refundable as Row[]).map((l) => ({
        code: l.code,
        name: l.name,
        ...pair('amount', l.amount_minor),
        reason: l.reason,
      })),
      ...pair('credit_total', r.credit_total_minor),
      applied_to_debit_notes: (r.applied_to_debit_notes as Row[]).map((a) => ({
        debit_note_no: a.number,
        ...pair('amount', a.amount_minor),
      })),
      ...pair('applied_total', r.applied_total_minor),
      ...pair('refund_to_client', r.refund_to_client_minor),
      refund_payee: r.refund_payee ?? 'client',
      ...pair('refund_to_lender', r.refund_to_lender_minor ?? '0'),
      ...pair('outstanding_after', r.outstanding_after_minor),
      items: (r.items as Row[]).map((i) => ({
        regno: i.regno,
        insured: i.insured ?? null,
        ...pair('annual_basic_premium', i.annual_basic_minor),
        from: i.from,
        to: i.to,
        ...pair('unearned_basic_premium', i.unearned_minor),
      })),
    },
    credit_note:
      x.cn_number == null
        ? null
        : {
            number: x.cn_number,
            ...pair('amount', x.cn_amount),
            ...pair('applied', x.cn_applied),
            ...pair('refunded', x.cn_refunded),
            refund_payee: x.cn_payee,
          },
    reinstatement_debit_note:
      x.rd_number == null
        ? null
        : { number: x.rd_number, ...pair('amount', x.rd_amount), ...pair('credited', x.rd_credited) },
    expires_at: x.expires_at,
    confirmed_at: x.confirmed_at,
    reinstated_at: x.reinstated_at,
    created_at: x.created_at,
  };
}

/** The statement's reach clause and its parameter, for an agent's key; nothing for staff. */
function reach(who: HandPrincipal, values: unknown[]): string {
  if (!who.ownRecordsOnly) return '';
  values.push(who.userId);
  return ` AND ${REACH.replaceAll('$R', `$${values.length}`)}`;
}

const STATUSES = ['pending_payment', 'active', 'cancelled', 'expired', 'lapsed', 'renewed', 'not_taken_up'];
const YMD = /^\d{4}-\d{2}-\d{2}$/;

/** A Pothos Prisma cursor over an Int id ("GPC:N:<id>", base64), or null when it is not one. */
function cursorId(cursor: string): number | null {
  const s = Buffer.from(cursor, 'base64').toString('utf8');
  const m = /^GPC:N:(\d{1,10})$/.exec(s);
  const n = m ? Number(m[1]) : NaN;
  return Number.isInteger(n) && n <= 2 ** 31 - 1 ? n : null;
}
const cursorOf = (id: number) => Buffer.from(`GPC:N:${id}`).toString('base64');

/** GET /api/v1/policies: the filters, the page (newest first) and `links.next` as rest-compat/pagination.ts. */
async function listPolicies(r: HandRequest) {
  const who = await authenticate(r.pool, r.req.headers.authorization, 'read');
  const q = r.url.searchParams;
  const errors: { field: string; message: string }[] = [];
  const size = (name: string) => {
    const raw = q.get(name);
    if (raw == null || raw === '') return undefined;
    const v = Number(raw);
    if (!Number.isInteger(v) || v < 1 || v > 100) errors.push({ field: name, message: 'an integer from 1 to 100' });
    return v;
  };
  const first = size('limit') ?? size('per_page') ?? 25;
  const pageRaw = q.get('page');
  const page = pageRaw ? Number(pageRaw) : undefined;
  if (page !== undefined && (!Number.isInteger(page) || page < 1 || page > 1_000_000))
    errors.push({ field: 'page', message: 'an integer from 1 to 1000000' });
  const cursor = q.get('cursor');
  const after = cursor ? cursorId(cursor) : null;
  if (cursor && after == null)
    errors.push({
      field: 'cursor',
      message: 'not a cursor this API issued; use links.next or pageInfo.endCursor as given',
    });
  if (errors.length) throw new ValidationError(errors);

  const values: unknown[] = [who.tenantId];
  let sql = POLICY_SELECT + reach(who, values);
  const and = (clause: string, v: unknown) => {
    values.push(v);
    sql += ` AND ${clause.replace('?', `$${values.length}`)}`;
  };
  const f = (k: string) => q.get(k) || undefined;
  const status = f('status');
  if (status && !STATUSES.includes(status))
    throw new ValidationError([{ field: 'status', message: `one of ${STATUSES.join(', ')}` }]);
  if (status) and('p.status = ?', status);
  if (f('client_no')) and('c.client_no = ?', f('client_no'));
  if (f('product_line')) and('p.product_line = ?', f('product_line'));
  if (f('insurer_id')) and('p.insurer_id = ?', Number(f('insurer_id')));
  if (f('sales_person_id')) and('p.sales_person_id = ?', Number(f('sales_person_id')));
  for (const [k, op] of [
    ['start_from', '>='],
    ['start_to', '<='],
  ] as const) {
    const v = f(k);
    if (v && !YMD.test(v)) throw new ValidationError([{ field: k, message: 'a real calendar date, Y-m-d' }]);
    if (v) and(`p.start_date ${op} ?::date`, v);
  }
  const search = f('search')?.trim();
  if (search) {
    const like = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const reg = search.replace(/\s+/g, '').toUpperCase();
    values.push(like);
    const likeParam = `$${values.length}`;
    if (reg) {
      values.push(`%${reg.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      sql += ` AND (p.policy_no ILIKE ${likeParam} OR EXISTS (SELECT 1 FROM policy_vehicles sv WHERE sv.policy_id = p.id AND sv.tenant_id = $1 AND sv.reg_no LIKE $${values.length}))`;
    } else sql += ` AND p.policy_no ILIKE ${likeParam}`;
  }
  // Prisma's cursor: rows before the cursor's row, none when that row is not there.
  if (after != null) and('p.id < (SELECT cp.id FROM policies cp WHERE cp.id = ? AND cp.tenant_id = $1)', after);
  // The limit written into the text (a checked integer), not sent as a parameter: with it unknown PostgreSQL keeps
  // planning the statement afresh (about 10 ms for this one) instead of reusing its generic plan.
  sql += ` ORDER BY p.id DESC LIMIT ${first + 1}`;
  if (after == null && page && page > 1) {
    values.push((page - 1) * first);
    sql += ` OFFSET $${values.length}`;
  }

  const { rows } = await r.pool.query<Row>(statement(sql, values));
  const hasMore = rows.length > first;
  const pageRows = hasMore ? rows.slice(0, first) : rows;
  let next: string | null = null;
  if (hasMore && pageRows.length) {
    const u = new URL(r.url.href);
    for (const k of ['page', 'per_page']) u.searchParams.delete(k);
    u.searchParams.set('limit', String(first));
    u.searchParams.set('cursor', cursorOf(pageRows[pageRows.length - 1].id));
    next = `${u.pathname}${u.search}`;
  }
  return {
    status: 200,
    body: {
      data: pageRows.map(policyOut),
      meta: { limit: first, has_more: hasMore, count: pageRows.length },
      links: { next },
    },
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** GET /api/v1/policies/{uuid}: the one record, or 404 when missing or out of reach. */
async function getPolicy(r: HandRequest) {
  const who = await authenticate(r.pool, r.req.headers.authorization, 'read');
  const uuid = r.params[0];
  if (!UUID.test(uuid)) throw notFound('Policy');
  const values: unknown[] = [who.tenantId, uuid];
  const { rows } = await r.pool.query<Row>(statement(`${POLICY_SELECT} AND p.uuid = $2${reach(who, values)}`, values));
  const p = rows[0];
  if (!p) throw notFound('Policy');
  return { status: 200, body: { data: policyOut(p) } };
}

export const routes: HandRoute[] = [
  { method: 'GET', pattern: /^\/api\/v1\/policies$/, handle: listPolicies },
  { method: 'GET', pattern: /^\/api\/v1\/policies\/([^/]+)$/, handle: getPolicy },
];
