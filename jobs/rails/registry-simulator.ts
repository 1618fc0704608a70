import {
  CANCEL_REASONS,
  type CancelCertificateRequest,
  type CancelCertificateResponse,
  type CertificateClass,
  type CertificateRecord,
  type CertificateRegistry,
  type DoubleInsuranceConflict,
  type DoubleInsuranceRequest,
  type DoubleInsuranceResponse,
  type GetCertificateResponse,
  type IssueCertificateRequest,
  type IssueCertificateResponse,
  maxExpiringDate,
  parseRegistryDate,
  REGISTRY_ERRORS,
  type RegistryError,
  type RegistryErrorCode,
  type RegistryResponse,
  registryDateNairobi,
  type StockResponse,
  type ValidateCertificateRequest,
  type ValidateCertificateResponse,
} from '../../src/modules/certificates/registry.ts';

/**
 * A member company at the simulated registry. A class missing from `stock` means the member is not authorised for
 * it (ER001); a class at 0 means authorised but out of stock (ER006).
 */
export interface SimMember {
  id: number;
  name: string;
  stock: Partial<Record<CertificateClass, number>>;
}

export interface RegistrySimulatorOptions {
  members: SimMember[];
  /** Injectable so tests can move past the 24-hour cancellation window. */
  now?: () => Date;
}

const CLASSES: CertificateClass[] = ['A', 'B', 'C', 'D'];
const CERT_NO = /^C[ABCD]\d{7}$/;
const DAY = 86_400_000;
const CANCEL_WINDOW_MS = 24 * 3600_000;

/** Registration and chassis compare without spaces or case, the way the registry matches vehicles. */
function vehicleKey(s: string): string {
  return s.replace(/[\s-]+/g, '').toUpperCase();
}

function err(code: RegistryErrorCode, detail?: string): RegistryError {
  return { errorCode: code, errorText: detail ? `${REGISTRY_ERRORS[code]}: ${detail}` : REGISTRY_ERRORS[code] };
}

interface Stored extends CertificateRecord {
  start: Date;
  end: Date;
}

/**
 * The in-process registry. State lives in memory (this slice adds no schema); one instance is one registry.
 * Double insurance only sees certificates this instance issued.
 */
export class RegistrySimulator implements CertificateRegistry {
  private readonly members = new Map<number, SimMember>();
  private readonly certificates = new Map<string, Stored>();
  private readonly now: () => Date;
  private serial = 0;
  private refSerial = 0;

  constructor(opts: RegistrySimulatorOptions) {
    for (const m of opts.members) this.members.set(m.id, { ...m, stock: { ...m.stock } });
    this.now = opts.now ?? (() => new Date());
  }

  private answer<T extends object>(errors: RegistryError[], extra: T): RegistryResponse & T {
    this.refSerial += 1;
    return { success: errors.length === 0, errors, referenceNo: `REF${String(this.refSerial).padStart(9, '0')}`, ...extra };
  }

  private conflicts(registration: string, chassis: string, start: Date, end: Date): DoubleInsuranceConflict[] {
    const reg = vehicleKey(registration);
    const ch = vehicleKey(chassis);
    const out: DoubleInsuranceConflict[] = [];
    for (const c of this.certificates.values()) {
      if (c.status !== 'Active') continue;
      if (vehicleKey(c.registrationNumber) !== reg && vehicleKey(c.chassisNumber) !== ch) continue;
      if (c.start > end || c.end < start) continue;
      // The registry words it by whether the vehicle is already on cover when the new period starts.
      const active = c.start <= start;
      out.push({
        certificateNo: c.certificateNo,
        insurer: c.insurer,
        memberCompanyId: c.memberCompanyId,
        coverEndDate: c.expiringDate,
        message: active ? 'already covered under an active policy' : 'overlapping policy, leading to Double Insurance',
      });
    }
    return out;
  }

