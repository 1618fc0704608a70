import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AppError, ValidationError } from '../lib/problem.ts';

/**
 * Why a body declared this way cannot be read, or null. Bodies are read as sent, in UTF-8 (RFC 8259): a
 * `Content-Encoding` other than identity (gzip, br …) or a `charset` other than UTF-8 (US-ASCII too: its bytes past
 * 0x7F would be read as UTF-8, not refused) is 415 unsupported_media_type (RFC 9110 §15.5.16), rather than bytes
 * read as something they are not.
 */
export function unreadableDeclaration(
  contentEncoding: string | null | undefined,
  contentType: string | null | undefined,
): string | null {
  for (const coding of (contentEncoding ?? '').split(',')) {
    const c = coding.trim().toLowerCase();
    if (c && c !== 'identity')
      return `Content-Encoding ${JSON.stringify(c.slice(0, 40))} is not accepted: send the body uncompressed`;
  }
  // A form body is percent-encoded ASCII whatever its charset says: Apache HttpClient, among others, declares
  // ISO-8859-1 on every token request, and an OAuth client must not be refused for it.
  if (mediaTypeOf(contentType) === 'application/x-www-form-urlencoded') return null;
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset != null && charset !== 'utf-8' && charset !== 'utf8')
    return `charset ${JSON.stringify(charset.slice(0, 40))} is not accepted: send UTF-8`;
  return null;
}

export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const unreadable = unreadableDeclaration(req.headers['content-encoding'], req.headers['content-type']);
  if (unreadable) {
    req.resume();
    throw new AppError('unsupported_media_type', { detail: unreadable });
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) {
    req.resume();
    throw new AppError('payload_too_large', { detail: `Request bodies are limited to ${maxBytes} bytes` });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes)
      throw new AppError('payload_too_large', { detail: `Request bodies are limited to ${maxBytes} bytes` });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function mediaType(req: IncomingMessage): string {
  return mediaTypeOf(req.headers['content-type']);
}

const mediaTypeOf = (contentType: string | null | undefined): string =>
  (contentType ?? '').split(';')[0].trim().toLowerCase();

/** Deepest nesting (objects and arrays) a JSON request may have; the deepest body the API defines has five levels. */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether JSON text nests deeper than `max`, by one pass over the bytes (no recursion, no parse). Brackets inside
 * strings do not count; the structural characters are ASCII, so UTF-8 needs no decoding. Malformed text is left to
 * JSON.parse to report.
 */
export function jsonTextDepthExceeds(text: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next byte is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** The same limit for an already parsed value (GraphQL variables), walked with an explicit stack. */
export function jsonValueDepthExceeds(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d + 1 > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  return false;
}

/** U+0000, or a UTF-16 surrogate without its pair: valid in a JS string and in JSON, not in PostgreSQL text. */
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what this looks for
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');
export const UNSTORABLE_TEXT = 'Text must not contain the NUL character (U+0000) or an unpaired UTF-16 surrogate';
const UNSTORABLE_MESSAGE = 'must not contain the NUL character (U+0000) or an unpaired UTF-16 surrogate';

/** Whether any string (or object key) in a parsed value is text PostgreSQL cannot store. */
export function hasUnstorableText(value: unknown): boolean {
  return unstorableTextAt(value) !== null;
}

/**
 * The dotted path (`loss_place`, `vehicles.0.regno`; `''` for the value itself) of the first string or object key
 * PostgreSQL cannot store, or null; walked with an explicit stack. A key that is itself unstorable is named with
 * U+FFFD in place of its bad characters, so the answer naming it is storable text too.
 */
export function unstorableTextAt(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, '']];
  const join = (path: string, k: string) => (path ? `${path}.${k}` : k);
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) return path;
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (UNSTORABLE.test(k)) return join(path, k.replace(UNSTORABLE_ALL, '\uFFFD'));
        stack.push([x, join(path, k)]);
      }
    }
  }
  return null;
}

/** The field error for unstorable text at `field` (422 validation_failed, code `invalid_text`). */
export function unstorableTextError(field: string): ValidationError {
  return new ValidationError([{ field: field || 'body', code: 'invalid_text', message: UNSTORABLE_MESSAGE }]);
}

