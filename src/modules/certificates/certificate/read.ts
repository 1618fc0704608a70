import type { Context } from '../../../context.ts';
import type { Prisma, Tx } from '../../../db/client.ts';
import { notFound } from '../../../lib/problem.ts';
import { policyVisibility, visiblePolicy } from '../../access/policy.visibility.ts';

/** Reading certificates for a caller: always through their policy's visibility. */

const CERT_NO = /^C[ABCD]\d{7}$/;

/** A certificate the caller may see (through its policy's visibility), or 404. */
export async function visibleCertificate(ctx: Context, certificateNo: string) {
  if (typeof certificateNo !== 'string' || !CERT_NO.test(certificateNo.trim().toUpperCase()))
    throw notFound('Certificate');
  const row = await ctx.tx((tx) =>
    tx.certificate.findFirst({
      where: { certificateNo: certificateNo.trim().toUpperCase(), policy: policyVisibility(ctx.principal) },
    }),
  );
  if (!row) throw notFound('Certificate');
  return row;
}

/** A policy's certificates, series by series, stage by stage. */
export function policyCertificates(tx: Tx, policyId: number) {
  return tx.certificate.findMany({
    where: { policyId },
    orderBy: [{ series: 'asc' }, { stage: 'asc' }, { vehicleId: 'asc' }, { id: 'asc' }],
  });
}

/** Certificates an operation of the caller's just returned, loaded again with the caller's selection. */
export function certificatesByIds(ctx: Context, ids: number[], query: Prisma.CertificateFindManyArgs = {}) {
  return ctx.tx((tx) =>
    tx.certificate.findMany({
      ...query,
      where: { id: { in: ids } },
      orderBy: [{ series: 'asc' }, { stage: 'asc' }, { vehicleId: 'asc' }, { id: 'asc' }],
    }),
  );
}

export function certificateById(ctx: Context, id: number, query: Omit<Prisma.CertificateFindUniqueArgs, 'where'> = {}) {
  return ctx.tx((tx) => tx.certificate.findUniqueOrThrow({ ...query, where: { id } }));
}

export async function listForPolicy(ctx: Context, policyUuid: string) {
  const p = await visiblePolicy(ctx, policyUuid, { select: { id: true } });
  return ctx.tx((tx) => policyCertificates(tx, p.id));
}
