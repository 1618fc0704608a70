/**
 * The hand-written floor for the everyday paths: the work the service does for each of them, written by hand on bare
 * node:http and pg (hand-written SQL, no GraphQL, no Prisma, no REST facade), answering with the same status, content
 * type and body bytes as the service (run.ts checks that before measuring). One route table; each handler module owns
 * its paths.
 *
 *   DATABASE_URL=… node --import tsx test/bench/hand/server.ts   → prints {"port": N} once listening
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { AppError, toProblemDocument } from '../../../src/lib/problem.ts';
import type { HandAnswer, HandRoute } from './common.ts';

const modules = await Promise.all(
  ['./clients.ts', './policies.ts', './claims.ts', './erp.ts', './bind.ts', './stk.ts'].map((m) =>
    import(m).then(
      (x: { routes: HandRoute[] }) => x.routes,
      (err: unknown) => {
        if ((err as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') return [];
        throw err;
      },
    ),
  ),
);
const ROUTES: HandRoute[] = modules.flat();

function send(res: http.ServerResponse, a: HandAnswer): void {
  const buf = Buffer.isBuffer(a.body)
    ? a.body
    : Buffer.from(typeof a.body === 'string' ? a.body : JSON.stringify(a.body));
  res.writeHead(a.status, {
    ...a.headers,
    'content-type': a.contentType ?? 'application/json; charset=utf-8',
    'content-length': String(buf.length),
  });
  res.end(buf);
}

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) throw new Error('usage: DATABASE_URL=… hand/server.ts');
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20, application_name: 'bench-hand' });
  pool.on('error', () => undefined);

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      let params: string[] | null = null;
      const route = ROUTES.find((r) => {
        if (r.method !== req.method) return false;
        const m = r.pattern.exec(url.pathname);
        if (m) params = m.slice(1).map(decodeURIComponent);
        return !!m;
      });
      const answer = route
        ? route.handle({ pool, req, url, params: params ?? [], raw: Buffer.concat(chunks) })
        : Promise.reject(
            new AppError('not_found', { detail: `No hand-written handler for ${req.method} ${url.pathname}` }),
          );
      answer.then(
        (a) => send(res, a),
        (err: unknown) => {
          // Failures are never measured: a problem document close enough to the service's for a person to read.
          const e = err instanceof AppError ? err : new AppError('internal_error', { detail: String(err) });
          send(res, {
            status: e.status,
            contentType: 'application/problem+json; charset=utf-8',
            body: toProblemDocument(e, randomUUID()),
          });
        },
      );
    });
  });
  server.keepAliveTimeout = 5_000;
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  });
  const stop = () => {
    server.close(() => void pool.end().finally(() => process.exit(0)));
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  console.error(`hand-written service: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});
