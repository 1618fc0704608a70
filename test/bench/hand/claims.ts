/**
 * Claims by hand: `GET /api/v1/claims`, a page newest first, the work the service does for it
 * (rest-compat/routes/claims.ts → the Claims operation with ClaimFields → claimService.list) written on pg with one
 * hand-written statement, answering the same bytes (claimToRest's keys, in its order).
 *
 * Per request: the token looked up (common.ts, scope `read` or `crm`); the tenant named in the statement and, for an
 * agent's key, the reach of claimVisibility (src/modules/access/claim.visibility.ts): claims they registered or are
 * assigned, and the claims of the policies within their reach (policyVisibility: created, sold, or of a client they
 * own). The columns the answer shows, the policy's and client's numbers, the insurer, the insured (non-motor) and the
 * assignee joined in; money from the cents (`toShillings`, the cents as they are); `sla.breached` judged against now
 * as the Claim type's resolver does. Paging as the client list (clients.ts): id descending, one row more, Pothos's
 * cursor. The status filter is served; the other filters are not written here (refused, never measured).
 */
import { ValidationError } from '../../../src/lib/problem.ts';
import { AppError } from '../../../src/lib/problem.ts';
import { afterCursor, connectionPage, pageOf, prepared } from './clients.ts';
import { authenticate, type HandPrincipal, type HandRoute, toShillings } from './common.ts';

/** The open states (src/modules/claims/claim-state.ts OPEN_CLAIM_STATES): only they can breach a service level. */
const OPEN_CLAIM_STATES = ['registered', 'documents_pending', 'with_underwriter', 'under_assessment', 'approved'];
const CLAIM_STATUSES = [...OPEN_CLAIM_STATES, 'settled', 'repudiated', 'closed', 'withdrawn'];

/** Filters of GET /claims this handler does not write: a request with one is refused, never measured. */
const UNSERVED = [
  'policy_uuid',
  'client_no',
  'insurer_id',
  'assignee_id',
  'reported_from',
  'reported_to',
  'loss_from',
  'loss_to',
  'sla_breached',
  'search',
];

type Cents = string | null;

