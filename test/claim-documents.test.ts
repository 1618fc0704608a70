import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentStore, filesDocumentStore, postgresDocumentStore } from '../src/db/document-store.ts';
import { checklistState } from '../src/modules/claims/documents/checklist.ts';
import { checkUpload } from '../src/modules/claims/documents/content.ts';
import { expectProblem, INSTANT_RAIL, TODAY, useKit, type Active, type HttpResult } from './kit.ts';

/**
 * Claim documents: the checklist, uploads (multipart over REST, base64 over GraphQL) behind the document store, downloads,
 * decisions by hand, and who may see them. Claims are registered through the API (POST /claims); the claim's moves
 * and registration rules are claims.test.ts's.
 */

const MAX = 256 * 1024; // a small DOCUMENT_MAX_BYTES keeps the over-the-limit bodies cheap
const t = useKit({ ...INSTANT_RAIL, documentMaxBytes: MAX }, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('IHDR-test')]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('JFIF-test')]);
const pdfNo = (n: number) => Buffer.concat([PDF, Buffer.from(`% ${n} ${randomUUID()}\n`)]);

interface Part {
  kind?: string;
  bytes?: Buffer<ArrayBuffer>;
  type?: string;
  name?: string;
}

/** POST /claims/{uuid}/documents as a browser or an integration sends it: multipart/form-data by fetch's FormData. */
async function upload(
  uuid: string,
  part: Part,
  o2: { token?: string; key?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  const form = new FormData();
  if (part.kind !== undefined) form.append('kind', part.kind);
  if (part.bytes)
    form.append('file', new Blob([part.bytes], { type: part.type ?? 'application/pdf' }), part.name ?? 'x.pdf');
  return send(`/claims/${uuid}/documents`, { method: 'POST', body: form }, { ...o2, key: o2.key ?? randomUUID() });
}

async function send(
  p: string,
  init: RequestInit,
  o2: { token?: string; key?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult & { bytes: Buffer }> {
  const headers: Record<string, string> = { authorization: `Bearer ${o2.token ?? o.tokens.staff}`, ...o2.headers };
  if (o2.key) headers['idempotency-key'] = o2.key;
  const res = await fetch(`${t.base}${p}`, { ...init, headers: { ...headers, ...(init.headers as object) } });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text, bytes };
}

const download = (uuid: string, fileUuid: string, token?: string) =>
  send(`/claims/${uuid}/documents/${fileUuid}`, { method: 'GET' }, { token });
const list = (uuid: string, token = o.tokens.staff, via = o) => via.api.get(`/claims/${uuid}/documents`, { token });
const mark = (uuid: string, kind: string, body: unknown, token = o.tokens.staff, via = o) =>
  via.api.post(`/claims/${uuid}/documents/${kind}/mark`, { token, body, idempotencyKey: randomUUID() });

/** A motor accident claim on `pol` through POST /claims (its checklist opened from the cause's documents). */
async function register(pol: Active, token = o.tokens.staff): Promise<{ uuid: string; claim_no: string }> {
  const r = await o.api.post('/claims', {
    token,
    idempotencyKey: randomUUID(),
    body: {
      policy_uuid: pol.uuid,
      regno: pol.regno,
      cause: 'accident',
      loss_date: TODAY,
      loss_place: 'Thika Road, Roysambu',
      description: 'Rear-ended in traffic',
    },
  });
  expect(r.status, r.text).toBe(201);
  return r.body.data;
}

const claimId = (uuid: string) =>
  t.db.tenant(o.id, async (tx) => (await tx.claim.findUniqueOrThrow({ where: { uuid } })).id);

let pol: Active;
let agentPol: Active;
beforeAll(async () => {
  [pol, agentPol] = await Promise.all([o.activePolicy(), o.activePolicy({ token: o.tokens.agent })]);
}, 180_000);

describe('the document stores', () => {
  it('PostgreSQL: bytes in document_blobs inside the caller’s transaction, read back identical, removed', async () => {
    const store = postgresDocumentStore();
    const bytes = pdfNo(1);
    const { key } = await t.db.tenant(o.id, (tx) => store.put(tx, { tenantId: o.id, bytes }));
    expect(key).toMatch(/^pg:[0-9a-f-]{36}$/);
    expect(Buffer.from((await t.db.tenant(o.id, (tx) => store.get(tx, key)))!)).toEqual(bytes);
    // Row-level security: another organisation's transaction does not see the blob.
    expect(await t.db.tenant(other.id, (tx) => store.get(tx, key))).toBeNull();
    await t.db.tenant(o.id, (tx) => store.remove(tx, key));
    expect(await t.db.tenant(o.id, (tx) => store.get(tx, key))).toBeNull();
    // A rolled-back put leaves nothing.
    let rolledBack = '';
    await t.db
      .tenant(o.id, async (tx) => {
        rolledBack = (await store.put(tx, { tenantId: o.id, bytes })).key;
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await t.db.tenant(o.id, (tx) => store.get(tx, rolledBack))).toBeNull();
  });

  it('files: written under <dir>/<tenant>/<yyyy>/<mm>/<uuid> with no temporary file left, read back, removed', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bima-docs-'));
    try {
      const store = filesDocumentStore(dir);
      const bytes = pdfNo(2);
      const { key } = await store.put(null as never, { tenantId: o.id, bytes });
      expect(key).toMatch(new RegExp(`^file:${o.id}/\\d{4}/\\d{2}/[0-9a-f-]{36}$`));
      const [, year, month] = key.slice(5).split('/');
      expect(await readdir(path.join(dir, String(o.id), year, month))).toEqual([key.split('/').pop()]);
      expect(Buffer.from((await store.get(null as never, key))!)).toEqual(bytes);
      await store.remove(null, key);
      expect(await store.get(null as never, key)).toBeNull();
      // A key of any other shape names nothing on disk: refused, never resolved as a path.
      await expect(store.get(null as never, 'file:../../etc/passwd')).rejects.toThrow(/Not a file-store key/);
      // The deployment's store reads a key where it says it lives: files written before a switch stay readable.
      const switched = createDocumentStore({ documentStore: 'postgres', documentDir: dir });
      const again = await store.put(null as never, { tenantId: o.id, bytes });
      expect(Buffer.from((await switched.get(null as never, again.key))!)).toEqual(bytes);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('what an upload may be (content.ts)', () => {
  const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
  const check = (contentType: string, bytes: Uint8Array, fileName = 'x') =>
    checkUpload({ kind: 'photo', fileName, contentType, contentBase64: b64(bytes) }, MAX);
  const fields = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return (
        (e as { code: string; errors?: { field: string }[] }).errors?.map((x) => x.field) ?? [
          (e as { code: string }).code,
        ]
      );
    }
    return [];
  };

  it('each accepted type by its magic bytes; a declared type the bytes contradict is refused', () => {
    const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]);
    const heic = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic'), Buffer.alloc(8)]);
    for (const [type, bytes] of [
      ['application/pdf', PDF],
      ['image/png', PNG],
      ['image/jpeg', JPEG],
      ['image/webp', webp],
      ['image/heic', heic],
    ] as const) {
      const d = check(`${type}; charset=binary`, bytes);
      expect(d.contentType).toBe(type);
      expect(d.sha256).toBe(sha256(bytes));
      expect(fields(() => check(type === 'image/png' ? 'image/jpeg' : 'image/png', bytes))).toEqual(['contentBase64']);
    }
    expect(fields(() => check('text/plain', Buffer.from('hello')))).toEqual(['contentType']);
    expect(fields(() => check('application/pdf', Buffer.alloc(0)))).toEqual(['contentBase64']);
    expect(
      fields(() => checkUpload({ kind: 'photo', fileName: 'x', contentType: 'image/png', contentBase64: 'a%b=' }, MAX)),
    ).toEqual(['contentBase64']);
    expect(fields(() => check('application/pdf', Buffer.concat([PDF, Buffer.alloc(MAX)])))).toEqual([
      'payload_too_large',
    ]);
    expect(
      fields(() =>
        checkUpload(
          { kind: 'Claim Form', fileName: 'x', contentType: 'application/pdf', contentBase64: b64(PDF) },
          MAX,
        ),
      ),
    ).toEqual(['kind']);
  });

  it('keeps only the last path segment of a file name, without control characters; an empty one is named by kind', () => {
    expect(check('application/pdf', PDF, 'C:\\fakepath\\abstract.pdf').fileName).toBe('abstract.pdf');
    expect(check('application/pdf', PDF, '../../etc/passwd').fileName).toBe('passwd');
    expect(check('application/pdf', PDF, 'a\r\nb\u0000.pdf').fileName).toBe('ab.pdf');
    expect(check('image/png', PNG, '..').fileName).toBe('photo.png');
    // Bidirectional controls would let a name show as something else (invoiceexe.pdf): removed.
    expect(check('application/pdf', PDF, 'invoice\u202Efdp.exe').fileName).toBe('invoicefdp.exe');
    expect(check('application/pdf', PDF, '\u2066a\u2069\u200f\u061c.pdf').fileName).toBe('a.pdf');
  });
});

describe('uploads over REST (multipart/form-data)', () => {
  it('stores the file, marks the line received, lists it, and downloads the same bytes with safe headers', async () => {
    const c = await register(pol);
    const before = await list(c.uuid);
    expect(before.status, before.text).toBe(200);
    expect(before.body.meta.complete).toBe(false);
    const kinds = before.body.data.map((l: { kind: string }) => l.kind);
    expect(kinds[0]).toBe('claim_form');
    expect(before.body.meta.missing).toEqual(kinds);

    const bytes = pdfNo(3);
    const r = await upload(c.uuid, { kind: 'claim_form', bytes, name: 'Fomu ya dai "mpya".pdf' });
    expect(r.status, r.text).toBe(201);
    const { document, file, duplicate } = r.body.data;
    expect(duplicate).toBe(false);
    expect(document).toMatchObject({ kind: 'claim_form', required: true, status: 'received', note: null });
    expect(file).toMatchObject({
      file_name: 'Fomu ya dai "mpya".pdf',
      content_type: 'application/pdf',
      size_bytes: bytes.length,
      sha256: sha256(bytes),
      links: { download: `/api/v1/claims/${c.uuid}/documents/${file.uuid}` },
    });
    expect(document.files).toEqual([file]);

    const after = await list(c.uuid);
    expect(after.body.data[0]).toEqual(document);
    expect(after.body.meta.missing).toEqual(kinds.slice(1));

    const d = await download(c.uuid, file.uuid);
    expect(d.status, d.text).toBe(200);
    expect(d.bytes.equals(bytes)).toBe(true);
    expect(sha256(d.bytes)).toBe(file.sha256);
    expect(d.headers.get('content-type')).toBe('application/pdf');
    expect(d.headers.get('content-length')).toBe(String(bytes.length));
    expect(d.headers.get('etag')).toBe(`"${file.sha256}"`);
    expect(d.headers.get('x-content-type-options')).toBe('nosniff');
    expect(d.headers.get('content-disposition')).toBe(
      `attachment; filename="Fomu ya dai _mpya_.pdf"; filename*=UTF-8''Fomu%20ya%20dai%20%22mpya%22.pdf`,
    );

    const audit = await t.db.tenant(o.id, (tx) =>
      tx.auditLog.findFirst({ where: { action: 'claim.document_uploaded', entityId: c.claim_no } }),
    );
    expect(audit?.changes).toMatchObject({ kind: 'claim_form', file_uuid: file.uuid, sha256: file.sha256 });
  });

  it('the same bytes twice on one line are stored once (200, duplicate); other bytes or another line are new', async () => {
    const c = await register(pol);
    const bytes = pdfNo(4);
    const first = await upload(c.uuid, { kind: 'police_abstract', bytes });
    expect(first.status, first.text).toBe(201);
    const again = await upload(c.uuid, { kind: 'police_abstract', bytes, name: 'renamed.pdf' });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.duplicate).toBe(true);
    expect(again.body.data.file).toEqual(first.body.data.file);
    const otherBytes = await upload(c.uuid, { kind: 'police_abstract', bytes: pdfNo(5) });
    expect(otherBytes.status, otherBytes.text).toBe(201);
    const otherLine = await upload(c.uuid, { kind: 'photo', bytes: PNG, type: 'image/png', name: 'dent.png' });
    expect(otherLine.status, otherLine.text).toBe(201);
    expect(otherLine.body.data.document).toMatchObject({ kind: 'photo', required: false, status: 'received' });
    const id = await claimId(c.uuid);
    const stored = await t.db.tenant(o.id, async (tx) => ({
      files: await tx.claimDocumentFile.findMany({ where: { claimId: id } }),
      blobs: await tx.documentBlob.count({
        where: {
          key: { in: (await tx.claimDocumentFile.findMany({ where: { claimId: id } })).map((f) => f.storageKey) },
        },
      }),
    }));
    expect(stored.files).toHaveLength(3);
    expect(stored.blobs).toBe(3);
    // The extra line sorts after the checklist.
    const l = await list(c.uuid);
    expect(l.body.data.at(-1).kind).toBe('photo');
  });

  it('refuses what it cannot take: too large (413), not a form (415), wrong or contradicted type, unknown kind (422)', async () => {
    const c = await register(pol);
    // Over the body cap (the limit plus the form's overhead): refused while reading.
    expectProblem(
      await upload(c.uuid, { kind: 'photo', bytes: Buffer.alloc(MAX + 100 * 1024) }),
      413,
      'payload_too_large',
    );
    // Within the cap but one byte over the limit: refused by the service, also 413.
    const over = Buffer.concat([PDF, Buffer.alloc(MAX + 1 - PDF.length)]);
    expectProblem(await upload(c.uuid, { kind: 'photo', bytes: over }), 413, 'payload_too_large');
    // A JSON body to the upload is 415; a broken form 400.
    const json = await o.api.post(`/claims/${c.uuid}/documents`, {
      token: o.tokens.staff,
      idempotencyKey: randomUUID(),
      body: { kind: 'photo', file: PDF.toString('base64') },
    });
    expectProblem(json, 415, 'unsupported_media_type');
    const broken = await send(
      `/claims/${c.uuid}/documents`,
      { method: 'POST', body: 'not a form', headers: { 'content-type': 'multipart/form-data; boundary=xyz' } },
      { key: randomUUID() },
    );
    expectProblem(broken, 400, 'invalid_request');
    expectProblem(
      await upload(c.uuid, { kind: 'photo', bytes: Buffer.from('hello'), type: 'text/plain' }),
      422,
      'validation_failed',
      'file',
    );
    expectProblem(
      await upload(c.uuid, { kind: 'photo', bytes: PNG, type: 'application/pdf' }),
      422,
      'validation_failed',
      'file',
    );
    expectProblem(await upload(c.uuid, { kind: 'photo' }), 422, 'validation_failed', 'file');
    expectProblem(await upload(c.uuid, { bytes: PDF }), 422, 'validation_failed', 'kind');
    const unknown = await upload(c.uuid, { kind: 'birth_certificate', bytes: PDF });
    expectProblem(unknown, 422, 'validation_failed', 'kind');
    expect(unknown.body.errors[0].message).toMatch(/claim_form.*other, photo/);
    // `kind` sent as a file, or a field sent twice: refused, never a 500.
    const odd = new FormData();
    odd.append('kind', new Blob(['photo']), 'kind.txt');
    odd.append('file', new Blob([PNG], { type: 'image/png' }), 'x.png');
    const oddR = await send(`/claims/${c.uuid}/documents`, { method: 'POST', body: odd }, { key: randomUUID() });
    expectProblem(oddR, 422, 'validation_failed', 'kind');
    const twice = new FormData();
    twice.append('kind', 'photo');
    twice.append('kind', 'other');
    twice.append('file', new Blob([PNG], { type: 'image/png' }), 'x.png');
    const twiceR = await send(`/claims/${c.uuid}/documents`, { method: 'POST', body: twice }, { key: randomUUID() });
    expectProblem(twiceR, 400, 'invalid_request');
    // Nothing of these was stored; the positive control: a good upload is.
    const id = await claimId(c.uuid);
    expect(await t.db.tenant(o.id, (tx) => tx.claimDocumentFile.count({ where: { claimId: id } }))).toBe(0);
    expect((await upload(c.uuid, { kind: 'photo', bytes: JPEG, type: 'image/jpeg' })).status).toBe(201);
  });

  it('an Idempotency-Key retry replays the first answer (even under a new form boundary); another file is refused', async () => {
    const c = await register(pol);
    const key = randomUUID();
    const bytes = pdfNo(6);
    const first = await upload(c.uuid, { kind: 'driving_licence', bytes }, { key });
    expect(first.status, first.text).toBe(201);
    const replay = await upload(c.uuid, { kind: 'driving_licence', bytes }, { key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expectProblem(
      await upload(c.uuid, { kind: 'driving_licence', bytes: pdfNo(7) }, { key }),
      422,
      'idempotency_key_reused',
    );
    const id = await claimId(c.uuid);
    expect(await t.db.tenant(o.id, (tx) => tx.claimDocumentFile.count({ where: { claimId: id } }))).toBe(1);
  });

  it('an ended claim takes no documents (409 invalid_state)', async () => {
    const c = await register(pol);
    expect((await upload(c.uuid, { kind: 'photo', bytes: PNG, type: 'image/png' })).status).toBe(201);
    const w = await o.api.post(`/claims/${c.uuid}/transitions`, {
      token: o.tokens.staff,
      idempotencyKey: randomUUID(),
      body: { to: 'withdrawn', reason: 'the claimant withdrew' },
    });
    expect(w.status, w.text).toBe(200);
    expectProblem(await upload(c.uuid, { kind: 'photo', bytes: JPEG, type: 'image/jpeg' }), 409, 'invalid_state');
    expectProblem(await mark(c.uuid, 'claim_form', { status: 'received' }), 409, 'invalid_state');
  });
});

describe('deciding lines by hand, and the checklist state', () => {
  it('received on paper, waived with a reason (none: 422), pending again; complete once every required line is', async () => {
    const c = await register(pol);
    const kinds: string[] = (await list(c.uuid)).body.meta.missing;
    expectProblem(await mark(c.uuid, kinds[0], { status: 'waived' }), 422, 'validation_failed', 'note');
    expectProblem(await mark(c.uuid, kinds[0], { status: 'lost' }), 422, 'validation_failed', 'status');
    expectProblem(await mark(c.uuid, 'birth_certificate', { status: 'received' }), 422, 'validation_failed', 'kind');
    // An agent registers claims and uploads, but does not decide lines (refused before the claim is looked up).
    expectProblem(await mark(c.uuid, kinds[0], { status: 'received' }, o.tokens.agent), 403, 'actor_forbidden');

    const waived = await mark(c.uuid, kinds[0], { status: 'waived', note: 'Original with the insurer' });
    expect(waived.status, waived.text).toBe(200);
    expect(waived.body.data).toMatchObject({ kind: kinds[0], status: 'waived', note: 'Original with the insurer' });
    expect(waived.body.data.decided_at).toBeTruthy();
    const id = await claimId(c.uuid);
    for (const k of kinds.slice(1, -1)) expect((await mark(c.uuid, k, { status: 'received' })).status).toBe(200);
    expect(await t.db.tenant(o.id, (tx) => checklistState(tx, id))).toEqual({
      complete: false,
      missing: kinds.slice(-1),
    });
    expect((await upload(c.uuid, { kind: kinds.at(-1)!, bytes: pdfNo(8) })).status).toBe(201);
    expect(await t.db.tenant(o.id, (tx) => checklistState(tx, id))).toEqual({ complete: true, missing: [] });
    expect((await list(c.uuid)).body.meta).toEqual({ complete: true, missing: [] });

    const undone = await mark(c.uuid, kinds[1], { status: 'pending' });
    expect(undone.body.data).toMatchObject({ status: 'pending', decided_at: null });
    expect(await t.db.tenant(o.id, (tx) => checklistState(tx, id))).toEqual({ complete: false, missing: [kinds[1]] });
  });
});

describe('visibility', () => {
  it('an agent sees the claims within reach; out of reach and another organisation are 404 on every path', async () => {
    const mine = await register(agentPol, o.tokens.agent);
    const theirs = await register(pol);
    const up = await upload(theirs.uuid, { kind: 'photo', bytes: PNG, type: 'image/png' });
    const fileUuid: string = up.body.data.file.uuid;

    // The positive control: the agent's own claim, every path.
    const own = await upload(mine.uuid, { kind: 'photo', bytes: PNG, type: 'image/png' }, { token: o.tokens.agent });
    expect(own.status, own.text).toBe(201);
    expect((await list(mine.uuid, o.tokens.agent)).status).toBe(200);
    expect((await download(mine.uuid, own.body.data.file.uuid, o.tokens.agent)).status).toBe(200);

    const outside = [
      { token: o.tokens.agent, via: o },
      { token: other.tokens.staff, via: other },
    ];
    for (const { token, via } of outside) {
      expectProblem(await list(theirs.uuid, token, via), 404, 'not_found');
      expectProblem(
        await upload(theirs.uuid, { kind: 'photo', bytes: JPEG, type: 'image/jpeg' }, { token }),
        404,
        'not_found',
      );
      expectProblem(await download(theirs.uuid, fileUuid, token), 404, 'not_found');
    }
    // Deciding lines is staff's (claims.manage): an agent is refused whatever the claim, so nothing is told.
    expectProblem(
      await mark(theirs.uuid, 'photo', { status: 'received' }, other.tokens.staff, other),
      404,
      'not_found',
    );
    expectProblem(await mark(mine.uuid, 'photo', { status: 'received' }, o.tokens.agent), 403, 'actor_forbidden');
    // A file of one claim is not reachable under another claim's path, even the caller's own.
    expectProblem(await download(mine.uuid, fileUuid, o.tokens.agent), 404, 'not_found');
    expectProblem(await download(theirs.uuid, randomUUID()), 404, 'not_found');
    expectProblem(await download(theirs.uuid, 'not-a-uuid'), 404, 'not_found');
    // A read-only key lists and downloads but does not upload.
    expect((await download(theirs.uuid, fileUuid, o.tokens.readonly)).status).toBe(200);
    expectProblem(
      await upload(theirs.uuid, { kind: 'photo', bytes: PNG, type: 'image/png' }, { token: o.tokens.readonly }),
      403,
      'insufficient_scope',
    );
  });
});

describe('GraphQL', () => {
  const UPLOAD = `mutation($input: UploadClaimDocumentInput!) { uploadClaimDocument(input: $input) {
    __typename ... on Problem { code fieldErrors { field } }
    ... on UploadClaimDocumentPayload { duplicate document { kind status } file { id sha256 sizeBytes } } } }`;
  const MARK = `mutation($input: MarkClaimDocumentInput!) { markClaimDocument(input: $input) {
    __typename ... on Problem { code fieldErrors { field } } ... on ClaimDocument { kind status note } } }`;

  it('uploads base64 and REST downloads the same bytes; the file’s content and the Claim’s checklist read back', async () => {
    const c = await register(pol);
    const bytes = pdfNo(9);
    const input = { claimId: c.uuid, kind: 'logbook', fileName: 'logbook.pdf', contentType: 'application/pdf' };
    const r = await o.as('staff').gql(UPLOAD, { input: { ...input, contentBase64: bytes.toString('base64') } });
    expect(r.body.errors, JSON.stringify(r.body)).toBeUndefined();
    const up = r.body.data.uploadClaimDocument;
    expect(up).toMatchObject({
      __typename: 'UploadClaimDocumentPayload',
      duplicate: false,
      document: { kind: 'logbook', status: 'received' },
    });
    expect(up.file).toMatchObject({ sha256: sha256(bytes), sizeBytes: bytes.length });

    const d = await download(c.uuid, up.file.id);
    expect(d.bytes.equals(bytes)).toBe(true);

    const read = await o.as('staff').gql(
      `query($c: String!, $f: String!) { claimDocumentFile(claimId: $c, id: $f) { contentBase64 }
        claim(uuid: $c) { documentsComplete documents { kind status files { id } } } }`,
      { c: c.uuid, f: up.file.id },
    );
    expect(read.body.errors, JSON.stringify(read.body)).toBeUndefined();
    expect(Buffer.from(read.body.data.claimDocumentFile.contentBase64, 'base64').equals(bytes)).toBe(true);
    expect(read.body.data.claim.documentsComplete).toBe(false);
    expect(read.body.data.claim.documents.find((l: { kind: string }) => l.kind === 'logbook').files).toEqual([
      { id: up.file.id },
    ]);

    const bad = await o
      .as('staff')
      .gql(UPLOAD, { input: { ...input, contentType: 'image/png', contentBase64: bytes.toString('base64') } });
    expect(bad.body.data.uploadClaimDocument).toMatchObject({
      __typename: 'ValidationProblem',
      code: 'validation_failed',
      fieldErrors: [{ field: 'input.contentBase64' }],
    });

    const m = await o.as('staff').gql(MARK, { input: { claimId: c.uuid, kind: 'logbook', status: 'waived' } });
    expect(m.body.data.markClaimDocument).toMatchObject({
      __typename: 'ValidationProblem',
      fieldErrors: [{ field: 'input.note' }],
    });
    const ok = await o
      .as('staff')
      .gql(MARK, { input: { claimId: c.uuid, kind: 'logbook', status: 'waived', note: 'Seen' } });
    expect(ok.body.data.markClaimDocument).toEqual({
      __typename: 'ClaimDocument',
      kind: 'logbook',
      status: 'waived',
      note: 'Seen',
    });
    const gone = await other.as('staff').gql(MARK, { input: { claimId: c.uuid, kind: 'logbook', status: 'received' } });
    expect(gone.body.errors?.[0]?.extensions?.code).toBe('not_found');
  });
});

describe('the files store behind the API (DOCUMENT_STORE=files, a second server on the same database)', () => {
  const dir = path.join(tmpdir(), `bima-docs-api-${randomUUID()}`); // the store makes it
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const files = useKit(
    { ...INSTANT_RAIL, documentMaxBytes: MAX, documentStore: 'files', documentDir: dir },
    { sharing: t },
  );

  it('keeps the bytes on disk under the organisation’s directory and serves them; earlier PostgreSQL files stay readable', async () => {
    const c = await register(pol);
    const inPg = await upload(c.uuid, { kind: 'photo', bytes: PNG, type: 'image/png' });
    const bytes = pdfNo(10);
    const form = new FormData();
    form.append('kind', 'claim_form');
    form.append('file', new Blob([bytes], { type: 'application/pdf' }), 'form.pdf');
    const headers = { authorization: `Bearer ${o.tokens.staff}`, 'idempotency-key': randomUUID() };
    const r = await fetch(`${files.base}/claims/${c.uuid}/documents`, { method: 'POST', headers, body: form });
    const body = (await r.json()) as { data: { file: { uuid: string } } };
    expect(r.status, JSON.stringify(body)).toBe(201);
    const row = await t.db.tenant(o.id, (tx) =>
      tx.claimDocumentFile.findUniqueOrThrow({ where: { uuid: body.data.file.uuid } }),
    );
    expect(row.storageKey).toMatch(new RegExp(`^file:${o.id}/`));
    expect(await readdir(path.join(dir, String(o.id)))).toHaveLength(1);

    for (const fileUuid of [body.data.file.uuid, inPg.body.data.file.uuid]) {
      const d = await fetch(`${files.base}/claims/${c.uuid}/documents/${fileUuid}`, { headers });
      expect(d.status).toBe(200);
      expect(sha256(Buffer.from(await d.arrayBuffer()))).toBe(
        fileUuid === body.data.file.uuid ? sha256(bytes) : sha256(PNG),
      );
    }
  });
});
