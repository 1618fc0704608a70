import { annualEnd, fromDbDate, todayNairobi, toDbDate } from '../lib/dates.ts';

/**
 * The motor certificate registry rail (Kenya's digital certificate system, domain notes). Field spellings are ours
 * (camelCase): the notes name the fields but no source confirmed their wire spelling. Dates travel as dd/MM/yyyy.
 */

/** A = PSV and hire, B = commercial (tonnage), C = private, D = motorcycles and three-wheelers. */
export type CertificateClass = 'A' | 'B' | 'C' | 'D';

/** Cover codes on the wire: 100 comprehensive, 200 third party only, 300 third party, fire and theft. */
export type CoverCode = 100 | 200 | 300;

/** Cancellation reason ids the registry accepts. */
export const CANCEL_REASONS: Record<number, string> = {
  8: 'Insured person requested cancellation',
  14: 'Policy not taken up',
  15: 'Vehicle sold',
  21: 'Non-payment of premium',
  29: 'Vehicle written off',
  30: 'Vehicle stolen',
};

/**
 * Error codes. ER001/3/4/6/9/16 are the registry's (domain notes); ER002, ER005 and ER007 are guesses (no source
 * named codes for field validation, double insurance or a late cancellation) so callers can tell those apart.
 */
export const REGISTRY_ERRORS = {
  ER001: 'Not authorised for the certificate type',
  ER002: 'Invalid request',
  ER003: 'Invalid commencing date',
  ER004: 'Invalid expiring date',
  ER005: 'Double insurance',
  ER006: 'No certificate stock available',
  ER007: 'Cancellation refused',
  ER009: 'Invalid certificate number',
  ER0016: 'No records found',
} as const;
export type RegistryErrorCode = keyof typeof REGISTRY_ERRORS;

export interface RegistryError {
  errorCode: RegistryErrorCode;
  errorText: string;
}

/** A refusal as we record it: the first error's code, every error's text. */
export function registryMessage(errors: RegistryError[]): { code: string; message: string } {
  return { code: errors[0]?.errorCode ?? 'ER002', message: errors.map((e) => e.errorText).join('; ') || 'refused' };
}

/** Every answer: `success`, the error list (empty on success) and the registry's reference for the call. */
export interface RegistryResponse {
  success: boolean;
  errors: RegistryError[];
  referenceNo: string;
}

/** dd/MM/yyyy */
export type RegistryDate = string;

export interface IssueCertificateRequest {
  memberCompanyId: number;
  certificateClass: CertificateClass;
  typeOfCover: CoverCode;
  policyHolder: string;
  policyNumber: string;
  commencingDate: RegistryDate;
  /** At most one year less a day after commencing. */
  expiringDate: RegistryDate;
  registrationNumber: string;
  chassisNumber: string;
  engineNumber: string;
  phoneNumber: string;
  email: string;
  bodyType: string;
  /** Required for COMP (100) and TPFT (300). */
  sumInsured?: number;
  /** 1–200; required for class A. */
  licensedToCarry?: number;
  /** Required for class B. */
  tonnage?: number;
}

export interface CertificateRecord {
  certificateNo: string;
  certificateClass: CertificateClass;
  typeOfCover: CoverCode;
  memberCompanyId: number;
  insurer: string;
  policyHolder: string;
  policyNumber: string;
  commencingDate: RegistryDate;
  expiringDate: RegistryDate;
  registrationNumber: string;
  chassisNumber: string;
  engineNumber: string;
  bodyType: string;
  sumInsured?: number;
  licensedToCarry?: number;
  tonnage?: number;
  status: 'Active' | 'Cancelled';
  /** ISO 8601 instant. */
  issuedAt: string;
  cancelReasonId?: number;
}

export interface IssueCertificateResponse extends RegistryResponse {
  certificateNo?: string;
}

export interface DoubleInsuranceRequest {
  registration: string;
  chassis: string;
  start: RegistryDate;
  end: RegistryDate;
}

export interface DoubleInsuranceConflict {
  certificateNo: string;
  insurer: string;
  memberCompanyId: number;
  coverEndDate: RegistryDate;
  /** "already covered under an active policy" or "overlapping policy, leading to Double Insurance". */
  message: string;
}

/** A conflict is not a failed call: `success` stays true and `conflicts` lists what overlaps. */
export interface DoubleInsuranceResponse extends RegistryResponse {
  conflicts: DoubleInsuranceConflict[];
}

export interface GetCertificateResponse extends RegistryResponse {
  certificate?: CertificateRecord;
}

export interface ValidateCertificateRequest {
  certificateNo: string;
  registration: string;
  chassis: string;
}

export interface ValidateCertificateResponse extends RegistryResponse {
  certificate?: CertificateRecord;
}

export interface CancelCertificateRequest {
  certificateNo: string;
  reasonId: number;
}

export interface CancelCertificateResponse extends RegistryResponse {
  certificateNo?: string;
}

export interface StockResponse extends RegistryResponse {
  stock: { certificateClass: CertificateClass; available: number }[];
}

export interface CertificateRegistry {
  doubleInsuranceCheck(req: DoubleInsuranceRequest): Promise<DoubleInsuranceResponse>;
  issue(req: IssueCertificateRequest): Promise<IssueCertificateResponse>;
  get(certificateNo: string): Promise<GetCertificateResponse>;
  validate(req: ValidateCertificateRequest): Promise<ValidateCertificateResponse>;
  cancel(req: CancelCertificateRequest): Promise<CancelCertificateResponse>;
  stock(memberCompanyId: number): Promise<StockResponse>;
}

/** A calendar date → dd/MM/yyyy. Takes the UTC fields, so pass a date-only value (or use `registryDateNairobi`). */
export function formatRegistryDate(d: Date): RegistryDate {
  const dd = String(d.getUTCDate()).padStart(2, '0');
  const mm = String(d.getUTCMonth() + 1).padStart(2, '0');
  return `${dd}/${mm}/${d.getUTCFullYear()}`;
}

/** An instant → its calendar date in Nairobi (UTC+3, no daylight saving), dd/MM/yyyy. */
export function registryDateNairobi(instant: Date): RegistryDate {
  const [y, m, d] = todayNairobi(instant).split('-');
  return `${d}/${m}/${y}`;
}

/** dd/MM/yyyy → UTC midnight of that date; null when malformed or not a real date (31/02). */
export function parseRegistryDate(s: unknown): Date | null {
  if (typeof s !== 'string') return null;
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(s);
  if (!m) return null;
  const d = new Date(Date.UTC(Number(m[3]), Number(m[2]) - 1, Number(m[1])));
  return formatRegistryDate(d) === s ? d : null;
}

/** The last permitted expiring date: one year less a day after commencing (29/02 rolls to 28/02 next year). */
export function maxExpiringDate(commencing: Date): Date {
  return toDbDate(annualEnd(fromDbDate(commencing)));
}

/**
 * The registry port on AppServices (`app.registry`), built in src/app.ts: the registry (the simulator over
 * PostgreSQL, jobs/rails/registry-simulator.ts, unless a real adapter replaces it), its clock (the registry's and the
 * certificate module's notion of now: tests move it past the 24-hour window), and `send`, set by the certificate
 * worker to queue issue and cancel jobs (absent in a process without pg-boss: the sweep picks the work up).
 */
export interface CertificateRegistryPort {
  registry: CertificateRegistry;
  clock: () => Date;
  send?: (
    queue: 'issue' | 'cancel',
    data: Record<string, number>,
    opts?: { singletonKey?: string; startAfter?: number },
  ) => Promise<void>;
}