/** JSON request bodies; an empty body is `undefined`. */
export function parseJson(raw: Buffer, req: IncomingMessage): unknown {
  if (raw.length === 0) return undefined;
  const type = mediaType(req);
  if (type && type !== 'application/json' && !type.endsWith('+json')) {
    throw new AppError('unsupported_media_type', { detail: 'Send JSON with Content-Type: application/json' });
  }
  // JSON.parse itself copes with any depth; the recursive code after it (validation, canonical hashing, GraphQL
  // coercion) does not, and a few thousand brackets overflowed its stack as a 500.
  if (jsonTextDepthExceeds(raw, MAX_JSON_DEPTH)) {
    throw new AppError('invalid_request', { detail: `JSON bodies may nest at most ${MAX_JSON_DEPTH} levels deep` });
  }
  const text = utf8OrRefuse(raw, 'The JSON body is not valid UTF-8');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new AppError('invalid_request', { detail: `Malformed JSON body: ${(e as Error).message.slice(0, 120)}` });
  }
}

// fatal: a malformed byte is refused, never read as U+FFFD; ignoreBOM: a BOM stays in the text (JSON.parse refuses it,
// as before).
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Bytes as UTF-8 text, or 400 invalid_request: a body that is not UTF-8 (`\xff\xfe`) was read with U+FFFD in place
 * of each bad byte and stored so (outside check, 2026-12-01), text the caller never sent. RFC 8259 requires UTF-8.
 */
export function utf8OrRefuse(raw: Uint8Array, detail: string): string {
  try {
    return STRICT_UTF8.decode(raw);
  } catch {
    throw new AppError('invalid_request', { detail });
  }
}

/** Deterministic JSON (sorted keys) so the same request hashes the same whatever its key order. */
export function canonicalJson(v: unknown): string {
  if (v === undefined) return '';
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .filter((k) => o[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
    .join(',')}}`;
}

/** A file part of a multipart/form-data body. */
export interface UploadedFile {
  /** As the client named it (never a path here: what the service keeps of it is its own business). */
  fileName: string;
  /** As the client declared it; may be empty. */
  contentType: string;
  bytes: Buffer;
}

/** A multipart/form-data body: text fields as strings, file parts as UploadedFile; each name at most once. */
export type FormBody = Record<string, string | UploadedFile>;

export const isUploadedFile = (v: unknown): v is UploadedFile =>
  !!v && typeof v === 'object' && Buffer.isBuffer((v as UploadedFile).bytes);

/**
 * A multipart/form-data body, parsed by the platform's own parser (undici's FormData). Anything else is 415; a body
 * the parser cannot read, a name sent twice or text PostgreSQL cannot store is 400. The size was capped while reading.
 */
export async function parseForm(raw: Buffer, req: IncomingMessage): Promise<FormBody> {
  if (mediaType(req) !== 'multipart/form-data') {
    throw new AppError('unsupported_media_type', { detail: 'Send the upload as multipart/form-data' });
  }
  let form: FormData;
  try {
    const headers = { 'content-type': String(req.headers['content-type']) };
    // A Buffer is a Uint8Array over an ArrayBuffer (never shared memory), which is what the type asks.
    const body = raw as Uint8Array<ArrayBuffer>;
    form = await new Request('http://upload.invalid/', { method: 'POST', headers, body }).formData();
  } catch {
    throw new AppError('invalid_request', { detail: 'Malformed multipart/form-data body' });
  }
  // No prototype: a part named __proto__ is a field like any other.
  const out = Object.create(null) as FormBody;
  for (const [name, value] of form) {
    if (name in out) throw new AppError('invalid_request', { detail: `Form field ${name} sent more than once` });
    const text = typeof value === 'string' ? value : value.name;
    if (hasUnstorableText(name) || hasUnstorableText(text))
      throw unstorableTextError(unstorableTextAt({ [name]: text })!);
    out[name] =
      typeof value === 'string'
        ? value
        : { fileName: value.name, contentType: value.type, bytes: Buffer.from(await value.arrayBuffer()) };
  }
  return out;
}

/**
 * What an Idempotency-Key's request hash covers of a form: its fields, and each file by name, type and SHA-256 (not
 * the raw body: a client retrying builds the form again under a new boundary, and that retry must replay).
 */
export function formDigest(form: FormBody): string {
  const seen = Object.fromEntries(
    Object.entries(form).map(([k, v]) => [
      k,
      isUploadedFile(v)
        ? {
            file_name: v.fileName,
            content_type: v.contentType,
            sha256: createHash('sha256').update(v.bytes).digest('hex'),
          }
        : v,
    ]),
  );
  return canonicalJson(seen);
}
