import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, isAppError, toProblemDocument } from '../lib/problem.ts';
import type { Logger } from '../lib/logger.ts';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendText(res, status, JSON.stringify(body), { 'content-type': 'application/json; charset=utf-8', ...headers });
}

export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string>): void {
  if (res.headersSent) return;
  const buf = Buffer.from(text);
  res.writeHead(status, { ...headers, 'content-length': String(buf.length) });
  res.end(buf);
}

/** Any error → problem document. Non-AppErrors are logged and masked: no stack or SQL ever leaves the process. */
export function sendProblem(res: ServerResponse, req: IncomingMessage, err: unknown, requestId: string, log: Logger, extraHeaders: Record<string, string> = {}): void {
  let appErr: AppError;
  if (isAppError(err)) appErr = err;
  else {
    log.error({ err }, 'unhandled error');
    appErr = new AppError('internal_error', { detail: 'An unexpected error occurred; quote the request id when reporting it' });
  }
  const doc = toProblemDocument(appErr, requestId, req.url?.split('?')[0]);
  sendText(res, appErr.status, JSON.stringify(doc), {
    'content-type': 'application/problem+json; charset=utf-8',
    ...extraHeaders,
    ...(appErr.headers ?? {}),
  });
}
