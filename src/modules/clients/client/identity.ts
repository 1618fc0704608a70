import type { Principal } from '../../../auth/principal.ts';
import type { Tx } from '../../../db/client.ts';
import { identityConditions, matchedIdentifiers, type PersonIdentifiers } from '../../../lib/identifiers.ts';
import type { DuplicateMatch } from '../../../lib/problem.ts';
import { ownsClient } from '../../access/client.visibility.ts';

/** A person's identifiers (phone, ID number, tax PIN): one client each per organisation, unless forced. */

/**
 * Serialises work on the same identifiers (phone, ID number, PIN) within a tenant: concurrent creations of one
 * person queue here, so the second sees the first and matches it instead of duplicating it.
 */
export async function lockIdentifiers(tx: Tx, tenantId: number, ids: (string | null | undefined)[]): Promise<void> {
  const keys = [...new Set(ids.filter((v): v is string => !!v))].sort().map((k) => `client-identity:${k}`);
  if (!keys.length) return;
  // One statement, the locks taken in the keys' sorted order (a function scan yields the array in order), so two
  // transactions locking overlapping identifiers cannot deadlock.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${tenantId}::int, hashtext(k)) FROM unnest(${keys}::text[]) AS k`;
}

export interface MatchCandidate {
  id: number;
  clientNo: string;
  name: string;
  phone: string;
  idNo: string | null;
  kraPin: string | null;
  createdByUserId: number | null;
  salesPersonId: number | null;
}

/** Existing clients of the tenant sharing a phone, ID number or tax PIN (whoever may see them). */
export async function findIdentityMatches(
  tx: Tx,
  ids: PersonIdentifiers,
  excludeId?: number,
): Promise<(MatchCandidate & { matched: string[] })[]> {
  const or = identityConditions(ids);
  if (!or.length) return [];
  const rows = await tx.client.findMany({
    where: { OR: or, ...(excludeId ? { id: { not: excludeId } } : {}) },
    orderBy: { id: 'asc' },
    take: 20,
  });
  return rows.map((r) => ({ ...r, matched: matchedIdentifiers(ids, r) }));
}

/**
 * What a 409 may reveal: the number and name only of clients the caller owns; any other match is a redacted marker
 * (`redacted: true`, number and name null) that says only which identifier collided, so a caller can tell a typo
 * from a real duplicate without learning who else is on the books.
 */
export function describeMatches(p: Principal, matches: (MatchCandidate & { matched: string[] })[]): DuplicateMatch[] {
  return matches.map((m) => {
    const visible = ownsClient(p, m);
    return {
      clientNo: visible ? m.clientNo : null,
      name: visible ? m.name : null,
      matched: m.matched,
      redacted: !visible,
    };
  });
}
