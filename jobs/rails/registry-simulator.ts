import { randomInt } from 'node:crypto';
import type { Database, Tx } from '../../src/db/client.ts';
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
/**
 * A member company at the simulated registry. A class missing from `stock` means the member is not authorised for
 * it (ER001); a class at 0 means authorised but out of stock (ER006).
 */
export interface SimMember {
  id: number;
  name: string;
  stock: Partial<Record<CertificateClass, number>>;
}

/** A certificate as the simulator keeps it: the public record plus its period as dates (for overlap checks). */
export interface SimStored extends CertificateRecord {
  start: Date;
  end: Date;
}

/** One registry operation's view of the state, inside `SimStore.atomic` (one operation at a time). */
export interface SimOps {
  member(id: number): Promise<SimMember | null>;
  takeStock(memberId: number, cls: CertificateClass): Promise<void>;
  /** Active certificates on this registration or chassis (already normalised) overlapping [start, end]. */
  overlapping(registration: string, chassis: string, start: Date, end: Date): Promise<SimStored[]>;
  insert(c: SimStored): Promise<void>;
  find(certificateNo: string): Promise<SimStored | null>;
  markCancelled(certificateNo: string, reasonId: number): Promise<void>;
  nextSerial(): Promise<number>;
  nextReference(): string;
}

/** Where the simulator keeps its state: in memory (unit tests) or in PostgreSQL (the app, registry-sim-store.ts). */
export interface SimStore {
  atomic<T>(fn: (ops: SimOps) => Promise<T>): Promise<T>;
}

/** The in-memory store: one instance is one registry. */
export class MemorySimStore implements SimStore {
  private readonly members = new Map<number, SimMember>();
  private readonly certificates = new Map<string, SimStored>();
  private serial = 0;
  private refSerial = 0;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(members: SimMember[]) {
    for (const m of members) this.members.set(m.id, { ...m, stock: { ...m.stock } });
  }

  atomic<T>(fn: (ops: SimOps) => Promise<T>): Promise<T> {
    const ops: SimOps = {
      member: async (id) => this.members.get(id) ?? null,
      takeStock: async (id, cls) => void (this.members.get(id)!.stock[cls]! -= 1),
      overlapping: async (reg, ch, start, end) =>
        [...this.certificates.values()].filter(
          (c) =>
            c.status === 'Active' &&
            (c.registrationNumber === reg || c.chassisNumber === ch) &&
            !(c.start > end || c.end < start),
        ),
      insert: async (c) => void this.certificates.set(c.certificateNo, c),
      find: async (no) => this.certificates.get(no) ?? null,
      markCancelled: async (no, reasonId) => {
        const c = this.certificates.get(no)!;
        c.status = 'Cancelled';
        c.cancelReasonId = reasonId;
      },
      nextSerial: async () => (this.serial += 1),
      nextReference: () => `REF${String((this.refSerial += 1)).padStart(9, '0')}`,
    };
    const run = this.chain.then(() => fn(ops));
    this.chain = run.catch(() => undefined);
    return run;
  }
}

export interface RegistrySimulatorOptions {
  /** In-memory members (a MemorySimStore); or pass `store`. */
  members?: SimMember[];
  store?: SimStore;
  /** Injectable so tests can move past the 24-hour cancellation window. */
  now?: () => Date;
}

const CLASSES: CertificateClass[] = ['A', 'B', 'C', 'D'];
const CERT_NO = /^C[ABCD]\d{7}$/;
const DAY = 86_400_000;
export const CANCEL_WINDOW_MS = 24 * 3600_000;

/** Registration and chassis compare without spaces or case, the way the registry matches vehicles. */
export function vehicleKey(s: string): string {
  return s.replace(/[\s-]+/g, '').toUpperCase();
}

