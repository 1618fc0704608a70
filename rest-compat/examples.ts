import type { OperationObject, PathItemObject, SchemaObject } from 'openapi3-ts/oas31';
import { PROBLEM_CATALOGUE, type ProblemCode, problemType } from '../src/lib/problem.ts';

/**
 * Examples generated from the schemas, so every request and response of the document shows one (the reference page
 * at /docs renders them). A value is the schema's own `example` or `const`, an enum's first value, or a plausible
 * value from the format and the property's name; objects list every property, arrays one item.
 */

type Schema = SchemaObject & { $ref?: string; const?: unknown };
type Components = Record<string, Schema>;

/** Deep enough for every schema of the document; a `$ref` met again on its own path (a cycle) stops there. */
const MAX_DEPTH = 16;

/**
 * Values by the property's place (its dotted path of property names, an array's items keeping the array's name):
 * first the rules that need the parent (a levy's name is not a person's), then those on the property name alone.
 */
const BY_PLACE: [RegExp, unknown][] = [
  [/(^|\.)(taxes|levies)\.name$/, 'Insurance training levy'],
  [/(^|\.)benefits\.name$/, 'Windscreen'],
  [/(^|\.)(insurers?|panel)\.name$|(^|\.)insurer(_name)?$/, 'Simba General'],
  [/(^|\.)lenders?\.name$|lender_name$/, 'Mkopo Premium Finance'],
  [/(^|\.)(products?|standard_products|cover_products)\.name$|product_name$/, 'Domestic package'],
  [/(^|\.)branch(es)?\.name$|branch_name$/, 'Nairobi CBD'],
  [/(^|\.)(templates?)\.name$/, 'Renewal reminder'],
  [/(^|\.)(api_clients?|clients)\.name$/, 'Savannah mobile app'],
];

/** Values by property name, for the fields whose name says more than their type. */
const BY_NAME: [RegExp, unknown][] = [
  [/^(phone|msisdn)$|_phone$/, '254712345678'],
  [/email$/, 'wanjiru.kamau@gmail.com'],
  [/^currency$/, 'KES'],
  [/(^|_)uuid$|^id$/, '3f1c2b9e-8a4d-4c6b-9e2f-5d7a1b3c4e6f'],
  [/^(registration|regno|reg_no)$/, 'KDJ 214M'],
  [/^(kra_pin|pin)$/, 'A012345678Z'],
  [/^(id_no|idno|national_id|id_number)$/, '28456731'],
  [/^client_no$/, 'C-000123'],
  [/^policy_no$/, 'MTR-2026-000123'],
  [/^claim_no$/, 'CLM-2026-000045'],
  [/^receipt_no$/, 'RCT-2026-000001'],
  [/^(debit_note_no|debit_note|number)$/, 'DN-MTR-2026-000123-1/1'],
  [/^(quote_no)$/, 'QT-2026-000078'],
  [/_minor$/, 500000],
  [/^(amount|premium|sum_insured|value)$/, 5000],
  [/(^|_)name$/, 'Wanjiru Kamau'],
  [/_at$/, '2026-06-15T09:30:00+03:00'],
  [/(^|_)(end|to|until|expiry|expires|return)(_date|_on)?$/, '2027-06-14'],
  [/(^|_)(date|start|on|from)$|^(dob|date_of_birth)$/, '2026-06-15'],
  [/(^|_)url$|^link|^href$/, 'https://hooks.savannahbrokers.co.ke/bima'],
  [/^events?$/, 'payment.received'],
  [/^(make)$/, 'Toyota'],
  [/^(model)$/, 'Fielder'],
  [/^(chassis_no)$/, 'NZE161-7045821'],
  [/^(engine_no)$/, '1NZ-4458120'],
  [/^(body_type)$/, 'Saloon'],
  [/^(city|town|place|loss_place|physical_address|address)$/, 'Kilimani, Nairobi'],
  [/^(monogram)$/, 'SG'],
  [/^(code)$/, 'TL'],
  [/^(status|state)$/, 'active'],
  [/^(scope|scopes)$/, 'read quote bind'],
  [/^(sender_id)$/, 'SAVANNAH'],
  [/^(checkout_request_id)$/, 'ws_CO_150620260930001234'],
  [/^(mpesa_receipt|transaction_id|receipt)$/, 'SFJ4K2L9XQ'],
  [/(secret|key|token)$/, 'sk_demo_0000000000000000000000000000'],
  [/(note|notes|reason|description|message|detail|statement|body|text|excess|narrative)$/, 'As agreed with the client'],
];

const BY_FORMAT: Record<string, unknown> = {
  date: '2026-06-15',
  'date-time': '2026-06-15T09:30:00+03:00',
  uuid: '3f1c2b9e-8a4d-4c6b-9e2f-5d7a1b3c4e6f',
  uri: 'https://hooks.savannahbrokers.co.ke/bima',
  email: 'wanjiru.kamau@gmail.com',
  binary: '(file bytes)',
};

