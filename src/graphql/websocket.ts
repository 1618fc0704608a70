import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  type DocumentNode,
  type ExecutionArgs,
  getOperationAST,
  GraphQLError,
  type GraphQLSchema,
  OperationTypeNode,
} from 'graphql';
import {
  CloseCode,
  type Context as WsContext,
  handleProtocols,
  makeServer,
  type OperationResult,
  type Server as GraphQLWsServer,
  type ServerOptions,
  type SubscribePayload,
} from 'graphql-ws';
import { type WebSocket, WebSocketServer } from 'ws';
import { authenticate, type Principal } from '../auth/principal.ts';
import { type AppServices, type Context, requestIdFrom } from '../context.ts';
import { rawProblemResponse } from '../http/respond.ts';
import { AppError, isAppError } from '../lib/problem.ts';
import { toGraphQLError } from './errors.ts';
import { closeFor, ConnectionGrant, guardStream, TokenSubscriptions, WsSession } from './websocket-session.ts';
import { credentialsFromParams, type Yoga } from './yoga.ts';
import { requestShapeError } from './request-shape.plugin.ts';

interface Extra {
  socket: WebSocket;
  request: IncomingMessage;
  /** Set once connection_init authenticated; every operation of the socket runs under it. */
  session?: WsSession;
}

type ConnectionParams = Record<string, unknown>;
type WsConnection = WsContext<ConnectionParams, Extra>;

/**
 * graphql-ws on the same HTTP server and path, through Yoga's envelop so plugins, context and validation are shared.
 * Only an authenticated connection is acknowledged, and its authorization is re-checked for as long as it is open.
 */
export function attachWebSocket(server: Server, yoga: Yoga, app: AppServices): WebSocketServer {
  const { config, log } = app;
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.wsMaxPayloadBytes, handleProtocols });
  // Upgrades are routed here rather than by ws itself, so one refused elsewhere (another path, an unparsable target)
  // gets the same problem document and X-Request-Id as any other answer, not ws's bare HTML 400.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
    routeUpgrade(wss, yoga, req, socket, head),
  );
  const perToken = new TokenSubscriptions(config.wsMaxSubscriptionsPerToken);
  const graphqlWs = makeServer<ConnectionParams, Extra>(serverOptions(yoga, app, perToken));

  wss.on('error', (err) => log.error({ err }, 'WebSocket server error'));
  wss.on('connection', (socket, request) => openConnection(graphqlWs, app, socket, request));
  return wss;
}

function routeUpgrade(wss: WebSocketServer, yoga: Yoga, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  socket.on('error', () => socket.destroy());
  const path = (req.url ?? '').split('?')[0];
  if (path === yoga.graphqlEndpoint) {
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    return;
  }
  const requestId = requestIdFrom(req.headers['x-request-id'] as string | undefined);
  socket.end(
    rawProblemResponse(
      new AppError('not_found', { detail: `No WebSocket endpoint at this path; use ${yoga.graphqlEndpoint}` }),
      requestId,
    ),
  );
}

