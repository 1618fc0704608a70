import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Logger } from '../../../lib/logger.ts';
import type { MetricsPort, QueueDepth } from '../../../ports/metrics.ts';

/** The database pool as pg's Pool reports it. */
export interface PoolStats {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

/** Distinct GraphQL operation names kept as labels; later new names count as `other` (client-chosen text). */
const MAX_OPERATION_NAMES = 200;
const GRAPHQL_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** One prom-client registry per app, never the global default one (tests run several apps in one process). */
export function createMetrics(opts: { pool: PoolStats; poolMax: number; log: Logger }): MetricsPort {
  const registry = new Registry();
  const registers = [registry];
  const counters = createCounters(registers);
  let readQueues: (() => Promise<QueueDepth[]>) | undefined;
  new Gauge({
    name: 'bima_queue_jobs',
    help: 'pg-boss jobs per queue and state (created, retry, active), read at scrape time',
    labelNames: ['queue', 'state'],
    registers,
    async collect() {
      if (!readQueues) return;
      try {
        const depths = await readQueues();
        this.reset();
        for (const d of depths) this.set({ queue: d.queue, state: d.state }, d.count);
      } catch (err) {
        opts.log.warn({ err }, 'queue depths not read for /metrics');
      }
    },
  });
  poolGauges(registers, opts.pool, opts.poolMax);
  const operationNames = new Set<string>();
  let defaults = false;

  return {
    // Process metrics start with the first scrape: an app that is never scraped (most test apps) starts no monitor.
    async scrape() {
      if (!defaults) collectDefaultMetrics({ register: registry });
      defaults = true;
      return { contentType: registry.contentType, text: await registry.metrics() };
    },
    httpRequest({ method, route, status, seconds }) {
      const m = METHODS.has(method) ? method : 'OTHER';
      counters.http.inc({ method: m, route, status: String(status) });
      counters.httpSeconds.observe({ method: m, route }, seconds);
    },
    graphqlOperation({ type, name, outcome }) {
      let label = GRAPHQL_NAME.test(name) ? name : 'other';
      if (!operationNames.has(label) && operationNames.size >= MAX_OPERATION_NAMES) label = 'other';
      else operationNames.add(label);
      counters.graphql.inc({ type, operation: label, outcome });
    },
    jobOutcome(queue, outcome, count) {
      counters.jobs.inc({ queue, outcome }, count);
    },
    webhookAttempt(outcome, attempt) {
      counters.webhooks.inc({ outcome, attempt: String(attempt) });
    },
    paymentResult(resultCode, outcome) {
      counters.payments.inc({ result_code: Number.isInteger(resultCode) ? String(resultCode) : 'other', outcome });
    },
    watchQueues(read) {
      readQueues = read;
    },
  };
}

function createCounters(registers: Registry[]) {
  const counter = <L extends string>(name: string, help: string, labelNames: L[]) =>
    new Counter<L>({ name, help, labelNames, registers });
  return {
    http: counter('bima_http_requests_total', 'HTTP requests answered, by method, route template and status', [
      'method',
      'route',
      'status',
    ]),
    httpSeconds: new Histogram({
      name: 'bima_http_request_duration_seconds',
      help: 'Time from request to the last byte of the answer, by method and route template',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    graphql: counter(
      'bima_graphql_operations_total',
      'GraphQL operations over /graphql (HTTP and WebSocket), by type, operation name and outcome',
      ['type', 'operation', 'outcome'],
    ),
    jobs: counter(
      'bima_jobs_total',
      'pg-boss jobs run by this process, by queue and outcome (a batch that throws counts its jobs failed)',
      ['queue', 'outcome'],
    ),
    webhooks: counter(
      'bima_webhook_attempts_total',
      "Webhook delivery attempts, by the delivery's state after the attempt and the attempt's number",
      ['outcome', 'attempt'],
    ),
    payments: counter(
      'bima_payments_total',
      'Mobile-money payment results applied, by Daraja ResultCode and outcome (settled, failed, malformed)',
      ['result_code', 'outcome'],
    ),
  };
}

function poolGauges(registers: Registry[], pool: PoolStats, max: number): void {
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  gauge('bima_db_pool_connections', 'Connections open in the PostgreSQL pool', () => pool.totalCount);
  gauge('bima_db_pool_idle_connections', 'Open pool connections not in use', () => pool.idleCount);
  gauge('bima_db_pool_waiting_requests', 'Queries waiting for a pool connection', () => pool.waitingCount);
  gauge('bima_db_pool_max_connections', 'The pool size (DB_POOL_SIZE)', () => max);
}
