/**
 * One ERP export page by hand: `GET /api/v1/erp/policies`, the work the service does for it (rest-compat/routes/erp.ts
 * → the ErpPolicies operation → erpService.policies: src/modules/erp/) written on pg with two hand-written statements,
 * answering the same bytes (erpEnvelope with erpPolicyToRest's keys, in their order).
 *
 * Per request: the token looked up (common.ts, scope `read`) and an agent's key refused (staff only: an export is
 * the organisation's whole book); the page arguments checked by the core's own rule (checkPageArgs); the window
 * settled as settleWindow does: the sync horizon read (bima_sync_horizon(), less HORIZON_MARGIN_MS), a requested
 * `until` kept only when before it, never before `updated_since`; then the policies changed in (updated_since, until]
 * after the cursor, in (updated_at, id) order, one more than the page to tell whether another follows, with the
 * client, insurer, cover product, renewed policy and the two users the record is attributed to joined in.
 */
import type { ErpPageArgs, Keyset } from '../../../src/modules/erp/erp-window.ts';
import { checkPageArgs, encodeKeyset, HORIZON_MARGIN_MS } from '../../../src/modules/erp/erp-window.ts';
import { parseDateTime } from '../../../src/lib/dates.ts';
import { AppError, ValidationError } from '../../../src/lib/problem.ts';
import { intParam, prepared } from './clients.ts';
import { authenticate, type HandRoute, toShillings } from './common.ts';

interface PolicyRow {
  id: number;
  uuid: string;
  policy_no: string;
  risk_note: string;
  client_no: string;
  client_name: string;
  insurer: string;
  product_line: string;
  product_code: string | null;
  status: string;
  vehicle_class: string | null;
  cover_type: string | null;
  cover_period: string;
  start_date: string;
  end_date: string;
  payment_mode: string;
  instalment_count: number;
  basic_minor: string;
  taxes_minor: string;
  total_minor: string;
  renewal_of: string | null;
  created_at: Date;
  updated_at: Date;
  cb_id: number | null;
  cb_name: string | null;
  cb_role: string | null;
  cb_code: string | null;
  sp_id: number | null;
  sp_name: string | null;
  sp_role: string | null;
  sp_code: string | null;
}

const POLICIES_SQL = (keyset: string) => `
  SELECT t.id, t.uuid, t.policy_no, t.risk_note, c.client_no, c.name AS client_name, i.name AS insurer,
         t.product_line, cp.code AS product_code, t.status, t.vehicle_class, t.cover_type, t.cover_period,
         t.start_date::text AS start_date, t.end_date::text AS end_date, t.payment_mode, t.instalment_count,
         t.basic_minor, t.taxes_minor, t.total_minor, rn.policy_no AS renewal_of, t.created_at, t.updated_at,
         cb.id AS cb_id, cb.name AS cb_name, cb.role AS cb_role, cb.agent_code AS cb_code,
         sp.id AS sp_id, sp.name AS sp_name, sp.role AS sp_role, sp.agent_code AS sp_code
    FROM policies t
    JOIN clients c ON c.id = t.client_id
    JOIN insurers i ON i.id = t.insurer_id
    LEFT JOIN cover_products cp ON cp.id = t.cover_product_id
    LEFT JOIN policies rn ON rn.id = t.renewal_of_id
    LEFT JOIN users cb ON cb.id = t.created_by_user_id
    LEFT JOIN users sp ON sp.id = t.sales_person_id
   WHERE t.tenant_id = $1 AND t.updated_at <= $2${keyset}
   ORDER BY t.updated_at, t.id
   LIMIT $3`;

/** A DateTime argument as the scalar reads it: absent → null, else the instant (refused when not RFC 3339). */
function instant(q: URLSearchParams, name: string, field: string): Date | null {
  const v = q.get(name);
  if (!v) return null;
  const d = parseDateTime(v);
  if (!d) throw new ValidationError([{ field, message: 'must be an RFC 3339 date-time with its offset' }]);
  return d;
}

const money = (name: string, cents: string) => ({
  [name]: toShillings(BigInt(cents)),
  [`${name}_minor`]: Number(cents),
});

