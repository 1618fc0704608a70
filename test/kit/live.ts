import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';

/** The simulator's documented test numbers (docs/payments.md "Simulated M-Pesa"). */
export const PHONES = {
  success: '254708374149',
  cancelled: '254700000001',
  timeout: '254700000002',
  insufficient: '254700000003',
  wrongPin: '254700000004',
  noCallback: '254700000005',
} as const;

/** A graphql-ws subscription whose payloads are recorded for the test to wait on. */
export class Live<T = any> {
  readonly events: T[] = [];
  readonly errors: unknown[] = [];
  constructor(client: Client, query: string, field: string) {
    client.subscribe<Record<string, T>>(
      { query },
      {
        next: (r) => {
          if (r.errors) this.errors.push(...r.errors);
          if (r.data?.[field]) this.events.push(r.data[field]);
        },
        error: (e) => this.errors.push(e),
        complete: () => undefined,
      },
    );
  }

  async until(cond: () => boolean, ms = 15_000): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > deadline) return false;
      await new Promise((res) => setTimeout(res, 50));
    }
    return true;
  }
}

export function wsClient(origin: string, token: string, headers: Record<string, string> = {}): Client {
  return createClient({
    url: `${origin.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { Authorization: `Bearer ${token}`, ...headers },
    retryAttempts: 0,
    lazy: true,
  });
}
