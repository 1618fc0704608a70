/**
 * `createBimaClient`: openapi-fetch's typed client over the API (`client.GET('/policies/{uuid}', …)`), with the
 * OAuth token fetched and refreshed for you, an Idempotency-Key on every write whose operation takes one (unless you
 * pass your own), and retries of network errors, 429 and 503 for the calls that are safe to repeat: reads, and writes
 * carrying a key (the same key on every attempt); jittered backoff, `Retry-After` honoured (retry.ts).
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { IDEMPOTENT_OPERATIONS } from './generated/idempotent.ts';
import type { paths } from './generated/schema.js';
import { retrying, type RetryOptions } from './retry.ts';
import { TokenSource, type TokenOptions } from './token.ts';

/** An operation's header parameters with Idempotency-Key optional: the client supplies one when it is absent. */
type KeyOptional<H> = Omit<H, 'Idempotency-Key'> & { 'Idempotency-Key'?: string };
type Parameters<P> = P extends { header: infer H }
  ? H extends { 'Idempotency-Key': unknown }
    ? Omit<P, 'header'> & (object extends KeyOptional<H> ? { header?: KeyOptional<H> } : { header: KeyOptional<H> })
    : P
  : P;
type Operation<O> = O extends { parameters: infer P } ? Omit<O, 'parameters'> & { parameters: Parameters<P> } : O;
/** The document's paths as the SDK takes them (generated/schema.d.ts, with the key made optional). */
export type BimaPaths = { [P in keyof paths]: { [M in keyof paths[P]]: Operation<paths[P][M]> } };

export interface BimaClientOptions extends RetryOptions, TokenOptions {
  /** The service's address (`http://127.0.0.1:3000`) or its REST base (`http://127.0.0.1:3000/api/v1`). */
  baseUrl: string;
  /** The fetch to send with (default the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

export type BimaClient = Client<BimaPaths> & {
  /** The bearer token in use (fetched or refreshed first when needed), e.g. for a GraphQL or WebSocket call. */
  accessToken(): Promise<string>;
};

const apiBase = (url: string) => {
  const base = url.replace(/\/+$/, '');
  return base.endsWith('/api/v1') ? base : `${base}/api/v1`;
};

function withBearer(request: Request, token: string): Request {
  const r = request.clone();
  r.headers.set('authorization', `Bearer ${token}`);
  return r;
}

/** Adds a fresh Idempotency-Key to the operations the document marks, unless the caller gave one. */
const idempotencyKeys: Middleware = {
  onRequest({ request, schemaPath }) {
    if (!request.headers.has('idempotency-key') && IDEMPOTENT_OPERATIONS.has(`${request.method} ${schemaPath}`))
      request.headers.set('idempotency-key', crypto.randomUUID());
    return request;
  },
};

export function createBimaClient(o: BimaClientOptions): BimaClient {
  const baseUrl = apiBase(o.baseUrl);
  const fetchImpl = o.fetch ?? ((request: Request) => globalThis.fetch(request));
  const send = retrying(fetchImpl, o);
  const tokens = new TokenSource(createClient<paths>({ baseUrl, fetch: send }), o);

  const authorised = async (request: Request): Promise<Response> => {
    const first = await tokens.current();
    const response = await send(withBearer(request, first.token));
    if (response.status !== 401 || first.fresh) return response;
    // Refused although not new (revoked, or expired early): one new token, one more try.
    await response.body?.cancel();
    tokens.invalidate(first.token);
    return send(withBearer(request, (await tokens.current()).token));
  };

  const client = createClient<BimaPaths>({ baseUrl, fetch: authorised });
  client.use(idempotencyKeys);
  return Object.assign(client, { accessToken: async () => (await tokens.current()).token });
}
