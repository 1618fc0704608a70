/**
 * Answers for sockets Node gives no ServerResponse: bytes its parser rejected, and CONNECT. Each gets a problem
 * document written on the raw socket, where Node would otherwise send a bare status line or drop the connection.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { requestIdFrom } from '../context.ts';
import type { Logger } from '../lib/logger.ts';
import { AppError } from '../lib/problem.ts';
import { rawProblemResponse } from './respond.ts';

/** CONNECT is not a request Node routes to the listener: without an answer the connection is dropped silently. */
export function answerConnect(req: IncomingMessage, socket: Duplex): void {
  socket.on('error', () => socket.destroy());
  socket.resume(); // drain what the client sends after the request line: nothing here reads it
  const err = new AppError('method_not_allowed', {
    detail: 'This server is not a proxy',
    headers: { allow: 'GET, POST, PATCH, DELETE' },
  });
  socket.end(rawProblemResponse(err, requestIdFrom(req.headers['x-request-id'] as string | undefined)));
  setTimeout(() => socket.destroy(), 2_000).unref();
}

/**
 * Bytes Node's parser rejected (bad request line, header overflow, header timeout): a problem on the raw socket.
 * `pendingResponse` holds the newest response per connection, so the problem waits for answers still being written.
 */
export function unparsedRequestAnswerer(
  log: Logger,
  pendingResponse: WeakMap<Duplex, ServerResponse>,
): (err: NodeJS.ErrnoException, socket: Duplex) => void {
  const answered = new WeakSet<Duplex>();
  return function answerUnparsed(err, socket) {
    if (answered.has(socket)) return;
    answered.add(socket);
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || !socket.writable) {
      socket.destroy();
      return;
    }
    const requestId = requestIdFrom(undefined);
    const problem = unparsedProblem(err);
    log.warn({ request_id: requestId, reason: err.code, status: problem.status }, 'unparseable request');
    const send = () => {
      if (!socket.writable) return void socket.destroy();
      // Half-close and keep reading for a moment rather than destroy: closing with the client's bytes unread (the rest
      // of an oversized header) makes the kernel send a reset, which can discard this answer before it is read.
      socket.end(rawProblemResponse(problem, requestId));
      setTimeout(() => socket.destroy(), 2_000).unref();
    };
    const pending = pendingResponse.get(socket);
    if (pending && !pending.writableFinished) pending.once('close', send);
    else send();
  };
}

function unparsedProblem(err: NodeJS.ErrnoException): AppError {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return new AppError('headers_too_large', {
      detail: `Request line and headers are limited to ${http.maxHeaderSize} bytes`,
    });
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new AppError('request_timeout', { detail: 'The request was not received in time' });
  }
  return new AppError('invalid_request', { detail: 'The request could not be parsed as HTTP/1.1' });
}
