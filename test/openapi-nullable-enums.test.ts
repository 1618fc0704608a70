/**
 * A nullable enum's `enum` includes null (rest-compat/schemas/builders.ts `nullable`): under JSON Schema 2020-12 an
 * `enum` without null refuses every null answer, whatever `type` says. The committed document is walked for the
 * class, and real answers with those nulls (a claim's first history entry, a prospect never lost) are validated
 * against the document's own response schemas.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { motorNotice } from './kit/approved-claim.ts';
import { INSTANT_RAIL, useKit } from './kit.ts';

const doc = JSON.parse(readFileSync(new URL('../schema/openapi.json', import.meta.url), 'utf8'));
const ajvModule = await import('ajv/dist/2020.js').catch(() => undefined);
const formatsModule = await import('ajv-formats').catch(() => undefined);

/** Paths of every schema whose type admits null but whose enum does not list it. */
function nullRefusingEnums(v: unknown, path = ''): string[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => nullRefusingEnums(x, `${path}/${i}`));
  if (!v || typeof v !== 'object') return [];
  const o = v as Record<string, unknown>;
  const here =
    Array.isArray(o.type) && o.type.includes('null') && Array.isArray(o.enum) && !o.enum.includes(null) ? [path] : [];
  return [...here, ...Object.entries(o).flatMap(([k, x]) => nullRefusingEnums(x, `${path}/${k}`))];
}

describe('nullable enums in the OpenAPI document', () => {
  it('list null among their values wherever their type admits null', () => {
    expect(nullRefusingEnums(doc)).toEqual([]);
  });
});

describe.skipIf(!ajvModule || !formatsModule)('real answers with null enum members', () => {
  const t = useKit(INSTANT_RAIL, { jobs: true });
  const o = t.useOrg({ fast: true });

  function validator(path: string) {
    const Ajv = (ajvModule as any).default;
    const ajv = new Ajv({ strict: false, allErrors: true });
    (formatsModule as any).default(ajv);
    ajv.addSchema({ components: doc.components }, 'doc');
    const schema = doc.paths[path].get.responses['200'].content['application/json'].schema;
    const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"doc#/components/')));
    return (body: unknown) => (validate(body) ? [] : validate.errors);
  }

  it('a claim (its first history entry comes from null) and a prospect (no source, not lost) validate', async () => {
    const pol = await o.activePolicy();
    const c = await o.as('staff').post('/claims', { body: motorNotice(pol), idempotencyKey: randomUUID() });
    expect(c.status, c.text).toBe(201);
    const claim = await o.as('staff').get(`/claims/${c.body.data.uuid}`);
    expect(claim.body.data.history[0].from).toBeNull();
    expect(validator('/claims/{uuid}')(claim.body)).toEqual([]);

    const p = await o
      .as('staff')
      .post('/prospects', { body: { name: 'Nullable Njeri' }, idempotencyKey: randomUUID() });
    expect(p.status, p.text).toBe(201);
    const list = await o.as('staff').get('/prospects');
    expect(list.body.data[0]).toMatchObject({ lost_reason: null });
    expect(validator('/prospects')(list.body)).toEqual([]);
    const one = await o.as('staff').get(`/prospects/${p.body.data.uuid}`);
    expect(one.body.data.timeline[0].from_status).toBeNull();
    expect(validator('/prospects/{uuid}')(one.body)).toEqual([]);
  });
});
