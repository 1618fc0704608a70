/**
 * Clients by hand: `GET /api/v1/clients` (a page, newest first) and `GET /api/v1/clients/{client_no}`, the work the
 * service does for them (rest-compat/routes/clients.ts → the Clients/Client operations → clientService.list/get)
 * written on pg with one hand-written statement each, answering the same bytes (clientToRest's keys, in its order).
 *
 * Per request: the token looked up (common.ts, scope `read`); the tenant named in the statement (the pool's user is
 * the superuser, not filtered by row-level security) and, for an agent's key, the reach of clientVisibility
 * (src/modules/access/client.visibility.ts): clients they created or sell, and the policyholders of the policies they
 * created or sell. The list pages as the service's connection does: `id` descending, one row more than the page
 * to tell whether another follows, the cursor Pothos's (`GPC:N:<id>`, base64), `page` as an offset.
 *
 * Also exports what the claims list shares: the page arguments (pageOf), the cursor and the `{data, meta, links}`
 * envelope (connectionPage), and a user as the CRM resources show one.
 */
import { ValidationError } from '../../../src/lib/problem.ts';
import { AppError, notFound } from '../../../src/lib/problem.ts';
import { authenticate, type HandPrincipal, type HandRoute } from './common.ts';

/** `intParam` of the facade: absent/empty → undefined, an integer literal → its value, anything else → NaN. */
export function intParam(v: string | null): number | undefined {
  if (v == null || v === '') return undefined;
  return /^-?\d+$/.test(v.trim()) ? Number(v) : Number.NaN;
}

const INT4_MAX = 2 ** 31 - 1;
const MAX_PAGE = 1_000_000;

const statementNames = new Map<string, string>();
/**
 * A statement as a named prepared one (parsed and planned once per pooled connection, as Prisma's are): one name
 * per distinct text, so a list's filter combinations each get theirs.
 */
export function prepared(text: string): { name: string; text: string } {
  let name = statementNames.get(text);
  if (!name) statementNames.set(text, (name = `hand_${statementNames.size + 1}`));
  return { name, text };
}

/** The id a cursor this API issued carries (Pothos's `GPC:N:<id>` in base64), or null for anything else. */
function cursorId(cursor: string): number | null {
  const m = /^GPC:N:(0|[1-9]\d{0,9})$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
  if (!m) return null;
  const id = Number(m[1]);
  return id <= INT4_MAX ? id : null;
}

export const encodeCursor = (id: number) => Buffer.from(`GPC:N:${id}`).toString('base64');

export interface PageArgs {
  /** Rows in the page (limit, else per_page, else 25). */
  first: number;
  /** Continue after this id (from `cursor`). */
  after: number | null;
  /** Rows to skip (from `page`, when there is no cursor). */
  offset: number;
}

/** The list's page arguments as rest-compat/pagination.ts pageArgs reads them (same refusals, same fields). */
export function pageOf(q: URLSearchParams): PageArgs {
  const errors: { field: string; message: string }[] = [];
  const size = (name: string) => {
    const v = intParam(q.get(name));
    if (v === undefined) return undefined;
    if (!Number.isInteger(v) || v < 1 || v > 100) errors.push({ field: name, message: 'an integer from 1 to 100' });
    return v;
  };
  const first = size('limit') ?? size('per_page') ?? 25;
  const page = intParam(q.get('page'));
  if (page !== undefined && (!Number.isInteger(page) || page < 1 || page > MAX_PAGE))
    errors.push({ field: 'page', message: `an integer from 1 to ${MAX_PAGE}` });
  const cursor = q.get('cursor');
  const after = cursor ? cursorId(cursor) : null;
  if (cursor && after === null)
    errors.push({
      field: 'cursor',
      message: 'not a cursor this API issued; use links.next or pageInfo.endCursor as given',
    });
  if (errors.length) throw new ValidationError(errors);
  return { first, after, offset: !cursor && page && page > 1 ? (page - 1) * first : 0 };
}

