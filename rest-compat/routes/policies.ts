import { PoliciesDocument, PolicyDocument } from '../generated/operations.ts';
import { policyDetailToRest } from '../mappers/policy.ts';
import { connectionPage, pageArgs, pageParams, pageSchema } from '../pagination.ts';
import { type AnyRoute, intParam, route } from '../route.ts';
import { dataOf, dateInput, int, queryParam, ref, str, oneOf } from '../schemas/builders.ts';

const q = queryParam;

const filterParams = [
  q('status', oneOf(['pending_payment', 'active', 'cancelled', 'expired', 'lapsed', 'renewed', 'not_taken_up'])),
  q('client_no', str()),
  q('product_line', oneOf(['motor', 'medical', 'travel', 'standard'])),
  q('insurer_id', int()),
  q('sales_person_id', int()),
  q('start_from', dateInput(), 'Start date on or after (Y-m-d)'),
  q('start_to', dateInput(), 'Start date on or before (Y-m-d)'),
  q('search', str(), 'Policy number in part or vehicle registration (any spacing); literal, % and _ are themselves'),
  ...pageParams(),
];

const common = { tag: 'Policies', serviceOnly: true };

export const policyRoutes: AnyRoute[] = [
  route({
    ...common,
    operationId: 'listPolicies',
    method: 'GET',
    path: '/policies',
    summary: 'Policies the caller may see, newest first (cursor pagination)',
    scopes: ['read'],
    idempotent: false,
    operation: PoliciesDocument,
    queryParams: filterParams,
    toVariables: ({ query }) => ({
      ...pageArgs(query),
      status: query.get('status') || undefined,
      clientNo: query.get('client_no') || undefined,
      productLine: query.get('product_line') || undefined,
      insurerId: intParam(query.get('insurer_id')),
      salesPersonId: intParam(query.get('sales_person_id')),
      startFrom: query.get('start_from') || undefined,
      startTo: query.get('start_to') || undefined,
      search: query.get('search') || undefined,
    }),
    toResponse: (d, input) => connectionPage(d.policies, input, policyDetailToRest),
    response: {
      status: 200,
      description: 'A page of policies, each the full record with its claims (as GET /policies/{uuid})',
      schema: pageSchema(ref('PolicyDetail')),
    },
    errors: ['validation_failed'],
  }),
  route({
    ...common,
    operationId: 'getPolicy',
    method: 'GET',
    path: '/policies/{uuid}',
    summary: 'Read a policy: the full record',
    description:
      'Client, insurer, cover and period, vehicles, premium with its levy lines (always Σ debit notes − Σ credit notes), debit notes (paid, ' +
      'credited, outstanding), credit notes, receipts with allocations, confirmed endorsements and cancellations, certificates, status history ' +
      'and renewal links; and the claims registered against it, newest first. GET /policies returns the same record per item.',
    scopes: ['read'],
    idempotent: false,
    operation: PolicyDocument,
    toVariables: ({ params }) => ({ uuid: params.uuid }),
    toResponse: (d) => ({
      status: 200,
      body: { data: policyDetailToRest(d.policy) },
    }),
    response: { status: 200, description: 'The policy with its claims', schema: dataOf(ref('PolicyDetail')) },
    errors: ['not_found'],
  }),
];