  async doubleInsuranceCheck(req: DoubleInsuranceRequest): Promise<DoubleInsuranceResponse> {
    const start = parseRegistryDate(req.start);
    const end = parseRegistryDate(req.end);
    const errors: RegistryError[] = [];
    if (!start) errors.push(err('ER003', 'start must be dd/MM/yyyy'));
    if (!end || (start && end < start)) errors.push(err('ER004', 'end must be dd/MM/yyyy, not before start'));
    if (!req.registration?.trim() && !req.chassis?.trim()) errors.push(err('ER002', 'registration or chassis is required'));
    if (errors.length) return this.answer(errors, { conflicts: [] });
    return this.answer([], { conflicts: this.conflicts(req.registration ?? '', req.chassis ?? '', start!, end!) });
  }

  async issue(req: IssueCertificateRequest): Promise<IssueCertificateResponse> {
    const errors = this.checkIssue(req);
    if (errors.length) return this.answer(errors, {});
    const member = this.members.get(req.memberCompanyId)!;
    const start = parseRegistryDate(req.commencingDate)!;
    const end = parseRegistryDate(req.expiringDate)!;
    const found = this.conflicts(req.registrationNumber, req.chassisNumber, start, end);
    if (found.length) {
      return this.answer(
        found.map((c) => err('ER005', `${c.message}: certificate ${c.certificateNo} with ${c.insurer}, cover ends ${c.coverEndDate}`)),
        {},
      );
    }
    member.stock[req.certificateClass]! -= 1;
    this.serial += 1;
    const certificateNo = `C${req.certificateClass}${String(this.serial).padStart(7, '0')}`;
    this.certificates.set(certificateNo, {
      certificateNo,
      certificateClass: req.certificateClass,
      typeOfCover: req.typeOfCover,
      memberCompanyId: member.id,
      insurer: member.name,
      policyHolder: req.policyHolder,
      policyNumber: req.policyNumber,
      commencingDate: req.commencingDate,
      expiringDate: req.expiringDate,
      registrationNumber: vehicleKey(req.registrationNumber),
      chassisNumber: vehicleKey(req.chassisNumber),
      engineNumber: req.engineNumber,
      bodyType: req.bodyType,
      ...(req.sumInsured != null ? { sumInsured: req.sumInsured } : {}),
      ...(req.licensedToCarry != null ? { licensedToCarry: req.licensedToCarry } : {}),
      ...(req.tonnage != null ? { tonnage: req.tonnage } : {}),
      status: 'Active',
      issuedAt: this.now().toISOString(),
      start,
      end,
    });
    return this.answer([], { certificateNo });
  }

  /** Authorisation and dates first (the registry's own codes), then the fields, then stock. */
  private checkIssue(req: IssueCertificateRequest): RegistryError[] {
    const member = this.members.get(req.memberCompanyId);
    if (!member || !CLASSES.includes(req.certificateClass) || member.stock[req.certificateClass] == null) {
      return [err('ER001', `member ${req.memberCompanyId}, class ${req.certificateClass}`)];
    }
    const errors: RegistryError[] = [];
    const start = parseRegistryDate(req.commencingDate);
    const end = parseRegistryDate(req.expiringDate);
    const today = parseRegistryDate(registryDateNairobi(this.now()))!;
    if (!start) errors.push(err('ER003', 'commencing date must be dd/MM/yyyy'));
    else if (start.getTime() < today.getTime() - DAY) errors.push(err('ER003', 'commencing date is more than a day in the past'));
    if (!end) errors.push(err('ER004', 'expiring date must be dd/MM/yyyy'));
    else if (start && (end < start || end > maxExpiringDate(start))) {
      errors.push(err('ER004', 'expiring date must fall within one year less a day of commencing'));
    }
    const field = (ok: boolean, what: string) => void (ok || errors.push(err('ER002', what)));
    const text = (v: unknown) => typeof v === 'string' && v.trim().length > 0;
    field([100, 200, 300].includes(req.typeOfCover), 'typeOfCover must be 100, 200 or 300');
    for (const k of ['policyHolder', 'policyNumber', 'registrationNumber', 'chassisNumber', 'engineNumber', 'bodyType'] as const) {
      field(text(req[k]), `${k} is required`);
    }
    field(typeof req.phoneNumber === 'string' && /^254[17]\d{8}$/.test(req.phoneNumber), 'phoneNumber must be 2547XXXXXXXX or 2541XXXXXXXX');
    field(typeof req.email === 'string' && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(req.email), 'email is invalid');
    if (req.typeOfCover === 100 || req.typeOfCover === 300) {
      field(typeof req.sumInsured === 'number' && req.sumInsured > 0, 'sumInsured is required for COMP and TPFT');
    }
    if (req.certificateClass === 'A' || req.licensedToCarry != null) {
      field(Number.isInteger(req.licensedToCarry) && req.licensedToCarry! >= 1 && req.licensedToCarry! <= 200, 'licensedToCarry must be 1-200');
    }
    if (req.certificateClass === 'B') field(typeof req.tonnage === 'number' && req.tonnage > 0, 'tonnage is required for class B');
    if (errors.length) return errors;
    if (member.stock[req.certificateClass]! <= 0) return [err('ER006', `class ${req.certificateClass}`)];
    return [];
  }

