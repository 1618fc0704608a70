import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppServices } from '../../context.ts';
import { AppError } from '../../lib/problem.ts';

/**
 * A path the service answers outside the API (/metrics, /docs, /dashboard): each page owns its files under
 * src/http/pages/ and says which paths are its own. The server asks them in order after the API's own paths.
 */
export interface Page {
  matches(pathname: string): boolean;
  handle(
    app: AppServices,
    req: IncomingMessage,
    res: ServerResponse,
    ctx: { url: URL; requestId: string; openapi: string },
  ): Promise<void>;
}

/** Pages answer GET and HEAD only: anything else is 405 with Allow. */
export function requireGetOrHead(req: IncomingMessage): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    throw new AppError('method_not_allowed', { detail: 'Use GET', headers: { allow: 'GET, HEAD' } });
  }
}

/** A 200 with `body` and its length; a HEAD request gets the headers alone. */
export function sendBody(
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  headers: Record<string, string>,
): void {
  res.writeHead(200, { ...headers, 'content-length': String(body.length) });
  res.end(req.method === 'HEAD' ? undefined : body);
}
