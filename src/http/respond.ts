import { AsyncSlot } from '../lib/async-slot.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { AppError, isAppError, overloadError, toProblemDocument } from '../lib/problem.ts';
import type { Logger } from '../lib/logger.ts';

/**
 * The request id of the HTTP request being served, for code that logs a failure without the request's context in
 * reach (GraphQL's error masking). src/server.ts enters it for every request.
 */
export const requestScope = new AsyncSlot<{ requestId: string }>();
export const currentRequestId = (): string | undefined => requestScope.getStore()?.requestId;

/**
 * A request's path as logs may show it: no query string, and the M-Pesa callback token (a credential that lets its
 * holder post callbacks for the organisation; STK callbacks, B2C Results and SMS delivery reports carry it) replaced, so a log reader cannot
 * lift it.
 */
export function loggedPath(url: string | undefined): string | undefined {
  return url
    ?.split('?')[0]!
    .replace(
      /(\/(?:payment\/(?:callback\/mpesa|b2c\/result|b2c\/timeout)|sms\/delivery-report)\/)[^/]*/i,
      '$1[redacted]',
    );
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendText(res, status, JSON.stringify(body), { 'content-type': 'application/json; charset=utf-8', ...headers });
}

export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string>): void {
  if (res.headersSent) return;
  // The text as it is, not copied into a Buffer first: node writes a response's head and a string body together,
  // encoded once, in one write to the socket.
  res.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(text)) });
  res.end(text, 'utf8');
}

/** Bytes as they are (a downloaded document): the caller sets the content type. */
export function sendBytes(
  res: ServerResponse,
  status: number,
  bytes: Uint8Array,
  headers: Record<string, string>,
): void {
  if (res.headersSent) return;
  res.writeHead(status, { ...headers, 'content-length': String(bytes.byteLength) });
  res.end(bytes);
}

/** Writes and waits for the socket to take it; false when the client went away (nothing more to send). */
export async function writeDrained(res: ServerResponse, chunk: string | Uint8Array): Promise<boolean> {
  if (res.destroyed) return false;
  if (res.write(chunk)) return true;
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
  return !res.destroyed;
}

/** Any error → problem document. Non-AppErrors are logged and masked: no stack or SQL ever leaves the process. */
export function sendProblem(
  res: ServerResponse,
  req: IncomingMessage,
  err: unknown,
  requestId: string,
  log: Logger,
  extraHeaders: Record<string, string> = {},
): void {
  let appErr: AppError;
  const overload = overloadError(err);
  if (isAppError(err)) appErr = err;
  else if (overload) {
    log.warn({ err, request_id: requestId }, 'database pool exhausted');
    appErr = overload;
  } else {
    log.error({ err, request_id: requestId, method: req.method, path: loggedPath(req.url) }, 'unhandled error');
    appErr = new AppError('internal_error', {
      detail: 'An unexpected error occurred; quote the request id when reporting it',
    });
  }
  // A response already under way cannot turn into a problem; cutting the connection at least tells the client it is
  // incomplete, where returning would leave it waiting for an end that never comes.
  if (res.headersSent) {
    if (!res.writableEnded) res.destroy();
    return;
  }
  const doc = toProblemDocument(appErr, requestId, req.url?.split('?')[0]);
  sendText(res, appErr.status, JSON.stringify(doc), {
    'content-type': 'application/problem+json; charset=utf-8',
    ...extraHeaders,
    ...(appErr.headers ?? {}),
  });
}

/**
 * A whole HTTP/1.1 problem response as bytes, for a socket Node's parser has given up on (no ServerResponse exists).
 * The connection closes after it: the parser cannot find the start of a next request in what follows.
 */
export function rawProblemResponse(err: AppError, requestId: string): Buffer {
  const body = Buffer.from(JSON.stringify(toProblemDocument(err, requestId)));
  const head = [
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? 'Error'}`,
    'content-type: application/problem+json; charset=utf-8',
    `content-length: ${body.length}`,
    `x-request-id: ${requestId}`,
    'x-content-type-options: nosniff',
    ...Object.entries(err.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    'connection: close',
  ];
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
}
