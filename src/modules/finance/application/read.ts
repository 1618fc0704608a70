import type { Principal } from '../../../auth/principal.ts';
import { keyset, keysetWhere } from '../../../db/read-model.ts';
import type { Context } from '../../../context.ts';
import type { Prisma } from '../../../db/client.ts';
import { todayNairobi } from '../../../lib/dates.ts';
import { isUuid } from '../../../lib/identifiers.ts';
import { notFound } from '../../../lib/problem.ts';
import { ipfApplicationVisibility } from '../../access/ipf.visibility.ts';
import type { ApplicationStatus } from '../ipf-state.ts';
import { requireFinanceOffered } from '../offered.ts';
import { type Agreement, agreementFor } from './agreement.ts';
import type { ApplicationRow } from './common.ts';

export type IpfApplicationQuery = { include?: Prisma.IpfApplicationInclude; select?: Prisma.IpfApplicationSelect };

export interface IpfApplicationFilters {
  status?: ApplicationStatus[] | null;
  policyUuid?: string | null;
  policyNo?: string | null;
  clientNo?: string | null;
  lenderId?: number | null;
}

const NO_SUCH = '00000000-0000-0000-0000-000000000000';

/** The list's where-fragment: the caller's reach first, then each filter. */
export function ipfApplicationListWhere(p: Principal, f: IpfApplicationFilters): Prisma.IpfApplicationWhereInput {
  const and: Prisma.IpfApplicationWhereInput[] = [ipfApplicationVisibility(p)];
  if (f.status?.length) and.push({ status: { in: f.status } });
  if (f.policyUuid) and.push({ policy: { uuid: isUuid(f.policyUuid) ? f.policyUuid : NO_SUCH } });
  if (f.policyNo) and.push({ policy: { policyNo: f.policyNo.trim() } });
  if (f.clientNo) and.push({ client: { clientNo: f.clientNo.trim().toUpperCase() } });
  if (f.lenderId != null) and.push({ lenderId: f.lenderId });
  return { AND: and };
}

/** Applications the caller may see, newest first (a SACCO or microfinance organisation: 403 ipf_not_offered). */
export function listIpfApplications(
  ctx: Context,
  filters: IpfApplicationFilters,
  query: Prisma.IpfApplicationFindManyArgs,
) {
  const p = ctx.principal!;
  requireFinanceOffered(p);
  const { query: paged, id } = keyset(query);
  return ctx.tx((tx) =>
    tx.ipfApplication.findMany({
      ...paged,
      where: keysetWhere(ipfApplicationListWhere(p, filters), id),
      orderBy: { id: 'desc' },
    }),
  );
}

/** One application by uuid, or 404 when missing or out of the caller's reach. */
export async function getIpfApplication(ctx: Context, uuid: string, query: IpfApplicationQuery = {}) {
  const p = ctx.principal!;
  requireFinanceOffered(p);
  if (!isUuid(uuid)) throw notFound('Premium-finance application');
  const row = await ctx.tx((tx) =>
    tx.ipfApplication.findFirst({ ...query, where: { AND: [{ uuid }, ipfApplicationVisibility(p)] } }),
  );
  if (!row) throw notFound('Premium-finance application');
  return row;
}

export interface AgreementView extends Pick<Agreement, 'text' | 'sha256'> {
  /** True once a signing code was sent with this text (it is stored and what the code is bound to). */
  final: boolean;
}

/**
 * The application's agreement: the one stored when a signing code was sent (and, once signed, the one signed); for an
 * approved application without one yet, a preview rendered for today (not stored); otherwise none.
 */
export async function agreementOf(ctx: Context, a: ApplicationRow): Promise<AgreementView | null> {
  requireFinanceOffered(ctx.principal!);
  if (a.agreementText && a.agreementSha256) {
    return { text: a.agreementText, sha256: a.agreementSha256, final: true };
  }
  if (a.status !== 'approved') return null;
  const preview = await ctx.tx((tx) => agreementFor(tx, a, todayNairobi()));
  return { text: preview.text, sha256: preview.sha256, final: false };
}
