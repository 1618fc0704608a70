import { requireCustomer } from '../../../auth/customer.ts';
import type { Context } from '../../../context.ts';
import type { Prisma } from '../../../db/client.ts';
import { fromDbDate } from '../../../lib/dates.ts';
import { notFound } from '../../../lib/problem.ts';

/**
 * What the signed-in client reads of its own records. Every query is keyed on `ctx.customer` (auth/customer.ts) and
 * runs in the token's organisation (row-level security), so nothing here can reach another client's rows.
 */

export async function viewerDetails(ctx: Context) {
  const { clientId } = requireCustomer(ctx);
  const c = await ctx.tx((tx) => tx.client.findUnique({ where: { id: clientId } }));
  if (!c) throw notFound('Client');
  return c;
}

export interface ViewerPolicy {
  uuid: string;
  policyNo: string;
  productLine: string;
  /** The spec's client-area status: 1 active cover, 0 every other status. */
  status: 0 | 1;
  statusText: string;
  insurerName: string;
  startDate: string;
  endDate: string;
  totalMinor: bigint;
  outstandingMinor: bigint;
  /** Medical, travel and standard policies: the cover product's name; null for motor. */
  productName: string | null;
  vehicles: { regNo: string; make: string | null; model: string | null }[];
  /** Medical, travel and standard policies: the persons, travellers or items on cover (removed ones left out). */
  insured: { id: number; kind: string; name: string; relationship: string | null }[];
  debitNotes: { number: string; dueOn: string; amountMinor: bigint; outstandingMinor: bigint }[];
}

const outstanding = (d: { amountMinor: bigint; paidMinor: bigint; creditedMinor: bigint }) => {
  const o = d.amountMinor - d.paidMinor - d.creditedMinor;
  return o > 0n ? o : 0n;
};

export async function viewerPolicies(ctx: Context): Promise<ViewerPolicy[]> {
  const { clientId } = requireCustomer(ctx);
  const rows = await ctx.tx((tx) =>
    tx.policy.findMany({
      where: { clientId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      include: {
        insurer: { select: { name: true } },
        vehicles: { where: { removedOn: null }, orderBy: { id: 'asc' } },
        coverProduct: { select: { name: true } },
        risks: { where: { status: 'active' }, orderBy: { id: 'asc' } },
        debitNotes: { orderBy: [{ dueOn: 'asc' }, { id: 'asc' }] },
      },
    }),
  );
  return rows.map((p) => {
    const notes = p.debitNotes.map((d) => ({
      number: d.number,
      dueOn: fromDbDate(d.dueOn),
      amountMinor: d.amountMinor,
      outstandingMinor: outstanding(d),
    }));
    return {
      uuid: p.uuid,
      policyNo: p.policyNo,
      productLine: p.productLine,
      status: p.status === 'active' ? 1 : 0,
      statusText: p.status,
      insurerName: p.insurer.name,
      startDate: fromDbDate(p.startDate),
      endDate: fromDbDate(p.endDate),
      totalMinor: p.totalMinor,
      outstandingMinor: notes.reduce((s, d) => s + d.outstandingMinor, 0n),
      productName: p.coverProduct?.name ?? null,
      vehicles: p.vehicles.map((v) => ({ regNo: v.regNo, make: v.make, model: v.model })),
      insured: p.risks.map((r) => ({ id: r.id, kind: r.kind, name: r.name, relationship: r.relationship })),
      debitNotes: notes,
    };
  });
}

export interface ViewerClaim {
  uuid: string;
  claimNo: string;
  policyNo: string;
  status: string;
  cause: string;
  lossDate: string;
  lossPlace: string;
  regNo: string | null;
  reportedAt: Date;
  estimatedLossMinor: bigint | null;
  approvedAmountMinor: bigint | null;
  paidMinor: bigint;
}

export const CLAIM_INCLUDE = { policy: { select: { policyNo: true } } } as const;
type ClaimRow = Prisma.ClaimGetPayload<{ include: typeof CLAIM_INCLUDE }>;

/** A claim as its claimant follows it: no reserve, assessor or handler (those are the underwriter's). */
export function viewerClaim(c: ClaimRow): ViewerClaim {
  return {
    uuid: c.uuid,
    claimNo: c.claimNo,
    policyNo: c.policy.policyNo,
    status: c.status,
    cause: c.causeCode,
    lossDate: fromDbDate(c.lossDate),
    lossPlace: c.lossPlace,
    regNo: c.regNo,
    reportedAt: c.reportedAt,
    estimatedLossMinor: c.estimatedLossMinor,
    approvedAmountMinor: c.approvedAmountMinor,
    paidMinor: c.paidMinor,
  };
}

export async function viewerClaims(ctx: Context): Promise<ViewerClaim[]> {
  const { clientId } = requireCustomer(ctx);
  const rows = await ctx.tx((tx) =>
    tx.claim.findMany({ where: { clientId }, orderBy: { id: 'desc' }, include: CLAIM_INCLUDE }),
  );
  return rows.map(viewerClaim);
}

/** Premium-finance loans, in cents: viewer/loans.ts. */
export { viewerLoans, type ViewerLoan } from './loans.ts';
