import type { Tx } from '../../db/client.ts';
import { nextNumber } from '../../db/counters.ts';
import { todayNairobi } from '../../lib/dates.ts';
import { DomainRuleError } from '../../lib/problem.ts';

/**
 * IPFA-YYYY-NNNNNN (applications) and IPF-YYYY-NNNNNN (loans, the account an ipf_repayment names): gap-free counters
 * per organisation and (Nairobi) year, taken in the creating transaction so a refused write takes no number.
 */
export async function numberIpf(tx: Tx, tenantId: number, kind: 'application' | 'loan', now: Date): Promise<string> {
  const year = todayNairobi(now).slice(0, 4);
  const prefix = kind === 'application' ? 'IPFA' : 'IPF';
  const n = await nextNumber(tx, tenantId, `ipf_${kind}_no:${year}`);
  if (n > 999_999n) throw new DomainRuleError(`Premium-finance ${kind} numbers for ${year} are exhausted`);
  return `${prefix}-${year}-${String(n).padStart(6, '0')}`;
}
