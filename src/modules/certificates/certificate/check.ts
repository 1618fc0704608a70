import type { Context } from '../../../context.ts';
import { todayNairobi, toDbDate } from '../../../lib/dates.ts';
import { normaliseRegNo } from '../../../lib/identifiers.ts';
import { ValidationError } from '../../../lib/problem.ts';
import {
  type CertificateRecord,
  type CertificateRegistry,
  formatRegistryDate,
  registryMessage,
} from '../../../ports/certificate-registry.ts';

export interface CertificateCheck {
  valid: boolean;
  message: string;
  certificate: CertificateRecord | null;
  conflicts: { certificateNo: string; insurer: string; coverEndDate: string; message: string }[];
}

const registryYmd = (d: string) => `${d.slice(6, 10)}-${d.slice(3, 5)}-${d.slice(0, 2)}`;

/** Validates at the registry by certificate number, or looks a registration up for an active certificate today. */
export async function checkCertificate(
  ctx: Context,
  args: { certificateNo?: string | null; regNo?: string | null },
): Promise<CertificateCheck> {
  const no = args.certificateNo?.trim().toUpperCase();
  const reg = args.regNo ? normaliseRegNo(args.regNo) : null;
  if (!no && !args.regNo)
    throw new ValidationError([{ field: 'certificateNo', message: 'certificate_no or regno is required' }]);
  if (args.regNo && !reg) throw new ValidationError([{ field: 'regNo', message: 'not a registration number' }]);
  const registry = ctx.app.registry.registry;
  const today = formatRegistryDate(toDbDate(todayNairobi(ctx.app.registry.clock())));
  if (no) return checkByNumber(registry, no, reg, today);
  return checkByRegistration(registry, reg!, today);
}

/** `today` in the registry's dd/mm/yyyy. */
async function checkByNumber(
  registry: CertificateRegistry,
  no: string,
  reg: string | null,
  today: string,
): Promise<CertificateCheck> {
  const got = await registry.get(no);
  if (!got.success || !got.certificate) {
    return { valid: false, message: registryMessage(got.errors).message, certificate: null, conflicts: [] };
  }
  const rec = got.certificate;
  if (reg && rec.registrationNumber !== reg)
    return { valid: false, message: `${no} is not for ${reg}`, certificate: null, conflicts: [] };
  const t = registryYmd(today);
  const inForce = rec.status === 'Active' && registryYmd(rec.commencingDate) <= t && t <= registryYmd(rec.expiringDate);
  return {
    valid: inForce,
    message: inForce
      ? 'Certificate is active'
      : rec.status === 'Active'
        ? 'Certificate is not in force today'
        : 'Certificate is cancelled',
    certificate: rec,
    conflicts: [],
  };
}

/** The registry's double-insurance check over today alone lists the registration's certificates in force. */
async function checkByRegistration(
  registry: CertificateRegistry,
  reg: string,
  today: string,
): Promise<CertificateCheck> {
  const di = await registry.doubleInsuranceCheck({ registration: reg, chassis: '', start: today, end: today });
  if (!di.success)
    return { valid: false, message: registryMessage(di.errors).message, certificate: null, conflicts: [] };
  const first = di.conflicts[0];
  const rec = first ? ((await registry.get(first.certificateNo)).certificate ?? null) : null;
  return {
    valid: !!first,
    message: first
      ? `${reg} is covered: certificate ${first.certificateNo} with ${first.insurer}, cover ends ${first.coverEndDate}`
      : `No active certificate for ${reg} today`,
    certificate: rec,
    conflicts: di.conflicts.map((c) => ({
      certificateNo: c.certificateNo,
      insurer: c.insurer,
      coverEndDate: c.coverEndDate,
      message: c.message,
    })),
  };
}