  /** ER009 for a number that cannot be a certificate, ER0016 for one the registry never issued. */
  private lookup(certificateNo: string): { cert?: Stored; error?: RegistryError } {
    if (typeof certificateNo !== 'string' || !CERT_NO.test(certificateNo)) return { error: err('ER009', String(certificateNo)) };
    const cert = this.certificates.get(certificateNo);
    return cert ? { cert } : { error: err('ER0016', certificateNo) };
  }

  async get(certificateNo: string): Promise<GetCertificateResponse> {
    const { cert, error } = this.lookup(certificateNo);
    return error ? this.answer([error], {}) : this.answer([], { certificate: publicRecord(cert!) });
  }

  async validate(req: ValidateCertificateRequest): Promise<ValidateCertificateResponse> {
    const { cert, error } = this.lookup(req.certificateNo);
    if (error) return this.answer([error], {});
    if (vehicleKey(req.registration ?? '') !== cert!.registrationNumber || vehicleKey(req.chassis ?? '') !== cert!.chassisNumber) {
      return this.answer([err('ER0016', `${req.certificateNo} does not match that registration and chassis`)], {});
    }
    return this.answer([], { certificate: publicRecord(cert!) });
  }

  async cancel(req: CancelCertificateRequest): Promise<CancelCertificateResponse> {
    const { cert, error } = this.lookup(req.certificateNo);
    if (error) return this.answer([error], {});
    if (!Number.isInteger(req.reasonId) || !(req.reasonId in CANCEL_REASONS)) {
      return this.answer([err('ER002', `unknown cancellation reason ${req.reasonId}`)], {});
    }
    if (cert!.status === 'Cancelled') return this.answer([err('ER007', 'certificate is already cancelled')], {});
    if (this.now().getTime() - Date.parse(cert!.issuedAt) > CANCEL_WINDOW_MS) {
      return this.answer([err('ER007', 'more than 24 hours since issuance')], {});
    }
    cert!.status = 'Cancelled';
    cert!.cancelReasonId = req.reasonId;
    return this.answer([], { certificateNo: cert!.certificateNo });
  }

  async stock(memberCompanyId: number): Promise<StockResponse> {
    const member = this.members.get(memberCompanyId);
    if (!member) return this.answer([err('ER001', `member ${memberCompanyId}`)], { stock: [] });
    const stock = CLASSES.filter((c) => member.stock[c] != null).map((c) => ({ certificateClass: c, available: member.stock[c]! }));
    if (!stock.some((s) => s.available > 0)) return this.answer([err('ER006', `member ${memberCompanyId}`)], { stock });
    return this.answer([], { stock });
  }
}

function publicRecord(c: Stored): CertificateRecord {
  const { start: _s, end: _e, ...rest } = c;
  return { ...rest };
}