/**
 * The keyset part of a newest-first list as the service pages it (src/db/read-model.ts keyset): the rows after the
 * cursor's id, whether or not that row is in the list. `$n` is the cursor parameter.
 */
export const afterCursor = (_table: string, n: number) => `AND t.id < $${n}`;

/** `{data, meta: {limit, has_more, count}, links: {next}}` from the rows read (one more than the page when more follow). */
export function connectionPage<R extends { id: number }, T>(
  rows: R[],
  page: PageArgs,
  url: URL,
  map: (row: R) => T,
): { data: T[]; meta: { limit: number; has_more: boolean; count: number }; links: { next: string | null } } {
  const hasMore = rows.length > page.first;
  const items = hasMore ? rows.slice(0, page.first) : rows;
  let next: string | null = null;
  if (hasMore && items.length) {
    const u = new URL(url);
    for (const k of ['page', 'per_page']) u.searchParams.delete(k);
    u.searchParams.set('limit', String(page.first));
    u.searchParams.set('cursor', encodeCursor(items[items.length - 1].id));
    next = `${u.pathname}${u.search}`;
  }
  return {
    data: items.map(map),
    meta: { limit: page.first, has_more: hasMore, count: items.length },
    links: { next },
  };
}

/** A staff member as the CRM resources show one, from `<prefix>_id/_name/_role/_code` columns. */
export function person(r: Record<string, unknown>, prefix: string) {
  return r[`${prefix}_id`] == null
    ? null
    : {
        id: r[`${prefix}_id`] as number,
        name: r[`${prefix}_name`] as string,
        role: r[`${prefix}_role`] as string,
        code: r[`${prefix}_code`] as string | null,
      };
}

interface ClientRow {
  id: number;
  client_no: string;
  type: string;
  name: string;
  id_no: string | null;
  kra_pin: string | null;
  phone: string;
  email: string | null;
  date_of_birth: string | null;
  physical_address: string | null;
  branch_id: number | null;
  branch_name: string | null;
  rm_id: number | null;
  sp_id: number | null;
  bs_id: number | null;
  bs_name: string | null;
  pt_id: number | null;
  pt_code: string | null;
  pt_name: string | null;
  sector: string | null;
  alt_name: string | null;
  alt_phone: string | null;
  alt_email: string | null;
  kyc_status: string;
  onboarded_via: string;
  created_at: Date;
  updated_at: Date;
  [k: string]: unknown;
}

/** The columns of the Client resource, with its branch, people, business source and prospect type joined. */
const CLIENT_SELECT = `
  SELECT t.id, t.client_no, t.type, t.name, t.id_no, t.kra_pin, t.phone, t.email, t.date_of_birth::text AS date_of_birth,
         t.physical_address, b.id AS branch_id, b.name AS branch_name,
         rm.id AS rm_id, rm.name AS rm_name, rm.role AS rm_role, rm.agent_code AS rm_code,
         sp.id AS sp_id, sp.name AS sp_name, sp.role AS sp_role, sp.agent_code AS sp_code,
         bs.id AS bs_id, bs.name AS bs_name, pt.id AS pt_id, pt.code AS pt_code, pt.name AS pt_name,
         t.sector, t.alt_name, t.alt_phone, t.alt_email, t.kyc_status, t.onboarded_via, t.created_at, t.updated_at
    FROM clients t
    LEFT JOIN branches b ON b.id = t.branch_id
    LEFT JOIN users rm ON rm.id = t.risk_manager_id
    LEFT JOIN users sp ON sp.id = t.sales_person_id
    LEFT JOIN business_sources bs ON bs.id = t.business_source_id
    LEFT JOIN prospect_types pt ON pt.id = t.prospect_type_id
   WHERE t.tenant_id = $1`;

/**
 * clientVisibility for an agent (`$n`: their user id): clients they created or sell, and the policyholders of the
 * policies they created or sell. Staff: no condition.
 */
