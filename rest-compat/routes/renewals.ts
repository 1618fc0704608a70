import { RenewalQuoteDocument, RenewalsDueDocument, RenewPolicyDocument } from '../generated/operations.ts';
import { serverFiguresToRest } from '../mappers/priced.ts';
import { policyToRest } from '../mappers/policy.ts';
import { renewalQuoteFromRest, renewalQuoteToRest, renewFromRest } from '../mappers/renewal.ts';
import { connectionPage, pageArgs, pageParams, pageSchema } from '../pagination.ts';
import { type AnyRoute, bodyOf, sizeParam, route } from '../route.ts';
import { RenewalQuoteRequest, RenewRequest } from '../schemas/renewal.ts';
import { dataOf, ref } from '../schemas/builders.ts';

const common = { tag: 'Policies', serviceOnly: true };

/** Before the policy routes in the table, so /policies/renewals-due is not read as /policies/{uuid}. */
export const renewalRoutes: AnyRoute[] = [
  route({
    ...common,
    operationId: 'listRenewalsDue',
    method: 'GET',
    path: '/policies/renewals-due',
    summary:
      'Active policies ending within within_days (default 30, max 120) with no renewal bound, ending soonest first',
    scopes: ['read'],
    idempotent: false,
    operation: RenewalsDueDocument,
    queryParams: [
      { name: 'within_days', in: 'query', schema: { type: 'integer', minimum: 0, maximum: 120, default: 30 } },
      ...pageParams({ pages: false }),
    ],
    toVariables: ({ query }) => ({
      ...pageArgs(query, { pages: false }),
      withinDays: sizeParam(query.get('within_days')),
    }),
    toResponse: (d, input) => connectionPage(d.renewalsDue, input, policyToRest, { pages: false }),
    response: {
      status: 200,
      description: 'A page of policies due for renewal',
      schema: pageSchema(ref('PolicyRecord')),
    },
    errors: ['validation_failed'],
  }),
  route({
    ...common,
    operationId: 'quoteRenewal',
    method: 'POST',
    path: '/policies/{uuid}/renewal-quote',
    summary: 'Price the next annual period on current rates, beside the expiring period (valid 3 days)',
    description:
      'The policy must be active, or expired within the reinstatement window (30 days), and not renewed yet (409 invalid_state). ' +
      "Every vehicle on cover is priced with the same insurer, class, cover and coverage on the insurer's current rates; percent levies " +
      'are taken per vehicle, flat levies once.',
    scopes: ['bind'],
    idempotent: true,
    operation: RenewalQuoteDocument,
    requestBody: RenewalQuoteRequest,
    parseBody: true,
    toVariables: (input) => renewalQuoteFromRest(input.params.uuid, bodyOf(input, RenewalQuoteRequest)),
    toResponse: (d) => ({ status: 201, body: { data: renewalQuoteToRest(d.renewalQuote) } }),
    response: { status: 201, description: 'The renewal quote', schema: dataOf(ref('RenewalQuote')) },
    errors: ['not_found', 'validation_failed', 'invalid_state', 'domain_rule', 'no_quote', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'renewPolicy',
    method: 'POST',
    path: '/policies/{uuid}/renew',
    summary: 'Bind a renewal quote into a new policy pending payment, linked to the old one',
    description:
      "The old policy stays as it is until the renewal's first instalment is paid; it then becomes `renewed` (event policy.renewed). " +
      'Counts against the bind limit.',
    scopes: ['bind'],
    idempotent: true,
    operation: RenewPolicyDocument,
    requestBody: RenewRequest,
    parseBody: true,
    toVariables: (input) => renewFromRest(input.params.uuid, bodyOf(input, RenewRequest)),
    toResponse: (d) => ({ status: 201, body: { data: policyToRest(d.renewPolicy.policy) } }),
    mapProblemExtra: serverFiguresToRest,
    response: { status: 201, description: 'The new policy', schema: dataOf(ref('PolicyRecord')) },
    errors: [
      'not_found',
      'validation_failed',
      'invalid_state',
      'preview_expired',
      'preview_stale',
      'premium_mismatch',
      'price_changed',
      'domain_rule',
      'actor_forbidden',
      'rate_limited',
    ],
  }),
];
