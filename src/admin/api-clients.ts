import type { Context } from '../context.ts';
import type { ApiClient } from '../generated/prisma/client.ts';
import { ValidationError } from '../lib/problem.ts';
import { apiClientService } from '../modules/api-clients/api-client.service.ts';
import {
  type Command,
  type CommandGroup,
  int,
  lines,
  list,
  type OptionSpec,
  required,
  SHOWN_ONCE,
  str,
  table,
  type Values,
  ORG,
} from './command.ts';
import type { Runtime } from './runtime.ts';

const view = (c: ApiClient & { actorUser?: { email: string } | null }) => ({
  client_id: c.clientId,
  name: c.name,
  scopes: c.scopes,
  actor_user_id: c.actorUserId,
  ...(c.actorUser !== undefined ? { actor: c.actorUser?.email ?? null } : {}),
  rate_limit_per_minute: c.rateLimitPerMinute,
  revoked_at: c.revokedAt?.toISOString() ?? null,
  secret_rotated_at: c.secretRotatedAt?.toISOString() ?? null,
  previous_secret_valid_until: c.previousSecretExpiresAt?.toISOString() ?? null,
});

/** `--actor` as a user id or an email of the organisation. */
async function actorId(ctx: Context, actor: string | undefined): Promise<number | undefined> {
  if (actor === undefined) return undefined;
  if (/^\d+$/.test(actor)) return Number(actor);
  const u = await ctx.tx((tx) => tx.user.findFirst({ where: { email: actor.trim().toLowerCase() } }));
  if (!u) throw new ValidationError([{ field: 'actor', message: 'no user with this email in the organisation' }]);
  return u.id;
}

async function create(rt: Runtime, v: Values) {
  const ctx = await rt.orgContext(required(v, 'org'));
  const { apiClient, clientSecret } = await apiClientService.create(ctx, {
    name: str(v, 'name'),
    scopes: list(v, 'scopes'),
    actorUserId: await actorId(ctx, str(v, 'actor')),
    rateLimitPerMinute: int(v, 'rate-limit'),
  });
  const json = { ...view(apiClient), client_secret: clientSecret };
  return { json, text: `${lines(json)}\n(client_secret ${SHOWN_ONCE})` };
}

async function rotate(rt: Runtime, v: Values) {
  const ctx = await rt.orgContext(required(v, 'org'));
  const { apiClient, clientSecret } = await apiClientService.rotateSecret(
    ctx,
    required(v, 'client-id'),
    int(v, 'grace-hours'),
  );
  const json = { ...view(apiClient), client_secret: clientSecret };
  return { json, text: `${lines(json)}\n(client_secret ${SHOWN_ONCE}; the old one works until the time above)` };
}

async function revoke(rt: Runtime, v: Values) {
  const ctx = await rt.orgContext(required(v, 'org'));
  const row = await apiClientService.revoke(ctx, required(v, 'client-id'));
  const json = view(row);
  return { json, text: `${row.clientId} revoked at ${json.revoked_at}: its tokens stop working on their next call` };
}

async function listClients(rt: Runtime, v: Values) {
  const ctx = await rt.orgContext(required(v, 'org'));
  const rows = await apiClientService.list(ctx, { include: { actorUser: { select: { email: true } } } });
  const json = rows.map((r) => view(r as ApiClient & { actorUser: { email: string } | null }));
  return { json, text: table(json, ['client_id', 'name', 'scopes', 'actor', 'revoked_at']) };
}

const CLIENT: OptionSpec = {
  type: 'string',
  arg: '<client id>',
  description: 'the API client (bgc_…)',
  required: true,
};

const commands: Command[] = [
  {
    name: 'create',
    summary: 'create an API client; its secret is printed once',
    options: {
      org: ORG,
      name: { type: 'string', arg: '<name>', description: 'what the integration is', required: true },
      scopes: {
        type: 'string',
        multiple: true,
        arg: '<scope,…>',
        description: 'scopes, comma-separated or repeated (e.g. read,bind,crm,webhooks,admin)',
        required: true,
      },
      actor: { type: 'string', arg: '<user id|email>', description: 'the user the client acts as (writes need one)' },
      'rate-limit': { type: 'string', arg: '<n>', description: 'requests per minute per token (default: deployment)' },
    },
    run: create,
  },
  { name: 'list', summary: "list an organisation's API clients", options: { org: ORG }, run: listClients },
  {
    name: 'rotate',
    summary: 'issue a new secret (printed once); the old one keeps working for the grace period',
    options: {
      org: ORG,
      'client-id': CLIENT,
      'grace-hours': { type: 'string', arg: '<hours>', description: '0–168 (default SECRET_ROTATION_GRACE_HOURS)' },
    },
    run: rotate,
  },
  {
    name: 'revoke',
    summary: 'revoke an API client and its tokens at once',
    options: { org: ORG, 'client-id': CLIENT },
    run: revoke,
  },
];

export const apiClients: CommandGroup = { name: 'api-clients', summary: 'API clients (keys)', commands };