export function clientReach(p: HandPrincipal, n: number): { sql: string; values: unknown[] } {
  if (!p.ownRecordsOnly) return { sql: '', values: [] };
  return {
    sql: ` AND (t.created_by_user_id = $${n} OR t.sales_person_id = $${n} OR EXISTS (
             SELECT 1 FROM policies rp WHERE rp.client_id = t.id AND rp.tenant_id = $1
                AND (rp.created_by_user_id = $${n} OR rp.sales_person_id = $${n})))`,
    values: [p.userId],
  };
}

/** clientToRest (rest-compat/mappers/client.ts): the same keys in the same order. */
function clientJson(c: ClientRow) {
  return {
    id: c.id,
    client_no: c.client_no,
    type: c.type,
    name: c.name,
    id_no: c.id_no,
    kra_pin: c.kra_pin,
    phone: c.phone,
    email: c.email,
    date_of_birth: c.date_of_birth,
    physical_address: c.physical_address,
    branch: c.branch_id == null ? null : { id: c.branch_id, name: c.branch_name },
    risk_manager: person(c, 'rm'),
    sales_person: person(c, 'sp'),
    business_source: c.bs_id == null ? null : { id: c.bs_id, name: c.bs_name },
    prospect_type: c.pt_id == null ? null : { id: c.pt_id, code: c.pt_code, name: c.pt_name },
    sector: c.sector,
    alt_name: c.alt_name,
    alt_phone: c.alt_phone,
    alt_email: c.alt_email,
    kyc_status: c.kyc_status,
    onboarded_via: c.onboarded_via,
    created_at: c.created_at.toISOString(),
    updated_at: c.updated_at.toISOString(),
  };
}

export const routes: HandRoute[] = [
  {
    method: 'GET',
    pattern: /^\/api\/v1\/clients$/,
    async handle({ pool, req, url }) {
      const p = await authenticate(pool, req.headers.authorization, 'read');
      const q = url.searchParams;
      const page = pageOf(q);
      if (q.get('search')?.trim())
        throw new AppError('not_found', { detail: 'The hand-written client list does not search' });
      const values: unknown[] = [p.tenantId];
      const param = (v: unknown) => `$${values.push(v)}`;
      let where = '';
      const reach = clientReach(p, values.length + 1);
      where += reach.sql;
      values.push(...reach.values);
      const type = q.get('type');
      if (type) {
        if (type !== 'individual' && type !== 'corporate')
          throw new ValidationError([{ field: 'type', message: 'one of individual, corporate' }]);
        where += ` AND t.type = ${param(type)}`;
      }
      for (const [name, col] of [
        ['sales_person_id', 'sales_person_id'],
        ['risk_manager_id', 'risk_manager_id'],
      ] as const) {
        const v = intParam(q.get(name));
        if (v === undefined) continue;
        if (!Number.isSafeInteger(v)) throw new ValidationError([{ field: name, message: 'an integer' }]);
        where += ` AND t.${col} = ${param(v)}`;
      }
      if (page.after !== null) where += ` ${afterCursor('clients', values.push(page.after))}`;
      const sql = `${CLIENT_SELECT}${where} ORDER BY t.id DESC LIMIT ${param(page.first + 1)} OFFSET ${param(page.offset)}`;
      const { rows } = await pool.query<ClientRow>({ ...prepared(sql), values });
      return { status: 200, body: connectionPage(rows, page, url, clientJson) };
    },
  },
  {
    method: 'GET',
    pattern: /^\/api\/v1\/clients\/([^/]+)$/,
    async handle({ pool, req, params }) {
      const p = await authenticate(pool, req.headers.authorization, 'read');
      const reach = clientReach(p, 3);
      const { rows } = await pool.query<ClientRow>({
        ...prepared(`${CLIENT_SELECT} AND t.client_no = $2${reach.sql}`),
        values: [p.tenantId, params[0], ...reach.values],
      });
      if (!rows[0]) throw notFound('Client');
      return { status: 200, body: { data: clientJson(rows[0]) } };
    },
  },
];
