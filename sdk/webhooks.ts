/**
 * Webhook signatures as the service sends them: `Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`, each v1
 * the HMAC-SHA256 of `${t}.${raw body}` keyed with an endpoint secret's UTF-8 bytes (a second v1, from the previous
 * secret, during a rotation's grace period).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface VerifyOptions {
  /** How far `t` may be from now, either way (default 300 s): an older delivery is refused as a possible replay. */
  toleranceSeconds?: number;
  /** The time in milliseconds since the epoch (default `Date.now()`). */
  now?: number;
}

/**
 * True when some v1 of the header is the signature of `rawBody` (the bytes received, before any JSON parsing) under
 * one of `secrets` (pass both during your own rotation) and `t` is within the tolerance. Every comparison is
 * constant-time; a missing or malformed header is false.
 */
export function verifyWebhookSignature(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secrets: readonly string[],
  o: VerifyOptions = {},
): boolean {
  const parsed = header ? parseSignatureHeader(header) : undefined;
  if (!parsed) return false;
  const nowSeconds = (o.now ?? Date.now()) / 1000;
  if (Math.abs(nowSeconds - Number(parsed.t)) > (o.toleranceSeconds ?? 300)) return false;
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  let matched = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(`${parsed.t}.`).update(body).digest();
    for (const signature of parsed.v1) matched = timingSafeEqual(signature, expected) || matched;
  }
  return matched;
}

/** `t` (digits) and the well-formed v1 signatures (64 hex digits each), or undefined when either is missing. */
function parseSignatureHeader(header: string): { t: string; v1: Buffer[] } | undefined {
  let t: string | undefined;
  const v1: Buffer[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const [key, value] = [part.slice(0, at).trim(), part.slice(at + 1).trim()];
    if (key === 't') {
      if (t !== undefined || !/^\d{1,12}$/.test(value)) return undefined;
      t = value;
    } else if (key === 'v1' && /^[0-9a-fA-F]{64}$/.test(value)) v1.push(Buffer.from(value, 'hex'));
  }
  return t !== undefined && v1.length > 0 ? { t, v1 } : undefined;
}
