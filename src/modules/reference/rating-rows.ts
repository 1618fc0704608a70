import { createHash } from 'node:crypto';
import type { Tx } from '../../db/client.ts';
import type { Levy } from '../../generated/prisma/client.ts';

/** One line of the tenant's levy table as every product line's rating reads it (percent of basic premium, or flat). */
export interface RatingLevy {
  code: string;
  name: string;
  basis: 'percent' | 'flat';
  rateBps: number | null;
  amountMinor: bigint | null;
}

/** The tenant's levy table in its rating form, in display order: what every premium and mid-term change is levied by. */
export async function levyTable(tx: Tx): Promise<RatingLevy[]> {
  const rows = await tx.levy.findMany({ orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }] });
  return rows.map(ratingLevy);
}

/** A levy row in its rating form. */
export function ratingLevy(l: Levy): RatingLevy {
  return { code: l.code, name: l.name, basis: l.basis, rateBps: l.rateBps, amountMinor: l.amountMinor };
}

/** Stable across re-seeding and tenants: derived from the benefit's name alone. */
export function motorBenefitId(name: string): string {
  return `mb_${createHash('sha256').update(name.trim().toLowerCase()).digest('hex').slice(0, 16)}`;
}
