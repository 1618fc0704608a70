/**
 * Every REST answer a test receives through `Api` is checked against the OpenAPI document the service serves (built
 * from the same route table, as test/openapi.test.ts builds it): the operation exists, the status is one it lists,
 * an error is `application/problem+json`, and a JSON body validates against that status's schema (JSON Schema
 * 2020-12, formats on). A drift fails the test whose call caused it, with the call and what did not match.
 *
 * `CONTRACT_CHECK=off` turns it off (never in CI); `CONTRACT_CHECK=record:<file>` appends each violation as a JSON
 * line to the file instead of throwing (to take stock of a change of the document).
 */
import { appendFileSync } from 'node:fs';
import Ajv2020Module from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import { buildOpenApi } from '../../rest-compat/openapi.ts';
import { catalogueEntries } from '../../src/modules/events/catalogue.ts';

// CommonJS default exports, as Node's ESM loader presents them.
type AjvInstance = import('ajv/dist/2020.js').default;
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as unknown as new (
  o: object,
) => AjvInstance;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: AjvInstance,
) => void;

type Json = Record<string, any>;

interface Operation {
  template: string;
  matcher: RegExp;
  params: number;
  method: string;
  op: Json;
}

export class ContractViolation extends Error {}

let state: { doc: Json; ops: Operation[]; ajv: AjvInstance; compiled: Map<string, ValidateFunction> };

function load() {
  if (state) return state;
  // What is served: JSON, so members set to undefined disappear exactly as they do on the wire.
  const doc = JSON.parse(JSON.stringify(buildOpenApi(catalogueEntries()))) as Json;
  const ops: Operation[] = [];
  for (const [template, item] of Object.entries<Json>(doc.paths)) {
    const pattern = template
      .split(/\{\w+\}/)
      .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
      .join('[^/]+');
    for (const [method, op] of Object.entries<Json>(item)) {
      if (!['get', 'post', 'patch', 'put', 'delete'].includes(method)) continue;
      ops.push({
        template,
        matcher: new RegExp(`^${pattern}/?$`),
        params: (template.match(/\{/g) ?? []).length,
        method: method.toUpperCase(),
        op,
      });
    }
  }
  // The literal path wins over a template that also matches (`/policies/renewals` before `/policies/{uuid}`).
  ops.sort((a, b) => a.params - b.params);
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(doc, 'doc');
  state = { doc, ops, ajv, compiled: new Map() };
  return state;
}

const pointer = (parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

function mode(): 'off' | 'throw' | { record: string } {
  const v = process.env.CONTRACT_CHECK;
  if (v === 'off') return 'off';
  if (v?.startsWith('record:')) return { record: v.slice('record:'.length) };
  return 'throw';
}

/** The answer to `method url` checked against the document; a violation throws (or is recorded, see above). */
export function checkAnswer(
  method: string,
  url: string,
  answer: { status: number; headers: Headers; text: string; body: unknown },
): void {
  const m = mode();
  if (m === 'off') return;
  const problems = violations(method, url, answer);
  if (!problems.length) return;
  const where = `${method} ${url.replace(/^https?:\/\/[^/]+/, '')} → ${answer.status}`;
  if (typeof m === 'object') {
    appendFileSync(
      m.record,
      `${JSON.stringify({ where, problems, body: answer.text.slice(0, 400), file: expect.getState().testPath, test: expect.getState().currentTestName })}\n`,
    );
    return;
  }
  throw new ContractViolation(
    `The answer breaks the OpenAPI document (test/helpers/contract.ts): ${where}\n- ${problems.join('\n- ')}\n` +
      `body: ${answer.text.slice(0, 600)}`,
  );
}

function violations(
  method: string,
  url: string,
  answer: { status: number; headers: Headers; text: string; body: unknown },
): string[] {
  const u = new URL(url, 'http://x');
  if (!u.pathname.startsWith('/api/v1/') && u.pathname !== '/api/v1') return [];
  const { doc, ops, ajv, compiled } = load();
  const path = u.pathname.slice('/api/v1'.length) || '/';
  // The document itself (GET /api/v1/openapi.json) is not one of its operations.
  if (path === '/openapi.json') return [];
  const contentType = answer.headers.get('content-type') ?? '';
  const isProblem = contentType.startsWith('application/problem+json');
  const found = ops.find((o) => o.method === method.toUpperCase() && o.matcher.test(path));
  if (!found) {
    // An unknown path or method is the router's 404/405, always a problem document.
    if ((answer.status === 404 || answer.status === 405) && isProblem) return [];
    return [`no operation of the document answers ${method} ${path}`];
  }
  const out: string[] = [];
  const statusKey = String(answer.status);
  const response = found.op.responses?.[statusKey] ?? found.op.responses?.default;
  if (!response) {
    out.push(
      `status ${answer.status} is not listed for ${found.method} ${found.template} (listed: ${Object.keys(found.op.responses ?? {}).join(', ')})`,
    );
    return out;
  }
  if (answer.status >= 400 && !isProblem) out.push(`an error answered as ${contentType || 'no content type'}`);
  const content = response.content as Json | undefined;
  if (!content) {
    if (answer.text) out.push(`status ${answer.status} documents no body, but one came`);
    return out;
  }
  const media = contentType.split(';')[0].trim();
  if (!content[media]) {
    out.push(
      `content type ${media || '(none)'} is not documented for ${statusKey} (${Object.keys(content).join(', ')})`,
    );
    return out;
  }
  if (!media.endsWith('json')) return out;
  const key = pointer(['paths', found.template, found.method.toLowerCase(), 'responses', statusKey, 'content', media]);
  let validate = compiled.get(key);
  if (!content[media].schema) return out;
  if (!validate) {
    validate = ajv.compile({ $ref: `doc#/${key}/schema` });
    compiled.set(key, validate);
  }
  if (!validate(answer.body)) {
    for (const e of (validate.errors ?? []).slice(0, 8))
      out.push(`body${e.instancePath} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
  }
  void doc;
  return out;
}
