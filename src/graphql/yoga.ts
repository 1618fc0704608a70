import type { IncomingMessage } from 'node:http';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { GraphQLError, type ValidationContext } from 'graphql';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Credentials, Principal } from '../auth/principal.ts';
import { type AppServices, type Context, createContext, requestIdFrom } from '../context.ts';
import { AppError, isAppError } from '../lib/problem.ts';
import { costLimitPlugin, recordBudgetPlugin } from './cost.plugin.ts';
import { maskError, toGraphQLError } from './errors.ts';
import { httpParamsPlugin } from './http-params.plugin.ts';
import { ownStatusPlugin } from './own-status.plugin.ts';
import { introspectionPlugin } from './introspection.plugin.ts';
import { metricsPlugin } from './metrics.plugin.ts';
import { rateLimitPlugin } from './rate-limit.plugin.ts';
import { requestShapePlugin } from './request-shape.plugin.ts';
import { responseHeadersPlugin } from './response-headers.plugin.ts';
import { schema } from './schema.ts';
import { variablesPlugin } from './variables.plugin.ts';

interface ServerContext {
  req?: IncomingMessage;
  requestId?: string;
  /** Present on WebSocket operations (graphql-ws). */
  connectionParams?: Record<string, unknown>;
  /** WebSocket operations: the connection's principal, re-checked by its grant before the operation starts. */
  principal?: Principal;
}

export function credentialsFromParams(params: Record<string, unknown> | undefined): Credentials {
  const get = (k: string) => {
    const v = params?.[k] ?? params?.[k.toLowerCase()];
    return typeof v === 'string' ? v : null;
  };
  return {
    authorization: get('Authorization'),
    agentCode: get('X-Agent-Code'),
    agentKey: get('X-Agent-Key'),
    clientNo: get('X-Client-No'),
    clientKey: get('X-Client-Key'),
  };
}

export type Yoga = YogaServerInstance<ServerContext, Context>;

/**
 * graphql-armor rejects with a bare "Syntax Error: …" that carries no code; report it as the catalogue's
 * query_too_complex instead, so clients can tell a refused query from a malformed one.
 */
const tooComplex = {
  propagateOnRejection: false,
  onReject: [
    (ctx: ValidationContext | null, err: GraphQLError) => {
      const e = toGraphQLError(
        new AppError('query_too_complex', { detail: err.message.replace(/^Syntax Error: /, '') }),
      );
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
    // Off in production unless GRAPHIQL=1; CORS is responseHeadersPlugin's (Yoga's default echoes any Origin).
    graphiql: app.config.graphiql
      ? {
          title: 'Bima Gateway GraphQL',
          subscriptionsProtocol: 'WS',
          defaultQuery: '{ me { tenant { name } scopes } }',
        }
      : false,
    cors: false,
    // The same body limit as REST (Yoga's own default is 25 MB).
    maxRequestBodySize: app.config.maxBodyBytes,
    // Loaded when the IDE is first asked for: its bundled assets are ~30 MB of the heap, held for good once imported.
    renderGraphiQL: async (options) => (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(options),
    plugins: [
      // First: later plugins serialise the params (deep variables would overflow them) and text PostgreSQL cannot hold.
      requestShapePlugin(),
      subscriptionsOverWebSocketOnly(),
      responseHeadersPlugin(app.config.corsOrigins),
      httpParamsPlugin(),
      introspectionPlugin(app.config.graphqlIntrospection),
      metricsPlugin(app.metrics),
      // When the operation runs (its page sizes may be variables), before the rate limit charges it: an operation
      // refused for its cost costs nothing.
      costLimitPlugin(app.config.graphqlMaxCost),
      recordBudgetPlugin(app.config.graphqlMaxRecords),
      rateLimitPlugin(app),
      // After the rate limit, which charges the operation in its own onExecute: a refused one still counts.
      variablesPlugin(),
      maxDepthPlugin({
        n: app.config.graphqlMaxDepth,
        ignoreIntrospection: true,
        flattenFragments: true,
        exposeLimits: true,
        ...tooComplex,
      }),
      // Last: its onValidate sees the refusals the plugins above put in place of graphql-js's.
      ownStatusPlugin(),
    ],
    context: async (server): Promise<Context> => {
      try {
        if (server.connectionParams) {
          return await createContext({
            app,
            transport: 'websocket',
            principal: server.principal,
            credentials: credentialsFromParams(server.connectionParams),
          });
        }
        const h = server.request.headers;
        // The token's limit is charged per operation by rateLimitPlugin, once the operation's root fields are known.
        return await createContext({
          app,
          transport: 'graphql',
          requestId: server.requestId ?? requestIdFrom(h.get('x-request-id')),
          credentials: {
            authorization: h.get('authorization'),
            agentCode: h.get('x-agent-code'),
            agentKey: h.get('x-agent-key'),
            clientNo: h.get('x-client-no'),
            clientKey: h.get('x-client-key'),
          },
          peerIp: server.req?.socket.remoteAddress,
        });
      } catch (e) {
        if (isAppError(e)) throw toGraphQLError(e);
        throw e;
      }
    },
  });
}

/**
 * Subscriptions run over WebSocket (graphql-ws) only, whose session re-checks the caller's grant before every event
 * leaves and closes on a revocation (websocket-session.ts). Yoga would also serve one over HTTP as server-sent events,
 * which nothing re-checks: a token revoked mid-stream kept receiving events (outside check, 2026-11-30).
 */
function subscriptionsOverWebSocketOnly(): Plugin {
  const refusal = {
    errors: [
      toGraphQLError(
        new AppError('invalid_request', {
          detail: 'Subscriptions run over WebSocket (graphql-ws, subprotocol graphql-transport-ws) at /graphql',
        }),
      ),
    ],
  };
  return {
    onSubscribe({ args, setResultAndStopExecution }) {
      if ((args.contextValue as Partial<Context>).transport !== 'websocket') setResultAndStopExecution(refusal);
    },
  };
}
