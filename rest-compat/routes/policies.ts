import { policyToRest } from '../mappers/policy.ts';
import { intParam, route, type RestInput, type RestRoute } from '../route.ts';
import { arr, bool, dataOf, int, nullable, obj, ref, str } from '../schemas.ts';
import { pageArgs } from './clients.ts';

function listResponse(data: any, input: RestInput) {
  const conn = data.policies;
  const items = conn.edges.map((e: any) => policyToRest(e.node));
  const { first } = pageArgs(input.query);
  let next: string | null = null;
  if (conn.pageInfo.hasNextPage && conn.pageInfo.endCursor) {
    const u = new URL(input.url);
    for (const k of ['page', 'per_page']) u.searchParams.delete(k);
    u.searchParams.set('limit', String(first));
    u.searchParams.set('cursor', conn.pageInfo.endCursor);
    next = `${u.pathname}${u.search}`;
  }
  return { status: 200, body: { data: items, meta: { limit: first, has_more: conn.pageInfo.hasNextPage, count: items.length }, links: { next } } };
}

const q = (name: string, schema: ReturnType<typeof str>, description?: string) => ({ name, in: 'query' as const, schema, ...(description ? { description } : {}) });

const filterParams = [
  q('status', { type: 'string', enum: ['pending_payment', 'active', 'cancelled', 'expired', 'lapsed', 'renewed', 'not_taken_up'] }),
  q('client_no', str()),
  q('product_line', str(), 'e.g. motor'),
  q('insurer_id', int()),
  q('sales_person_id', int()),
  q('start_from', { type: 'string', format: 'date' }, 'Start date on or after (Y-m-d)'),
  q('start_to', { type: 'string', format: 'date' }, 'Start date on or before (Y-m-d)'),
  q('search', str(), 'Policy number or vehicle registration (any spacing)'),
  q('limit', { type: 'integer', minimum: 1, maximum: 100, default: 25 }),
  q('cursor', str(), 'From links.next'),
  q('page', { type: 'integer', minimum: 1 }, 'Alternative to cursor'),
  q('per_page', { type: 'integer', minimum: 1, maximum: 100 }, 'Alias of limit'),
];

const common = { tag: 'Policies', serviceOnly: true };

export const policyRoutes: RestRoute[] = [
  route({
    ...common,
    operationId: 'listPolicies',
    method: 'GET',
    path: '/policies',
    summary: 'Policies the caller may see, newest first (cursor pagination)',
    scopes: ['read'],
    idempotent: false,
    operation: 'Policies',
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
    toResponse: listResponse,
    response: {
      status: 200,
      description: 'A page of policies',
      schema: obj({
        data: arr(ref('PolicyRecord')),
        meta: obj({ limit: int(), has_more: bool(), count: int('Items in this page') }),
        links: obj({ next: nullable(str('Path of the next page; null at the end')) }),
      }),
    },
    errors: ['validation_failed'],
  }),
  route({
    ...common,
    operationId: 'getPolicy',
    method: 'GET',
    path: '/policies/{uuid}',
    summary: 'Read a policy: cover, vehicles, premium with levies, debit notes, receipts',
    scopes: ['read'],
    idempotent: false,
    operation: 'Policy',
    toVariables: ({ params }) => ({ uuid: params.uuid }),
    toResponse: (d) => ({ status: 200, body: { data: policyToRest(d.policy) } }),
    response: { status: 200, description: 'The policy', schema: dataOf(ref('PolicyRecord')) },
    errors: ['not_found'],
  }),
];