/** Hands an accepted socket to graphql-ws, with keep-alive pings for as long as it is open. */
function openConnection(
  graphqlWs: GraphQLWsServer<Extra>,
  { config, log }: AppServices,
  socket: WebSocket,
  request: IncomingMessage,
): void {
  // ws closes the socket itself for protocol faults (1009 over-size, 1007 bad UTF-8, …); they are the peer's, not ours.
  socket.on('error', (err) =>
    log.info({ err: err.message, code: (err as { code?: string }).code }, 'WebSocket protocol error'),
  );
  const stopKeepAlive = keepAlive(socket, config.wsKeepAliveMs);
  const withinBudget = messageBudget(config.wsMaxMessagesPerSecond);
  // A failure handling one message closes this socket; left to the emitter it would be an unhandled rejection.
  const deliver = async (cb: (data: string) => Promise<void>, data: Buffer) => {
    try {
      await cb(String(data));
    } catch (err) {
      // A peer that hung up while its answer was being written (EPIPE, a reset) is not a fault of ours: an outside
      // check's churn of reset sockets logged hundreds of these as errors.
      const code = (err as { code?: string }).code;
      if (socket.readyState !== socket.OPEN || code === 'EPIPE' || code === 'ECONNRESET') {
        log.info({ err: (err as Error).message, code }, 'WebSocket peer went away during a message');
        return;
      }
      log.error({ err }, 'WebSocket message handling failed');
      socket.close(CloseCode.InternalServerError, 'Internal server error');
    }
  };
  const extra: Extra = { socket, request };
  const closed = graphqlWs.opened(
    {
      protocol: socket.protocol,
      send: (data) =>
        new Promise<void>((resolve, reject) => {
          if (socket.readyState !== socket.OPEN) return resolve();
          socket.send(data, (err) => (err ? reject(err) : resolve()));
        }),
      close: (code, reason) => socket.close(code, reason),
      // ws hands a Buffer under its default binaryType ('nodebuffer'), fragmented messages included.
      onMessage: (cb) =>
        socket.on('message', (data) => {
          if (withinBudget()) return void deliver(cb, data as Buffer);
          if (socket.readyState !== socket.OPEN) return;
          log.info({ perSecond: config.wsMaxMessagesPerSecond }, 'WebSocket closed: too many messages');
          socket.close(POLICY_VIOLATION, 'Too many messages');
        }),
    },
    extra,
  );
  socket.once('close', (code, reason) => {
    stopKeepAlive();
    // The session's slots are given back at once: graphql-ws reports the close (onClose) only after every
    // subscription's iterator has ended, which one waiting on its source may never do.
    extra.session?.dispose();
    closed(code, reason.toString()).catch((err) => log.error({ err }, 'WebSocket close handling failed'));
  });
}

/** RFC 6455's close code for a message that violates the endpoint's policy. */
const POLICY_VIOLATION = 1008;

/**
 * A socket's message budget: `perSecond` messages a second, a burst of twice that (a token bucket). Every message a
 * peer sends is work on the one thread every organisation shares, a graphql-ws `ping` included (answered with a
 * `pong`, before any authentication): an outside check's single socket sending 20,000 a second held other
 * organisations' requests for seconds. Past the budget the socket is closed (1008), whatever it is authenticated as.
 */
