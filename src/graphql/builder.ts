import SchemaBuilder from '@pothos/core';
import { type GraphQLSchema, isObjectType } from 'graphql';
import ErrorsPlugin from '@pothos/plugin-errors';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin, { decodeGlobalID } from '@pothos/plugin-relay';
import ScopeAuthPlugin, { type AuthFailure, AuthScopeFailureType } from '@pothos/plugin-scope-auth';
import type { Scope } from '../auth/scopes.ts';
import type { Context } from '../context.ts';
import ColumnFieldsPlugin from './column-fields.ts';
import RecordBudgetPlugin from './record-budget.ts';
import CompiledPathsPlugin from './compiled-paths.ts';
import InputPathsPlugin from './input-paths.ts';
import type PrismaTypes from '../generated/pothos-types.ts';
import { getDatamodel } from '../generated/pothos-types.ts';
import { AppError, ValidationError } from '../lib/problem.ts';
import { installPlanCache } from './plan-cache.ts';

/** A connection's page: `first`/`last` absent reads 25, more than 100 reads 100 (the relay options below). */
export const PAGE_SIZE = { default: 25, max: 100 } as const;
/** The most ids `nodes(ids:)` takes at once: a page's worth, as a connection's `first` is. */
export const MAX_NODES = 100;

installPlanCache();

type GlobalId = { typename: string; id: string } | null | undefined;

/** Largest id of each record type: PostgreSQL `integer` ids, but the audit log's `bigint`. */
const MAX_ID: Readonly<Record<string, bigint>> = { AuditEntry: 2n ** 63n - 1n };
const INT4_MAX = 2n ** 31n - 1n;

/**
 * A global id as this API issues it, or null: its type a record type of the schema (not `Node` itself, nor a name the
 * schema does not have) and its record id a positive integer in plain decimal (no sign, leading zero, fraction,
 * exponent or hex) within its column's range. Anything else names no record, so `node` answers null, as for a record
 * that does not exist, where the relay plugin would fail on the type (a 500), the database would refuse the value (a
 * 500) and lenient parsing would let `1.5`, `0x10` or `1e3` name records 1, 16 and 1.
 */
export function issuedGlobalId(g: GlobalId, schema?: GraphQLSchema): GlobalId {
  if (!g || typeof g.id !== 'string' || !/^[1-9][0-9]{0,18}$/.test(g.id)) return null;
  if (schema) {
    const type = schema.getType(g.typename);
    if (!isObjectType(type) || !type.getInterfaces().some((i) => i.name === 'Node')) return null;
  }
  return BigInt(g.id) <= (MAX_ID[g.typename] ?? INT4_MAX) ? g : null;
}

