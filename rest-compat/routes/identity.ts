import { MeDocument } from '../generated/operations.ts';
import { meToRest } from '../mappers/identity.ts';
import { route } from '../route.ts';
import { meResponse } from '../schemas/identity.ts';

export const identityRoutes = [
  route({
    operationId: 'getMe',
    method: 'GET',
    path: '/me',
    summary: 'Caller identity (connectivity check)',
    tag: 'Identity',
    serviceOnly: true,
    scopes: ['read'],
    idempotent: false,
    operation: MeDocument,
    toVariables: () => ({}),
    toResponse: ({ me }) => ({ status: 200, body: { data: meToRest(me) } }),
    response: { status: 200, description: 'Identity of the caller', schema: meResponse },
    errors: [],
  }),
];
