/**
 * The floor to compare the service against: a bare node:http server replaying, byte for byte, the responses the
 * service gave once for each scenario. It still reads each request body, as the service must, and picks the
 * answer by method, path and body, so it does the least work any server could do for the same exchange. A
 * scenario whose requests vary (each bind needs its own key and registration) is answered by method and path
 * alone, with the first response the service gave.
 *
 *   node --import tsx test/bench/baseline-server.ts <responses.json>   → prints {"port": N} once listening
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CapturedResponse {
  method: string;
  path: string;
  /** The request body the response answers (utf8), '' for none; null answers any body (varying requests). */
  requestBody: string | null;
  status: number;
  /** Flat [name, value, ...] as the service sent them. */
  rawHeaders: string[];
  bodyBase64: string;
}

// Per-connection or per-moment headers: Node writes its own for these.
const SKIP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date']);

const routeKey = (method: string, path: string, body: string | null) => `${method} ${path}\n${body ?? '\u0000any'}`;

function main(): void {
  const file = process.argv[2];
  if (!file) throw new Error('usage: baseline-server.ts <responses.json>');
  const captured = JSON.parse(readFileSync(file, 'utf8')) as CapturedResponse[];
  const routes = new Map<string, { status: number; headers: string[]; body: Buffer }>();
  for (const c of captured) {
    const body = Buffer.from(c.bodyBase64, 'base64');
    const headers: string[] = [];
    for (let i = 0; i < c.rawHeaders.length; i += 2) {
      const name = c.rawHeaders[i];
      if (!SKIP.has(name.toLowerCase()) && name.toLowerCase() !== 'content-length')
        headers.push(name, c.rawHeaders[i + 1]);
    }
    headers.push('content-length', String(body.length));
    routes.set(routeKey(c.method, c.path, c.requestBody), { status: c.status, headers, body });
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = req.method ?? 'GET';
      const url = req.url ?? '/';
      const hit =
        routes.get(routeKey(method, url, Buffer.concat(chunks).toString('utf8'))) ??
        routes.get(routeKey(method, url, null));
      if (!hit) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('no captured response for this request\n');
        return;
      }
      res.writeHead(hit.status, hit.headers);
      res.end(hit.body);
    });
  });
  // Same keep-alive policy as the service's server, so neither side pays for reconnects the other doesn't.
  server.keepAliveTimeout = 5_000;
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  });
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main();
