import type {
  CreateIpfApplicationInput,
  IpfApplicationFieldsFragment,
  IpfApplicationHistoryFieldsFragment,
  RequestIpfSigningCodeMutation,
} from '../generated/operations.ts';
import type { SentInput } from '../route.ts';
import type { z } from 'zod';
import type { IpfApplicationInput } from '../schemas/ipf-application.ts';
import { ipfPartiesToRest } from './ipf-parties.ts';
import { minor, whole } from './money.ts';

/**
 * GraphQL IpfApplication → the REST application record: money as whole shillings plus `_minor`, dates Y-m-d, times ISO
 * 8601; identifiers partly shown as the core gives them.
 */
export function ipfApplicationToRest(a: IpfApplicationFieldsFragment) {
  return {
    id: a.databaseId,
    uuid: a.uuid,
    application_no: a.applicationNo,
    status: a.applicationStatus,
    ...ipfPartiesToRest(a),
    tenor_months: a.tenorMonths,
    premium: whole(a.premium),
    premium_minor: minor(a.premium),
    charge: whole(a.charge),
    charge_minor: minor(a.charge),
    deposit: whole(a.deposit),
    deposit_minor: minor(a.deposit),
    instalment: whole(a.instalment),
    instalment_minor: minor(a.instalment),
    total_repayable: whole(a.totalRepayable),
    total_repayable_minor: minor(a.totalRepayable),
    apr_bps: a.aprBps,
    rating_version: a.ratingVersion,
    schedule: a.schedule.map((l) => ({
      seq: l.seq,
      due_on: l.dueOn,
      amount: whole(l.amount),
      amount_minor: minor(l.amount),
    })),
    kyc: {
      id_number: a.kyc.idNumber,
      kra_pin: a.kyc.kraPin,
      income_band: a.kyc.incomeBand,
      consent_at: a.kyc.consentAt,
    },
    decision: a.decidedAt
      ? { lender_ref: a.lenderRef, decided_at: a.decidedAt, reasons: a.decisionReasons.map((r) => ({ ...r })) }
      : null,
    agreement_sha256: a.agreementSha256,
    signing: {
      phone: a.signing.phone,
      code_sent_at: a.signing.codeSentAt,
      code_expires_at: a.signing.codeExpiresAt,
      attempts_left: a.signing.attemptsLeft,
    },
    signed_at: a.signedAt,
    expires_at: a.expiresAt,
    closed_reason: a.closedReason,
    loan: a.loan ? { uuid: a.loan.uuid, loan_no: a.loan.loanNo, status: a.loan.loanStatus } : null,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}

/** The application with its history: what a single read and every write answer. */
export const ipfApplicationDetailToRest = (a: IpfApplicationFieldsFragment & IpfApplicationHistoryFieldsFragment) => ({
  ...ipfApplicationToRest(a),
  history: a.history.map((h) => ({ from: h.from, to: h.to, reason: h.reason, by: h.actor, at: h.at })),
});

/**
 * POST /ipf/applications body (parsed by its definition) → CreateIpfApplicationInput. Legacy spellings: `idno` for
 * id_number, `pin` for kra_pin, `policy` for policy_uuid (the definition reads them in already; read here too).
 */
export function createIpfApplicationFromRest(
  b: z.output<typeof IpfApplicationInput>,
): SentInput<CreateIpfApplicationInput> {
  return {
    policyUuid: b.policy_uuid ?? b.policy,
    policyNo: b.policy_no,
    lenderId: b.lender_id,
    tenorMonths: b.tenor_months,
    idNumber: b.id_number ?? b.idno,
    kraPin: b.kra_pin ?? b.pin,
    incomeBand: b.income_band,
    consent: b.consent,
    submit: b.submit,
  };
}

/** The signing code's answer: where it went (partly shown), how long it lives, the agreement it signs. */
export function signingCodeToRest(
  r: Extract<RequestIpfSigningCodeMutation['requestIpfSigningCode'], { __typename: 'RequestIpfSigningCodePayload' }>,
) {
  return {
    message: 'A one-time code has been sent by SMS to the client’s registered phone',
    sent_to: r.sentTo,
    expires_at: r.expiresAt,
    expires_in_seconds: r.expiresInSeconds,
    resend_after_seconds: r.resendAfterSeconds,
    agreement_sha256: r.agreementSha256,
    application: ipfApplicationToRest(r.application),
  };
}
