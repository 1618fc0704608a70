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
    id: t.exposeInt('id', { description: 'The REST id of the user.' }),
    name: t.exposeString('name', { description: 'Full name of the user.' }),
    role: t.exposeString('role', { description: 'created_by, sales_person, risk_manager or assignee' }),
    userRole: t.exposeString('userRole', { description: "The user's role: admin, account_exec, agent, viewer" }),
    code: t.exposeString('code', { nullable: true, description: 'Agent code (agents only)' }),
  }),
});

type Str<R> = { [K in keyof R]: R[K] extends string ? K : never }[keyof R] & string;
type OptStr<R> = { [K in keyof R]: R[K] extends string | null ? (null extends R[K] ? K : never) : never }[keyof R] &
  string;

export const ErpClientRef = builder.objectRef<ErpClientRecord>('ErpClient').implement({
  description: 'A client as the ERP export gives it: flat, with its attributed users.',
  fields: (t) => {
    const s = (k: Str<ErpClientRecord>, description: string) => t.exposeString(k, { description });
    const o = (k: OptStr<ErpClientRecord>, description: string) => t.exposeString(k, { nullable: true, description });
    return {
      id: t.exposeInt('id', { description: 'The REST id of the client.' }),
      clientNo: s('clientNo', 'The client number (C-000123).'),
      type: s('type', 'individual or corporate.'),
      name: s('name', "Full name, or the company's registered name."),
      idNo: o('idNo', 'National ID or passport number; null when not given.'),
      kraPin: o('kraPin', 'KRA PIN; null when not given.'),
      phone: s('phone', 'Normalised 2547XXXXXXXX or 2541XXXXXXXX.'),
      email: o('email', 'Email address; null when not given.'),
      dateOfBirth: t.expose('dateOfBirth', {
        description: 'Date of birth; null when not given.',
        type: 'Date',
        nullable: true,
      }),
      physicalAddress: o('physicalAddress', 'Postal or physical address; null when not given.'),
      branch: o('branch', "The branch's name; null when none."),
      sector: o('sector', 'The business sector recorded; null when none.'),
      businessSource: o('businessSource', "The business source's name; null when none."),
      kycStatus: s('kycStatus', 'Know-your-customer state (unverified unless verified).'),
      onboardedVia: s('onboardedVia', 'Where the client was first recorded: api, prospect or client_area.'),
      createdAt: t.expose('createdAt', { description: 'When the client was recorded.', type: 'DateTime' }),
      updatedAt: t.expose('updatedAt', { description: 'When it last changed (the sync instant).', type: 'DateTime' }),
      agents: t.expose('agents', {
        description: 'The users the record is attributed to (creator, sales person, risk manager, assignee).',
        type: [ErpAgentRef],
      }),
    };
  },
});

