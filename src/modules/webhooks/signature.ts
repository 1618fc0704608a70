import { createHmac } from 'node:crypto';

/** `v1` = lowercase hex HMAC-SHA256 of "{t}.{raw body}" keyed with the endpoint secret (its UTF-8 bytes). */
export function signV1(secret: string, t: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex');
}

/** `t=<unix>,v1=<sig>[,v1=<sig of the previous secret during rotation grace>]`: receivers accept any match. */
export function signatureHeader(secrets: string[], t: number, rawBody: string): string {
  return [`t=${t}`, ...secrets.map((s) => `v1=${signV1(s, t, rawBody)}`)].join(',');
}
