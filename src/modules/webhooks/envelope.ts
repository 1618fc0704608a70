import { signatureHeader } from './signature.ts';

/** The User-Agent of every webhook request. */
export const USER_AGENT = 'Service-Webhooks/1.0';

/** What a delivery carries of its event and organisation. */
export interface EnvelopeEvent {
  id: string;
  name: string;
  createdAt: Date;
  data: unknown;
}

/** The body of a webhook request for `event`: the spec's envelope, serialised once (the bytes that are signed). */
export function envelopeBody(event: EnvelopeEvent, tenant: { code: string; name: string }): string {
  return JSON.stringify({
    id: event.id,
    event: event.name,
    created_at: event.createdAt.toISOString(),
    api_version: 'v1',
    tenant: { code: tenant.code, name: tenant.name },
    data: event.data,
  });
}

/** The headers of a webhook request: signed at unix second `t` with each secret (two during a rotation's overlap). */
export function envelopeHeaders(
  event: { id: string; name: string },
  secrets: string[],
  t: number,
  body: string,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'service-signature': signatureHeader(secrets, t, body),
    'service-event': event.name,
    'service-delivery': event.id,
  };
}