function err(code: RegistryErrorCode, detail?: string): RegistryError {
  return { errorCode: code, errorText: detail ? `${REGISTRY_ERRORS[code]}: ${detail}` : REGISTRY_ERRORS[code] };
}

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
      const errors: RegistryError[] = [];
      if (!start) errors.push(err('ER003', 'start must be dd/MM/yyyy'));
      if (!end || (start && end < start)) errors.push(err('ER004', 'end must be dd/MM/yyyy, not before start'));
      if (!req.registration?.trim() && !req.chassis?.trim())
        errors.push(err('ER002', 'registration or chassis is required'));
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
      const errors = this.checkIssue(req, member);
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
      if (found.length) {
        return this.answer(
          ops,
          found.map((c) =>
            err(
              'ER005',
              `${c.message}: certificate ${c.certificateNo} with ${c.insurer}, cover ends ${c.coverEndDate}`,
            ),
          ),
          {},
        );
      }
      await ops.takeStock(member!.id, req.certificateClass);
      const serial = await ops.nextSerial();
      const certificateNo = `C${req.certificateClass}${String(serial).padStart(7, '0')}`;
      await ops.insert({
        certificateNo,
        certificateClass: req.certificateClass,
        typeOfCover: req.typeOfCover,
        memberCompanyId: member!.id,
        insurer: member!.name,
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
      return this.answer(ops, [], { certificateNo });
    });
  }

  /** Authorisation and dates first (the registry's own codes), then the fields, then stock. */
  private checkIssue(req: IssueCertificateRequest, member: SimMember | null): RegistryError[] {
    if (!member || !CLASSES.includes(req.certificateClass) || member.stock[req.certificateClass] == null) {
      return [err('ER001', `member ${req.memberCompanyId}, class ${req.certificateClass}`)];
    }
    const errors: RegistryError[] = [];
    const start = parseRegistryDate(req.commencingDate);
    const end = parseRegistryDate(req.expiringDate);
    const today = parseRegistryDate(registryDateNairobi(this.now()))!;
    if (!start) errors.push(err('ER003', 'commencing date must be dd/MM/yyyy'));
    else if (start.getTime() < today.getTime() - DAY)
      errors.push(err('ER003', 'commencing date is more than a day in the past'));
    if (!end) errors.push(err('ER004', 'expiring date must be dd/MM/yyyy'));
    else if (start && (end < start || end > maxExpiringDate(start))) {
      errors.push(err('ER004', 'expiring date must fall within one year less a day of commencing'));
    }
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
    if (errors.length) return errors;
    if (member.stock[req.certificateClass]! <= 0) return [err('ER006', `class ${req.certificateClass}`)];
    return [];
  }

  /** ER009 for a number that cannot be a certificate, ER0016 for one the registry never issued. */
  private async lookup(ops: SimOps, certificateNo: string): Promise<{ cert?: SimStored; error?: RegistryError }> {
    if (typeof certificateNo !== 'string' || !CERT_NO.test(certificateNo))
      return { error: err('ER009', String(certificateNo)) };
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

/** The registry knows a policy by the member company that holds it and that member's policy number. */
function samePolicy(c: SimStored, req: IssueCertificateRequest): boolean {
  return c.memberCompanyId === req.memberCompanyId && c.policyNumber === req.policyNumber;
}

function publicRecord(c: SimStored): CertificateRecord {
  const { start: _s, end: _e, ...rest } = c;
  return { ...rest };
}

/** Stock seeded for a member company the first time the registry hears of it (every class A–D authorised). */
export const DEFAULT_SIM_STOCK = 1000;

/**
 * The PostgreSQL store (tables registry_sim_certificates and registry_sim_stock, platform data reached through
 * `db.system`). Every operation runs in one transaction under an advisory lock, so two processes cannot both take
 * the last certificate or both certify one vehicle. Members are the insurers' `registry_member_id`s across all
 * tenants (the insurer's legal name is the member's name); their stock is seeded lazily at `defaultStock` per class.
 */
export class DbSimStore implements SimStore {
  constructor(
    private readonly db: Database,
    private readonly defaultStock = DEFAULT_SIM_STOCK,
  ) {}

  /** Tests (and operators of the demo) set a member's stock for a class; a negative number removes the class. */
  async setStock(memberCompanyId: number, cls: CertificateClass, available: number): Promise<void> {
    await this.db.system(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('registry-simulator'))`;
      await dbOps(tx, this.defaultStock).member(memberCompanyId);
      const where = { memberCompanyId_certificateClass: { memberCompanyId, certificateClass: cls } };
      if (available < 0) await tx.registrySimStock.deleteMany({ where: { memberCompanyId, certificateClass: cls } });
      else
        await tx.registrySimStock.upsert({
          where,
          create: { memberCompanyId, certificateClass: cls, available },
          update: { available },
        });
    });
  }

  atomic<T>(fn: (ops: SimOps) => Promise<T>): Promise<T> {
    return this.db.system(
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('registry-simulator'))`;
        return fn(dbOps(tx, this.defaultStock));
      },
      { timeout: 20_000 },
    );
  }
}

