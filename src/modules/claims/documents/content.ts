import { createHash } from 'node:crypto';
import { AppError, ValidationError } from '../../../lib/problem.ts';

/**
 * What an uploaded document may be, checked before anything is stored (pure, no I/O): one of the accepted types,
 * declared and confirmed by the file's own first bytes (a renamed executable is not a PDF), not empty, within the
 * size limit, with a file name safe to show and to send back in a Content-Disposition header.
 */

/** Accepted content types, each with the test of its magic bytes. */
export const DOCUMENT_TYPES: Record<string, (b: Uint8Array) => boolean> = {
  'application/pdf': (b) => startsWith(b, [0x25, 0x50, 0x44, 0x46, 0x2d]), // %PDF-
  'image/jpeg': (b) => startsWith(b, [0xff, 0xd8, 0xff]),
  'image/png': (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  // RIFF <size> WEBP
  'image/webp': (b) => ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP',
  // ISO base media: <box size> ftyp <major brand>; the HEIF brands phones write.
  'image/heic': (b) => ascii(b, 4, 8) === 'ftyp' && HEIF_BRANDS.has(ascii(b, 8, 12)),
};
const HEIF_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'mif1', 'msf1']);

const EXTENSIONS: Record<string, string> = {
  'application/pdf': '.pdf',
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/webp': '.webp',
  'image/heic': '.heic',
};

function startsWith(b: Uint8Array, magic: number[]): boolean {
  return b.length >= magic.length && magic.every((m, i) => b[i] === m);
}
function ascii(b: Uint8Array, from: number, to: number): string {
  return b.length >= to ? String.fromCharCode(...b.subarray(from, to)) : '';
}

export interface UploadInput {
  kind: string;
  fileName: string;
  contentType: string;
  contentBase64: string;
}

export interface CheckedUpload {
  kind: string;
  fileName: string;
  contentType: string;
  bytes: Buffer;
  sha256: string;
}

/** Checklist kinds are lower-case codes (`police_abstract`); anything else cannot be a line of any claim. */
export const KIND = /^[a-z][a-z0-9_]{0,63}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const FILE_NAME_MAX = 200;

/** Checks an upload; 422 validation_failed on the field at fault, 413 payload_too_large beyond `maxBytes`. */
export function checkUpload(input: UploadInput, maxBytes: number): CheckedUpload {
  const errors: { field: string; message: string }[] = [];
  const kind = input.kind.trim();
  if (!KIND.test(kind)) errors.push({ field: 'kind', message: 'A document kind such as claim_form or photo' });
  const contentType = input.contentType.split(';')[0].trim().toLowerCase();
  const sniff = DOCUMENT_TYPES[contentType];
  if (!sniff) errors.push({ field: 'contentType', message: `One of ${Object.keys(DOCUMENT_TYPES).join(', ')}` });
  const b64 = input.contentBase64;
  // Before decoding: base64 is 4 characters per 3 bytes, so the limit is known from the length alone.
  if (b64.length > Math.ceil(maxBytes / 3) * 4 + 4) throw tooLarge(maxBytes);
  if (b64.length % 4 !== 0 || !BASE64.test(b64)) {
    errors.push({ field: 'contentBase64', message: 'Base64 (RFC 4648, with padding)' });
    throw new ValidationError(errors);
  }
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length > maxBytes) throw tooLarge(maxBytes);
  if (bytes.length === 0) errors.push({ field: 'contentBase64', message: 'The file is empty' });
  else if (sniff && !sniff(bytes)) {
    errors.push({
      field: 'contentBase64',
      message: `The content is not ${contentType} (its first bytes say otherwise)`,
    });
  }
  if (errors.length) throw new ValidationError(errors);
  return {
    kind,
    fileName: safeFileName(input.fileName, kind, EXTENSIONS[contentType]),
    contentType,
    bytes,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

function tooLarge(maxBytes: number): AppError {
  return new AppError('payload_too_large', { detail: `A document may be at most ${maxBytes} bytes` });
}

/**
 * The name as shown and sent back: its last path segment only (browsers may send `C:\fakepath\x.pdf`), no control
 * characters, at most 200 characters; an empty one becomes `<kind><extension>`. It is never used as a path. The
 * bidirectional controls (marks, embeddings, overrides, isolates) go too: `invoice\u202Efdp.exe` would show to claims
 * staff as `invoiceexe.pdf`.
 */
export function safeFileName(raw: string, kind: string, extension = ''): string {
  const base = raw.split(/[/\\]/).pop() ?? '';
  const cleaned = base
    // eslint-disable-next-line no-control-regex -- control characters are what this removes
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .trim();
  const name = [...cleaned].slice(0, FILE_NAME_MAX).join('');
  return name && name !== '.' && name !== '..' ? name : `${kind}${extension}`;
}