/** The record's agents (src/modules/erp/exports/agents.ts agentsOf): creator, then sales person, when present. */
function agents(r: PolicyRow) {
  const out = [];
  if (r.cb_id != null)
    out.push({ id: r.cb_id, name: r.cb_name, role: 'created_by', user_role: r.cb_role, code: r.cb_code });
  if (r.sp_id != null)
    out.push({ id: r.sp_id, name: r.sp_name, role: 'sales_person', user_role: r.sp_role, code: r.sp_code });
  return out;
}

/** erpPolicyToRest (rest-compat/mappers/erp.ts): the same keys in the same order. */
function policyJson(p: PolicyRow) {
  return {
    id: p.id,
    uuid: p.uuid,
    policy_no: p.policy_no,
    risk_note: p.risk_note,
    client_no: p.client_no,
    client_name: p.client_name,
    insurer: p.insurer,
    product_line: p.product_line,
    product_code: p.product_code,
    status: p.status,
    vehicle_class: p.vehicle_class,
    cover_type: p.cover_type,
    cover_period: p.cover_period,
    start_date: p.start_date,
    end_date: p.end_date,
    payment_mode: p.payment_mode,
    instalment_count: p.instalment_count,
    ...money('basic_premium', p.basic_minor),
    ...money('taxes', p.taxes_minor),
    ...money('total_premium', p.total_minor),
    renewal_of: p.renewal_of,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
    agents: agents(p),
  };
}

export const routes: HandRoute[] = [
  {
    method: 'GET',
    pattern: /^\/api\/v1\/erp\/policies$/,
    async handle({ pool, req, url }) {
      const p = await authenticate(pool, req.headers.authorization, 'read');
      if (p.ownRecordsOnly) throw new AppError('actor_forbidden', { detail: 'Agents may not read the ERP exports' });
      const q = url.searchParams;
      const args: ErpPageArgs = {
        page: intParam(q.get('page')),
        perPage: intParam(q.get('per_page')),
        updatedSince: instant(q, 'updated_since', 'updatedSince'),
        until: instant(q, 'until', 'until'),
        after: q.get('cursor') || undefined,
      };
      const w = checkPageArgs(args);
      // settleWindow: the watermark as of now, a requested `until` held only when before it.
      const { rows: hz } = await pool.query<{ h: Date }>({
        name: 'erp_sync_horizon',
        text: 'SELECT bima_sync_horizon() AS h',
      });
      const horizon = new Date(Math.floor(hz[0].h.getTime()) - HORIZON_MARGIN_MS);
      let until = w.until && w.until < horizon ? w.until : horizon;
      if (w.since && until < w.since) until = w.since;
      const perPage = w.perPage;
      const values: unknown[] = [p.tenantId, until, perPage + 1];
      let keyset = '';
      if (w.since) keyset += ` AND t.updated_at > $${values.push(w.since)}`;
      if (w.after) {
        const at = values.push(w.after.at);
        keyset += ` AND (t.updated_at > $${at} OR (t.updated_at = $${at} AND t.id > $${values.push(w.after.id)}))`;
      }
      const { rows } = await pool.query<PolicyRow>({ ...prepared(POLICIES_SQL(keyset)), values });
      // pageMeta: one row more than the page tells whether another follows; the cursor is the page's last key.
      const hasMore = rows.length > perPage;
      const page = hasMore ? rows.slice(0, perPage) : rows;
      const last = page.at(-1);
      const nextCursor = hasMore && last ? encodeKeyset({ at: last.updated_at, id: last.id } satisfies Keyset) : null;
      const self = `${url.pathname}${url.search}`;
      let next: string | null = null;
      if (hasMore && nextCursor) {
        const u = new URL(url);
        for (const k of ['page', 'per_page', 'updated_since', 'until', 'cursor']) u.searchParams.delete(k);
        u.searchParams.set('page', String(w.page + 1));
        u.searchParams.set('per_page', String(perPage));
        if (w.since) u.searchParams.set('updated_since', w.since.toISOString());
        u.searchParams.set('until', until.toISOString());
        u.searchParams.set('cursor', nextCursor);
        next = `${u.pathname}${u.search}`;
      }
      return {
        status: 200,
        body: {
          status: 'success',
          policies: page.map(policyJson),
          meta: {
            page: w.page,
            per_page: perPage,
            count: page.length,
            has_more: hasMore,
            updated_since: w.since ? w.since.toISOString() : null,
            until: until.toISOString(),
            next_cursor: nextCursor,
          },
          links: { self, next },
        },
      };
    },
  },
];
