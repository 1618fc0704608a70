import { type Client, createClient } from 'graphql-ws';

/**
 * The dashboard speaks only the public API: a bearer token from POST /api/v1/oauth/token, GraphQL over HTTP for the
 * figures, graphql-ws on the same path for the live feed. The token lives in memory only; a reload signs out.
 */
export interface Session {
  token: string;
}

export interface SignIn {
  clientId?: string;
  clientSecret?: string;
  bearer?: string;
}

async function problem(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { detail?: string; title?: string; error_description?: string; code?: string };
    return body.detail ?? body.error_description ?? body.title ?? `HTTP ${res.status}`;
  } catch {
    return `HTTP ${res.status}`;
  }
}

export async function signIn(s: SignIn): Promise<Session> {
  const bearer = s.bearer?.trim().replace(/^Bearer\s+/i, '');
  if (bearer) return { token: bearer };
  const res = await fetch('/api/v1/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: s.clientId?.trim(), client_secret: s.clientSecret?.trim() }),
  });
  if (!res.ok) throw new Error(await problem(res));
  const body = (await res.json()) as { access_token: string };
  return { token: body.access_token };
}

export interface GqlResult<T> {
  data?: T;
  errors?: { message: string; extensions?: { code?: string } }[];
}

export async function gql<T>(session: Session, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${session.token}` },
    body: JSON.stringify({ query, variables }),
  });
  if (res.status === 401) throw new Error(await problem(res));
  return (await res.json()) as GqlResult<T>;
}

/** What the page hears of its WebSocket: connected, or closed (a close for lost authorization, 4401/4403, ends it). */
export interface LiveEvents {
  connected(): void;
  closed(code: number, reason: string, final: boolean): void;
}

/** One WebSocket for every subscription of the page. */
export function liveClient(session: Session, on: LiveEvents): Client {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  const authLost = (code: number) => code === 4401 || code === 4403;
  return createClient({
    url,
    connectionParams: { Authorization: `Bearer ${session.token}` },
    retryAttempts: 5,
    shouldRetry: (e) => !(e instanceof CloseEvent && authLost(e.code)),
    on: {
      connected: () => on.connected(),
      closed: (e) => {
        const c = e as CloseEvent;
        on.closed(c.code, c.reason, authLost(c.code));
      },
    },
  });
}
