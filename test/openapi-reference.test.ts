/**
 * What the API reference (/docs, issue 17) shows from the OpenAPI document: an example for every request and
 * response (each valid against its schema), the webhook event catalogue as OpenAPI `webhooks`, the problem-document
 * catalogue and a signature-verification example in TypeScript that really verifies a delivery's signature.
 */
import { createHash } from 'node:crypto';
import { transform } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../rest-compat/openapi.ts';
import { PROBLEM_CATALOGUE } from '../src/lib/problem.ts';
import { catalogueEntries } from '../src/modules/events/catalogue.ts';
import { signatureHeader } from '../src/modules/webhooks/signature.ts';

const doc = JSON.parse(JSON.stringify(buildOpenApi(catalogueEntries())));

// ajv comes with @seriousme/openapi-schema-validator (a dev dependency); without it the example check is skipped.
const ajvModule = await import('ajv/dist/2020.js').catch(() => undefined);
const formatsModule = await import('ajv-formats').catch(() => undefined);

interface Media {
  where: string;
  schema: unknown;
  example: unknown;
}

/** Every request and response media type with a schema, of the paths and of the webhooks. */
function mediaTypes(): Media[] {
  const out: Media[] = [];
  for (const kind of ['paths', 'webhooks'] as const) {
    for (const [p, item] of Object.entries<Record<string, any>>(doc[kind])) {
      for (const [method, op] of Object.entries<any>(item)) {
        const bodies: [string, any][] = [['request', op.requestBody], ...Object.entries<any>(op.responses ?? {})];
        for (const [which, body] of bodies) {
          for (const [type, media] of Object.entries<any>(body?.content ?? {})) {
            if (media.schema) out.push({ where: `${method} ${p} ${which} ${type}`, ...media });
          }
        }
      }
    }
  }
  return out;
}

/**
 * Examples that the running API accepts (test/openapi-request-examples.test.ts) or answered (captured) but that their
 * schema refuses: schema defects, for the schema's owner to fix (then the entry goes). Each names the mismatch.
 */
const SCHEMA_DEFECTS = new Set<string>([]);

describe('the examples of the OpenAPI document', () => {
  it('are given for every request body and every response of every operation and webhook', () => {
    const media = mediaTypes();
    expect(media.length).toBeGreaterThan(500);
    expect(media.filter((m) => m.example === undefined).map((m) => m.where)).toEqual([]);
    const posts = Object.values<any>(doc.paths).flatMap((i) => (i.post?.requestBody ? [i.post] : []));
    expect(posts.length).toBeGreaterThan(50);
  });

  it.skipIf(!ajvModule || !formatsModule)('are valid against their own schemas (formats included)', () => {
    const Ajv = (ajvModule as any).default;
    const ajv = new Ajv({ strict: false, allErrors: false });
    (formatsModule as any).default(ajv);
    ajv.addSchema({ components: doc.components }, 'doc');
    const invalid: string[] = [];
    const compiled = new Map<string, any>();
    for (const m of mediaTypes()) {
      const text = JSON.stringify(m.schema).replace(/"#\/components\//g, '"doc#/components/');
      if (!compiled.has(text)) compiled.set(text, ajv.compile(JSON.parse(text)));
      const validate = compiled.get(text);
      if (!validate(m.example)) invalid.push(`${m.where}: ${ajv.errorsText(validate.errors)}`);
    }
    expect(invalid.filter((x) => !SCHEMA_DEFECTS.has(x))).toEqual([]);
    // An allowlisted defect that no longer occurs is taken off the list.
    expect([...SCHEMA_DEFECTS].filter((x) => !invalid.includes(x))).toEqual([]);
  });

  it('show a problem document of the response code for every error response', () => {
    const op = doc.paths['/webhooks/endpoints'].post;
    const example = op.responses['401'].content['application/problem+json'].example;
    expect(example).toMatchObject({ status: 401, code: expect.any(String), request_id: expect.any(String) });
    expect(PROBLEM_CATALOGUE[example.code as keyof typeof PROBLEM_CATALOGUE].status).toBe(401);
  });
});

describe('the webhook event catalogue in the document', () => {
  it('is one OpenAPI webhook per catalogue event: the signed envelope around that event’s data schema', () => {
    const events = catalogueEntries();
    expect(Object.keys(doc.webhooks).sort()).toEqual(events.map((e) => e.name).sort());
    for (const e of events) {
      const op = doc.webhooks[e.name].post;
      expect(op.description).toContain(e.description);
      expect(op.parameters.map((p: any) => p.name)).toEqual(['Service-Signature', 'Service-Event', 'Service-Delivery']);
      const body = op.requestBody.content['application/json'];
      expect(body.schema.properties.event).toEqual({ type: 'string', const: e.name });
      const { $schema: _ignored, ...data } = e.schema;
      expect(body.schema.properties.data).toEqual(data);
      expect(body.example.event).toBe(e.name);
    }
  });
});

describe('the introduction of the document', () => {
  const intro: string = doc.info.description;

  it('lists every problem code with its status and title', () => {
    for (const [code, p] of Object.entries(PROBLEM_CATALOGUE)) {
      expect(intro).toContain(`| ${p.status} | \`${code}\` | ${p.title} |`);
    }
  });

  it('has a TypeScript signature check that accepts a delivery the service signed and refuses a forged one', async () => {
    const code = /```typescript\n([\s\S]*?)```/.exec(intro)?.[1];
    expect(code).toBeDefined();
    // The function itself, without the usage lines after it.
    const fn = code!.slice(0, code!.indexOf('// With node:http'));
    const { code: js } = await transform(fn, { loader: 'ts', format: 'esm' });
    const mod = await import(`data:text/javascript;base64,${Buffer.from(js).toString('base64')}`);
    const verify = mod.verifyWebhook as (secret: string, header: string, raw: Buffer) => boolean;

    const raw = Buffer.from(JSON.stringify({ id: '1', event: 'policy.activated', data: { policy_no: 'P/1' } }));
    const t = Math.floor(Date.now() / 1000);
    const secret = `whsec_${createHash('sha256').update('docs').digest('hex')}`;
    expect(verify(secret, signatureHeader([secret], t, raw.toString()), raw)).toBe(true);
    // During a rotation either secret matches.
    expect(verify(secret, signatureHeader(['whsec_new', secret], t, raw.toString()), raw)).toBe(true);
    expect(verify('whsec_other', signatureHeader([secret], t, raw.toString()), raw)).toBe(false);
    expect(verify(secret, signatureHeader([secret], t, raw.toString()), Buffer.concat([raw, Buffer.from(' ')]))).toBe(
      false,
    );
    expect(verify(secret, signatureHeader([secret], t - 3600, raw.toString()), raw)).toBe(false);
    expect(verify(secret, 'v1=abc', raw)).toBe(false);
  });
});
