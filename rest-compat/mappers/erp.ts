import type {
  ErpAgentFieldsFragment,
  ErpClaimFieldsFragment,
  ErpClientFieldsFragment,
  ErpCreditNoteFieldsFragment,
  ErpPageMetaFieldsFragment,
  ErpPolicyFieldsFragment,
  ErpReceiptFieldsFragment,
} from '../generated/operations.ts';
import { sizeParam, type RestInput } from '../route.ts';
import { minor, whole } from './money.ts';

/**
 * The ERP exports (docs/erp-exports.md "ERP exports"): flat records in the spec's spellings (money as whole shillings plus the
 * `_minor` cents the rest of the API carries, dates Y-m-d, instants ISO 8601), `agents[]` the only list, and the
 * envelope `{status, <records>[], meta, links}`. Pure: the window, the watermark and the cursor are the core's.
 */
export type ErpAgentRest = { id: number; name: string; role: string; user_role: string; code: string | null };
type Scalar = string | number | boolean | null;
export type ErpRecord = Record<string, Scalar | ErpAgentRest[]> & { agents: ErpAgentRest[] };

const agents = (list: ErpAgentFieldsFragment[]): ErpAgentRest[] =>
  list.map((a) => ({ id: a.id, name: a.name, role: a.role, user_role: a.userRole, code: a.code }));

export const erpClientToRest = (c: ErpClientFieldsFragment): ErpRecord => ({
  id: c.id,
  client_no: c.clientNo,
  type: c.type,
  name: c.name,
  id_no: c.idNo,
  kra_pin: c.kraPin,
  phone: c.phone,
  email: c.email,
  date_of_birth: c.dateOfBirth,
  physical_address: c.physicalAddress,
  branch: c.branch,
  sector: c.sector,
  business_source: c.businessSource,
  kyc_status: c.kycStatus,
  onboarded_via: c.onboardedVia,
  created_at: c.createdAt,
  updated_at: c.updatedAt,
  agents: agents(c.agents),
});

export const erpPolicyToRest = (p: ErpPolicyFieldsFragment): ErpRecord => ({
  id: p.id,
  uuid: p.uuid,
  policy_no: p.policyNo,
  risk_note: p.riskNote,
  client_no: p.clientNo,
  client_name: p.clientName,
  insurer: p.insurer,
  product_line: p.productLine,
  product_code: p.productCode,
  status: p.status,
  vehicle_class: p.vehicleClass,
  cover_type: p.coverType,
  cover_period: p.coverPeriod,
  start_date: p.startDate,
  end_date: p.endDate,
  payment_mode: p.paymentMode,
  instalment_count: p.instalmentCount,
  basic_premium: whole(p.basic),
  basic_premium_minor: minor(p.basic),
  taxes: whole(p.taxes),
  taxes_minor: minor(p.taxes),
  total_premium: whole(p.total),
  total_premium_minor: minor(p.total),
  renewal_of: p.renewalOf,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
  agents: agents(p.agents),
});

export const erpClaimToRest = (c: ErpClaimFieldsFragment): ErpRecord => ({
  id: c.id,
  uuid: c.uuid,
  claim_no: c.claimNo,
  policy_no: c.policyNo,
  client_no: c.clientNo,
  client_name: c.clientName,
  insurer: c.insurer,
  product_line: c.productLine,
  registration: c.registration,
  cause: c.cause,
  status: c.status,
  loss_date: c.lossDate,
  loss_place: c.lossPlace,
  reported_at: c.reportedAt,
  estimated_loss: whole(c.estimatedLoss),
  estimated_loss_minor: minor(c.estimatedLoss),
  sum_insured: whole(c.sumInsured),
  sum_insured_minor: minor(c.sumInsured),
  reserve: whole(c.reserve),
  reserve_minor: minor(c.reserve),
  assessed_amount: whole(c.assessedAmount),
  assessed_amount_minor: minor(c.assessedAmount),
  approved_amount: whole(c.approvedAmount),
  approved_amount_minor: minor(c.approvedAmount),
  excess: whole(c.excess),
  excess_minor: minor(c.excess),
  net_payable: whole(c.netPayable),
  net_payable_minor: minor(c.netPayable),
  paid: whole(c.paid),
  paid_minor: minor(c.paid),
  approved_at: c.approvedAt,
  closed_at: c.closedAt,
  created_at: c.createdAt,
  updated_at: c.updatedAt,
  agents: agents(c.agents),
});

