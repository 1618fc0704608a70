import { authenticate, type Credentials, type Principal } from '../auth/principal.ts';
import type { AppServices } from '../context.ts';
import { AppError, isAppError } from '../lib/problem.ts';

/**
 * Close codes of /graphql over WebSocket (docs/api-conventions.md "Subscriptions: authorization and limits"). Authorization failures
 * close with 4000 + the HTTP status REST answers for the same problem code, and the reason starts with that code.
 */
export const WS_CLOSE = {
  idle: 1000,
  /** Sent by `ws` itself for a message over WS_MAX_PAYLOAD_BYTES. */
  messageTooBig: 1009,
  /** The re-check could not reach the database: fail closed, but tell the client a retry may work. */
  tryAgainLater: 1013,
  unauthorized: 4401,
  forbidden: 4403,
  /** Sent by graphql-ws when connection_init does not arrive in time. */
  initTimeout: 4408,
} as const;

const MAX_REASON_BYTES = 123; // RFC 6455 §5.5: a close frame's payload is at most 125 bytes, 2 of them the code

function closeReason(text: string): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= MAX_REASON_BYTES) return text;
  // Cut on a character boundary so the frame stays valid UTF-8.
  return new TextDecoder().decode(buf.subarray(0, MAX_REASON_BYTES)).replace(/\uFFFD+$/, '');
}

export function closeFor(e: AppError): { code: number; reason: string } {
  return {
    code: e.status === 403 ? WS_CLOSE.forbidden : WS_CLOSE.unauthorized,
    reason: closeReason(`${e.code}: ${e.detail}`),
  };
}

type Close = (code: number, reason: string) => void;

/**
 * What the connection was granted at connection_init, and the check that it still holds. A socket can outlive its
 * token's rights by hours, so the grant is re-established (authenticate(): the principal cache, which every process
 * drops as soon as a revocation or scope change commits, else one indexed statement) before each event leaves, on an interval for quiet streams, and at the token's expiry; the first failure closes
 * the socket.
 */
export class ConnectionGrant {
  private checkedAt = Date.now();
  private pending: { startedAt: number; result: Promise<boolean> } | undefined;
  private ended = false;
  private idleRecheck: NodeJS.Timeout | undefined;
  private expiry: NodeJS.Timeout | undefined;

  constructor(
    readonly principal: Principal,
    private readonly credentials: Credentials,
    private readonly app: AppServices,
    private readonly close: Close,
  ) {
    const every = app.config.wsAuthIdleRecheckMs;
    if (every > 0) this.idleRecheck = setInterval(() => void this.recheck(Infinity), every).unref();
    this.armExpiry();
  }

  /** True when an event may be delivered now; false once the socket has been closed for lost authorization. */
  ensure(): Promise<boolean> {
    if (this.ended) return Promise.resolve(false);
    if (this.principal.token.expiresAt.getTime() <= Date.now()) return Promise.resolve(this.expire());
    // A burst of events shares one lookup; the window is short so a revocation binds within it.
    const windowMs = this.app.config.wsAuthRecheckMs;
    if (Date.now() - this.checkedAt < windowMs) return Promise.resolve(true);
    return this.recheck(windowMs);
  }

  dispose(): void {
    this.ended = true;
    clearInterval(this.idleRecheck);
    clearTimeout(this.expiry);
  }

  /** Joins a lookup already under way if it began less than `maxAgeMs` ago: one that began earlier may predate a revocation. */
  private recheck(maxAgeMs: number): Promise<boolean> {
    if (this.ended) return Promise.resolve(false);
    if (this.pending && Date.now() - this.pending.startedAt < maxAgeMs) return this.pending.result;
    const pending = { startedAt: Date.now(), result: Promise.resolve(false) };
    pending.result = this.lookup(pending.startedAt).finally(() => {
      if (this.pending === pending) this.pending = undefined;
    });
    this.pending = pending;
    return pending.result;
  }

  private async lookup(startedAt: number): Promise<boolean> {
    try {
      const now = await authenticate(this.app.auth, this.credentials);
      const narrowed = narrowing(this.principal, now);
      if (narrowed) return this.end(closeFor(narrowed));
      this.checkedAt = Math.max(this.checkedAt, startedAt);
      return !this.ended;
    } catch (e) {
      if (isAppError(e)) return this.end(closeFor(e));
      this.app.log.error(
        { err: e, client_id: this.principal.apiClient.clientId },
        'WebSocket authorization re-check failed',
      );
      return this.end({
        code: WS_CLOSE.tryAgainLater,
        reason: 'service_unavailable: authorization could not be re-checked',
      });
    }
  }

  private armExpiry(): void {
    // setTimeout holds at most 2^31-1 ms (~24.8 days); a longer-lived token re-arms when that fires.
    const left = this.principal.token.expiresAt.getTime() - Date.now();
    this.expiry = setTimeout(
      () => (left > 2 ** 31 - 1 ? this.armExpiry() : this.expire()),
      Math.max(0, Math.min(left, 2 ** 31 - 1)),
    ).unref();
  }

