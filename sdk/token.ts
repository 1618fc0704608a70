/**
 * The OAuth 2.0 client-credentials token of a BimaClient: fetched on first use (POST /oauth/token), reused until
 * shortly before it expires, then fetched again; callers that ask at the same moment share one request.
 */
import type { Client } from 'openapi-fetch';
import type { components, paths } from './generated/schema.js';

type Problem = components['schemas']['Problem'];

/** An answer of the service that the SDK could not turn into what was asked (the token endpoint's refusal). */
export class BimaApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Partial<Problem> | undefined,
  ) {
    super(`${status} ${problem?.code ?? 'error'}: ${problem?.detail ?? problem?.title ?? 'the service refused'}`);
    this.name = 'BimaApiError';
  }
}

export interface TokenOptions {
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes to ask for (default all the client has). */
  scope?: string;
  /** Refresh this long before the token expires (default 60 s; at most half its lifetime). */
  refreshSkewSeconds?: number;
  /** The time in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
}

interface Held {
  token: string;
  refreshAt: number;
}

export class TokenSource {
  #held?: Held;
  #pending?: Promise<Held>;

  constructor(
    private readonly api: Client<paths>,
    private readonly o: TokenOptions,
  ) {}

  /** The token to use now; `fresh` when it was fetched for this call (a 401 then is not about its age). */
  async current(): Promise<{ token: string; fresh: boolean }> {
    const held = this.#held;
    if (held && this.now() < held.refreshAt) return { token: held.token, fresh: false };
    this.#pending ??= this.fetchToken().finally(() => (this.#pending = undefined));
    return { token: (await this.#pending).token, fresh: true };
  }

  /** Forgets the token if it is still the one held (the service refused it), so the next call fetches another. */
  invalidate(token: string): void {
    if (this.#held?.token === token) this.#held = undefined;
  }

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  private async fetchToken(): Promise<Held> {
    const { clientId, clientSecret, scope } = this.o;
    const { data, error, response } = await this.api.POST('/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, scope },
    });
    if (!data) throw new BimaApiError(response.status, error);
    const lifetime = data.expires_in * 1000;
    const skew = Math.min((this.o.refreshSkewSeconds ?? 60) * 1000, lifetime / 2);
    this.#held = { token: data.access_token, refreshAt: this.now() + lifetime - skew };
    return this.#held;
  }
}
