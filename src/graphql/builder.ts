import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin, { type AuthFailure, AuthScopeFailureType } from '@pothos/plugin-scope-auth';
import type { Scope } from '../auth/scopes.ts';
import type { Context } from '../context.ts';
import type PrismaTypes from '../generated/pothos-types.ts';
import { getDatamodel } from '../generated/pothos-types.ts';
import { AppError } from '../lib/problem.ts';

/** The builder and nothing else: types live in src/modules/<domain>/, src/graphql/schema.ts imports them. */
export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  AuthScopes: Record<Scope, boolean> & { authenticated: boolean; staff: boolean };
  DefaultFieldNullability: false;
  DefaultInputFieldRequiredness: false;
  Scalars: {
    Date: { Input: string; Output: string | Date };
    DateTime: { Input: Date; Output: Date };
    Cents: { Input: bigint; Output: bigint | number };
    Shillings: { Input: number; Output: bigint | number };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  defaultFieldNullability: false,
  plugins: [ScopeAuthPlugin, ErrorsPlugin, PrismaPlugin, RelayPlugin],
  scopeAuth: {
    authorizeOnSubscribe: true,
    authScopes: (ctx) => {
      const s = ctx.principal?.scopes;
      return {
        authenticated: !!ctx.principal,
        staff: !!ctx.principal && !ctx.principal.actor?.ownRecordsOnly,
        read: !!s?.has('read'),
        quote: !!s?.has('quote'),
        bind: !!s?.has('bind'),
        crm: !!s?.has('crm'),
        webhooks: !!s?.has('webhooks'),
        admin: !!s?.has('admin'),
      };
    },
    unauthorizedError: (_parent, ctx, _info, result) => {
      if (!ctx.principal)
        return new AppError('unauthenticated', { detail: 'Send Authorization: Bearer <access token>' });
      const failed = failedScopes(result.failure);
      // The token has the scopes but its acting user is an agent: the ability, not the key, is missing.
      if (failed.includes('staff') && failed.every((s) => s === 'staff' || ctx.principal!.scopes.has(s as Scope))) {
        return new AppError('actor_forbidden', { detail: 'Agents may not use this operation' });
      }
      const scopes = failed.filter((s) => s !== 'staff' && s !== 'authenticated');
      return new AppError('insufficient_scope', {
        detail: scopes.length
          ? `This operation needs the ${scopes.map((s) => `'${s}'`).join(' or ')} scope`
          : result.message,
        ...(scopes.length ? { extra: { required_scopes: scopes } } : {}),
      });
    },
  },
  prisma: {
    client: (ctx) => ctx.prismaForPlugin(),
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
    defaultConnectionSize: 25,
    maxConnectionSize: 100,
  },
  relay: {
    // node/nodes ask for a signed-in caller; what each returned record may show is its type's rule (access.ts).
    nodeQueryOptions: { authScopes: { authenticated: true } },
    nodesQueryOptions: { authScopes: { authenticated: true } },
    clientMutationId: 'omit',
    cursorType: 'String',
  },
  errors: {
    defaultTypes: [],
  },
});

/** The scope names of a scope-auth failure, flattened ($all and $any alike). */
function failedScopes(f: AuthFailure): string[] {
  if (f.kind === AuthScopeFailureType.AuthScope) return [f.scope];
  if (f.kind === AuthScopeFailureType.AllAuthScopes || f.kind === AuthScopeFailureType.AnyAuthScopes)
    return f.failures.flatMap(failedScopes);
  return [];
}

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
