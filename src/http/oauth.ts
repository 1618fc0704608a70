import type { IncomingMessage, ServerResponse } from 'node:http';
import { issueToken, type TokenRequest } from '../auth/token.service.ts';
import type { AppServices } from '../context.ts';
import { AppError } from '../lib/problem.ts';
import { rateLimitHeaders } from '../lib/rate-limit.ts';
import { hasUnstorableText, mediaType, readBody, UNSTORABLE_TEXT, utf8OrRefuse } from './body.ts';
import { allowHeader, answerOptions, corsPolicy, setCorsHeaders } from './cors.ts';
import { checkQueryEncoding } from './query-encoding.ts';
import { enforceTokenEndpointLimit } from './rate-limits.ts';
import { sendJson } from './respond.ts';

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Reads the grant from JSON, form or HTTP Basic, accepting the legacy {key, passkey} spellings. */
export function parseTokenRequest(req: IncomingMessage, raw: Buffer): TokenRequest {
  let fields: Record<string, unknown> = {};
  const type = mediaType(req);
  if (raw.length) {
    const text = utf8OrRefuse(raw, 'The token request body is not valid UTF-8');
    if (type === 'application/x-www-form-urlencoded') {
      // Held to the query string's rule: `client_secret=%FF` was read as U+FFFD and answered invalid_client.
      checkQueryEncoding(`?${text}`, 'the form body');
      fields = Object.fromEntries(new URLSearchParams(text));
    } else if (type === 'application/json' || type === '') {
      try {
        const parsed = JSON.parse(text) as unknown;
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
        fields = parsed as typeof fields;
      } catch {
        throw new AppError('invalid_request', { detail: 'Token request body must be a JSON object or a form' });
      }
    } else
      throw new AppError('invalid_request', {
        detail: 'Send the token request as JSON or application/x-www-form-urlencoded',
      });
  }
  let clientId = str(fields.client_id) ?? str(fields.key);
  let clientSecret = str(fields.client_secret) ?? str(fields.passkey);
  const auth = req.headers.authorization;
  if (auth && /^Basic\s+/i.test(auth)) {
    const decoded = Buffer.from(auth.replace(/^Basic\s+/i, ''), 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    if (i < 0) throw new AppError('invalid_request', { detail: 'Malformed HTTP Basic credentials' });
    // RFC 6749 §2.3.1: both parts are form-urlencoded before base64.
    const formDecode = (part: string) => {
      try {
        return decodeURIComponent(part.replace(/\+/g, ' '));
      } catch {
        throw new AppError('invalid_request', { detail: 'Malformed HTTP Basic credentials' });
      }
    };
    const basicId = formDecode(decoded.slice(0, i));
    const basicSecret = formDecode(decoded.slice(i + 1));
    if ((clientId && clientId !== basicId) || (clientSecret && clientSecret !== basicSecret)) {
      throw new AppError('invalid_request', { detail: 'Use one client authentication method, not two' });
    }
    clientId = basicId;
    clientSecret = basicSecret;
  }
  const grant = { grantType: str(fields.grant_type), clientId, clientSecret, scope: str(fields.scope) };
  // The client id is looked up in PostgreSQL, which cannot hold U+0000: a 400 here, not a failed query.
  if (hasUnstorableText(grant)) throw new AppError('invalid_request', { detail: UNSTORABLE_TEXT });
  return grant;
}

export async function handleToken(
  app: AppServices,
  req: IncomingMessage,
  res: ServerResponse,
  ip: string,
): Promise<void> {
  // The same allowlist as the rest of /api/v1: a page elsewhere must not read a token answer.
  const cors = corsPolicy(app.config.corsOrigins);
  if (req.method === 'OPTIONS') return answerOptions(res, cors, req, ['POST']);
  setCorsHeaders(res, cors.headers(req.headers.origin));
  if (req.method !== 'POST')
    throw new AppError('method_not_allowed', { detail: 'Use POST', headers: { allow: allowHeader(['POST']) } });
  const limit = await enforceTokenEndpointLimit(app, ip);
  // RFC 6749 §5.1: the token answer must not be cached, errors included.
  const headers = { ...rateLimitHeaders(limit), 'cache-control': 'no-store', pragma: 'no-cache' };
  try {
    const raw = await readBody(req, 16 * 1024);
    const token = await issueToken(app.db, parseTokenRequest(req, raw), { ttlSeconds: app.config.tokenTtlSeconds });
    sendJson(res, 200, token, headers);
  } catch (e) {
    if (e instanceof AppError) {
      // OAuth client libraries read `error`; our integrators read `code`. Carry both.
      const extraHeaders: Record<string, string> = { ...headers, ...(e.headers ?? {}) };
      if (e.code === 'invalid_client' && /^Basic/i.test(req.headers.authorization ?? ''))
        extraHeaders['www-authenticate'] = 'Basic realm="bima-gateway"';
      throw new AppError(e.code, {
        detail: e.detail,
        status: e.status,
        extra: { ...(e.extra ?? {}), error: e.code },
        headers: extraHeaders,
      });
    }
    throw e;
  }
}
