import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  /** The raw received bytes: signatures are checked over these, before any JSON parsing (spec rule 4). */
  raw: Buffer;
  body: any;
  receivedAt: number;
}

/** What the receiver answers: a status, or `hang` to never answer (a timeout from the sender's side). */
export type Behaviour = { status: number; body?: string } | 'hang';

/** A real HTTP receiver on a free loopback port, recording every request. */
export class WebhookReceiver {
  readonly received: Received[] = [];
  behaviour: Behaviour = { status: 200, body: 'ok' };
  private server!: Server;
  private hanging: ServerResponse[] = [];
  url = '';

  async start(path = '/hook'): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        let body: unknown;
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          body = undefined;
        }
        this.received.push({ headers: req.headers, raw, body, receivedAt: Date.now() });
        const b = this.behaviour;
        if (b === 'hang') {
          this.hanging.push(res);
          return;
        }
        res.writeHead(b.status, { 'content-type': 'text/plain' });
        res.end(b.body ?? '');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
    return this;
  }

  forEvent(eventId: string): Received[] {
    return this.received.filter((r) => r.body?.id === eventId);
  }

  /** Bounded polling: pg-boss workers poll every 0.5 s, so arrivals take a moment. */
  async waitFor(cond: () => boolean, ms = 15_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > deadline)
        throw new Error(`receiver: condition not met within ${ms} ms (received ${this.received.length})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    for (const r of this.hanging) r.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Parses `t=…,v1=…[,v1=…]`. */
export function parseSignature(header: string): { t: number; v1: string[] } {
  const parts = header.split(',').map((p) => p.split('=', 2) as [string, string]);
  return { t: Number(parts.find(([k]) => k === 't')?.[1]), v1: parts.filter(([k]) => k === 'v1').map(([, v]) => v) };
}

/** A receiver's check per the spec: HMAC over "{t}.{raw bytes}", constant-time compare, t within 300 s. */
export function verifySignature(secret: string, header: string, raw: Buffer, now = Date.now()): boolean {
  const { t, v1 } = parseSignature(header);
  if (!Number.isInteger(t) || Math.abs(now / 1000 - t) > 300) return false;
  const expected = createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${t}.`), raw]))
    .digest();
  return v1.some((sig) => /^[0-9a-f]{64}$/.test(sig) && timingSafeEqual(Buffer.from(sig, 'hex'), expected));
}
