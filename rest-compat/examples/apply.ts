import type { OperationObject, ParameterObject, PathItemObject, ResponseObject } from 'openapi3-ts/oas31';
import { type ExampleRef, REQUEST_EXAMPLES, type RequestExample } from './requests.ts';
import RESPONSES from './responses.json' with { type: 'json' };

/**
 * Puts the hand-written request examples (requests.ts) and the captured answers (responses.json, written by
 * `npm run capture:examples`) on the document's operations, by operationId. Runs before the schema sampler
 * (../examples.ts), which then fills only what is still without an example.
 */

/** A captured success answer: its status and body, secrets replaced by clearly fake values. */
export interface CapturedResponse {
  status: number;
  body: unknown;
}

const CAPTURED = RESPONSES as Record<string, CapturedResponse>;

/** The Idempotency-Key the document shows: a UUID; the reference page's "try it" sends a fresh one each time. */
export const IDEMPOTENCY_KEY_EXAMPLE = '0b6f3c2e-5a1d-4e8f-9c7b-2d4a6e8f1b3c';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** What an integrator puts in place of a `refs` value before sending an example. */
function refWords(ref: ExampleRef): string {
  if (ref.startsWith('insurer:')) return 'an insurer of your panel (GET /insurers)';
  if (ref.startsWith('lender:')) return 'a premium-finance lender of yours (GET /ipf/lenders)';
  const words: Record<string, string> = {
    client_no: 'a client number of yours',
    policy_uuid: 'a policy of yours',
    ipf_policy_uuid: 'a policy of yours that premium finance may fund',
    renewal_quote_uuid: 'a renewal quote of yours (POST /policies/{uuid}/renewal-quote)',
    renewal_total: "that quote's `renewal.total`: the premium the renewal is bound at",
    debit_note_no: 'an open debit note of yours',
    branch_id: 'a branch of yours',
    risk_manager_id: 'a risk manager of yours',
    sales_person_id: 'a sales person of yours',
    user_id: 'a user of yours',
    certificate_no: 'a certificate of yours',
    vehicle_regno: 'a vehicle on one of your policies',
    client_phone: "the client's phone",
    otp_code: 'the one-time code the client received',
  };
  return words[ref] ?? 'a record of yours';
}

/**
 * The values of an example that a static document cannot keep valid, by dotted path: what to put in their place
 * (`x-example-replace` beside the example; docs/api-conventions.md "Examples").
 */
export function exampleReplacements(request: RequestExample, prefix: '' | 'query.'): Record<string, string> {
  const out: Record<string, string> = {};
  const mine = (path: string) => (prefix ? path.startsWith(prefix) : !path.startsWith('query.'));
  for (const [path, ref] of Object.entries(request.refs ?? {}))
    if (mine(path)) out[path.slice(prefix.length)] = refWords(ref);
  for (const [path, days] of Object.entries(request.fromToday ?? {}))
    if (mine(path)) out[path.slice(prefix.length)] = `a date from today (e.g. today + ${days} days)`;
  return out;
}

function exemplifyOperation(op: OperationObject): void {
  const request = op.operationId ? REQUEST_EXAMPLES[op.operationId] : undefined;
  if (request?.body && op.requestBody && 'content' in op.requestBody) {
    const replace = exampleReplacements(request, '');
    for (const [type, media] of Object.entries(op.requestBody.content)) {
      media.example = type === 'multipart/form-data' ? { ...request.body, file: '(the PDF file)' } : request.body;
      if (Object.keys(replace).length) media['x-example-replace'] = replace;
    }
  }
  if (request?.query) {
    const replace = exampleReplacements(request, 'query.');
    for (const p of (op.parameters ?? []) as ParameterObject[]) {
      if (p.in === 'query' && p.name in request.query) {
        p.example = request.query[p.name];
        if (replace[p.name]) p['x-example-replace'] = replace[p.name];
      }
    }
  }
  const captured = op.operationId ? CAPTURED[op.operationId] : undefined;
  if (!captured) return;
  const responses: Record<string, ResponseObject> = op.responses ?? {};
  const response = responses[String(captured.status)] as ResponseObject | undefined;
  const media = response?.content?.['application/json'];
  if (media) media.example = captured.body;
}

/** Adds the request examples and captured answers to the operations of `paths`, in place. */
export function addRecordedExamples(
  paths: Record<string, PathItemObject> | undefined,
  components: { parameters?: Record<string, unknown> } | undefined,
): void {
  for (const item of Object.values(paths ?? {})) {
    for (const m of METHODS) if (item[m]) exemplifyOperation(item[m]);
  }
  const key = components?.parameters?.IdempotencyKey as ParameterObject | undefined;
  if (key) {
    key.example = IDEMPOTENCY_KEY_EXAMPLE;
    key.description = `${key.description ?? ''} The example is one such key; send a new one with every write (the reference's "Test request" does).`;
  }
}
