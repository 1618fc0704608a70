import type { Prisma, Tx } from '../../../db/client.ts';
import { planSelection } from '../../../db/selection-sql.ts';
import { fromDbDate } from '../../../lib/dates.ts';
import type { PageReferences } from '../../reference/references.ts';
import { keysetOrder, keysetSql, keysetWhere, type ErpWindow, type Keyset } from '../erp-window.ts';

/** One page of an export, as Prisma findMany arguments and as the SQL after a plan's `FROM table e`. */
export interface ErpPageQuery {
  args: { where: object; orderBy: object; take: number };
  /**
   * WHERE, ORDER BY and LIMIT over the rows aliased `e` (keysetSql), and the shape of its text; without it the page is
   * read by Prisma (test/erp-exports.test.ts compares the two).
   */
  sql?: { shape: string; sql: Prisma.Sql };
}

/**
 * One ERP export: the column it syncs on (`updatedAt`, or `createdAt` for records that never change) and how a batch
 * of its flat records is read in keyset order. Reads run in the caller's tenant transaction (row-level security).
 */
export interface ErpSource<Rec> {
  /** The Prisma model it reads, and the columns and relations a record is made from (nothing else is read). */
  model: string;
  select: object;
  column: 'updatedAt' | 'createdAt';
  /** A page's rows; what they point at of the reference data comes from `refs` (the process's copies), not joins. */
  read: (tx: Tx, page: ErpPageQuery, refs: PageReferences) => Promise<Rec[]>;
  key: (rec: Rec) => Keyset;
}

/** The alias of an export's table in its page's statement. */
const ALIAS = 'e';

/** The rows of one page: one more than asked for, which tells whether there are more. */
export function readPage<Rec>(
  tx: Tx,
  source: ErpSource<Rec>,
  w: ErpWindow,
  tenantId: number,
  refs: PageReferences,
): Promise<Rec[]> {
  const take = w.perPage + 1;
  return source.read(
    tx,
    {
      args: { where: keysetWhere(source.column, w, tenantId), orderBy: keysetOrder(source.column), take },
      sql: keysetSql(ALIAS, source.column, w, tenantId, take),
    },
    refs,
  );
}

/**
 * A page's rows of the source's `model` with its `select`, read by the selection's plan (src/db/selection-sql.ts: one kept statement,
 * its rows valued as Prisma values them) in the caller's transaction; by `prisma` (the same findMany) when the plan
 * cannot say the selection. Prisma builds a findMany's statement afresh and maps its rows field by field: most of an
 * export page's node time (docs/performance.md).
 */
export function selectedRows<T>(
  tx: Tx,
  source: Pick<ErpSource<unknown>, 'model' | 'select'>,
  page: ErpPageQuery,
  prisma: () => Promise<T[]>,
): Promise<T[]> {
  const plan = page.sql ? planSelection(tx, source.model, ALIAS, source.select) : null;
  return plan && page.sql ? plan.query<T>(tx, page.sql.shape, page.sql.sql) : prisma();
}

/** A date column as Y-m-d. */
export const ymd = (d: Date | null): string | null => (d ? fromDbDate(d) : null);
