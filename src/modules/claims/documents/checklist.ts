import type { Tx } from '../../../db/client.ts';

/** A checklist line's status: pending until received (an upload, or marked by hand) or waived with a reason. */
export const LINE_STATUSES = ['pending', 'received', 'waived'] as const;
export type LineStatus = (typeof LINE_STATUSES)[number];

/**
 * Kinds any claim takes besides its cause's checklist: extra evidence, never required, its line made on first upload.
 * A cause's own kinds come from its data (ClaimCause.documents), never from code.
 */
export const EXTRA_KINDS = ['other', 'photo'] as const;

/** Extras sort after the checklist, in the order they first arrived. */
export const EXTRA_SORT_BASE = 1000;

/** A line counts as done when it is no longer pending (received or waived); only required lines hold a claim back. */
export function isOutstanding(line: { required: boolean; status: string }): boolean {
  return line.required && line.status === 'pending';
}

/** The checklist's state from its lines (the one rule, shared by checklistState and the GraphQL Claim fields). */
export function stateOf(lines: readonly { kind: string; required: boolean; status: string }[]) {
  const missing = lines.filter(isOutstanding).map((l) => l.kind);
  return { complete: missing.length === 0, missing };
}

/**
 * Opens a claim's checklist at registration: one required, pending line per kind, in the cause's order (a kind named
 * twice makes one line). Runs in the registration's transaction.
 */
export async function openChecklist(
  tx: Tx,
  { tenantId, claimId, kinds }: { tenantId: number; claimId: number; kinds: readonly string[] },
): Promise<void> {
  const unique = [...new Set(kinds)];
  if (!unique.length) return;
  await tx.claimDocument.createMany({
    data: unique.map((kind, i) => ({ tenantId, claimId, kind, required: true, status: 'pending', sortOrder: i })),
    skipDuplicates: true,
  });
}

/**
 * Whether every required line is received or waived, and which are still pending (in checklist order). The caller
 * holds the claim's lock (FOR UPDATE) when it acts on the answer: uploads and marks take the claim FOR SHARE, so none
 * changes a line between this read and the caller's move.
 */
export async function checklistState(tx: Tx, claimId: number): Promise<{ complete: boolean; missing: string[] }> {
  const lines = await tx.claimDocument.findMany({
    where: { claimId, required: true },
    select: { kind: true, required: true, status: true },
    orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }],
  });
  return stateOf(lines);
}
