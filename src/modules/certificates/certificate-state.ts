import type { Prisma, Tx } from '../../db/client.ts';

/**
 * The one certificate state machine. Every status write goes through `transitionCertificate` (one row) or
 * `transitionCertificates` (a policy's or a vehicle's rows), guarded by the current status so a racing writer
 * changes nothing.
 *
 * pending → issuing | failed | void; issuing → issued | failed | void; failed → pending (manual retry) | void;
 * issued → cancel_pending; cancel_pending → cancelled | cancel_refused; cancel_refused → cancel_pending (asked again).
 * `issuing`: committed before the registry is called, so no second worker calls it for the same row; a call that got
 * no answer leaves it `issuing` (error registry_unavailable), and the next attempt asks the registry what became of
 * that call before issuing again.
 * `void`: an issue whose policy (or vehicle) was cancelled before the registry certified it.
 */
export const CERTIFICATE_STATES = [
  'pending',
  'issuing',
  'issued',
  'failed',
  'cancel_pending',
  'cancelled',
  'cancel_refused',
  'void',
] as const;
export type CertificateState = (typeof CERTIFICATE_STATES)[number];

export const CERTIFICATE_TRANSITIONS: Record<CertificateState, readonly CertificateState[]> = {
  pending: ['issuing', 'failed', 'void'],
  issuing: ['issued', 'failed', 'void'],
  failed: ['pending', 'void'],
  issued: ['cancel_pending'],
  cancel_pending: ['cancelled', 'cancel_refused'],
  cancel_refused: ['cancel_pending'],
  cancelled: [],
  void: [],
};

/** Certificates the registry holds as Active (they cover the vehicle and count as "stage exists"). */
export const LIVE_AT_REGISTRY: readonly CertificateState[] = ['issued', 'cancel_pending', 'cancel_refused'];

export function canTransition(from: CertificateState, to: CertificateState): boolean {
  return CERTIFICATE_TRANSITIONS[from]?.includes(to) ?? false;
}

export class IllegalCertificateTransition extends Error {
  constructor(from: string, to: string) {
    super(`certificate transition ${from} → ${to} is not allowed`);
  }
}

function check(from: CertificateState | readonly CertificateState[], to: CertificateState): CertificateState[] {
  const froms = typeof from === 'string' ? [from] : [...from];
  for (const f of froms) if (!canTransition(f, to)) throw new IllegalCertificateTransition(f, to);
  return froms;
}

/** Moves one certificate `from` → `to` with `data`; false when it was no longer in `from` (someone else moved it). */
export async function transitionCertificate(
  tx: Tx,
  id: number,
  from: CertificateState | readonly CertificateState[],
  to: CertificateState,
  data: Omit<Prisma.CertificateUpdateManyMutationInput, 'status'> = {},
): Promise<boolean> {
  const froms = check(from, to);
  const r = await tx.certificate.updateMany({ where: { id, status: { in: froms } }, data: { ...data, status: to } });
  return r.count === 1;
}

/** Moves every certificate matching `where` that is in `from` to `to`; returns the ids moved. */
export async function transitionCertificates(
  tx: Tx,
  where: Prisma.CertificateWhereInput,
  from: CertificateState | readonly CertificateState[],
  to: CertificateState,
  data: Omit<Prisma.CertificateUpdateManyMutationInput, 'status'> = {},
): Promise<number[]> {
  const froms = check(from, to);
  const rows = await tx.certificate.findMany({
    where: { AND: [where, { status: { in: froms } }] },
    select: { id: true },
    orderBy: { id: 'asc' },
  });
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  await tx.certificate.updateMany({ where: { id: { in: ids }, status: { in: froms } }, data: { ...data, status: to } });
  return ids;
}
