import type { IncomingMessage } from 'node:http';
import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { GraphQLError, type ValidationContext } from 'graphql';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Credentials } from '../auth/principal.ts';
import { type AppServices, type Context, createContext, requestIdFrom } from '../context.ts';
import { enforceTokenRateLimit } from '../http/rate-limits.ts';
import { AppError, isAppError } from '../lib/problem.ts';
import { rateLimitHeaders } from '../lib/rate-limit.ts';
import { maskError, toGraphQLError } from './errors.ts';
import { schema } from './schema.ts';

interface ServerContext {
  req?: IncomingMessage;
  requestId?: string;
  /** Present on WebSocket operations (graphql-ws). */
  connectionParams?: Record<string, unknown>;
}

export function credentialsFromParams(params: Record<string, unknown> | undefined): Credentials {
  const get = (k: string) => {
    const v = params?.[k] ?? params?.[k.toLowerCase()];
    return typeof v === 'string' ? v : null;
  };
  return { authorization: get('Authorization'), agentCode: get('X-Agent-Code'), agentKey: get('X-Agent-Key') };
}

export type Yoga = YogaServerInstance<ServerContext, Context>;

/** RateLimit-* headers on GraphQL responses too: the context factory records the decision, the response carries it. */
const rateLimitOf = new WeakMap<Request, Record<string, string>>();
/** PostgreSQL cannot store U+0000: refuse it at the door as a client error rather than failing deep inside. */
const rejectNulPlugin: Plugin = {
  onParams({ params }) {
    if (JSON.stringify(params).includes('\\u0000')) {
      throw toGraphQLError(new AppError('invalid_request', { detail: 'Request contains a NUL character (U+0000)' }));
    }
  },
};

const rateLimitHeadersPlugin: Plugin = {
  onResponse({ request, response }) {
    const headers = rateLimitOf.get(request);
    if (headers) for (const [k, v] of Object.entries(headers)) response.headers.set(k, v);
  },
};

/**
 * graphql-armor rejects with a bare "Syntax Error: …" that carries no code; report it as the catalogue's
 * query_too_complex instead, so clients can tell a refused query from a malformed one.
 */
const tooComplex = {
  propagateOnRejection: false,
  onReject: [
    (ctx: ValidationContext | null, err: GraphQLError) => {
      const e = toGraphQLError(new AppError('query_too_complex', { detail: err.message.replace(/^Syntax Error: /, '') }));
      if (ctx) ctx.reportError(e);
      else throw e;
    },
  ],
};

export function createGraphQL(app: AppServices): Yoga {
  return createYoga<ServerContext, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    logging: false,
    maskedErrors: { maskError: maskError(app.log) },
    graphiql: { title: 'Bima Gateway GraphQL', subscriptionsProtocol: 'WS', defaultQuery: '{ me { tenant { name } scopes } }' },
    renderGraphiQL,
    plugins: [
      rejectNulPlugin,
      rateLimitHeadersPlugin,
      maxDepthPlugin({ n: app.config.graphqlMaxDepth, ignoreIntrospection: true, flattenFragments: true, exposeLimits: true, ...tooComplex }),
      costLimitPlugin({ maxCost: app.config.graphqlMaxCost, ignoreIntrospection: true, flattenFragments: true, exposeLimits: true, ...tooComplex }),
    ],
    context: async (server): Promise<Context> => {
      try {
        if (server.connectionParams) {
          return await createContext({ app, transport: 'websocket', credentials: credentialsFromParams(server.connectionParams) });
        }
        const h = server.request.headers;
        const ctx = await createContext({
          app,
          transport: 'graphql',
          requestId: server.requestId ?? requestIdFrom(h.get('x-request-id')),
          credentials: { authorization: h.get('authorization'), agentCode: h.get('x-agent-code'), agentKey: h.get('x-agent-key') },
        });
        if (ctx.principal) rateLimitOf.set(server.request, rateLimitHeaders(await enforceTokenRateLimit(app, ctx.principal)));
        return ctx;
      } catch (e) {
        if (isAppError(e)) throw toGraphQLError(e);
        throw e;
      }
    },
  });
}
