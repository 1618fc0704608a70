/**
 * What the service counts for Prometheus (/metrics). Modules, workers and the transport report through this port
 * (`app.metrics`, built in src/app.ts by src/http/pages/metrics/registry.ts); none of them imports prom-client.
 * Every label value passed here must come from a bounded set: route templates, operation names, queue names,
 * result codes, never an id, a token or free text.
 */
export interface MetricsPort {
  /** One HTTP request answered (src/server.ts, when the response finishes). */
  httpRequest(r: { method: string; route: string; status: number; seconds: number }): void;
  /** One GraphQL operation executed over /graphql (HTTP or WebSocket). */
  graphqlOperation(o: { type: string; name: string; outcome: 'ok' | 'error' }): void;
  /** A batch of pg-boss jobs handed to a worker, by how its handler ended. */
  jobOutcome(queue: string, outcome: 'completed' | 'failed', count: number): void;
  /** One webhook delivery attempt recorded: the delivery's state after it and the attempt's number. */
  webhookAttempt(outcome: string, attempt: number): void;
  /** A mobile-money payment's result applied (once per payment request): Daraja ResultCode and what it did. */
  paymentResult(resultCode: number, outcome: string): void;
  /** Where pg-boss runs: how queue depths are read at scrape time. */
  watchQueues(read: () => Promise<QueueDepth[]>): void;
  /** The Prometheus text exposition of everything counted so far (GET /metrics). */
  scrape(): Promise<{ contentType: string; text: string }>;
}

/** Jobs of one queue in one state (pg-boss: created, retry, active). */
export interface QueueDepth {
  queue: string;
  state: string;
  count: number;
}

/** Counts nothing: for a process that serves no /metrics (the admin CLI) and still runs services that report. */
export const NO_METRICS: MetricsPort = {
  httpRequest: () => undefined,
  graphqlOperation: () => undefined,
  jobOutcome: () => undefined,
  webhookAttempt: () => undefined,
  paymentResult: () => undefined,
  watchQueues: () => undefined,
  scrape: () => Promise.resolve({ contentType: 'text/plain; version=0.0.4; charset=utf-8', text: '' }),
};
