import type { Tx } from '../../../db/client.ts';
import { ValidationError } from '../../../lib/problem.ts';

/** The people and lists a client points at exist in the organisation (and the people may hold that role), or 422. */
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
    if (!u || u.disabled || !['account_exec', 'admin'].includes(u.role))
      errors.push({ field: 'input.riskManagerId', message: 'no such risk manager' });
  }
  if (d.salesPersonId != null) {
    const u = await tx.user.findUnique({ where: { id: d.salesPersonId } });
    if (!u || u.disabled || !['agent', 'account_exec'].includes(u.role))
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
