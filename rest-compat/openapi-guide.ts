import { PROBLEM_CATALOGUE, problemType } from '../src/lib/problem.ts';

/**
 * The introduction of the OpenAPI document (`info.description`, Markdown): conventions, the problem-document
 * catalogue and how to verify a webhook signature. The reference page at /docs renders it above the operations.
 */

const CONVENTIONS =
  'Insurance intermediary API (v1). Money in requests is whole shillings; responses give whole shillings (rounded half away ' +
  'from zero from the cents) plus integer cents in `_minor` fields. Errors are RFC 9457 problem documents with a stable `code`. ' +
  "Every response carries X-Request-Id. Every path with a GET also answers HEAD (the GET's status and headers, no body).";

function problemCatalogue(): string {
  const rows = Object.entries(PROBLEM_CATALOGUE)
    .sort((a, b) => a[1].status - b[1].status || a[0].localeCompare(b[0]))
    .map(([code, p]) => `| ${p.status} | \`${code}\` | ${p.title.replace(/\|/g, '\\|')} |`);
  return [
    '## Problem documents',
    '',
    'Every error is an `application/problem+json` body with `type` (' +
      `\`${problemType('<code>')}\`), \`title\`, \`status\`, \`detail\`, \`code\`, \`instance\`, \`request_id\` and, ` +
      'for a refused body, `errors` (`field`, `message`). Branch on `code`, never on `title` or `detail`. ' +
      '`429 rate_limited` carries `Retry-After`, and so does a `503` of an overloaded service (any path), or of an ' +
      'organisation using its whole share of it (docs/api-conventions.md, fair use of the database pool).',
    '',
    '| Status | Code | Title |',
    '| --- | --- | --- |',
    ...rows,
  ].join('\n');
}

const VERIFY_EXAMPLE = `import { createHmac, timingSafeEqual } from 'node:crypto';

/** True when \`header\` (Service-Signature) signs \`rawBody\` (the exact bytes received) with \`secret\` (whsec_…). */
export function verifyWebhook(secret: string, header: string, rawBody: Buffer, toleranceSeconds = 300): boolean {
  const parts = header.split(',').map((p) => p.split('=', 2) as [string, string]);
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(\`\${t}.\`).update(rawBody).digest();
  return parts.some(
    ([k, v]) => k === 'v1' && /^[0-9a-f]{64}$/.test(v) && timingSafeEqual(Buffer.from(v, 'hex'), expected),
  );
}

// With node:http: collect the body as bytes, verify, then parse.
const chunks: Buffer[] = [];
for await (const c of req) chunks.push(c as Buffer);
const raw = Buffer.concat(chunks);
if (!verifyWebhook(process.env.WEBHOOK_SECRET!, String(req.headers['service-signature']), raw)) {
  res.writeHead(401).end();
} else {
  const delivery = JSON.parse(raw.toString('utf8')); // { id, event, created_at, api_version, tenant, data }
  res.writeHead(204).end(); // answer fast; deduplicate on delivery.id (the Service-Delivery header)
}`;

function webhookSection(): string {
  return [
    '## Webhooks',
    '',
    'Subscribe an endpoint with `POST /webhooks/endpoints` to event names (or `*`). Each event is POSTed as ' +
      '`{id, event, created_at, api_version: "v1", tenant: {code, name}, data}`; the **Webhooks** section below ' +
      'lists every event with the schema of its `data`, and `GET /events/catalogue` serves the same list. ' +
      'Headers: `Service-Signature`, `Service-Event`, `Service-Delivery` (the event id, the same on every attempt). ' +
      'A 2xx acknowledges; anything else is retried at +1 min, +5 min, +30 min, +2 h and +12 h.',
    '',
    '### Verifying webhook signatures',
    '',
    '`Service-Signature: t=<unix seconds>,v1=<hex>`: `v1` is HMAC-SHA256 of `"{t}.{raw body}"` keyed with the ' +
      "endpoint secret's UTF-8 bytes; during a secret rotation a second `v1` (the previous secret) is present and " +
      'either may match. Check the raw bytes before parsing, compare in constant time and refuse stale timestamps.',
    '',
    '```typescript',
    VERIFY_EXAMPLE,
    '```',
  ].join('\n');
}

/** `info.description` of the document. */
export function documentIntroduction(): string {
  return [CONVENTIONS, problemCatalogue(), webhookSection()].join('\n\n');
}