export const ErpPolicyRef = builder.objectRef<ErpPolicyRecord>('ErpPolicy').implement({
  description: 'A policy as the ERP export gives it: flat, with its premium and attributed users.',
  fields: (t) => {
    const s = (k: Str<ErpPolicyRecord>, description: string) => t.exposeString(k, { description });
    return {
      id: t.exposeInt('id', { description: 'The REST id of the policy.' }),
      uuid: s('uuid', 'The policy id REST paths use.'),
      policyNo: s('policyNo', 'The policy number.'),
      riskNote: s('riskNote', 'The risk note number.'),
      clientNo: s('clientNo', 'The client number of the policyholder.'),
      clientName: s('clientName', "The policyholder's name."),
      insurer: s('insurer', "The insurer's name."),
      productLine: s('productLine', 'motor, medical, travel or standard.'),
      productCode: t.exposeString('productCode', {
        nullable: true,
        description: "Medical, travel and standard policies: the cover product's code; null for motor",
      }),
      status: s('status', 'pending_payment, active, cancelled, expired, lapsed, renewed or not_taken_up.'),
      vehicleClass: t.exposeString('vehicleClass', { nullable: true, description: 'Motor only' }),
      coverType: t.exposeString('coverType', { nullable: true, description: 'Motor only' }),
      coverPeriod: s('coverPeriod', 'The cover period as rated.'),
      startDate: t.expose('startDate', { description: 'First day of cover.', type: 'Date' }),
      endDate: t.expose('endDate', { description: 'Last day of cover.', type: 'Date' }),
      paymentMode: s('paymentMode', 'full or ipf (premium finance).'),
      instalmentCount: t.exposeInt('instalmentCount', {
        description: 'How many debit notes the premium is billed in (1 when paid at once).',
      }),
      basic: t.expose('basic', { description: 'The basic premium, before levies.', type: MoneyRef }),
      taxes: t.expose('taxes', { description: 'Levies and duties on the premium.', type: MoneyRef }),
      total: t.expose('total', { description: 'Basic premium + levies and duties.', type: MoneyRef }),
      renewalOf: t.exposeString('renewalOf', { nullable: true, description: 'Policy number this one renews' }),
      createdAt: t.expose('createdAt', { description: 'When the policy was bound.', type: 'DateTime' }),
      updatedAt: t.expose('updatedAt', { description: 'When it last changed (the sync instant).', type: 'DateTime' }),
      agents: t.expose('agents', {
        description: 'The users the record is attributed to (creator, sales person, risk manager, assignee).',
        type: [ErpAgentRef],
      }),
    };
  },
});

export const ErpClaimRef = builder.objectRef<ErpClaimRecord>('ErpClaim').implement({
  description: 'A claim as the ERP export gives it: flat, with its figures and attributed users.',
  fields: (t) => {
    const s = (k: Str<ErpClaimRecord>, description: string) => t.exposeString(k, { description });
    const m = (
      k: 'estimatedLoss' | 'sumInsured' | 'assessedAmount' | 'approvedAmount' | 'excess' | 'netPayable',
      description: string,
    ) => t.expose(k, { type: MoneyRef, nullable: true, description });
    return {
      id: t.exposeInt('id', { description: 'The REST id of the claim.' }),
      uuid: s('uuid', 'The claim id REST paths use.'),
      claimNo: s('claimNo', 'The claim number.'),
      policyNo: s('policyNo', 'The policy claimed under.'),
      clientNo: s('clientNo', 'The client number of the claimant.'),
      clientName: s('clientName', "The claimant's name."),
      insurer: s('insurer', "The insurer's name."),
      productLine: s('productLine', 'motor, medical, travel or standard.'),
      registration: t.exposeString('registration', {
        description: 'Motor claims: the vehicle registration; null otherwise.',
        nullable: true,
      }),
      cause: s('cause', 'The code of the cause of loss.'),
      status: s(
        'status',
        'registered, documents_pending, with_underwriter, under_assessment, approved, repudiated, settled, closed or withdrawn.',
      ),
      lossDate: t.expose('lossDate', { description: 'When the loss happened.', type: 'Date' }),
      lossPlace: s('lossPlace', 'Where the loss happened, as reported.'),
      reportedAt: t.expose('reportedAt', { description: 'When the claim was registered.', type: 'DateTime' }),
      estimatedLoss: m('estimatedLoss', 'The loss the claimant estimated; null when not given.'),
      sumInsured: m('sumInsured', 'The sum insured of what is claimed for; null when not known.'),
      reserve: t.expose('reserve', {
        description: 'The outstanding reserve: the sum of the reserve movements.',
        type: MoneyRef,
      }),
      assessedAmount: m('assessedAmount', "The assessor's figure; null before assessment."),
      approvedAmount: m('approvedAmount', 'The amount approved; null before approval.'),
      excess: m('excess', 'The excess deducted; null before approval.'),
      netPayable: m('netPayable', 'What is to be paid after the excess; null before approval.'),
      paid: t.expose('paid', { description: 'Paid on the claim so far.', type: MoneyRef }),
      approvedAt: t.expose('approvedAt', {
        description: 'When it was approved; null before.',
        type: 'DateTime',
        nullable: true,
      }),
      closedAt: t.expose('closedAt', {
        description: 'When it was closed; null while open.',
        type: 'DateTime',
        nullable: true,
      }),
      createdAt: t.expose('createdAt', { description: 'When the claim was recorded.', type: 'DateTime' }),
      updatedAt: t.expose('updatedAt', { description: 'When it last changed (the sync instant).', type: 'DateTime' }),
      agents: t.expose('agents', {
        description: 'The users the record is attributed to (creator, sales person, risk manager, assignee).',
        type: [ErpAgentRef],
      }),
    };
  },
});

