import cluster, { type Worker } from 'node:cluster';
import { AppError } from './problem.ts';
import type { RateLimitDecision, RateLimitRule, RateLimitStore } from './rate-limit-decision.ts';

/**
 * Rate limits shared by the HTTP workers of one node:cluster primary (WEB_CONCURRENCY > 1, no REDIS_URL): the primary
 * holds the one store (the memory store: an exact sliding log), and each worker asks it over the cluster's IPC channel,
 * one request/response per hit, matched by id. The primary decides each hit synchronously in its event loop, so the
 * counters are as exact as in one process. A worker whose primary has gone (or does not answer within the timeout)
 * fails closed: the hit is refused with 503 `service_unavailable`, never waved through uncounted.
 */

const REQUEST = 'bima:rate-limit';
const REPLY = 'bima:rate-limit-reply';

interface HitRequest {
  type: typeof REQUEST;
  id: number;
  op: 'hit' | 'peek';
  rule: RateLimitRule;
  key: string;
  now: number;
  cost: number;
}

interface HitReply {
  type: typeof REPLY;
  id: number;
  decision?: RateLimitDecision;
  error?: string;
}

function isRequest(m: unknown): m is HitRequest {
  return typeof m === 'object' && m !== null && (m as { type?: unknown }).type === REQUEST;
}

function isReply(m: unknown): m is HitReply {
  return typeof m === 'object' && m !== null && (m as { type?: unknown }).type === REPLY;
}

function unavailable(why: string): AppError {
  return new AppError('service_unavailable', {
    detail: `Rate limits cannot be checked (${why}); the request was not served`,
    headers: { 'Retry-After': '1' },
  });
}

interface Pending {
  resolve(d: RateLimitDecision): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

/** The worker's side: a store whose every decision is the primary's. */
export class ClusterRateLimitStore implements RateLimitStore {
  readonly #pending = new Map<number, Pending>();
  readonly #timeoutMs: number;
  #nextId = 1;
  #closed = false;

  readonly #onMessage = (m: unknown) => {
    if (!isReply(m)) return;
    const p = this.#pending.get(m.id);
    if (!p) return; // timed out meanwhile
    this.#settle(m.id);
    if (m.decision) p.resolve(m.decision);
    else p.reject(new Error(`rate limit store (cluster primary): ${m.error ?? 'no decision'}`));
  };

  readonly #onDisconnect = () => this.#failAll('the cluster primary has gone');

  constructor(opts: { timeoutMs?: number } = {}) {
    if (!process.send) throw new Error('ClusterRateLimitStore runs in a node:cluster worker (no IPC channel here)');
    this.#timeoutMs = opts.timeoutMs ?? 5_000;
    process.on('message', this.#onMessage);
    process.on('disconnect', this.#onDisconnect);
  }

  hit(rule: RateLimitRule, key: string, now: number = Date.now(), cost = 1): Promise<RateLimitDecision> {
    return this.#ask('hit', rule, key, now, cost);
  }

  peek(rule: RateLimitRule, key: string, now: number = Date.now(), cost = 1): Promise<RateLimitDecision> {
    return this.#ask('peek', rule, key, now, cost);
  }

  #ask(op: HitRequest['op'], rule: RateLimitRule, key: string, now: number, cost: number): Promise<RateLimitDecision> {
    if (this.#closed) return Promise.reject(unavailable('this process is stopping'));
    if (!process.connected || !process.send) return Promise.reject(unavailable('the cluster primary has gone'));
    const id = this.#nextId++;
    const request: HitRequest = { type: REQUEST, id, op, rule: { ...rule }, key, now, cost };
    return new Promise<RateLimitDecision>((resolve, reject) => {
      const timer = setTimeout(
        () => this.#fail(id, `the cluster primary did not answer within ${this.#timeoutMs} ms`),
        this.#timeoutMs,
      );
      this.#pending.set(id, { resolve, reject, timer });
      process.send!(request, undefined, undefined, (err: Error | null) => {
        if (err) this.#fail(id, `the cluster primary cannot be reached: ${err.message}`);
      });
    });
  }

  #settle(id: number): void {
    const p = this.#pending.get(id);
    if (p) clearTimeout(p.timer);
    this.#pending.delete(id);
  }

  #fail(id: number, why: string): void {
    const p = this.#pending.get(id);
    if (!p) return;
    this.#settle(id);
    p.reject(unavailable(why));
  }

  #failAll(why: string): void {
    for (const id of [...this.#pending.keys()]) this.#fail(id, why);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#failAll('this process is stopping');
    process.off('message', this.#onMessage);
    process.off('disconnect', this.#onDisconnect);
  }
}

/**
 * The primary's side: answers every worker's hits from `store` (the primary's own MemoryRateLimitStore). Returns a
 * function that stops answering.
 */
export function serveClusterRateLimits(store: RateLimitStore): () => void {
  const reply = (worker: Worker, m: HitReply) => {
    // A worker that died meanwhile needs no answer.
    if (worker.isConnected()) worker.send(m, undefined, () => undefined);
  };
  const onMessage = (worker: Worker, m: unknown) => {
    if (!isRequest(m)) return;
    const decided = m.op === 'hit' ? store.hit(m.rule, m.key, m.now, m.cost) : store.peek(m.rule, m.key, m.now, m.cost);
    decided.then(
      (decision) => reply(worker, { type: REPLY, id: m.id, decision }),
      (err: unknown) =>
        reply(worker, { type: REPLY, id: m.id, error: err instanceof Error ? err.message : String(err) }),
    );
  };
  cluster.on('message', onMessage);
  return () => void cluster.off('message', onMessage);
}
