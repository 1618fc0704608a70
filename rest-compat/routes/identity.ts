import { route } from '../route.ts';
import { bool, int, nullable, obj, str, timestamp, arr } from '../schemas.ts';

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
    operation: 'Me',
    toVariables: () => ({}),
    toResponse: ({ me }) => ({
      status: 200,
      body: {
        data: {
          client: { id: me.client.id, name: me.client.name, rate_limit_per_minute: me.client.rateLimitPerMinute },
          tenant: { code: me.tenant.code, name: me.tenant.name, type: me.tenant.type, paybill: me.tenant.paybill },
          scopes: me.scopes,
          actor: me.actor && {
            id: me.actor.id,
            name: me.actor.name,
            role: me.actor.role,
            code: me.actor.code,
            own_records_only: me.actor.ownRecordsOnly,
          },
          token: { expires_at: me.token.expiresAt, expires_in: me.token.expiresIn },
          request_id: me.requestId,
        },
      },
    }),
    response: {
      status: 200,
      description: 'Identity of the caller',
      schema: obj({
        data: obj({
          client: obj({ id: str('Public client id'), name: str(), rate_limit_per_minute: int() }),
          tenant: obj({
            code: str(),
            name: str(),
            type: str('brokerage, agency, sacco or microfinance'),
            paybill: str(),
          }),
          scopes: arr(str()),
          actor: nullable(
            obj({ id: int(), name: str(), role: str(), code: nullable(str()), own_records_only: bool() }),
          ),
          token: obj({ expires_at: timestamp(), expires_in: int('Seconds') }),
          request_id: str(),
        }),
      }),
    },
    errors: [],
  }),
];
