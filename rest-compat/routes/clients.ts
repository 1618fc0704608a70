import { ValidationError } from '../../src/lib/problem.ts';
import { clientFromRest, clientToRest } from '../mappers/client.ts';
import { asObject, intParam, route, type RestInput, type RestRoute } from '../route.ts';
import { arr, bool, dataOf, int, nullable, obj, ref, str } from '../schemas.ts';


/** `limit`/`cursor`, or `page`/`per_page`: the spec's pagination, as GraphQL connection arguments. */
export function pageArgs(q: URLSearchParams): { first: number; after?: string; offset?: number } {
  const errors: { field: string; message: string }[] = [];
  const size = (name: string) => {
    const v = intParam(q.get(name));
    if (v === undefined) return undefined;
    if (!Number.isInteger(v) || v < 1 || v > 100) errors.push({ field: name, message: 'an integer from 1 to 100' });
    return v;
  };
  const limit = size('limit') ?? size('per_page') ?? 25;
  const page = intParam(q.get('page'));
  if (page !== undefined && (!Number.isInteger(page) || page < 1)) errors.push({ field: 'page', message: 'a positive integer' });
  if (errors.length) throw new ValidationError(errors);
  const cursor = q.get('cursor');
  if (cursor) return { first: limit, after: cursor };
  return { first: limit, ...(page && page > 1 ? { offset: (page - 1) * limit } : {}) };
}

function listResponse(data: any, input: RestInput) {
  const conn = data.clients;
  const items = conn.edges.map((e: any) => clientToRest(e.node));
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

const filterParams = [
  { name: 'search', in: 'query' as const, schema: str(), description: 'Name, client number, phone, ID number or tax PIN' },
  { name: 'type', in: 'query' as const, schema: { type: 'string' as const, enum: ['individual', 'corporate'] } },
  { name: 'sales_person_id', in: 'query' as const, schema: int() },
  { name: 'risk_manager_id', in: 'query' as const, schema: int() },
  { name: 'limit', in: 'query' as const, schema: { type: 'integer' as const, minimum: 1, maximum: 100, default: 25 } },
  { name: 'cursor', in: 'query' as const, schema: str(), description: 'From links.next' },
  { name: 'page', in: 'query' as const, schema: { type: 'integer' as const, minimum: 1 }, description: 'Alternative to cursor' },
  { name: 'per_page', in: 'query' as const, schema: { type: 'integer' as const, minimum: 1, maximum: 100 }, description: 'Alias of limit' },
];

const common = { tag: 'Clients', serviceOnly: true };

export const clientRoutes: RestRoute[] = [
  route({
    ...common,
    operationId: 'listClients',
    method: 'GET',
    path: '/clients',
    summary: 'Clients the caller may see, newest first (cursor pagination)',
    scopes: ['read'],
    idempotent: false,
    operation: 'Clients',
    queryParams: filterParams,
    toVariables: ({ query }) => ({
      ...pageArgs(query),
      search: query.get('search'),
      type: query.get('type') || undefined,
      salesPersonId: intParam(query.get('sales_person_id')),
      riskManagerId: intParam(query.get('risk_manager_id')),
    }),
    toResponse: listResponse,
    response: {
      status: 200,
      description: 'A page of clients',
      schema: obj({
        data: arr(ref('Client')),
        meta: obj({ limit: int(), has_more: bool(), count: int('Items in this page') }),
        links: obj({ next: nullable(str('Path of the next page; null at the end')) }),
      }),
    },
    errors: ['validation_failed'],
  }),
  route({
    ...common,
    operationId: 'createClient',
    method: 'POST',
    path: '/clients',
    summary: 'Add a client (numbered, normalised, duplicate-checked, audited)',
    scopes: ['crm'],
    idempotent: true,
    operation: 'CreateClient',
    requestBody: ref('ClientInput'),
    toVariables: ({ body: b }) => ({ input: clientFromRest(asObject(b)) }),
    toResponse: (d) => ({ status: 201, body: { data: clientToRest(d.createClient) } }),
    response: { status: 201, description: 'Created', schema: dataOf(ref('Client')) },
    errors: ['duplicate_client', 'validation_failed', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'getClient',
    method: 'GET',
    path: '/clients/{client_no}',
    summary: 'Read a client',
    scopes: ['read'],
    idempotent: false,
    operation: 'Client',
    toVariables: ({ params }) => ({ clientNo: params.client_no }),
    toResponse: (d) => ({ status: 200, body: { data: clientToRest(d.client) } }),
    response: { status: 200, description: 'The client', schema: dataOf(ref('Client')) },
    errors: ['not_found'],
  }),
  route({
    ...common,
    operationId: 'updateClient',
    method: 'PATCH',
    path: '/clients/{client_no}',
    summary: 'Change a client (send only changed fields; audited)',
    scopes: ['crm'],
    idempotent: true,
    operation: 'UpdateClient',
    requestBody: { ...ref('ClientInput'), description: 'Same fields as POST /clients, all optional' },
    toVariables: ({ params, body: b }) => ({ input: { clientNo: params.client_no, ...clientFromRest(asObject(b)) } }),
    toResponse: (d) => ({ status: 200, body: { data: clientToRest(d.updateClient) } }),
    response: { status: 200, description: 'Updated', schema: dataOf(ref('Client')) },
    errors: ['not_found', 'duplicate_client', 'validation_failed', 'actor_forbidden'],
  }),
];
