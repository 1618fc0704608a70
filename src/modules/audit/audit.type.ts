import { builder } from '../../graphql/builder.ts';
import { AUDIT_TOPIC, auditService } from './audit.service.ts';
import { nodeAccess } from '../../graphql/access.ts';

/** The audit trail holds personal data of every client: admins of the organisation only, never an agent. */
builder.prismaNode('AuditLog', {
  ...nodeAccess({ scopes: ['admin'], staffOnly: true }),
  name: 'AuditEntry',
  description: 'One entry of the audit trail: who changed which record of the organisation, how, and when.',
  id: { field: 'id' },
  fields: (t) => ({
    actorType: t.exposeString('actorType', {
      description: 'Who acted: user, agent, api_client (a key with no acting user), customer (client area) or system.',
    }),
    actorUserId: t.exposeInt('actorUserId', {
      description: 'The REST id of the acting user or agent; null for API clients, customers and the system.',
      nullable: true,
    }),
    actorLabel: t.exposeString('actorLabel', {
      description:
        'Who acted, for people: e.g. "user Jane Doe via API client bgc_…", "agent AG001 via API client bgc_…", "system".',
    }),
    action: t.exposeString('action', {
      description: 'What was done, as entity.verb (client.created, api_client.updated, policy.cancelled …).',
    }),
    entityType: t.exposeString('entityType', {
      description: 'The kind of record changed (client, policy, claim, api_client …).',
    }),
    entityId: t.exposeString('entityId', {
      description: 'The record changed, by its public key: its number (clientNo, policyNo …), uuid or client_id.',
    }),
    changes: t.expose('changes', {
      description:
        'For updates {field: {from, to}}; for creations the values created; null when nothing is recorded. Secrets never appear.',
      type: 'JSON',
      nullable: true,
    }),
    requestId: t.exposeString('requestId', {
      description:
        'The request id (X-Request-Id) of the call that made the change, to match with logs; null when none was recorded.',
      nullable: true,
    }),
    createdAt: t.expose('createdAt', { description: 'When the change was committed.', type: 'DateTime' }),
  }),
});

builder.queryField('auditLog', (t) =>
  t.prismaConnection({
    type: 'AuditLog',
    cursor: 'id',
    authScopes: { $all: { admin: true, staff: true } },
    description: "The organisation's audit trail, newest first (scope admin; not for agents).",
    args: {
      entityType: t.arg.string({
        description: 'Only entries about this kind of record (client, policy, claim …).',
        required: false,
      }),
      entityId: t.arg.string({
        description: 'Only entries about this record (its number or uuid, as the entry names it).',
        required: false,
      }),
    },
    resolve: (query, _root, args, ctx) => auditService.list(ctx, args, query),
  }),
);

builder.subscriptionField('auditLogged', (t) =>
  t.prismaField({
    type: 'AuditLog',
    authScopes: { $all: { admin: true, staff: true } },
    description: 'Live audit entries of the organisation as they commit (scope admin; not for agents).',
    subscribe: (_root, _args, ctx) => ctx.app.events.subscribe<{ id: string }>(AUDIT_TOPIC, ctx.principal!.tenant.id),
    resolve: (query, payload, _args, ctx) => auditService.byId(ctx, BigInt(payload.id), query),
  }),
);
