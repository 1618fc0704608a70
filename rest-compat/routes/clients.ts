import {
  ClientDocument,
  ClientsDocument,
  CreateClientDocument,
  UpdateClientDocument,
} from '../generated/operations.ts';
import { clientFromRest, clientToRest } from '../mappers/client.ts';
import { connectionPage, pageArgs, pageParams, pageSchema } from '../pagination.ts';
import { type AnyRoute, bodyOf, intParam, route } from '../route.ts';
import { dataOf, int, ref, str } from '../schemas/builders.ts';
import { ClientInput, ClientPatch } from '../schemas/client.ts';
import { bodyObject } from '../schemas/inputs.ts';

const filterParams = [
  {
    name: 'search',
    in: 'query' as const,
    schema: str(),
    description: 'Name, client number, phone, ID number or tax PIN',
  },
  { name: 'type', in: 'query' as const, schema: { type: 'string' as const, enum: ['individual', 'corporate'] } },
  { name: 'sales_person_id', in: 'query' as const, schema: int() },
  { name: 'risk_manager_id', in: 'query' as const, schema: int() },
  ...pageParams(),
];

const common = { tag: 'Clients', serviceOnly: true };

export const clientRoutes: AnyRoute[] = [
  route({
    ...common,
    operationId: 'listClients',
    method: 'GET',
    path: '/clients',
    summary: 'Clients the caller may see, newest first (cursor pagination)',
    scopes: ['read'],
    idempotent: false,
    operation: ClientsDocument,
    queryParams: filterParams,
    toVariables: ({ query }) => ({
      ...pageArgs(query),
      search: query.get('search'),
      type: query.get('type') || undefined,
      salesPersonId: intParam(query.get('sales_person_id')),
      riskManagerId: intParam(query.get('risk_manager_id')),
    }),
    toResponse: (d, input) => connectionPage(d.clients, input, clientToRest),
    response: {
      status: 200,
      description: 'A page of clients',
      schema: pageSchema(ref('Client')),
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
    operation: CreateClientDocument,
    requestBody: bodyObject(ref('ClientInput')),
    parseBody: true,
    toVariables: (input) => ({ input: clientFromRest(bodyOf(input, ClientInput)) }),
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
    operation: ClientDocument,
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
    description:
      'A changed phone is not trusted for one-time codes (client-area sign-in, premium-finance signing) for 72 hours on the ' +
      "organisation's clock: codes go to the phone trusted before the change meanwhile, and that phone is told of the change by SMS " +
      '(event client.phone_changed). Changing it back to that phone ends the hold. The audit row says who changed it.',
    scopes: ['crm'],
    idempotent: true,
    operation: UpdateClientDocument,
    requestBody: bodyObject(ref('ClientPatch')),
    parseBody: true,
    toVariables: (input) => ({
      input: { clientNo: input.params.client_no, ...clientFromRest(bodyOf(input, ClientPatch)) },
    }),
    toResponse: (d) => ({ status: 200, body: { data: clientToRest(d.updateClient) } }),
    response: { status: 200, description: 'Updated', schema: dataOf(ref('Client')) },
    errors: ['not_found', 'duplicate_client', 'validation_failed', 'actor_forbidden'],
  }),
];
