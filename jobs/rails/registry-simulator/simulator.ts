import {
  CANCEL_REASONS,
  type CancelCertificateRequest,
  type CancelCertificateResponse,
  type CertificateRecord,
  type CertificateRegistry,
  type DoubleInsuranceConflict,
  type DoubleInsuranceRequest,
  type DoubleInsuranceResponse,
  type GetCertificateResponse,
  type IssueCertificateRequest,
  type IssueCertificateResponse,
  parseRegistryDate,
  type RegistryError,
  type RegistryResponse,
  type StockResponse,
  type ValidateCertificateRequest,
  type ValidateCertificateResponse,
} from '../../../src/ports/certificate-registry.ts';
import { CLASSES, MemorySimStore, type SimMember, type SimOps, type SimStore, type SimStored } from './store.ts';
import { certificateNoError, doubleInsuranceErrors, err, issueErrors, vehicleKey } from './validation.ts';

export interface RegistrySimulatorOptions {
  /** In-memory members (a MemorySimStore); or pass `store`. */
  members?: SimMember[];
  store?: SimStore;
  /** Injectable so tests can move past the 24-hour cancellation window. */
  now?: () => Date;
}

export const CANCEL_WINDOW_MS = 24 * 3600_000;

/**
 * The simulated registry. Its state lives behind a `SimStore`: in memory for unit tests, in the tables
 * registry_sim_certificates / registry_sim_stock for the app (so certificates survive restarts and double insurance
 * is seen across tenants and processes).
 */
export class RegistrySimulator implements CertificateRegistry {
  private readonly store: SimStore;
  private readonly now: () => Date;

  constructor(opts: RegistrySimulatorOptions) {
    this.store = opts.store ?? new MemorySimStore(opts.members ?? []);
    this.now = opts.now ?? (() => new Date());
  }

  private answer<T extends object>(ops: SimOps, errors: RegistryError[], extra: T): RegistryResponse & T {
    return { success: errors.length === 0, errors, referenceNo: ops.nextReference(), ...extra };
  }

  private async conflicts(
    ops: SimOps,
    registration: string,
    chassis: string,
    start: Date,
    end: Date,
  ): Promise<DoubleInsuranceConflict[]> {
    const found = await ops.overlapping(vehicleKey(registration), vehicleKey(chassis), start, end);
    return found.map((c) => conflictOf(c, start));
  }

  doubleInsuranceCheck(req: DoubleInsuranceRequest): Promise<DoubleInsuranceResponse> {
    return this.store.atomic(async (ops) => {
      const start = parseRegistryDate(req.start);
      const end = parseRegistryDate(req.end);
      const errors = doubleInsuranceErrors(req, start, end);
      if (errors.length) return this.answer(ops, errors, { conflicts: [] });
      // An empty identifier must not match every certificate lacking one.
      const reg = req.registration?.trim() ? req.registration : '#none#';
      const ch = req.chassis?.trim() ? req.chassis : '#none#';
      return this.answer(ops, [], { conflicts: await this.conflicts(ops, reg, ch, start!, end!) });
    });
  }

  issue(req: IssueCertificateRequest): Promise<IssueCertificateResponse> {
    return this.store.atomic(async (ops) => {
      const member = await ops.member(req.memberCompanyId);
      const errors = issueErrors(req, member, this.now);
      if (errors.length) return this.answer(ops, errors, {});
      const start = parseRegistryDate(req.commencingDate)!;
      const end = parseRegistryDate(req.expiringDate)!;
      // The check request carries no policy, so it lists them all; an issue request names its policy, and a policy is
      // never double-insured by its own certificates (a re-issue after reinstatement, say).
      const overlapping = await ops.overlapping(
        vehicleKey(req.registrationNumber),
        vehicleKey(req.chassisNumber),
        start,
        end,
      );
      const found = overlapping.filter((c) => !samePolicy(c, req)).map((c) => conflictOf(c, start));
      if (found.length) return this.answer(ops, found.map(doubleInsuranceError), {});
      await ops.takeStock(member!.id, req.certificateClass);
      const serial = await ops.nextSerial();
      const certificateNo = `C${req.certificateClass}${String(serial).padStart(7, '0')}`;
      await ops.insert(storedCertificate(req, member!, certificateNo, this.now(), { start, end }));
      return this.answer(ops, [], { certificateNo });
    });
  }

