import type {
  ViewerClaimFieldsFragment,
  ViewerFieldsFragment,
  ViewerLoansQuery,
  ViewerPoliciesQuery,
  ViewerRegisterClaimInput,
  ViewerStatementQuery,
} from '../generated/operations.ts';
import type { z } from 'zod';
import type { SentInput } from '../route.ts';
import type { claimBody } from '../schemas/client-area.ts';
import { minor, whole } from './money.ts';

/** The client area's REST shapes: renames only (the core computes every figure and status). */

export function viewerToRest(c: ViewerFieldsFragment) {
  return {
    client_no: c.clientNo,
    name: c.name,
    phone: c.phone,
    email: c.email,
    alt_phone: c.altPhone,
    physical_address: c.physicalAddress,
    id_no: c.idNo,
    kra_pin: c.kraPin,
    date_of_birth: c.dateOfBirth,
    onboarded_via: c.onboardedVia,
  };
}

type ViewerPolicy = ViewerPoliciesQuery['viewer']['policies'][number];

export function viewerPolicyToRest(p: ViewerPolicy) {
  return {
    uuid: p.uuid,
    policy_no: p.policyNo,
    product_line: p.productLine,
    product_name: p.productName,
    status: p.status,
    status_text: p.statusText,
    insurer_name: p.insurerName,
    start_date: p.startDate,
    end_date: p.endDate,
    premium: whole(p.total),
    premium_minor: minor(p.total),
    outstanding: whole(p.outstanding),
    outstanding_minor: minor(p.outstanding),
    vehicles: p.vehicles.map((v) => ({ reg_no: v.regNo, make: v.make, model: v.model })),
    insured: p.insured.map((r) => ({ id: r.databaseId, kind: r.kind, name: r.name, relationship: r.relationship })),
    debit_notes: p.debitNotes.map((d) => ({
      number: d.number,
      due_on: d.dueOn,
      amount: whole(d.amount),
      amount_minor: minor(d.amount),
      outstanding: whole(d.outstanding),
      outstanding_minor: minor(d.outstanding),
    })),
  };
}

type Statement = ViewerStatementQuery['viewer']['statement'];

export function statementToRest(v: ViewerStatementQuery['viewer'], s: Statement) {
  return {
    client_no: v.clientNo,
    name: v.name,
    generated_at: s.generatedAt,
    opening_balance: 0,
    opening_balance_minor: 0,
    total_debits: whole(s.totalDebits),
    total_debits_minor: minor(s.totalDebits),
    total_credits: whole(s.totalCredits),
    total_credits_minor: minor(s.totalCredits),
    closing_balance: whole(s.closingBalance),
    closing_balance_minor: minor(s.closingBalance),
    lines: s.lines.map((l) => ({
      at: l.at,
      kind: l.kind,
      number: l.number,
      policy_no: l.policyNo,
      description: l.description,
      debit: whole(l.debit),
      debit_minor: minor(l.debit),
      credit: whole(l.credit),
      credit_minor: minor(l.credit),
      balance: whole(l.balance),
      balance_minor: minor(l.balance),
    })),
  };
}

export function viewerClaimToRest(c: ViewerClaimFieldsFragment) {
  return {
    uuid: c.uuid,
    claim_no: c.claimNo,
    policy_no: c.policyNo,
    status: c.claimStatus,
    cause: c.cause,
    loss_date: c.lossDate,
    loss_place: c.lossPlace,
    reg_no: c.regNo,
    reported_at: c.reportedAt,
    estimated_loss_minor: c.estimatedLossMinor,
    approved_amount_minor: c.approvedAmountMinor,
    paid_minor: c.paidMinor,
  };
}

/** POST /client-area/claims body → the viewer's claim input (cents only: `estimated_loss_minor`). */
export function viewerClaimFromRest(b: z.output<typeof claimBody>): SentInput<ViewerRegisterClaimInput> {
  return {
    policyUuid: b.policy_uuid,
    registration: b.registration ?? b.reg_no ?? b.regno,
    insuredId: b.insured_id,
    cause: b.cause,
    lossDate: b.loss_date,
    lossTime: b.loss_time,
    lossPlace: b.loss_place,
    description: b.description,
    policeAbstractNo: b.police_abstract_no,
    antiTheftDevice: b.anti_theft_device,
    estimatedLossMinor: b.estimated_loss_minor,
  };
}

type ViewerLoan = ViewerLoansQuery['viewer']['loans'][number];

/** A loan of the signed-in client, in cents only (spec, convention 2), with its schedule and balance. */
export function viewerLoanToRest(l: ViewerLoan) {
  return {
    uuid: l.uuid,
    reference: l.reference,
    status: l.loanStatus,
    policy_no: l.policyNo,
    lender_name: l.lenderName,
    tenor_months: l.tenorMonths,
    apr_bps: l.aprBps,
    principal_minor: l.principalMinor,
    charge_minor: l.chargeMinor,
    total_repayable_minor: l.totalRepayableMinor,
    paid_minor: l.paidMinor,
    rebate_minor: l.rebateMinor,
    balance_minor: l.balanceMinor,
    arrears_minor: l.arrearsMinor,
    next_due: l.nextDue
      ? { instalment: l.nextDue.instalment, due_on: l.nextDue.dueOn, amount_minor: l.nextDue.amountMinor }
      : null,
    signed_at: l.signedAt,
    schedule: l.schedule.map((i) => ({
      instalment: i.instalment,
      due_on: i.dueOn,
      amount_minor: i.amountMinor,
      paid_minor: i.paidMinor,
      waived_minor: i.waivedMinor,
      outstanding_minor: i.outstandingMinor,
      status: i.instalmentStatus,
    })),
  };
}
