import type { Context } from '../../context.ts';
import type { Prisma } from '../../db/client.ts';
import { confirm } from './cancellation/confirm.ts';
import { discard } from './cancellation/discard.ts';
import { list } from './cancellation/list.ts';
import { preview } from './cancellation/preview.ts';
import { reinstate } from './cancellation/reinstate.ts';
import { CANCELLATION_REASONS } from './cancellation/shared.ts';
import { cancelAsService } from './cancellation/system.ts';

/**
 * Cancellation of an active policy, two-phase (docs/policy-lifecycle.md "Cancellation and reinstatement"), one operation per file
 * under ./cancellation/:
 *
 *   preview  → a `quoted` cancellation with the itemised refund, valid POLICY_RULES.previewValidHours
 *   confirm  → items ended at c − 1, credit note raised (applied to open debit notes, the rest to client credit, or
 *              to the lender when policy.refunds_to says so), policy totals reduced, active → cancelled, registry certificates cancelled, `policy.cancelled`
 *   discard  → a quoted preview dropped
 *   reinstate → the latest confirmed cancellation reversed within POLICY_RULES.reinstatementDays
 *   cancelAsService → preview and confirm at once in the caller's transaction, with no user (premium-finance default)
 *
 * The money is in ./cancellation/refund.ts (proration.ts terms; flat levies are never refunded).
 */
export const cancellationService = {
  reasons: CANCELLATION_REASONS,
  preview,
  confirm,
  discard,
  reinstate,
  list,
  cancelAsService,
  /** The row an operation returned, again with the caller's selection (relations such as the credit note). */
  byId: (ctx: Context, id: number, query: Omit<Prisma.CancellationFindUniqueArgs, 'where'> = {}) =>
    ctx.tx((tx) => tx.cancellation.findUniqueOrThrow({ ...query, where: { id } })),
};

export {
  CANCELLATION_REASONS,
  CANCELLATION_REQUESTERS,
  type CancellationInput,
  type CancellationReason,
  displayStatus,
} from './cancellation/shared.ts';
export { cancellationCredit, cancellationTerms, type RefundJson } from './cancellation/refund.ts';
