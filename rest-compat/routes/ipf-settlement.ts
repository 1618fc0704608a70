import { SettleIpfLoanEarlyDocument } from '../generated/operations.ts';
import { earlySettlementToRest } from '../mappers/ipf-settlement.ts';
import { type AnyRoute, bodyOf, route } from '../route.ts';
import { dataOf, ref } from '../schemas/builders.ts';
import { EarlySettlementInput } from '../schemas/ipf-settlement.ts';

/** Premium finance under /ipf (docs/premium-finance.md "Premium finance"). */
export const ipfSettlementRoutes: AnyRoute[] = [
  route({
    tag: 'Premium finance',
    operationId: 'earlySettlement',
    method: 'POST',
    path: '/ipf/loans/{uuid}/early-settlement',
    summary: 'Quote, or confirm and collect, the early settlement of an active premium-finance loan',
    description:
      'Two-phase, like a cancellation. Without `confirm` (or false): the figure as of today (Nairobi), nothing changed (200): outstanding ' +
      '(total repayable − paid), the rebate of unearned charges (⌊charge × instalments not yet due ÷ months⌋, at most what is owed), the ' +
      'payoff (outstanding − rebate), the instalments the rebate is waived on (latest first) and valid_until (today + 7 days). With ' +
      '`confirm: true`: the figure is held on the loan until valid_until and the payoff is collected by an STK push (purpose ipf_repayment, ' +
      "account the loan number) to `phone` or the client's phone, for the payoff rounded up to a whole shilling (the cents over go to the " +
      "client's credit), at most 250,000 (the rest by further ipf_repayment pushes); answers 202 with `payment` (follow it with GET " +
      '/payment/stk/{checkout_request_id}). Repayments that reach the held payoff by valid_until settle the loan (ipf.settled, early: true) ' +
      'with the rebate waived. The Idempotency-Key makes the confirmation exactly-once: a retry answers the first answer byte for byte (the ' +
      'loan as it was then, the figure held then and the same push; Idempotent-Replayed), never a second prompt. A loan that is not active: 409 invalid_state; outside your reach: 404; a SACCO or ' +
      'microfinance organisation: 403 ipf_not_offered.',
    scopes: ['bind'],
    idempotent: 'operation',
    operation: SettleIpfLoanEarlyDocument,
    requestBody: EarlySettlementInput,
    parseBody: true,
    toVariables: (input) => {
      const { params, idempotencyKey } = input;
      const b = bodyOf(input, EarlySettlementInput);
      return { input: { uuid: params.uuid, confirm: b.confirm, phone: b.phone, idempotencyKey } };
    },
    toResponse: ({ settleIpfLoanEarly: s }) => ({
      status: s.payment ? 202 : 200,
      replayed: s.replayed,
      body: { data: earlySettlementToRest(s) },
    }),
    response: {
      status: 200,
      description: 'The quote: the figure as of today, nothing changed',
      schema: dataOf(ref('EarlySettlement')),
      alsoStatuses: [
        { status: 202, description: 'Confirmed: the figure held until valid_until, with the push collecting it' },
      ],
    },
    errors: [
      'not_found',
      'validation_failed',
      'invalid_state',
      'domain_rule',
      'actor_forbidden',
      'ipf_not_offered',
      'idempotency_key_reused',
      'service_unavailable',
    ],
  }),
];
