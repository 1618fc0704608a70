import type { Principal } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Prisma } from '../../../db/client.ts';
import { identifiersIn, identityConditions } from '../../../lib/identifiers.ts';
import { notFound } from '../../../lib/problem.ts';
import { containsText, sameText } from '../../../lib/search.ts';
import { clientVisibility } from '../../access/client.visibility.ts';
import { keyset, keysetWhere } from '../../../db/read-model.ts';
import { shapedAsPlanned } from '../../../db/selection-sql.ts';
import { type ClientListFilters, clientColumns, clientPage, clientRecord } from './read-model.ts';

export type ClientQuery = { include?: Prisma.ClientInclude; select?: Prisma.ClientSelect };

export type { ClientListFilters };

/** A search term matches a name in part, or a client number, phone, ID number or PIN exactly (once normalised). */
export function clientListWhere(p: Principal, f: ClientListFilters): Prisma.ClientWhereInput {
  const and: Prisma.ClientWhereInput[] = [clientVisibility(p)];
  if (f.type) and.push({ type: f.type });
  if (f.salesPersonId != null) and.push({ salesPersonId: f.salesPersonId });
  if (f.riskManagerId != null) and.push({ riskManagerId: f.riskManagerId });
  const term = f.search?.trim();
  if (term) {
    const or: Prisma.ClientWhereInput[] = [{ name: containsText(term) }, { clientNo: sameText(term) }];
    const ids = identifiersIn(term);
    or.push(...identityConditions(ids));
    if (ids.phone) or.push({ altPhone: ids.phone });
    and.push({ OR: or });
  }
  return { AND: and };
}

/**
 * A page of clients (clientListWhere, newest first, after the cursor's id: keyset): from the read model
 * (read-model.ts) when it answers the selection, filters and paging asked for, else from Prisma.
 */
export function listClients(ctx: Context, filters: ClientListFilters, query: Prisma.ClientFindManyArgs) {
  const p = ctx.principal!;
  const { query: paged, id } = keyset(query);
  return ctx.tx(
    (tx) =>
      clientPage(tx, p, filters, paged, id) ??
      tx.client
        .findMany({
          ...paged,
          where: keysetWhere(clientListWhere(p, filters), id),
          orderBy: { id: 'desc' },
        })
        .then((rows) => shapedAsPlanned(tx, 'Client', paged, rows)),
    { readOnly: true },
  );
}

/** A client by number if the caller may see it (read model or Prisma, as listClients), else not_found. */
export async function getClient(ctx: Context, clientNo: string, query: ClientQuery = {}) {
  const p = ctx.principal!;
  const row = await ctx.tx(
    (tx) =>
      clientColumns.answers(query)
        ? clientRecord(tx, p, clientNo)
        : tx.client
            .findFirst({ ...query, where: { AND: [{ clientNo }, clientVisibility(p)] } })
            .then((row) => shapedAsPlanned(tx, 'Client', query, row)),
    { readOnly: true },
  );
  if (!row) throw notFound('Client');
  return row;
}
