/**
 * Every JSON body route names the field it refuses in the body's own spelling (issue 26, outside tester's finding:
 * POST /ipf/quote filed `premium` under `ipf`). For each route of the table with a JSON body and no path parameter,
 * each top-level required field of its documented request schema is sent with a value of the wrong type, alone: the
 * answer is 422 validation_failed and one of its errors names that field (or a path inside it). A route's renames
 * (`fieldNames`) and a core whose variables are not `input` are covered alike, since only the wire is looked at.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../rest-compat/openapi.ts';
import { ROUTES } from '../rest-compat/routes/index.ts';
import { jsonSchemaOf } from '../rest-compat/schemas/json-schema.ts';
import { catalogueEntries } from '../src/modules/events/catalogue.ts';
import { INSTANT_RAIL, useKit } from './kit.ts';

const doc = JSON.parse(JSON.stringify(buildOpenApi(catalogueEntries())));
const t = useKit(INSTANT_RAIL, { jobs: true });
const o = t.useOrg({ fast: true });

interface Prop {
  type?: string | string[];
  $ref?: string;
}

const schemaOf = (s: { $ref?: string }) => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()!] : s);

/** A value of another type than the property's. */
function wrongTyped(p: Prop): unknown {
  const type = Array.isArray(p.type) ? p.type.find((x) => x !== 'null') : p.type;
  // An array gets an object: GraphQL would coerce a lone string into a list of one.
  if (type === 'array') return { not: 'a list' };
  return type === 'integer' || type === 'number' || type === 'boolean' || type === 'object' || !type
    ? 'not-the-right-type'
    : { not: 'a string' };
}

const CASES = ROUTES.filter((r) => !r.path.includes('{') && r.requestBody && !r.multipart).flatMap((r) => {
  const s = schemaOf(jsonSchemaOf(r.requestBody!));
  if (!s || s.type !== 'object') return [];
  // A field of several documented shapes (`to`: a number or a list of them) has no one wrong type: left out.
  return ((s.required ?? []) as string[])
    .filter((field) => (schemaOf((s.properties?.[field] ?? {}) as Prop) as Prop).type)
    .map((field) => ({ route: r, field, value: wrongTyped(schemaOf(s.properties[field] as Prop) as Prop) }));
});

describe('a wrong-typed required field is refused under its own name', () => {
  it('finds the JSON body routes and their required fields in the document', () => {
    expect(CASES.length).toBeGreaterThan(30);
    expect(CASES.map((c) => `${c.route.path} ${c.field}`)).toContain('/motor/quote class');
  });

  it('for every such route and field', async () => {
    const wrong: string[] = [];
    for (const { route, field, value } of CASES) {
      const role = route.scopes.includes('admin') ? 'admin' : 'staff';
      const r = await o.as(role).call(route.method, route.path, {
        body: { [field]: value },
        idempotencyKey: randomUUID(),
      });
      if (r.status === 401 || r.status === 403) continue; // another kind of caller (client area, agent, sandbox)
      const fields: string[] = (r.body?.errors ?? []).map((e: { field: string }) => e.field);
      if (r.status !== 422 || !fields.some((f) => f === field || f.startsWith(`${field}.`)))
        wrong.push(
          `${route.method} ${route.path} ${field}=${JSON.stringify(value)} → ${r.status} ${JSON.stringify(fields)}`,
        );
    }
    expect(wrong).toEqual([]);
  }, 300_000);
});
