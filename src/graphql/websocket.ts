import type { Server } from 'node:http';
import { GraphQLError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { type AppServices, type Context, createContext } from '../context.ts';
import { AppError, isAppError } from '../lib/problem.ts';
import { toGraphQLError } from './errors.ts';
import { credentialsFromParams, type Yoga } from './yoga.ts';

/** graphql-ws on the same HTTP server and path, through Yoga's envelop so plugins, context and validation are shared. */
export function attachWebSocket(server: Server, yoga: Yoga, app: AppServices): WebSocketServer {
  const wss = new WebSocketServer({ server, path: yoga.graphqlEndpoint });
  useServer(
    {
      // Reject a connection whose credentials are bad before any operation runs.
      onConnect: async (ctx) => {
        try {
          await createContext({ app, transport: 'websocket', credentials: credentialsFromParams(ctx.connectionParams) });
          return true;
        } catch (e) {
          if (isAppError(e)) return false;
          throw e;
        }
      },
      execute: (args: any) => args.rootValue.execute(args),
      subscribe: (args: any) => args.rootValue.subscribe(args),
      onSubscribe: async (ctx, _id, params) => {
        const { schema: s, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params,
          connectionParams: ctx.connectionParams ?? {},
        });
        let document;
        try {
          document = parse(params.query);
        } catch (e) {
          return [e instanceof GraphQLError ? e : new GraphQLError(String(e))];
        }
        const errors = validate(s, document);
        if (errors.length) return errors;
        let contextValue: Context;
        try {
          contextValue = (await contextFactory()) as Context;
        } catch (e) {
          return [e instanceof GraphQLError ? e : isAppError(e) ? toGraphQLError(e) : toGraphQLError(new AppError('internal_error'))];
        }
        return {
          schema: s,
          operationName: params.operationName,
          document,
          variableValues: params.variables,
          contextValue,
          rootValue: { execute, subscribe },
        };
      },
    },
    wss,
  );
  return wss;
}
