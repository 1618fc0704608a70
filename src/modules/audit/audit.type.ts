import { builder } from '../../graphql/builder.ts';
import { AUDIT_TOPIC, auditService } from './audit.service.ts';
import { nodeAccess } from '../../graphql/access.ts';

/** The audit trail holds personal data of every client: admins of the organisation only, never an agent. */
builder.prismaNode('AuditLog', {
  ...nodeAccess({ scopes: ['admin'], staffOnly: true }),
  name: 'AuditEntry',
  id: { field: 'id' },
  fields: (t) => ({
    actorType: t.exposeString('actorType'),
    actorUserId: t.exposeInt('actorUserId', { nullable: true }),
    actorLabel: t.exposeString('actorLabel'),
    action: t.exposeString('action'),
    entityType: t.exposeString('entityType'),
    entityId: t.exposeString('entityId'),
    changes: t.expose('changes', { type: 'JSON', nullable: true }),
    requestId: t.exposeString('requestId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
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
