/**
 * The users an exported record is attributed to (its `agents[]`): who created it, the sales person, the risk manager
 * or the claim's assignee, as they apply. `role` is the part the user plays for the record; `userRole` their role in
 * the organisation; `code` the agent code of an agent.
 */
export interface ErpAgent {
  id: number;
  name: string;
  role: 'created_by' | 'sales_person' | 'risk_manager' | 'assignee';
  userRole: string;
  code: string | null;
}

interface UserRow {
  id: number;
  name: string;
  role: string;
  agentCode: string | null;
}

/** The record's agents in the order given, skipping parts nobody plays. */
export function agentsOf(parts: [ErpAgent['role'], UserRow | null | undefined][]): ErpAgent[] {
  return parts
    .filter((p): p is [ErpAgent['role'], UserRow] => !!p[1])
    .map(([role, u]) => ({ id: u.id, name: u.name, role, userRole: u.role, code: u.agentCode }));
}

/** The user a record's column names, from the page's users (references.ts `pageReferences`); null for none. */
export const personOf = (people: ReadonlyMap<number, UserRow>, id: number | null | undefined): UserRow | null =>
  id == null ? null : (people.get(id) ?? null);

/** The name of the reference row a record's column names (a branch, a business source); null for none. */
export const nameOf = (rows: ReadonlyMap<number, { name: string }>, id: number | null | undefined): string | null =>
  id == null ? null : (rows.get(id)?.name ?? null);
