import type { Tx } from '../../../db/client.ts';
import { ValidationError } from '../../../lib/problem.ts';

/** Who may stand in a client's two people references: the one rule for a client's create, update and a prospect's conversion. */
export const CLIENT_ROLES = { salesPersonId: 'agent', riskManagerId: 'account_exec' } as const;

/** The client reference a user may stand in (an active agent: sales person; an active account executive: risk manager). */
export function clientRoleOf(u: { role: string; disabled: boolean } | null): keyof typeof CLIENT_ROLES | null {
  if (!u || u.disabled) return null;
  if (u.role === CLIENT_ROLES.salesPersonId) return 'salesPersonId';
  if (u.role === CLIENT_ROLES.riskManagerId) return 'riskManagerId';
  return null;
}

/**
 * The people and lists a client points at exist in the organisation, or 422. A risk manager is an active account
 * executive and a sales person an active agent: exactly the people GET /risk-managers and GET /sales-people list (the
 * spec: "a risk manager's id is used as risk_manager_id and a sales person's id as sales_person_id"). An admin as risk
 * manager and an account executive as sales person were accepted until 2026-12-01 (outside-check finding).
 */
export async function assertRefs(
  tx: Tx,
  d: {
    branchId?: number | null;
    riskManagerId?: number | null;
    salesPersonId?: number | null;
    businessSourceId?: number | null;
    prospectTypeId?: number | null;
  },
) {
  const errors: { field: string; message: string }[] = [];
  if (d.branchId != null && !(await tx.branch.findUnique({ where: { id: d.branchId } })))
    errors.push({ field: 'input.branchId', message: 'no such branch' });
  if (d.riskManagerId != null) {
    const u = await tx.user.findUnique({ where: { id: d.riskManagerId } });
    if (clientRoleOf(u) !== 'riskManagerId')
      errors.push({ field: 'input.riskManagerId', message: 'no such risk manager' });
  }
  if (d.salesPersonId != null) {
    const u = await tx.user.findUnique({ where: { id: d.salesPersonId } });
    if (clientRoleOf(u) !== 'salesPersonId')
      errors.push({ field: 'input.salesPersonId', message: 'no such sales person' });
  }
  if (d.businessSourceId != null && !(await tx.businessSource.findUnique({ where: { id: d.businessSourceId } }))) {
    errors.push({ field: 'input.businessSourceId', message: 'no such business source' });
  }
  if (d.prospectTypeId != null && !(await tx.prospectType.findUnique({ where: { id: d.prospectTypeId } }))) {
    errors.push({ field: 'input.prospectTypeId', message: 'no such prospect type' });
  }
  if (errors.length) throw new ValidationError(errors);
}
