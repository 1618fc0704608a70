/** What the simulated registry refuses on the wire, with the registry's own error codes. */
import {
  type DoubleInsuranceRequest,
  type IssueCertificateRequest,
  maxExpiringDate,
  parseRegistryDate,
  REGISTRY_ERRORS,
  type RegistryError,
  type RegistryErrorCode,
  registryDateNairobi,
} from '../../../src/ports/certificate-registry.ts';
import { CLASSES, type SimMember } from './store.ts';

const CERT_NO = /^C[ABCD]\d{7}$/;
const DAY = 86_400_000;

/** Registration and chassis compare without spaces or case, the way the registry matches vehicles. */
export function vehicleKey(s: string): string {
  return s.replace(/[\s-]+/g, '').toUpperCase();
}

export function err(code: RegistryErrorCode, detail?: string): RegistryError {
  return { errorCode: code, errorText: detail ? `${REGISTRY_ERRORS[code]}: ${detail}` : REGISTRY_ERRORS[code] };
}

/** ER009 for a number that cannot be a certificate. */
export function certificateNoError(certificateNo: string): RegistryError | undefined {
  if (typeof certificateNo !== 'string' || !CERT_NO.test(certificateNo)) return err('ER009', String(certificateNo));
  return undefined;
}

/** A double-insurance check needs a period and a vehicle. */
export function doubleInsuranceErrors(req: DoubleInsuranceRequest, start: Date | null, end: Date | null) {
  const errors: RegistryError[] = [];
  if (!start) errors.push(err('ER003', 'start must be dd/MM/yyyy'));
  if (!end || (start && end < start)) errors.push(err('ER004', 'end must be dd/MM/yyyy, not before start'));
  if (!req.registration?.trim() && !req.chassis?.trim())
    errors.push(err('ER002', 'registration or chassis is required'));
  return errors;
}

/** Authorisation and dates first (the registry's own codes), then the fields, then stock. */
export function issueErrors(req: IssueCertificateRequest, member: SimMember | null, now: () => Date): RegistryError[] {
  if (!member || !CLASSES.includes(req.certificateClass) || member.stock[req.certificateClass] == null) {
    return [err('ER001', `member ${req.memberCompanyId}, class ${req.certificateClass}`)];
  }
  const errors = [...issueDateErrors(req, now), ...issueFieldErrors(req)];
  if (errors.length) return errors;
  if (member.stock[req.certificateClass]! <= 0) return [err('ER006', `class ${req.certificateClass}`)];
  return [];
}

function issueDateErrors(req: IssueCertificateRequest, now: () => Date): RegistryError[] {
  const errors: RegistryError[] = [];
  const start = parseRegistryDate(req.commencingDate);
  const end = parseRegistryDate(req.expiringDate);
  const today = parseRegistryDate(registryDateNairobi(now()))!;
  if (!start) errors.push(err('ER003', 'commencing date must be dd/MM/yyyy'));
  else if (start.getTime() < today.getTime() - DAY)
    errors.push(err('ER003', 'commencing date is more than a day in the past'));
  if (!end) errors.push(err('ER004', 'expiring date must be dd/MM/yyyy'));
  else if (start && (end < start || end > maxExpiringDate(start))) {
    errors.push(err('ER004', 'expiring date must fall within one year less a day of commencing'));
  }
  return errors;
}

function issueFieldErrors(req: IssueCertificateRequest): RegistryError[] {
  const errors: RegistryError[] = [];
  const field = (ok: boolean, what: string) => void (ok || errors.push(err('ER002', what)));
  const text = (v: unknown) => typeof v === 'string' && v.trim().length > 0;
  field([100, 200, 300].includes(req.typeOfCover), 'typeOfCover must be 100, 200 or 300');
  // The spec names the chassis as what the certificate needs; engine number, body type and email travel when
  // known (an intermediary often has no email for the insured), so only their shape is checked.
  for (const k of ['policyHolder', 'policyNumber', 'registrationNumber', 'chassisNumber'] as const) {
    field(text(req[k]), `${k} is required`);
  }
  field(
    typeof req.phoneNumber === 'string' && /^254[17]\d{8}$/.test(req.phoneNumber),
    'phoneNumber must be 2547XXXXXXXX or 2541XXXXXXXX',
  );
  field(!text(req.email) || /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(req.email), 'email is invalid');
  if (req.typeOfCover === 100 || req.typeOfCover === 300) {
    field(typeof req.sumInsured === 'number' && req.sumInsured > 0, 'sumInsured is required for COMP and TPFT');
  }
  if (req.certificateClass === 'A' || req.licensedToCarry != null) {
    field(
      Number.isInteger(req.licensedToCarry) && req.licensedToCarry! >= 1 && req.licensedToCarry! <= 200,
      'licensedToCarry must be 1-200',
    );
  }
  if (req.certificateClass === 'B')
    field(typeof req.tonnage === 'number' && req.tonnage > 0, 'tonnage is required for class B');
  return errors;
}
