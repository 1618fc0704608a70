/**
 * A premium-finance lender's API, as the service speaks to it (docs/premium-finance.md "Premium finance"): a credit decision on an
 * application and the disbursement of a signed loan's principal to the insurer. Each call carries our own reference,
 * unique across the deployment (the organisation's code and our number), and the lender treats a repeat of it as the
 * same request (never a second decision or a second payment), so a call
 * recorded before it is made can be made again safely after a crash. `lookup` asks the lender what it holds under a
 * reference: how a call whose answer was lost is confirmed. The simulator (jobs/rails/lender-simulator.ts) implements
 * it until a real lender's adapter replaces it.
 */

export interface LenderDecisionRequest {
  /**
   * Our reference, unique across the deployment (src/ports/rail-reference.ts): the organisation's code and the
   * application number, `<org>/IPFA-YYYY-NNNNNN`. The lender serves every organisation of the deployment and keys on it.
   */
  reference: string;
  /** The application number as the applicant's paperwork shows it (unique within its organisation only; never a key). */
  application_no: string;
  lender: string;
  applicant: { id_number: string; kra_pin: string; income_band: string; monthly_income_floor_minor: string };
  premium_minor: string;
  total_repayable_minor: string;
  /** The largest scheduled payment (the affordability test). */
  max_payment_minor: string;
  tenor_months: number;
  /** The lender's own published terms, as the panel records them. */
  terms: { min_premium_minor: string; max_premium_minor: string | null; max_instalment_to_income_bps: number };
  /** Whether the applicant is behind on, or defaulted, another loan arranged through this organisation. */
  existing_arrears: boolean;
}

export interface LenderDecision {
  reference: string;
  /** The lender's own id for the decision. */
  lender_ref: string;
  decision: 'approved' | 'declined';
  reasons: { code: string; message: string }[];
}

export interface LenderDisbursementRequest {
  /**
   * Our reference, unique across the deployment (src/ports/rail-reference.ts): the organisation's code and the loan
   * number, `<org>/IPF-YYYY-NNNNNN`. Loan numbers restart in each organisation, so the number alone is not a key.
   */
  reference: string;
  /** The loan number as the agreement shows it (unique within its organisation only; never a key). */
  loan_no: string;
  lender: string;
  amount_minor: string;
  payee: { insurer: string; policy_no: string; debit_note_no: string };
}

export interface LenderDisbursement {
  reference: string;
  /** The lender's payment reference. */
  disbursement_ref: string;
  status: 'paid' | 'refused';
  amount_minor: string;
  paid_at: string;
  message: string;
}

export interface IpfLenderRail {
  decide(req: LenderDecisionRequest): Promise<LenderDecision>;
  disburse(req: LenderDisbursementRequest): Promise<LenderDisbursement>;
  /** What the lender holds under our reference, or null when it has nothing (the call never reached it). */
  lookupDisbursement(reference: string): Promise<LenderDisbursement | null>;
}

/** The lender rail and the queues that call it; set on the app where pg-boss runs (jobs/finance.worker.ts). */
export interface IpfLenderPort {
  rail: IpfLenderRail;
  /** Queues the lender's decision on a submitted application. */
  queueDecision(applicationId: number): Promise<void>;
  /** Queues the disbursement of a loan whose deposit is paid. */
  queueDisbursement(loanId: number): Promise<void>;
}
