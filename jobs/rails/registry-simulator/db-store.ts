import { randomInt } from 'node:crypto';
import type { Database, Tx } from '../../../src/db/client.ts';
import type { CertificateClass, CertificateRecord } from '../../../src/ports/certificate-registry.ts';
import { CLASSES, type SimMember, type SimOps, type SimStore, type SimStored } from './store.ts';

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
      await lockRegistry(tx);
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
        await lockRegistry(tx);
        return fn(dbOps(tx, this.defaultStock));
      },
      { timeout: 20_000 },
    );
  }
}

async function lockRegistry(tx: Tx): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('registry-simulator'))`;
}

function fromRow(r: { record: unknown; startDate: Date; endDate: Date; status: string }): SimStored {
  const rec = r.record as CertificateRecord;
  return { ...rec, status: r.status as 'Active' | 'Cancelled', start: r.startDate, end: r.endDate };
}

/** The member by its insurer row, its stock seeded on first sight. */
async function dbMember(tx: Tx, id: number, defaultStock: number): Promise<SimMember | null> {
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
}

function dbOps(tx: Tx, defaultStock: number): SimOps {
  return {
    member: (id) => dbMember(tx, id, defaultStock),
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