function fromRow(r: { record: unknown; startDate: Date; endDate: Date; status: string }): SimStored {
  const rec = r.record as CertificateRecord;
  return { ...rec, status: r.status as 'Active' | 'Cancelled', start: r.startDate, end: r.endDate };
}

function dbOps(tx: Tx, defaultStock: number): SimOps {
  return {
    async member(id) {
      const insurer = await tx.insurer.findFirst({
        where: { registryMemberId: id },
        orderBy: { id: 'asc' },
        select: { legalName: true },
      });
      if (!insurer) return null;
      let rows = await tx.registrySimStock.findMany({ where: { memberCompanyId: id } });
      if (!rows.length) {
        await tx.registrySimStock.createMany({
          data: CLASSES.map((c) => ({ memberCompanyId: id, certificateClass: c, available: defaultStock })),
          skipDuplicates: true,
        });
        rows = await tx.registrySimStock.findMany({ where: { memberCompanyId: id } });
      }
      return {
        id,
        name: insurer.legalName,
        stock: Object.fromEntries(rows.map((r) => [r.certificateClass, r.available])),
      };
    },
    async takeStock(id, cls) {
      await tx.registrySimStock.update({
        where: { memberCompanyId_certificateClass: { memberCompanyId: id, certificateClass: cls } },
        data: { available: { decrement: 1 } },
      });
    },
    async overlapping(reg, ch, start, end) {
      const rows = await tx.registrySimCertificate.findMany({
        where: {
          status: 'Active',
          OR: [{ registration: reg }, { chassis: ch }],
          startDate: { lte: end },
          endDate: { gte: start },
        },
        orderBy: { issuedAt: 'asc' },
      });
      return rows.map(fromRow);
    },
    async insert(c) {
      const { start, end, ...record } = c;
      await tx.registrySimCertificate.create({
        data: {
          certificateNo: c.certificateNo,
          memberCompanyId: c.memberCompanyId,
          registration: c.registrationNumber,
          chassis: c.chassisNumber,
          startDate: start,
          endDate: end,
          status: c.status,
          record: record as never,
          issuedAt: new Date(c.issuedAt),
        },
      });
    },
    async find(no) {
      const r = await tx.registrySimCertificate.findUnique({ where: { certificateNo: no } });
      return r ? fromRow(r) : null;
    },
    async markCancelled(no, reasonId) {
      const r = await tx.registrySimCertificate.findUniqueOrThrow({ where: { certificateNo: no } });
      const record = { ...(r.record as object), status: 'Cancelled', cancelReasonId: reasonId };
      await tx.registrySimCertificate.update({
        where: { certificateNo: no },
        data: { status: 'Cancelled', record: record as never },
      });
    },
    async nextSerial() {
      const [row] = await tx.$queryRaw<{ n: number }[]>`
        SELECT COALESCE(MAX(substring(certificate_no from 3)::int), 0)::int AS n FROM registry_sim_certificates`;
      return (row?.n ?? 0) + 1;
    },
    nextReference: () => `REF${String(randomInt(0, 1_000_000_000)).padStart(9, '0')}`,
  };
}
