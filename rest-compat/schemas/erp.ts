import type { SchemaObject } from 'openapi3-ts/oas31';
import { arr, bool, date, int, money, nullable, obj, ref, str, timestamp } from './builders.ts';

/** The ERP exports' records (docs/erp-exports.md "ERP exports"): flat, `agents[]` the only list. */
const ns = () => nullable(str());
const nts = () => nullable(timestamp());
const agents = { agents: arr(ref('ErpAgent')) };

const client = obj({
  id: int(),
  client_no: str(),
  type: str('individual or corporate'),
  name: str(),
  id_no: ns(),
  kra_pin: ns(),
  phone: str('2547XXXXXXXX'),
  email: ns(),
  date_of_birth: nullable(date()),
  physical_address: ns(),
  branch: ns(),
  sector: ns(),
  business_source: ns(),
  kyc_status: str(),
  onboarded_via: str(),
  created_at: timestamp(),
  updated_at: timestamp(),
  ...agents,
});

const policy = obj({
  id: int(),
  uuid: str(),
  policy_no: str(),
  risk_note: str(),
  client_no: str(),
  client_name: str(),
  insurer: str(),
  product_line: str(),
  product_code: nullable(str("Medical, travel and standard policies: the cover product's code; null for motor")),
  status: str(),
  vehicle_class: nullable(str('Motor only')),
  cover_type: nullable(str('Motor only')),
  cover_period: str(),
  start_date: date(),
  end_date: date(),
  payment_mode: str(),
  instalment_count: int(),
  ...money('basic_premium'),
  ...money('taxes'),
  ...money('total_premium'),
  renewal_of: nullable(str('Policy number this one renews')),
  created_at: timestamp(),
  updated_at: timestamp(),
  ...agents,
});

const claim = obj({
  id: int(),
  uuid: str(),
  claim_no: str(),
  policy_no: str(),
  client_no: str(),
  client_name: str(),
  insurer: str(),
  product_line: str(),
  registration: ns(),
  cause: str(),
  status: str(),
  loss_date: date(),
  loss_place: str(),
  reported_at: timestamp(),
  ...money('estimated_loss', true),
  ...money('sum_insured', true),
  ...money('reserve'),
  ...money('assessed_amount', true),
  ...money('approved_amount', true),
  ...money('excess', true),
  ...money('net_payable', true),
  ...money('paid'),
  approved_at: nts(),
  closed_at: nts(),
  created_at: timestamp(),
  updated_at: timestamp(),
  ...agents,
});

const receipt = obj({
  id: int(),
  receipt_no: str(),
  client_no: ns(),
  client_name: ns(),
  policy_no: ns(),
  method: str(),
  transaction_ref: str(),
  phone: str(),
  account: str(),
  purpose: str(),
  ...money('amount'),
  paid_at: timestamp(),
  created_at: timestamp(),
  ...agents,
});

const creditNote = obj({
  id: int(),
  number: str(),
  kind: str('endorsement or cancellation'),
  policy_no: str(),
  client_no: str(),
  client_name: str(),
  ...money('amount'),
  ...money('basic'),
  ...money('taxes'),
  ...money('applied'),
  ...money('refunded'),
  refund_payee: str('client or lender'),
  created_at: timestamp(),
  ...agents,
});

export const erpSchemas: Record<string, SchemaObject> = {
  ErpAgent: obj({
    id: int(),
    name: str(),
    role: str('created_by, sales_person, risk_manager or assignee'),
    user_role: str('admin, account_exec, agent or viewer'),
    code: nullable(str('Agent code (agents only)')),
  }),
  ErpClient: client,
  ErpPolicy: policy,
  ErpClaim: claim,
  ErpReceipt: receipt,
  ErpCreditNote: creditNote,
  ErpMeta: obj({
    page: int(),
    per_page: int(),
    count: int('Records in this page'),
    has_more: bool(),
    updated_since: nts(),
    until: { ...timestamp(), description: 'The window’s end, fixed by the first page: the next sync’s updated_since' },
    next_cursor: ns(),
  }),
  ErpLinks: obj({ self: str(), next: nullable(str('The next page of the same window; null at the end')) }),
};

/** `{status, <key>[], meta, links}` of one export. */
export const erpPage = (key: string, record: string): SchemaObject =>
  obj({
    status: { type: 'string', enum: ['success'] },
    [key]: arr(ref(record)),
    meta: ref('ErpMeta'),
    links: ref('ErpLinks'),
  });
