import type { IncomingMessage, ServerResponse } from 'node:http';
import ipaddr from 'ipaddr.js';
import type { AppServices } from '../context.ts';
import { AppError } from '../lib/problem.ts';
import { tenantForCallbackToken } from '../modules/payments/callback-token.ts';
import { receiveCallback } from '../modules/payments/confirm.service.ts';
import { CALLBACK_PATH } from '../modules/payments/payment.service.ts';
import { readBody } from './body.ts';
import { sendJson } from './respond.ts';

export const isMpesaCallbackPath = (pathname: string) => pathname.startsWith(`${CALLBACK_PATH}/`);

/** MPESA_CALLBACK_ALLOWED_IPS, parsed once per list: addresses and CIDR ranges, IPv4-mapped IPv6 taken as IPv4. */
const allowlists = new Map<string, [ipaddr.IPv4 | ipaddr.IPv6, number][]>();
function allowlist(entries: string[]) {
  const key = entries.join(',');
  let ranges = allowlists.get(key);
  if (!ranges) {
    ranges = entries.map((e) =>
      e.includes('/')
        ? ipaddr.parseCIDR(e)
        : ([ipaddr.process(e), ipaddr.process(e).kind() === 'ipv4' ? 32 : 128] as [ipaddr.IPv4 | ipaddr.IPv6, number]),
    );
    allowlists.set(key, ranges);
  }
  return ranges;
}

export function sourceAllowed(entries: string[], remote: string | undefined): boolean {
  if (!entries.length) return true;
  if (!remote || !ipaddr.isValid(remote)) return false;
  const addr = ipaddr.process(remote);
  return allowlist(entries).some(([range, bits]) => range.kind() === addr.kind() && addr.match(range, bits));
}

/**
 * POST /api/v1/payment/callback/mpesa/{callback_token}: the rail's callback, a hint and never proof. The token in the
 * path names the organisation (unknown, or a source outside MPESA_CALLBACK_ALLOWED_IPS → 404, nothing recorded).
 * The raw body is committed to mpesa_callbacks first; then the rail's status query says what happened to the named
 * checkout request, and only that is applied (confirm.service.ts). A callback the rail cannot confirm yet stays
 * open and is replayed by the sweep; either way the rail is answered 200 once the body is stored.
 */
export async function handleMpesaCallback(
  app: AppServices,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<void> {
  const { tenantId, raw } = await railCallback(app, req, pathname.slice(CALLBACK_PATH.length + 1), 'M-Pesa callback');
  await receiveCallback(app, tenantId, raw);
  sendJson(res, 200, { ResultCode: 0, ResultDesc: 'Accepted' });
}

/**
 * The gate every rail callback passes (STK callbacks, B2C Results): POST only; a source outside
 * MPESA_CALLBACK_ALLOWED_IPS, or a token naming no organisation (malformed percent-encoding included), is the same
 * 404 with nothing read or recorded. Returns the organisation and the body (at most 64 KiB).
 */
export async function railCallback(
  app: AppServices,
  req: IncomingMessage,
  encodedToken: string,
  what: string,
): Promise<{ tenantId: number; raw: string }> {
  if (req.method !== 'POST')
    throw new AppError('method_not_allowed', { detail: 'Use POST', headers: { allow: 'POST' } });
  const unknown = () => {
    req.resume();
    return new AppError('not_found', { detail: `Unknown ${what} URL` });
  };
  if (!sourceAllowed(app.config.mpesaCallbackAllowedIps, req.socket.remoteAddress)) {
    app.log.warn(
      { remote: req.socket.remoteAddress },
      `${what} from a source outside MPESA_CALLBACK_ALLOWED_IPS refused`,
    );
    throw unknown();
  }
  let token: string | null;
  try {
    token = decodeURIComponent(encodedToken);
  } catch {
    token = null;
  }
  const tenantId = token === null ? null : await tenantForCallbackToken(app, token);
  if (tenantId == null) throw unknown();
  return { tenantId, raw: (await readBody(req, 64 * 1024)).toString('utf8') };
}