/** A global id that does not decode (not base64, no `Type:id`) names no record either: it reads as one that is null. */
function decodedOrNone(globalID: string): { typename: string; id: string } {
  try {
    return decodeGlobalID(globalID);
  } catch {
    return { typename: '', id: '' };
  }
}

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
  plugins: [
    ScopeAuthPlugin,
    ErrorsPlugin,
    RecordBudgetPlugin,
    InputPathsPlugin,
    CompiledPathsPlugin,
    ColumnFieldsPlugin,
    PrismaPlugin,
    RelayPlugin,
  ],
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
    defaultConnectionSize: PAGE_SIZE.default,
    maxConnectionSize: PAGE_SIZE.max,
  },
  relay: {
    // node/nodes ask for a signed-in caller; what each returned record may show is its type's rule (access.ts).
    clientMutationId: 'omit',
    decodeGlobalID: decodedOrNone,
    cursorType: 'String',
    // Descriptions of what the relay plugin generates (Node, PageInfo, every …Connection and …Edge, their arguments).
    nodeTypeOptions: {
      description: 'A record that can be fetched again by its global `id` through `node` or `nodes`.',
    },
    idFieldOptions: {
      description:
        'Global id: opaque, stable, unique across types; pass it to `node`/`nodes`. Not the REST id (see `databaseId`).',
    },
    nodeQueryOptions: {
      authScopes: { authenticated: true },
      // The relay plugin's own resolver reads `args.id` when called: an id this API never issues becomes null first.
      resolve: (_root, args, _ctx, info, resolveNode) => {
        (args as { id: GlobalId }).id = issuedGlobalId(args.id, info.schema);
        return resolveNode(null as never);
      },
      description:
        'Any record by its global id; null when it does not exist or the caller may not see it (the two read alike).',
      args: { id: { description: "A global id, as read from a record's `id` field." } },
    },
    nodesQueryOptions: {
      authScopes: { authenticated: true },
      resolve: (_root, args, _ctx, info, resolveNodes) => {
        // Held here before anything is read; the cost limit (cost.plugin.ts) counts the selection once per id.
        if ((args.ids as unknown[]).length > MAX_NODES)
          throw new ValidationError([
            { field: 'ids', code: 'too_large', message: `must have at most ${MAX_NODES} items` },
          ]);
        (args as { ids: GlobalId[] }).ids = (args.ids as GlobalId[]).map((g) => issuedGlobalId(g, info.schema));
        return resolveNodes(null as never);
      },
      description: `Several records by global id, in the order asked; null in the place of each one missing or out of reach. At most ${MAX_NODES} ids (more is 422 validation_failed, \`too_large\` on \`ids\`).`,
      args: { ids: { description: "Global ids, as read from records' `id` fields." } },
    },
    pageInfoTypeOptions: {
      description: 'Where a page sits in the whole list, and the cursors to ask for the pages either side of it.',
    },
    hasNextPageFieldOptions: {
      description: 'True when more records follow this page (ask again with `after: endCursor`).',
    },
    hasPreviousPageFieldOptions: {
      description: 'True when records come before this page (ask again with `before: startCursor`).',
    },
    startCursorFieldOptions: { description: "The first edge's cursor; null when the page is empty." },
    endCursorFieldOptions: { description: "The last edge's cursor; null when the page is empty." },
    defaultConnectionTypeOptions: {
      description: "One page of a list (Relay connection): its edges in the list's order, and where the page sits.",
    },
    edgesFieldOptions: { description: "The records of this page, each with its cursor, in the list's order." },
    pageInfoFieldOptions: { description: 'Whether pages follow or precede this one, and the cursors to reach them.' },
    defaultEdgeTypeOptions: { description: 'One record of a page, with the cursor that points at it.' },
    nodeFieldOptions: { description: 'The record.' },
    cursorFieldOptions: {
      description: 'Opaque position of this record in the list: pass it as `after` or `before` to page from here.',
    },
    firstArgOptions: {
      description:
        'Page size counting forward from the start or from `after`: 25 when absent; a larger size than 100 reads 100; below 0 is 422 validation_failed on `first`.',
    },
    lastArgOptions: {
      description:
        'Page size counting back from the end or from `before`; a larger size than 100 reads 100; below 0 is 422 validation_failed on `last`.',
    },
    afterArgOptions: { description: "A cursor (`endCursor` or an edge's `cursor`): the page starts after it." },
    beforeArgOptions: { description: "A cursor (`startCursor` or an edge's `cursor`): the page ends before it." },
  },
  errors: {
    defaultTypes: [],
    defaultUnionOptions: {
      description:
        'What the mutation answers: its result on success, or one of the Problem types for an expected failure ' +
        '(the same `code` and `status` the REST problem document shows). Select `__typename` to tell them apart.',
    },
  },
});

/** The scope names of a scope-auth failure, flattened ($all and $any alike). */
function failedScopes(f: AuthFailure): string[] {
  if (f.kind === AuthScopeFailureType.AuthScope) return [f.scope];
  if (f.kind === AuthScopeFailureType.AllAuthScopes || f.kind === AuthScopeFailureType.AnyAuthScopes)
    return f.failures.flatMap(failedScopes);
  return [];
}

builder.queryType({ description: 'Reads: every root field needs a bearer token with the scopes it names.' });
builder.mutationType({
  description:
    "Writes. Expected business failures are typed results (a Problem type in the field's result union); bugs and authorization failures are errors with extensions.code.",
});
builder.subscriptionType({ description: 'Live events over graphql-ws (the same /graphql endpoint, WebSocket).' });
