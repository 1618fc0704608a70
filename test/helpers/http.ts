import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { checkAnswer, checkGraphqlAnswer } from './contract.ts';

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  idempotencyKey?: string;
}

/** A thin fetch wrapper over the running server: real HTTP, no shortcuts. */
export class Api {
  readonly #origin: string | (() => string);
  /** `origin` may be a function, for a client made before its server has started (the kit's). */
  constructor(origin: string | (() => string)) {
    this.#origin = origin;
  }

  get origin(): string {
    return typeof this.#origin === 'function' ? this.#origin() : this.#origin;
  }

  get base(): string {
    return `${this.origin}/api/v1`;
  }

  async call<T = any>(method: string, path: string, o: CallOptions = {}): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.idempotencyKey !== undefined) headers['idempotency-key'] = o.idempotencyKey;
    let body: string | undefined = o.rawBody;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const url = path.startsWith('http') ? path : `${this.base}${path}`;
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    const result = { status: res.status, headers: res.headers, body: parsed as T, text };
    checkAnswer(method, url, result);
    return result;
  }

  get<T = any>(path: string, o?: CallOptions) {
    return this.call<T>('GET', path, o);
  }
  post<T = any>(path: string, o?: CallOptions) {
    return this.call<T>('POST', path, o);
  }
  patch<T = any>(path: string, o?: CallOptions) {
    return this.call<T>('PATCH', path, o);
  }

  /**
   * A token for a test's setup. A 503 (the service shedding load while two test files share the machine's two cores:
   * its pool had no connection in time) is retried after its Retry-After, as the API asks of every client; anything
   * else fails the setup at once.
   */
  async token(clientId: string, clientSecret: string, scope?: string): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      const r = await this.post('/oauth/token', {
        body: { client_id: clientId, client_secret: clientSecret, ...(scope ? { scope } : {}) },
      });
      if (r.status === 503 && attempt < 5) {
        await new Promise((done) => setTimeout(done, 1000 * (Number(r.headers.get('retry-after')) || 1)));
        continue;
      }
      if (r.status !== 200) throw new Error(`token request failed: ${r.status} ${r.text}`);
      return r.body.access_token;
    }
  }

  async gql<T = any>(
    query: string,
    variables: Record<string, unknown> = {},
    o: { token?: string; headers?: Record<string, string> } = {},
  ) {
    const res = await fetch(`${this.origin}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
        ...(o.headers ?? {}),
      },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { data?: T; errors?: any[] };
    checkGraphqlAnswer(query, variables, body);
    return { status: res.status, headers: res.headers, body };
  }
}

/**
 * The one problem-document assertion: the status, RFC 9457 content type, the stable `code`, `status` repeated in the
 * body, and the request id the body quotes being the response's `X-Request-Id`. `field` (optional) must be among the
 * field errors.
 */
export function expectProblem(r: HttpResult, status: number, code: string, field?: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get('content-type'), r.text).toMatch(/^application\/problem\+json/);
  expect(r.body.code, r.text).toBe(code);
  expect(r.body.status, r.text).toBe(status);
  expect(r.body.request_id, r.text).toBe(r.headers.get('x-request-id'));
  if (field)
    expect(
      r.body.errors?.map((e: { field: string }) => e.field),
      r.text,
    ).toContain(field);
}

/** Creating a webhook endpoint at `url` is refused: 422 validation_failed naming `url` with `message`. */
export async function expectEndpointUrlRefused(api: Api, token: string, url: string, message: string): Promise<void> {
  const r = await api.post('/webhooks/endpoints', {
    token,
    idempotencyKey: randomUUID(),
    body: { url, events: ['*'] },
  });
  expectProblem(r, 422, 'validation_failed');
  expect(r.body.errors).toEqual([{ field: 'url', message }]);
}
