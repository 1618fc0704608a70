import { builder } from '../../graphql/builder.ts';
import { MoneyRef } from '../../graphql/common.ts';
import type {
  ErpAgent,
  ErpClaimRecord,
  ErpClientRecord,
  ErpCreditNoteRecord,
  ErpPolicyRecord,
  ErpReceiptRecord,
} from './erp.service.ts';

/**
 * The flat records of the ERP exports (docs/erp-exports.md "ERP exports"): scalars, Money (whole shillings and cents), dates Y-m-d,
 * instants ISO 8601, and `agents`, the one list. Plain objects built by the export's service: only the export root
 * fields (staff, scope read) return them, so the types carry no per-record rule of their own.
 */
export const ErpAgentRef = builder.objectRef<ErpAgent>('ErpAgent').implement({
  description: 'A user the record is attributed to, and the part they play for it.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    role: t.exposeString('role', { description: 'created_by, sales_person, risk_manager or assignee' }),
    userRole: t.exposeString('userRole', { description: "The user's role: admin, account_exec, agent, viewer" }),
    code: t.exposeString('code', { nullable: true, description: 'Agent code (agents only)' }),
  }),
});

type Str<R> = { [K in keyof R]: R[K] extends string ? K : never }[keyof R] & string;
type OptStr<R> = { [K in keyof R]: R[K] extends string | null ? (null extends R[K] ? K : never) : never }[keyof R] &
  string;

export const ErpClientRef = builder.objectRef<ErpClientRecord>('ErpClient').implement({
  fields: (t) => {
    const s = (k: Str<ErpClientRecord>) => t.exposeString(k);
    const o = (k: OptStr<ErpClientRecord>) => t.exposeString(k, { nullable: true });
    return {
      id: t.exposeInt('id'),
      clientNo: s('clientNo'),
      type: s('type'),
      name: s('name'),
      idNo: o('idNo'),
      kraPin: o('kraPin'),
      phone: s('phone'),
      email: o('email'),
      dateOfBirth: t.expose('dateOfBirth', { type: 'Date', nullable: true }),
      physicalAddress: o('physicalAddress'),
      branch: o('branch'),
      sector: o('sector'),
      businessSource: o('businessSource'),
      kycStatus: s('kycStatus'),
      onboardedVia: s('onboardedVia'),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
      agents: t.expose('agents', { type: [ErpAgentRef] }),
    };
  },
});

export const ErpPolicyRef = builder.objectRef<ErpPolicyRecord>('ErpPolicy').implement({
  fields: (t) => {
    const s = (k: Str<ErpPolicyRecord>) => t.exposeString(k);
    return {
      id: t.exposeInt('id'),
      uuid: s('uuid'),
      policyNo: s('policyNo'),
      riskNote: s('riskNote'),
      clientNo: s('clientNo'),
      clientName: s('clientName'),
      insurer: s('insurer'),
      productLine: s('productLine'),
      productCode: t.exposeString('productCode', {
        nullable: true,
        description: "Medical, travel and standard policies: the cover product's code; null for motor",
      }),
      status: s('status'),
      vehicleClass: t.exposeString('vehicleClass', { nullable: true, description: 'Motor only' }),
      coverType: t.exposeString('coverType', { nullable: true, description: 'Motor only' }),
      coverPeriod: s('coverPeriod'),
      startDate: t.expose('startDate', { type: 'Date' }),
      endDate: t.expose('endDate', { type: 'Date' }),
      paymentMode: s('paymentMode'),
      instalmentCount: t.exposeInt('instalmentCount'),
      basic: t.expose('basic', { type: MoneyRef }),
      taxes: t.expose('taxes', { type: MoneyRef }),
      total: t.expose('total', { type: MoneyRef }),
      renewalOf: t.exposeString('renewalOf', { nullable: true, description: 'Policy number this one renews' }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
      agents: t.expose('agents', { type: [ErpAgentRef] }),
    };
  },
});

export const ErpClaimRef = builder.objectRef<ErpClaimRecord>('ErpClaim').implement({
  fields: (t) => {
    const s = (k: Str<ErpClaimRecord>) => t.exposeString(k);
    const m = (k: 'estimatedLoss' | 'sumInsured' | 'assessedAmount' | 'approvedAmount' | 'excess' | 'netPayable') =>
      t.expose(k, { type: MoneyRef, nullable: true });
    return {
      id: t.exposeInt('id'),
      uuid: s('uuid'),
      claimNo: s('claimNo'),
      policyNo: s('policyNo'),
      clientNo: s('clientNo'),
      clientName: s('clientName'),
      insurer: s('insurer'),
      productLine: s('productLine'),
      registration: t.exposeString('registration', { nullable: true }),
      cause: s('cause'),
      status: s('status'),
      lossDate: t.expose('lossDate', { type: 'Date' }),
      lossPlace: s('lossPlace'),
      reportedAt: t.expose('reportedAt', { type: 'DateTime' }),
      estimatedLoss: m('estimatedLoss'),
      sumInsured: m('sumInsured'),
      reserve: t.expose('reserve', { type: MoneyRef }),
      assessedAmount: m('assessedAmount'),
      approvedAmount: m('approvedAmount'),
      excess: m('excess'),
      netPayable: m('netPayable'),
      paid: t.expose('paid', { type: MoneyRef }),
      approvedAt: t.expose('approvedAt', { type: 'DateTime', nullable: true }),
      closedAt: t.expose('closedAt', { type: 'DateTime', nullable: true }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
      agents: t.expose('agents', { type: [ErpAgentRef] }),
    };
  },
});

export const ErpReceiptRef = builder.objectRef<ErpReceiptRecord>('ErpReceipt').implement({
  fields: (t) => {
    const s = (k: Str<ErpReceiptRecord>) => t.exposeString(k);
    const o = (k: OptStr<ErpReceiptRecord>) => t.exposeString(k, { nullable: true });
    return {
      id: t.exposeInt('id'),
      receiptNo: s('receiptNo'),
      clientNo: o('clientNo'),
      clientName: o('clientName'),
      policyNo: o('policyNo'),
      method: s('method'),
      transactionRef: s('transactionRef'),
      phone: s('phone'),
      account: s('account'),
      purpose: s('purpose'),
      amount: t.expose('amount', { type: MoneyRef }),
      paidAt: t.expose('paidAt', { type: 'DateTime' }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      agents: t.expose('agents', { type: [ErpAgentRef] }),
    };
  },
});

export const ErpCreditNoteRef = builder.objectRef<ErpCreditNoteRecord>('ErpCreditNote').implement({
  fields: (t) => {
    const s = (k: Str<ErpCreditNoteRecord>) => t.exposeString(k);
    const m = (k: 'amount' | 'basic' | 'taxes' | 'applied' | 'refunded') => t.expose(k, { type: MoneyRef });
    return {
      id: t.exposeInt('id'),
      number: s('number'),
      kind: s('kind'),
      policyNo: s('policyNo'),
      clientNo: s('clientNo'),
      clientName: s('clientName'),
      amount: m('amount'),
      basic: m('basic'),
      taxes: m('taxes'),
      applied: m('applied'),
      refunded: m('refunded'),
      refundPayee: s('refundPayee'),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      agents: t.expose('agents', { type: [ErpAgentRef] }),
    };
  },
});
