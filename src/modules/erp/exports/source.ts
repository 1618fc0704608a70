import type { Tx } from '../../../db/client.ts';
import type { PageReferences } from '../../reference/references.ts';
import { keysetOrder, keysetWhere, type ErpWindow, type Keyset } from '../erp-window.ts';

/**
 * One ERP export: the column it syncs on (`updatedAt`, or `createdAt` for records that never change) and how a batch
 * of its flat records is read in keyset order. Reads run in the caller's tenant transaction (row-level security).
 */
export interface ErpSource<Rec> {
  column: 'updatedAt' | 'createdAt';
  /** A page's rows; what they point at of the reference data comes from `refs` (the process's copies), not joins. */
  read: (tx: Tx, args: { where: object; orderBy: object; take: number }, refs: PageReferences) => Promise<Rec[]>;
  key: (rec: Rec) => Keyset;
}

/** The rows of one page: one more than asked for, which tells whether there are more. */
export function readPage<Rec>(
  tx: Tx,
  source: ErpSource<Rec>,
  w: ErpWindow,
  tenantId: number,
  refs: PageReferences,
): Promise<Rec[]> {
  return source.read(
    tx,
    {
      where: keysetWhere(source.column, w, tenantId),
      orderBy: keysetOrder(source.column),
      take: w.perPage + 1,
    },
    refs,
  );
}

/** A date column as Y-m-d. */
export const ymd = (d: Date | null): string | null => (d ? d.toISOString().slice(0, 10) : null);
