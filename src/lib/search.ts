/**
 * Search text is literal (docs/api-conventions.md "Search"): what a caller types is looked for as typed, never as a
 * pattern. Prisma renders `contains`, and `equals` with `mode: 'insensitive'`, as PostgreSQL ILIKE without escaping,
 * so a searched `%` would match every row, `_` any character, and a trailing `\` fail the statement. Every search of
 * the modules builds its conditions here.
 */

/** The term with ILIKE's wildcards and its escape character escaped (ILIKE's default escape is `\`). */
export function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Text containing the term, case-insensitively: a name searched in part. */
export const containsText = (term: string) => ({ contains: escapeLike(term), mode: 'insensitive' as const });

/** Text equal to the term, case-insensitively: a reference number (client, policy, claim, prospect) typed whole. */
export const sameText = (term: string) => ({ equals: escapeLike(term), mode: 'insensitive' as const });