export function messageBudget(perSecond: number, now: () => number = Date.now): () => boolean {
  const burst = perSecond * 2;
  let tokens = burst;
  let at = now();
  return () => {
    const t = now();
    tokens = Math.min(burst, tokens + ((t - at) * perSecond) / 1000);
    at = t;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
}

/** Pings at an interval and drops a peer that has not answered by the next one (a half-open TCP connection). */
function keepAlive(socket: WebSocket, ms: number): () => void {
  if (ms <= 0) return () => undefined;
  let answered = true;
  socket.on('pong', () => (answered = true));
  const timer = setInterval(() => {
    if (!answered) return socket.terminate();
    answered = false;
    socket.ping();
  }, ms).unref();
  return () => clearInterval(timer);
}

function refuse(socket: WebSocket, e: AppError): false {
  const { code, reason } = closeFor(e);
  socket.close(code, reason);
  return false;
}

function serverOptions(
  yoga: Yoga,
  app: AppServices,
  perToken: TokenSubscriptions,
): ServerOptions<ConnectionParams, Extra> {
  return {
    connectionInitWaitTimeout: app.config.wsConnectionInitTimeoutMs,
    onConnect: (ctx) => openSession(ctx, app, perToken),
    onClose: (ctx) => ctx.extra.session?.dispose(),
    onComplete: (ctx, id) => ctx.extra.session?.release(id),
    execute: (args: ExecutionArgs) => (args.rootValue as Roots).execute(args),
    subscribe: (args: ExecutionArgs) => (args.rootValue as Roots).subscribe(args),
    onSubscribe: (ctx, id, params) => prepareOperation(yoga, ctx, id, params),
  };
}

/** Authenticate at connection_init: no credentials or bad ones close the socket before anything can run. */
async function openSession(ctx: WsConnection, app: AppServices, perToken: TokenSubscriptions): Promise<boolean> {
  const { socket } = ctx.extra;
  const credentials = credentialsFromParams(ctx.connectionParams);
  if (!credentials.authorization) {
    return refuse(
      socket,
      new AppError('unauthenticated', {
        detail: 'Send {"Authorization": "Bearer <access token>"} in connectionParams',
      }),
    );
  }
  let principal: Principal;
  try {
    principal = await authenticate(app.auth, credentials);
  } catch (e) {
    if (isAppError(e)) return refuse(socket, e);
    throw e;
  }
  // The peer may have gone while we looked: arming timers for a dead socket would leak them.
  if (socket.readyState !== socket.OPEN) return false;
  const close = (code: number, reason: string) => socket.close(code, reason);
  ctx.extra.session = new WsSession(new ConnectionGrant(principal, credentials, app, close), perToken, app, close);
  return true;
}

/**
 * Yoga's envelop for one operation. Envelop declares these as taking and returning `any`; they wrap graphql-js's
 * own functions, whose signatures are given here.
 */
interface Enveloped {
  schema: GraphQLSchema;
  parse: (source: string) => DocumentNode;
  validate: (schema: GraphQLSchema, document: DocumentNode) => readonly GraphQLError[];
  execute: (args: ExecutionArgs) => OperationResult;
  subscribe: (args: ExecutionArgs) => OperationResult;
  contextFactory: () => Promise<Context> | Context;
}

/** onSubscribe: the operation ready to run under the connection's grant, or the errors that refuse it. */
async function prepareOperation(
  yoga: Yoga,
  ctx: WsConnection,
  id: string,
  params: SubscribePayload,
): Promise<ExecutionArgs | readonly GraphQLError[]> {
  const session = ctx.extra.session;
  if (!session || !(await session.grant.ensure()))
    return [new GraphQLError('Connection is no longer authorised', { extensions: { code: 'unauthenticated' } })];
  session.touch();
  // The same request-shape rules as HTTP (deep variables, text PostgreSQL cannot hold, cursors), before anything
  // serialises the params.
  const shape = requestShapeError(params);
  if (shape) return [shape];
  const enveloped: Enveloped = yoga.getEnveloped({
    ...ctx,
    req: ctx.extra.request,
    socket: ctx.extra.socket,
    params,
    connectionParams: ctx.connectionParams ?? {},
    // Checked a moment ago by grant.ensure(): the operation's context need not look the token up again.
    principal: session.grant.principal,
  });
  const parsed = parseAndValidate(enveloped, params.query);
  if (parsed.errors) return parsed.errors;
  const { document } = parsed;
  const isSubscription = getOperationAST(document, params.operationName)?.operation === OperationTypeNode.SUBSCRIPTION;
  if (isSubscription) {
    const refused = session.take(id);
    if (refused) return [toGraphQLError(refused)];
  }
  const context = await operationContext(enveloped, session, id);
  if (context.errors) return context.errors;
  return {
    schema: enveloped.schema,
    operationName: params.operationName,
    document,
    variableValues: params.variables,
    contextValue: context.value,
    rootValue: operationRoots(enveloped, session),
  };
}

function parseAndValidate(
  { schema, parse, validate }: Enveloped,
  query: string,
): { document: DocumentNode; errors?: undefined } | { errors: readonly GraphQLError[] } {
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (e) {
    return { errors: [e instanceof GraphQLError ? e : new GraphQLError(String(e))] };
  }
  const errors = validate(schema, document);
  return errors.length ? { errors } : { document };
}

/** The operation's context; if it cannot be built, the subscription slot it may hold is given back. */
async function operationContext(
  { contextFactory }: Enveloped,
  session: WsSession,
  id: string,
): Promise<{ value: Context; errors?: undefined } | { errors: GraphQLError[] }> {
  try {
    return { value: await contextFactory() };
  } catch (e) {
    session.release(id);
    return {
      errors: [
        e instanceof GraphQLError
          ? e
          : isAppError(e)
            ? toGraphQLError(e)
            : toGraphQLError(new AppError('internal_error')),
      ],
    };
  }
}

/** Envelop's execute/subscribe for one operation, carried to graphql-ws through rootValue. */
interface Roots {
  execute(args: ExecutionArgs): OperationResult;
  subscribe(args: ExecutionArgs): OperationResult;
}

function operationRoots({ execute, subscribe }: Enveloped, session: WsSession): Roots {
  return {
    execute,
    // Envelop's subscribe (its plugins included) first; each result it yields then waits on the live grant.
    subscribe: async (args) => {
      const result = await subscribe(args);
      return isAsyncIterable(result) ? guardStream(result, session.grant) : result;
    },
  };
}

const isAsyncIterable = (v: unknown): v is AsyncIterable<unknown> =>
  typeof v === 'object' && v !== null && typeof (v as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';