export const erpReceiptToRest = (r: ErpReceiptFieldsFragment): ErpRecord => ({
  id: r.id,
  receipt_no: r.receiptNo,
  client_no: r.clientNo,
  client_name: r.clientName,
  policy_no: r.policyNo,
  method: r.method,
  transaction_ref: r.transactionRef,
  phone: r.phone,
  account: r.account,
  purpose: r.purpose,
  amount: whole(r.amount),
  amount_minor: minor(r.amount),
  paid_at: r.paidAt,
  created_at: r.createdAt,
  agents: agents(r.agents),
});

export const erpCreditNoteToRest = (n: ErpCreditNoteFieldsFragment): ErpRecord => ({
  id: n.id,
  number: n.number,
  kind: n.kind,
  policy_no: n.policyNo,
  client_no: n.clientNo,
  client_name: n.clientName,
  amount: whole(n.amount),
  amount_minor: minor(n.amount),
  basic: whole(n.basic),
  basic_minor: minor(n.basic),
  taxes: whole(n.taxes),
  taxes_minor: minor(n.taxes),
  applied: whole(n.applied),
  applied_minor: minor(n.applied),
  refunded: whole(n.refunded),
  refunded_minor: minor(n.refunded),
  refund_payee: n.refundPayee,
  created_at: n.createdAt,
  agents: agents(n.agents),
});

/** The export's query parameters as the operation's variables (values as sent: GraphQL and the core check them). */
export function erpVariables({ query }: RestInput) {
  return {
    page: sizeParam(query.get('page')),
    perPage: sizeParam(query.get('per_page')),
    updatedSince: query.get('updated_since') || undefined,
    until: query.get('until') || undefined,
    after: query.get('cursor') || undefined,
  };
}

/** `links.next`: the same window (`updated_since`, `until`) continued after the page's last key (`cursor`). */
export function erpLinks(meta: ErpPageMetaFieldsFragment, input: RestInput): { self: string; next: string | null } {
  const self = `${input.url.pathname}${input.url.search}`;
  if (!meta.hasMore || !meta.nextCursor) return { self, next: null };
  const u = new URL(input.url);
  for (const k of ['page', 'per_page', 'updated_since', 'until', 'cursor']) u.searchParams.delete(k);
  u.searchParams.set('page', String(meta.page + 1));
  u.searchParams.set('per_page', String(meta.perPage));
  if (meta.updatedSince) u.searchParams.set('updated_since', meta.updatedSince);
  u.searchParams.set('until', meta.until);
  u.searchParams.set('cursor', meta.nextCursor);
  return { self, next: `${u.pathname}${u.search}` };
}

export const erpMetaToRest = (m: ErpPageMetaFieldsFragment) => ({
  page: m.page,
  per_page: m.perPage,
  count: m.count,
  has_more: m.hasMore,
  updated_since: m.updatedSince,
  until: m.until,
  next_cursor: m.nextCursor,
});

/** The spec's envelope: `{status: "success", <key>: [...], meta, links}`. */
export function erpEnvelope<K extends string>(
  key: K,
  page: { records: ErpRecord[]; meta: ErpPageMetaFieldsFragment },
  input: RestInput,
) {
  return {
    status: 'success' as const,
    [key]: page.records,
    meta: erpMetaToRest(page.meta),
    links: erpLinks(page.meta, input),
  } as { status: 'success'; meta: ReturnType<typeof erpMetaToRest>; links: ReturnType<typeof erpLinks> } & Record<
    K,
    ErpRecord[]
  >;
}

/** A fragment whose every field is null (`agents` empty): run through a mapper, it gives the record's keys. */
const blank = new Proxy({}, { get: (_t, k) => (k === 'agents' ? [] : null) }) as never;

/** The CSV columns of each export: the JSON record's fields in the same order (`agents` last, joined). */
export const ERP_CSV_COLUMNS = {
  clients: Object.keys(erpClientToRest(blank)),
  policies: Object.keys(erpPolicyToRest(blank)),
  claims: Object.keys(erpClaimToRest(blank)),
  receipts: Object.keys(erpReceiptToRest(blank)),
  creditNotes: Object.keys(erpCreditNoteToRest(blank)),
};

/**
 * A record as one CSV line's cells, in `columns` order: `agents` joined as `role:name[code]`, separated by `; `.
 */
export function erpCsvCells(r: ErpRecord, columns: readonly string[]): Scalar[] {
  return columns.map((k) => {
    const v = r[k];
    if (!Array.isArray(v)) return v ?? null;
    return v.map((a) => `${a.role}:${a.name}${a.code ? `[${a.code}]` : ''}`).join('; ');
  });
}
