/**
 * Issue 27: the document's examples read like real data. No value is the literal "string" (the sampler's old
 * fallback), no period starts and ends on the same day, no Idempotency-Key is shown empty, and a name of an insurer
 * or a levy is one (not a person's).
 */
import { describe, expect, it } from 'vitest';
import { REQUEST_EXAMPLES } from '../rest-compat/examples/requests.ts';
import { buildOpenApi } from '../rest-compat/openapi.ts';
import { catalogueEntries } from '../src/modules/events/catalogue.ts';
import { DEMO_TENANTS, LEVIES } from '../src/seed/demo-data.ts';

const doc = JSON.parse(JSON.stringify(buildOpenApi(catalogueEntries())));

/** Every `example` value of the document (media types, parameters, schemas), with where it is. */
function examples(): { where: string; value: unknown }[] {
  const out: { where: string; value: unknown }[] = [];
  const walk = (v: unknown, where: string) => {
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (k === 'example') out.push({ where, value: x });
      else walk(x, `${where}/${k}`);
    }
  };
  walk(doc, '#');
  return out;
}

/** Every (path, key, value) inside an example, objects and arrays walked. */
function leaves(v: unknown, at: string, out: { at: string; key: string; value: unknown; parent: any }[] = []) {
  if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      out.push({ at: `${at}.${k}`, key: k, value: x, parent: v });
      leaves(x, `${at}.${k}`, out);
    }
  }
  return out;
}

const all = examples().flatMap((e) => [
  { at: e.where, key: '', value: e.value, parent: null },
  ...leaves(e.value, e.where),
]);

describe('the examples of the OpenAPI document', () => {
  it('has thousands of example values to look at', () => {
    expect(all.filter((l) => typeof l.value === 'string').length).toBeGreaterThan(3000);
  });

  it('never show the literal "string" as a value', () => {
    expect(all.filter((l) => l.value === 'string').map((l) => l.at)).toEqual([]);
  });

  it('never show a period that starts and ends on the same day', () => {
    const pairs = [
      ['start_date', 'end_date'],
      ['departure_date', 'return_date'],
      ['period_start', 'period_end'],
      ['from_date', 'to_date'],
    ];
    const same = all.flatMap((l) =>
      l.parent && pairs.some(([a, b]) => l.key === a && l.parent[b] !== undefined && l.parent[b] === l.value)
        ? [l.at]
        : [],
    );
    expect(same).toEqual([]);
  });

  it('show an Idempotency-Key that is a key, never an empty one', () => {
    const key = doc.components.parameters.IdempotencyKey;
    expect(key.example).toMatch(/^[0-9a-f-]{36}$/);
    const headers = all.filter((l) => /^idempotency-key$/i.test(l.key));
    expect(headers.filter((l) => !l.value).map((l) => l.at)).toEqual([]);
  });

  it('name insurers, lenders and levies by their names, not a person’s', () => {
    const insurers = new Set(DEMO_TENANTS.flatMap((t) => t.insurers.map((i) => i.name)));
    const bad = all.filter((l) => l.key === 'insurer_name' && typeof l.value === 'string' && !insurers.has(l.value));
    expect(bad.map((l) => `${l.at}: ${String(l.value)}`)).toEqual([]);
    const levies = new Set(LEVIES.map((l) => l.name));
    const taxNames = all.filter((l) => /\.taxes\.\d+\.name$/.test(l.at));
    expect(taxNames.length).toBeGreaterThan(0);
    expect(taxNames.filter((l) => !levies.has(l.value as string)).map((l) => `${l.at}: ${String(l.value)}`)).toEqual(
      [],
    );
    expect(all.filter((l) => l.value === 'Jane Wanjiku').map((l) => l.at)).toEqual([]);
  });

  it('mark each value an integrator must replace (a record of theirs, a date from today) beside the example', () => {
    const ops = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((item) =>
      Object.values(item).filter((op) => op && typeof op === 'object' && op.operationId),
    );
    const missing: string[] = [];
    for (const op of ops) {
      const ex = REQUEST_EXAMPLES[op.operationId as string];
      const marked = new Set<string>([
        ...Object.keys(op.requestBody?.content?.['application/json']?.['x-example-replace'] ?? {}),
        ...Object.keys(op.requestBody?.content?.['multipart/form-data']?.['x-example-replace'] ?? {}),
        ...(op.parameters ?? [])
          .filter((p: any) => p['x-example-replace'])
          .map((p: any) => `query.${p.name as string}`),
      ]);
      for (const path of [...Object.keys(ex?.refs ?? {}), ...Object.keys(ex?.fromToday ?? {})])
        if (!marked.has(path)) missing.push(`${op.operationId as string}: ${path}`);
    }
    expect(missing).toEqual([]);
    expect(doc.paths['/travel/quote'].post.requestBody.content['application/json']['x-example-replace']).toEqual({
      departure_date: expect.stringMatching(/^a date from today/),
      return_date: expect.stringMatching(/^a date from today/),
    });
  });
});
