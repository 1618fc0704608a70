import type { Principal } from '../../../auth/principal.ts';
import { Prisma, type Tx } from '../../../db/client.ts';
import { appliesEvery, forwardPage, newestFirst, readModel } from '../../../db/read-model.ts';
import type { Client } from '../../../generated/prisma/client.ts';
import { clientVisibilitySql } from '../../access/client.visibility.ts';

/**
 * The client's read model (src/db/read-model.ts): a client record and a page of clients in one fixed statement each,
 * for the selections the REST facade and most GraphQL callers make (the Client type's scalar fields and the ids its
 * reference fields resolve from the directory in memory). read.ts falls back to Prisma for anything else.
 */
/** The clients list's filters (the GraphQL `clients` arguments, REST's query parameters). */
export interface ClientListFilters {
  search?: string | null;
  type?: 'individual' | 'corporate' | null;
  salesPersonId?: number | null;
  riskManagerId?: number | null;
}

const FIELDS = {
  id: 'id',
  clientNo: 'client_no',
  type: 'type::text',
  name: 'name',
  idNo: 'id_no',
  kraPin: 'kra_pin',
  phone: 'phone',
  email: 'email',
  dateOfBirth: 'date_of_birth',
  physicalAddress: 'physical_address',
  branchId: 'branch_id',
  riskManagerId: 'risk_manager_id',
  salesPersonId: 'sales_person_id',
  businessSourceId: 'business_source_id',
  prospectTypeId: 'prospect_type_id',
  sector: 'sector',
  altName: 'alt_name',
  altPhone: 'alt_phone',
  altEmail: 'alt_email',
  kycStatus: 'kyc_status',
  onboardedVia: 'onboarded_via',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
} as const;

export const clientColumns = readModel('Client', 'c', FIELDS);

/**
 * A client as the read model returns it: the model's fields, valued as Prisma values them. Typed as the whole model,
 * as the Prisma query it stands in for is (a query spread from the plugin's selection is typed as the whole model, and
 * has only the selected fields): the Pothos plugin reads no field it did not select.
 */
export type ClientRow = Client;

/** The client numbered `clientNo` if the caller may see it (clientVisibility), else undefined. */
export async function clientRecord(tx: Tx, p: Principal, clientNo: string): Promise<ClientRow | undefined> {
  const rows = await tx.$queryRaw<unknown[]>`SELECT ${clientColumns.columns} FROM clients c
    WHERE c.client_no = ${clientNo} AND ${clientVisibilitySql(p)}`;
  return clientColumns.rows<ClientRow>(rows)[0];
}

/**
 * The page a Prisma findMany of the list would return (clientListWhere, newest first), when the read model can say
 * the same: the query selects only the model's fields and pages forward (`take` ≥ 0, `skip`, after an id: keyset), and
 * every filter set is one of the equalities it takes (appliesEvery: a `search`, whose matching rules stay with Prisma,
 * is not). Null when it cannot.
 */
export function clientPage(
  tx: Tx,
  p: Principal,
  f: ClientListFilters,
  query: Prisma.ClientFindManyArgs,
  id: { lt: number } | { gt: number } | null,
): Promise<ClientRow[]> | null {
  const page = forwardPage(query, id);
  if (!page || !clientColumns.answers(query) || !appliesEvery(f, ['type', 'salesPersonId', 'riskManagerId']))
    return null;
  const and: Prisma.Sql[] = [clientVisibilitySql(p)];
  if (f.type) and.push(Prisma.sql`c.type::text = ${f.type}`);
  if (f.salesPersonId != null) and.push(Prisma.sql`c.sales_person_id = ${f.salesPersonId}`);
  if (f.riskManagerId != null) and.push(Prisma.sql`c.risk_manager_id = ${f.riskManagerId}`);
  const { where, tail } = newestFirst('c', page, and);
  return tx.$queryRaw<unknown[]>`SELECT ${clientColumns.columns} FROM clients c WHERE ${where} ${tail}`.then((rows) =>
    clientColumns.rows<ClientRow>(rows),
  );
}