interface ClaimRow {
  id: number;
  uuid: string;
  claim_no: string;
  status: string;
  policy_uuid: string;
  policy_no: string;
  client_no: string;
  client_name: string;
  insurer_id: number;
  insurer_name: string;
  reg_no: string | null;
  risk_id: number | null;
  risk_kind: string | null;
  risk_name: string | null;
  product_line: string;
  cause_code: string;
  loss_date: string;
  loss_time: string | null;
  loss_place: string;
  description: string;
  third_parties: unknown;
  witnesses: unknown;
  police_abstract_no: string | null;
  anti_theft_device: boolean | null;
  reporter_name: string;
  reporter_phone: string | null;
  reporter_relationship: string | null;
  channel: string;
  reported_at: Date;
  late_notification: boolean;
  estimated_loss_minor: Cents;
  sum_insured_minor: Cents;
  reserve_minor: string;
  assessor_name: string | null;
  assessor_phone: string | null;
  assessor_firm: string | null;
  assessor_appointed_at: Date | null;
  assessed_amount_minor: Cents;
  salvage_minor: Cents;
  assessment_notes: string | null;
  assessed_at: Date | null;
  approved_amount_minor: Cents;
  excess_minor: Cents;
  net_payable_minor: Cents;
  approved_at: Date | null;
  paid_minor: string;
  repudiation_reason: string | null;
  repudiation_note: string | null;
  assignee_id: number | null;
  assignee_name: string | null;
  status_changed_at: Date;
  sla_due_at: Date | null;
  closed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** BIGINT columns arrive as strings; `*_minor` fields are the cents, whole-shilling ones `toShillings`. */
function pair<N extends string>(name: N, cents: bigint | null) {
  return {
    [name]: cents == null ? null : toShillings(cents),
    [`${name}_minor`]: cents == null ? null : Number(cents),
  } as Record<N | `${N}_minor`, number | null>;
}
const big = (v: Cents) => (v == null ? null : BigInt(v));
const iso = (d: Date | null) => (d ? d.toISOString() : null);

const CLAIM_SELECT = `
  SELECT t.id, t.uuid, t.claim_no, t.status, p.uuid AS policy_uuid, p.policy_no, c.client_no, c.name AS client_name,
         i.id AS insurer_id, i.name AS insurer_name, t.reg_no, r.id AS risk_id, r.kind AS risk_kind, r.name AS risk_name,
         t.product_line, t.cause_code, t.loss_date::text AS loss_date, t.loss_time, t.loss_place, t.description,
         t.third_parties, t.witnesses, t.police_abstract_no, t.anti_theft_device, t.reporter_name, t.reporter_phone,
         t.reporter_relationship, t.channel, t.reported_at, t.late_notification, t.estimated_loss_minor,
         t.sum_insured_minor, t.reserve_minor, t.assessor_name, t.assessor_phone, t.assessor_firm,
         t.assessor_appointed_at, t.assessed_amount_minor, t.salvage_minor, t.assessment_notes, t.assessed_at,
         t.approved_amount_minor, t.excess_minor, t.net_payable_minor, t.approved_at, t.paid_minor,
         t.repudiation_reason, t.repudiation_note, u.id AS assignee_id, u.name AS assignee_name, t.status_changed_at,
         t.sla_due_at, t.closed_at, t.created_at, t.updated_at
    FROM claims t
    JOIN policies p ON p.id = t.policy_id
    JOIN clients c ON c.id = t.client_id
    JOIN insurers i ON i.id = t.insurer_id
    LEFT JOIN policy_risks r ON r.id = t.risk_id
    LEFT JOIN users u ON u.id = t.assignee_user_id
   WHERE t.tenant_id = $1`;

/**
 * claimVisibility for an agent (`$n`: their user id): registered by or assigned to them, or on a policy within their
 * reach (policyVisibility: they created or sell it, or its client is theirs by clientOwnership). Staff: none.
 */
function claimReach(p: HandPrincipal, n: number): { sql: string; values: unknown[] } {
  if (!p.ownRecordsOnly) return { sql: '', values: [] };
  return {
    sql: ` AND (t.created_by_user_id = $${n} OR t.assignee_user_id = $${n}
             OR p.created_by_user_id = $${n} OR p.sales_person_id = $${n}
             OR EXISTS (SELECT 1 FROM clients pc WHERE pc.id = p.client_id
                           AND (pc.created_by_user_id = $${n} OR pc.sales_person_id = $${n})))`,
    values: [p.userId],
  };
}

/** claimToRest (rest-compat/mappers/claim.ts): the same keys in the same order. */
function claimJson(c: ClaimRow, now: number) {
  const net = big(c.net_payable_minor);
  const paid = BigInt(c.paid_minor);
  return {
    id: c.id,
    uuid: c.uuid,
    claim_no: c.claim_no,
    status: c.status,
    policy: { uuid: c.policy_uuid, policy_no: c.policy_no },
    client: { client_no: c.client_no, name: c.client_name },
    insurer: { id: c.insurer_id, name: c.insurer_name },
    registration: c.reg_no,
    insured: c.risk_id == null ? null : { id: c.risk_id, kind: c.risk_kind, name: c.risk_name },
    product_line: c.product_line,
    cause: c.cause_code,
    loss: { date: c.loss_date, time: c.loss_time, place: c.loss_place, description: c.description },
    third_parties: c.third_parties,
    witnesses: c.witnesses,
    police_abstract_no: c.police_abstract_no,
    anti_theft_device: c.anti_theft_device,
    reporter: { name: c.reporter_name, phone: c.reporter_phone, relationship: c.reporter_relationship },
    channel: c.channel,
    reported_at: c.reported_at.toISOString(),
    late_notification: c.late_notification,
    ...pair('estimated_loss', big(c.estimated_loss_minor)),
    ...pair('sum_insured', big(c.sum_insured_minor)),
    ...pair('reserve', BigInt(c.reserve_minor)),
    assessor: c.assessor_name
      ? {
          name: c.assessor_name,
          phone: c.assessor_phone,
          firm: c.assessor_firm,
          appointed_at: iso(c.assessor_appointed_at),
        }
      : null,
    assessment: c.assessed_at
      ? {
          ...pair('assessed_amount', big(c.assessed_amount_minor)),
          ...pair('salvage', big(c.salvage_minor)),
          notes: c.assessment_notes,
          assessed_at: c.assessed_at.toISOString(),
        }
      : null,
    ...pair('approved_amount', big(c.approved_amount_minor)),
    ...pair('excess', big(c.excess_minor)),
    ...pair('net_payable', net),
    approved_at: iso(c.approved_at),
    ...pair('paid', paid),
    ...pair('outstanding', net == null ? null : net - paid),
    repudiation: c.repudiation_reason ? { reason: c.repudiation_reason, note: c.repudiation_note } : null,
    assignee: c.assignee_id == null ? null : { id: c.assignee_id, name: c.assignee_name },
    sla: {
      status_since: c.status_changed_at.toISOString(),
      due_at: iso(c.sla_due_at),
      breached: OPEN_CLAIM_STATES.includes(c.status) && c.sla_due_at != null && c.sla_due_at.getTime() < now,
    },
    closed_at: iso(c.closed_at),
    created_at: c.created_at.toISOString(),
    updated_at: c.updated_at.toISOString(),
  };
}

export const routes: HandRoute[] = [
  {
    method: 'GET',
    pattern: /^\/api\/v1\/claims$/,
    async handle({ pool, req, url }) {
      const p = await authenticate(pool, req.headers.authorization, ['read', 'crm']);
      const q = url.searchParams;
      const page = pageOf(q);
      const unserved = UNSERVED.filter((k) => q.get(k));
      if (unserved.length)
        throw new AppError('not_found', {
          detail: `The hand-written claim list does not filter on ${unserved.join(', ')}`,
        });
      const values: unknown[] = [p.tenantId];
      const reach = claimReach(p, 2);
      values.push(...reach.values);
      let where = reach.sql;
      const status = q.get('status')?.split(',').filter(Boolean);
      if (status?.length) {
        const bad = status.find((s) => !CLAIM_STATUSES.includes(s));
        if (bad) throw new ValidationError([{ field: 'status', message: `one of ${CLAIM_STATUSES.join(', ')}` }]);
        where += ` AND t.status::text = ANY($${values.push(status)})`;
      }
      if (page.after !== null) where += ` ${afterCursor('claims', values.push(page.after))}`;
      const limit = values.push(page.first + 1);
      const offset = values.push(page.offset);
      const { rows } = await pool.query<ClaimRow>({
        ...prepared(`${CLAIM_SELECT}${where} ORDER BY t.id DESC LIMIT $${limit} OFFSET $${offset}`),
        values,
      });
      const now = Date.now();
      return { status: 200, body: connectionPage(rows, page, url, (r) => claimJson(r, now)) };
    },
  },
];