  private expire(): false {
    return this.end(closeFor(new AppError('invalid_token', { detail: 'The access token has expired' })));
  }

  private end(how: { code: number; reason: string }): false {
    if (!this.ended) {
      this.dispose();
      this.app.log.info(
        { tenant: this.principal.tenant.code, client_id: this.principal.apiClient.clientId, ...how },
        'WebSocket closed: authorization no longer holds',
      );
      this.close(how.code, how.reason);
    }
    return false;
  }
}

/**
 * authenticate() refuses what no longer authenticates at all; this catches a principal that still authenticates
 * with fewer rights than the connection was granted. Subscriptions were authorised against the granted rights, and
 * re-deciding each field's rule here would copy it, so any loss closes the connection (reconnecting re-authorises).
 */
function narrowing(granted: Principal, now: Principal): AppError | null {
  const lost = [...granted.scopes].filter((s) => !now.scopes.has(s));
  if (lost.length)
    return new AppError('insufficient_scope', {
      detail: `Scope ${lost.map((s) => `'${s}'`).join(', ')} was removed from this key`,
    });
  const who = (p: Principal) =>
    p.actor ? `${p.actor.userId}/${p.actor.role}/${p.actor.branchId}/${p.actor.ownRecordsOnly}` : 'none';
  if (who(granted) !== who(now))
    return new AppError('actor_forbidden', { detail: 'The key now acts as another user or role' });
  return null;
}

/** Subscriptions held per access token across every WebSocket of this process. */
export class TokenSubscriptions {
  private readonly held = new Map<number, number>();
  constructor(private readonly max: number) {}

  take(tokenId: number): boolean {
    const n = this.held.get(tokenId) ?? 0;
    if (n >= this.max) return false;
    this.held.set(tokenId, n + 1);
    return true;
  }

  release(tokenId: number): void {
    const n = (this.held.get(tokenId) ?? 1) - 1;
    if (n > 0) this.held.set(tokenId, n);
    else this.held.delete(tokenId);
  }
}

/** One authenticated WebSocket: its grant, the subscriptions it holds, and the idle timer that runs while it holds none. */
export class WsSession {
  private readonly subscriptions = new Set<string>();
  private idle: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(
    readonly grant: ConnectionGrant,
    private readonly perToken: TokenSubscriptions,
    private readonly app: AppServices,
    private readonly close: Close,
  ) {
    this.armIdle();
  }

  /** Reserves a slot for subscription `id`, or the rate_limited error to answer it with. */
  take(id: string): AppError | null {
    const { wsMaxSubscriptionsPerConnection: perConnection, wsMaxSubscriptionsPerToken: perToken } = this.app.config;
    if (this.subscriptions.size >= perConnection) {
      return new AppError('rate_limited', {
        detail: `At most ${perConnection} subscriptions per connection`,
        extra: { limit: perConnection },
      });
    }
    if (!this.perToken.take(this.grant.principal.token.id)) {
      return new AppError('rate_limited', {
        detail: `At most ${perToken} subscriptions per access token`,
        extra: { limit: perToken },
      });
    }
    this.subscriptions.add(id);
    this.armIdle();
    return null;
  }

  /** Idempotent: graphql-ws may report a subscription's end after the socket has closed. */
  release(id: string): void {
    if (!this.subscriptions.delete(id)) return;
    this.perToken.release(this.grant.principal.token.id);
    this.armIdle();
  }

  /** Any operation counts as activity. */
  touch(): void {
    this.armIdle();
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.idle);
    this.grant.dispose();
    for (const id of [...this.subscriptions]) this.release(id);
  }

  private armIdle(): void {
    clearTimeout(this.idle);
    this.idle = undefined;
    const ms = this.app.config.wsIdleTimeoutMs;
    if (this.disposed || ms <= 0 || this.subscriptions.size > 0) return;
    this.idle = setTimeout(
      () => this.close(WS_CLOSE.idle, `idle: no subscription for ${Math.round(ms / 1000)} s`),
      ms,
    ).unref();
  }
}

/**
 * The stream graphql-ws sends from, with the grant re-checked before each result leaves: one place for every
 * subscription field. A failed check has already closed the socket; the stream then ends without that result.
 */
export function guardStream<T>(source: AsyncIterable<T>, grant: ConnectionGrant): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  const guarded: AsyncGenerator<T> = {
    async next() {
      const r = await it.next();
      if (r.done || (await grant.ensure())) return r;
      await it.return?.();
      return { done: true, value: undefined };
    },
    return: (value?: unknown) => (it.return ? it.return(value) : Promise.resolve({ done: true, value })),
    throw: (e?: unknown) => (it.throw ? it.throw(e) : Promise.reject(e instanceof Error ? e : new Error(String(e)))),
    [Symbol.asyncIterator]: () => guarded,
  } as AsyncGenerator<T>;
  return guarded;
}
