import type { Context } from '../../context.ts';
import { due, dueWhere } from './renewal/due.ts';
import { quote } from './renewal/quote.ts';
import { renew } from './renewal/renew.ts';

/**
 * Renewal (docs/policy-lifecycle.md "Renewal"), one operation per file under ./renewal/: `quote` prices the next annual period on the
 * insurer's CURRENT rates, with the expiring period's figures beside it; `renew` binds that quote into a new policy
 * linked to the old one. The old policy becomes `renewed` only when the renewal's first instalment is paid
 * (payment-hooks.ts).
 */
export const renewalService = {
  quote,
  renew,
  dueWhere,
  due,
  /** A renewal quote just stored, as the GraphQL payload reads it. */
  quoteById: (ctx: Context, id: number) => ctx.tx((tx) => tx.renewalQuote.findUniqueOrThrow({ where: { id } })),
};

export {
  figuresOf,
  RENEWAL_RULES,
  type RenewalFigures,
  RenewalQuoteExpiredError,
  RenewalQuoteStaleError,
  RenewalStateError,
  type RenewalVehicleInput,
  type RenewPolicyInput,
} from './renewal/shared.ts';
