import type { OperationObject, ParameterObject, PathItemObject, ResponseObject } from 'openapi3-ts/oas31';
import { REQUEST_EXAMPLES } from './requests.ts';
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

function exemplifyOperation(op: OperationObject): void {
  const request = op.operationId ? REQUEST_EXAMPLES[op.operationId] : undefined;
  if (request?.body && op.requestBody && 'content' in op.requestBody) {
    for (const [type, media] of Object.entries(op.requestBody.content)) {
      media.example = type === 'multipart/form-data' ? { ...request.body, file: '(the PDF file)' } : request.body;
    }
  }
  if (request?.query) {
    for (const p of (op.parameters ?? []) as ParameterObject[]) {
      if (p.in === 'query' && p.name in request.query) p.example = request.query[p.name];
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
