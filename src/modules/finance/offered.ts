import type { Principal } from '../../auth/principal.ts';
import { AppError } from '../../lib/problem.ts';
import { NOT_OFFERED_TYPES } from '../motor/rating.ts';

/**
 * Premium finance is offered to brokerage and agency organisations only (spec, Authentication item 8): every finance
 * action, read or write, REST or GraphQL, and every ipf_repayment starts here, so a SACCO or microfinance token gets
 * 403 `ipf_not_offered` on all of them.
 */
export function requireFinanceOffered(p: Principal): void {
  if (NOT_OFFERED_TYPES.includes(p.tenant.type)) {
    throw new AppError('ipf_not_offered', {
      detail: 'Premium finance is offered to brokerage and agency organisations only',
    });
  }
}