  /** ER009 for a number that cannot be a certificate, ER0016 for one the registry never issued. */
  private async lookup(ops: SimOps, certificateNo: string): Promise<{ cert?: SimStored; error?: RegistryError }> {
    const malformed = certificateNoError(certificateNo);
    if (malformed) return { error: malformed };
    const cert = await ops.find(certificateNo);
    return cert ? { cert } : { error: err('ER0016', certificateNo) };
  }

  get(certificateNo: string): Promise<GetCertificateResponse> {
    return this.store.atomic(async (ops) => {
      const { cert, error } = await this.lookup(ops, certificateNo);
      return error ? this.answer(ops, [error], {}) : this.answer(ops, [], { certificate: publicRecord(cert!) });
    });
  }

  validate(req: ValidateCertificateRequest): Promise<ValidateCertificateResponse> {
    return this.store.atomic(async (ops) => {
      const { cert, error } = await this.lookup(ops, req.certificateNo);
      if (error) return this.answer(ops, [error], {});
      if (
        vehicleKey(req.registration ?? '') !== cert!.registrationNumber ||
        vehicleKey(req.chassis ?? '') !== cert!.chassisNumber
      ) {
        return this.answer(
          ops,
          [err('ER0016', `${req.certificateNo} does not match that registration and chassis`)],
          {},
        );
      }
      return this.answer(ops, [], { certificate: publicRecord(cert!) });
    });
  }

  cancel(req: CancelCertificateRequest): Promise<CancelCertificateResponse> {
    return this.store.atomic(async (ops) => {
      const { cert, error } = await this.lookup(ops, req.certificateNo);
      if (error) return this.answer(ops, [error], {});
      if (!Number.isInteger(req.reasonId) || !(req.reasonId in CANCEL_REASONS)) {
        return this.answer(ops, [err('ER002', `unknown cancellation reason ${req.reasonId}`)], {});
      }
      if (cert!.status === 'Cancelled') return this.answer(ops, [err('ER007', 'certificate is already cancelled')], {});
      if (this.now().getTime() - Date.parse(cert!.issuedAt) > CANCEL_WINDOW_MS) {
        return this.answer(ops, [err('ER007', 'more than 24 hours since issuance')], {});
      }
      await ops.markCancelled(cert!.certificateNo, req.reasonId);
      return this.answer(ops, [], { certificateNo: cert!.certificateNo });
    });
  }

  stock(memberCompanyId: number): Promise<StockResponse> {
    return this.store.atomic(async (ops) => {
      const member = await ops.member(memberCompanyId);
      if (!member) return this.answer(ops, [err('ER001', `member ${memberCompanyId}`)], { stock: [] });
      const stock = CLASSES.filter((c) => member.stock[c] != null).map((c) => ({
        certificateClass: c,
        available: member.stock[c]!,
      }));
      if (!stock.some((s) => s.available > 0))
        return this.answer(ops, [err('ER006', `member ${memberCompanyId}`)], { stock });
      return this.answer(ops, [], { stock });
    });
  }
}

/** The certificate as the registry keeps it: vehicle identifiers normalised, optional figures only when sent. */
function storedCertificate(
  req: IssueCertificateRequest,
  member: SimMember,
  certificateNo: string,
  issuedAt: Date,
  period: { start: Date; end: Date },
): SimStored {
  return {
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
    issuedAt: issuedAt.toISOString(),
    start: period.start,
    end: period.end,
  };
}

function conflictOf(c: SimStored, start: Date): DoubleInsuranceConflict {
  return {
    certificateNo: c.certificateNo,
    insurer: c.insurer,
    memberCompanyId: c.memberCompanyId,
    coverEndDate: c.expiringDate,
    // The registry words it by whether the vehicle is already on cover when the new period starts.
    message:
      c.start <= start ? 'already covered under an active policy' : 'overlapping policy, leading to Double Insurance',
  };
}

/** An issue request refused for a conflict: ER005, naming the certificate already on the vehicle. */
function doubleInsuranceError(c: DoubleInsuranceConflict): RegistryError {
  return err('ER005', `${c.message}: certificate ${c.certificateNo} with ${c.insurer}, cover ends ${c.coverEndDate}`);
}

/** The registry knows a policy by the member company that holds it and that member's policy number. */
function samePolicy(c: SimStored, req: IssueCertificateRequest): boolean {
  return c.memberCompanyId === req.memberCompanyId && c.policyNumber === req.policyNumber;
}

function publicRecord(c: SimStored): CertificateRecord {
  const { start: _s, end: _e, ...rest } = c;
  return { ...rest };
}