function typeOf(s: Schema): string | undefined {
  const t = s.type as string | string[] | undefined;
  return Array.isArray(t) ? t.find((x) => x !== 'null') : t;
}

/** The property's words as a value ("vehicle_class" → "Vehicle class"): never the literal "string". */
function words(name: string): string {
  const w = name.replace(/_/g, ' ').trim();
  return w ? `${w[0].toUpperCase()}${w.slice(1)}` : 'Savannah Insurance Brokers';
}

function scalar(s: Schema, type: string | undefined, place: string): unknown {
  const name = place.slice(place.lastIndexOf('.') + 1);
  const named = BY_PLACE.find(([re]) => re.test(place)) ?? BY_NAME.find(([re]) => re.test(name));
  if (type === 'integer' || type === 'number') {
    if (typeof named?.[1] === 'number') return named[1];
    return s.minimum ?? s.exclusiveMinimum ?? 1;
  }
  if (type === 'boolean') return true;
  const dated = s.format === 'date' || s.format === 'date-time' || s.description?.startsWith('Y-m-d');
  if (dated && typeof named?.[1] === 'string' && /^\d{4}-\d\d-\d\d/.test(named[1])) {
    const day = named[1].slice(0, 10);
    return s.format === 'date-time' ? `${day}T09:30:00+03:00` : day;
  }
  if (s.format && s.format in BY_FORMAT) return BY_FORMAT[s.format];
  if (s.description?.startsWith('Y-m-d')) return BY_FORMAT.date;
  if (s.description?.startsWith('ISO 8601')) return BY_FORMAT['date-time'];
  if (typeof named?.[1] === 'string') return named[1];
  if (type === 'string' || type === undefined) {
    const text = words(name);
    return s.minLength && text.length < s.minLength ? text.padEnd(s.minLength, '.') : text;
  }
  return null;
}

/** A sample value of `schema` at `name` (its dotted place); `$ref`s resolve against `components`. */
export function sampleOf(
  schema: Schema | undefined,
  components: Components,
  name = '',
  depth = 0,
  path: readonly string[] = [],
): unknown {
  if (!schema || depth > MAX_DEPTH) return undefined;
  if (schema.$ref) {
    if (path.includes(schema.$ref)) return undefined;
    const target = components[schema.$ref.replace('#/components/schemas/', '')];
    return sampleOf(target, components, name, depth + 1, [...path, schema.$ref]);
  }
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum.find((v) => v !== null) ?? schema.enum[0];
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives?.length) {
    const first = alternatives.find((a) => (a as Schema).type !== 'null') ?? alternatives[0];
    return sampleOf(first as Schema, components, name, depth + 1, path);
  }
  if (schema.allOf?.length) {
    const parts = schema.allOf.map((a) => sampleOf(a as Schema, components, name, depth + 1, path));
    return Object.assign({}, ...parts.filter((p) => p && typeof p === 'object'));
  }
  const type = typeOf(schema);
  if (type === 'object' || schema.properties) {
    const props = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
    const at = (k: string) => (name ? `${name}.${k}` : k);
    return Object.fromEntries(props.map(([k, v]) => [k, sampleOf(v, components, at(k), depth + 1, path)]));
  }
  if (type === 'array') {
    const item = sampleOf(schema.items as Schema | undefined, components, name, depth + 1, path);
    return item === undefined ? [] : [item];
  }
  return scalar(schema, type, name);
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Sets `example` on every request and response media type of `op` that has a schema and no example yet. */
function exemplify(op: OperationObject, components: Components): void {
  const bodies: unknown[] = [op.requestBody, ...Object.values<unknown>(op.responses ?? {})];
  for (const body of bodies) {
    const content = (body as { content?: Record<string, { schema?: Schema; example?: unknown }> } | undefined)?.content;
    for (const media of Object.values(content ?? {})) {
      if (media.schema && media.example === undefined) media.example = sampleOf(media.schema, components);
    }
  }
}

/** Adds the generated examples to every operation of `paths` (and of `webhooks`), in place. */
export function addExamples(
  items: Record<string, PathItemObject> | undefined,
  components: Record<string, unknown> | undefined,
): void {
  for (const item of Object.values(items ?? {})) {
    for (const m of METHODS) if (item[m]) exemplify(item[m], (components ?? {}) as Components);
  }
}

/** A problem document of `code`, as the examples show it. */
export function problemExample(code: ProblemCode): Record<string, unknown> {
  const { status, title } = PROBLEM_CATALOGUE[code];
  return {
    type: problemType(code),
    title,
    status,
    detail: title,
    code,
    instance: '/api/v1/…',
    request_id: 'req_5b0c2e7f9a1d4c3b8e6f0a2d4c6e8b1a',
  };
}