export const ErpReceiptRef = builder.objectRef<ErpReceiptRecord>('ErpReceipt').implement({
  description: 'A receipt as the ERP export gives it: flat, with its attributed users.',
  fields: (t) => {
    const s = (k: Str<ErpReceiptRecord>, description: string) => t.exposeString(k, { description });
    const o = (k: OptStr<ErpReceiptRecord>, description: string) => t.exposeString(k, { nullable: true, description });
    return {
      id: t.exposeInt('id', { description: 'The REST id of the receipt.' }),
      receiptNo: s('receiptNo', 'Our receipt number.'),
      clientNo: o('clientNo', 'The paying client; null when not matched to one.'),
      clientName: o('clientName', "The client's name; null when not matched to one."),
      policyNo: o('policyNo', 'The policy paid for; null when none.'),
      method: s('method', 'How it was paid (mpesa …).'),
      transactionRef: s('transactionRef', "The rail's transaction reference (M-Pesa receipt number)."),
      phone: s('phone', 'The phone that paid.'),
      account: s('account', 'The account reference the payment named (a policy, debit note or loan number).'),
      purpose: s('purpose', 'What it paid: premium or ipf_repayment.'),
      amount: t.expose('amount', { description: 'The amount received.', type: MoneyRef }),
      paidAt: t.expose('paidAt', { description: 'When the money was paid.', type: 'DateTime' }),
      createdAt: t.expose('createdAt', {
        description: 'When the receipt was recorded (the sync instant).',
        type: 'DateTime',
      }),
      agents: t.expose('agents', {
        description: 'The users the record is attributed to (creator, sales person, risk manager, assignee).',
        type: [ErpAgentRef],
      }),
    };
  },
});

export const ErpCreditNoteRef = builder.objectRef<ErpCreditNoteRecord>('ErpCreditNote').implement({
  description: 'A credit note as the ERP export gives it: flat, with its attributed users.',
  fields: (t) => {
    const s = (k: Str<ErpCreditNoteRecord>, description: string) => t.exposeString(k, { description });
    const m = (k: 'amount' | 'basic' | 'taxes' | 'applied' | 'refunded', description: string) =>
      t.expose(k, { type: MoneyRef, description });
    return {
      id: t.exposeInt('id', { description: 'The REST id of the credit note.' }),
      number: s('number', 'The credit note number.'),
      kind: s('kind', 'endorsement or cancellation.'),
      policyNo: s('policyNo', 'The policy it credits.'),
      clientNo: s('clientNo', 'The client number of the policyholder.'),
      clientName: s('clientName', "The policyholder's name."),
      amount: m('amount', 'The credit: basic + taxes.'),
      basic: m('basic', 'The basic premium credited.'),
      taxes: m('taxes', 'The levies and duties credited.'),
      applied: m('applied', 'Part applied to open debit notes.'),
      refunded: m('refunded', "Part refunded: to the client's balance, or owed to the premium-finance lender."),
      refundPayee: s('refundPayee', 'Who receives the refunded part: client, or lender.'),
      createdAt: t.expose('createdAt', {
        description: 'When it was raised (the sync instant; it never changes).',
        type: 'DateTime',
      }),
      agents: t.expose('agents', {
        description: 'The users the record is attributed to (creator, sales person, risk manager, assignee).',
        type: [ErpAgentRef],
      }),
    };
  },
});
