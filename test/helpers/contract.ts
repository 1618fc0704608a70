/**
 * Every REST answer a test receives through `Api` is checked against the OpenAPI document the service serves (built
 * from the same route table, as test/openapi.test.ts builds it): the operation exists, the status is one it lists,
 * an error is `application/problem+json`, and a JSON body validates against that status's schema (JSON Schema
 * 2020-12, formats on). A drift fails the test whose call caused it, with the call and what did not match.
 *
 * `CONTRACT_CHECK=off` turns it off (never in CI); `CONTRACT_CHECK=record:<file>` appends each violation as a JSON
 * line to the file instead of throwing (to take stock of a change of the document).
 */
import { appendFileSync, readFileSync } from 'node:fs';
import {
  buildSchema,
  type DocumentNode,
  type FragmentDefinitionNode,
  getOperationAST,
  type GraphQLInterfaceType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  isEnumType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  Kind,
  parse,
  type SelectionSetNode,
} from 'graphql';
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

let sdl: GraphQLSchema | undefined;

/**
 * A GraphQL answer a test reads checked against the SDL (schema/schema.graphql, drift-checked): each selected field's
 * value has its type (a non-null field is never null, a list is an array, Int a whole number, an enum one of its
 * values, an object an object), through aliases, fragments and `__typename`-resolved abstract types. Checked only when
 * the answer has no errors (a field error nulls its way up by the spec's rules).
 */
export function checkGraphqlAnswer(query: string, variables: Record<string, unknown>, body: unknown): void {
  if (mode() === 'off') return;
  const b = body as { data?: unknown; errors?: unknown[] } | undefined;
  if (!b || b.errors?.length || b.data == null) return;
  let doc: DocumentNode;
  try {
    doc = parse(query);
  } catch {
    return;
  }
  sdl ??= buildSchema(readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8'));
  const op = getOperationAST(doc);
  if (!op) return;
  const root = sdl.getRootType(op.operation);
  // Subscriptions are checked by their own tests (events over WebSocket).
  if (!root || root === sdl.getSubscriptionType()) return;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const problems: string[] = [];
  checkSelection(sdl, root, op.selectionSet, b.data, 'data', fragments, problems);
  void variables;
  if (!problems.length) return;
  const m = mode();
  if (typeof m === 'object') {
    appendFileSync(m.record, `${JSON.stringify({ where: 'graphql', problems, query: query.slice(0, 200) })}\n`);
    return;
  }
  throw new ContractViolation(
    `The GraphQL answer breaks the SDL (test/helpers/contract.ts):\n- ${problems.slice(0, 8).join('\n- ')}\nquery: ${query.slice(0, 300)}`,
  );
}

function checkSelection(
  schema: GraphQLSchema,
  type: GraphQLObjectType | GraphQLInterfaceType,
  selectionSet: SelectionSetNode,
  value: unknown,
  path: string,
  fragments: Map<string, FragmentDefinitionNode>,
  out: string[],
): void {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    out.push(`${path}: expected an object of ${type.name}`);
    return;
  }
  const obj = value as Record<string, unknown>;
  const typename = typeof obj.__typename === 'string' ? obj.__typename : undefined;
  for (const sel of selectionSet.selections) {
    if (sel.kind === Kind.FIELD) {
      const name = sel.name.value;
      if (name === '__typename') continue;
      const field = type.getFields()[name];
      if (!field) continue;
      const key = sel.alias?.value ?? name;
      if (!(key in obj)) continue;
      checkValue(schema, field.type, sel.selectionSet, obj[key], `${path}.${key}`, fragments, out);
      continue;
    }
    const condition =
      sel.kind === Kind.INLINE_FRAGMENT
        ? sel.typeCondition?.name.value
        : fragments.get(sel.name.value)?.typeCondition.name.value;
    const set = sel.kind === Kind.INLINE_FRAGMENT ? sel.selectionSet : fragments.get(sel.name.value)?.selectionSet;
    if (!set) continue;
    const target = condition ? schema.getType(condition) : type;
    if (!target || !(isObjectType(target) || isInterfaceType(target))) continue;
    if (target.name !== type.name) {
      // A fragment on another type applies when the object is of that type (known only from __typename).
      const concrete = typename ? schema.getType(typename) : undefined;
      if (!concrete || !isObjectType(concrete)) continue;
      const applies =
        concrete.name === target.name || (isInterfaceType(target) && concrete.getInterfaces().includes(target));
      if (!applies) continue;
    }
    checkSelection(schema, target, set, value, path, fragments, out);
  }
}

function checkValue(
  schema: GraphQLSchema,
  type: GraphQLOutputType,
  selectionSet: SelectionSetNode | undefined,
  value: unknown,
  path: string,
  fragments: Map<string, FragmentDefinitionNode>,
  out: string[],
): void {
  if (isNonNullType(type)) {
    if (value === null || value === undefined) out.push(`${path}: null for the non-null ${String(type)}`);
    else checkValue(schema, type.ofType, selectionSet, value, path, fragments, out);
    return;
  }
  if (value === null) return;
  if (isListType(type)) {
    if (!Array.isArray(value)) out.push(`${path}: expected a list (${String(type)})`);
    else value.forEach((v, i) => checkValue(schema, type.ofType, selectionSet, v, `${path}.${i}`, fragments, out));
    return;
  }
  if (isEnumType(type)) {
    if (!type.getValues().some((v) => v.name === value))
      out.push(`${path}: ${JSON.stringify(value)} is not a ${type.name}`);
    return;
  }
  if (isScalarType(type)) {
    const ok =
      type.name === 'Int'
        ? Number.isInteger(value)
        : type.name === 'Float'
          ? typeof value === 'number'
          : type.name === 'String'
            ? typeof value === 'string'
            : type.name === 'Boolean'
              ? typeof value === 'boolean'
              : type.name === 'ID'
                ? typeof value === 'string'
                : true;
    if (!ok) out.push(`${path}: ${JSON.stringify(value)} is not a ${type.name}`);
    return;
  }
  if (!selectionSet) return;
  if (isObjectType(type) || isInterfaceType(type)) {
    checkSelection(schema, type, selectionSet, value, path, fragments, out);
    return;
  }
  if (isUnionType(type)) {
    const t = (value as { __typename?: unknown }).__typename;
    const concrete = typeof t === 'string' ? schema.getType(t) : undefined;
    if (typeof t === 'string' && (!concrete || !isObjectType(concrete) || !type.getTypes().includes(concrete)))
      out.push(`${path}: ${t} is not a member of ${type.name}`);
    else if (concrete && isObjectType(concrete))
      checkSelection(schema, concrete, selectionSet, value, path, fragments, out);
  }
}
