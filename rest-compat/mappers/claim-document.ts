import type { z } from 'zod';
import type { markClaimDocumentBody } from '../schemas/claim-document.ts';
import type {
  ClaimDocumentFieldsFragment,
  ClaimDocumentFileFieldsFragment,
  ClaimDocumentFileQuery,
  MarkClaimDocumentInput,
  UploadClaimDocumentInput,
} from '../generated/operations.ts';
import { type FormBody, isUploadedFile } from '../../src/http/body.ts';
import { BinaryBody, type SentInput } from '../route.ts';

/** Where a claim's file is downloaded (the REST path of GET /claims/{uuid}/documents/{file_uuid}). */
export function claimDocumentDownloadPath(claimUuid: string, fileUuid: string): string {
  return `/api/v1/claims/${encodeURIComponent(claimUuid)}/documents/${encodeURIComponent(fileUuid)}`;
}

/** GraphQL ClaimDocumentFile → REST file (metadata; the bytes are behind `links.download`). */
export function claimDocumentFileToRest(f: ClaimDocumentFileFieldsFragment, claimUuid: string) {
  return {
    uuid: f.id,
    file_name: f.fileName,
    content_type: f.contentType,
    size_bytes: f.sizeBytes,
    sha256: f.sha256,
    uploaded_at: f.createdAt,
    links: { download: claimDocumentDownloadPath(claimUuid, f.id) },
  };
}

/** GraphQL ClaimDocument (a checklist line with its files) → REST ClaimDocument. */
export function claimDocumentToRest(d: ClaimDocumentFieldsFragment, claimUuid: string) {
  return {
    kind: d.kind,
    required: d.required,
    status: d.lineStatus,
    note: d.note,
    decided_at: d.decidedAt,
    files: d.files.map((f) => claimDocumentFileToRest(f, claimUuid)),
  };
}

/**
 * The upload form (fields `kind` and `file`) → GraphQL UploadClaimDocumentInput: the file's name and declared type as
 * sent, its bytes base64. A missing file (or `file` sent as text) leaves those fields out, for coercion to report.
 */
export function claimDocumentUploadFromRest(claimUuid: string, form: FormBody): SentInput<UploadClaimDocumentInput> {
  const file = form.file;
  const f = isUploadedFile(file) ? file : undefined;
  return {
    claimId: claimUuid,
    kind: form.kind,
    fileName: f?.fileName,
    contentType: f?.contentType,
    contentBase64: f?.bytes.toString('base64'),
  };
}

/** REST `{status, note}` for the line of `kind` → GraphQL MarkClaimDocumentInput (values as sent). */
export function claimDocumentMarkFromRest(
  claimUuid: string,
  kind: string,
  b: z.output<typeof markClaimDocumentBody>,
): SentInput<MarkClaimDocumentInput> {
  return { claimId: claimUuid, kind, status: b.status, note: b.note };
}

/**
 * `attachment` with the name twice (RFC 6266): `filename` as printable ASCII (anything else, quotes and backslashes
 * `_`), and `filename*` as UTF-8 percent-encoded (RFC 8187) for clients that read it. Header-safe whatever was sent.
 */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * GraphQL file with one range of its content → that range of the download (the whole file's length, its type, a
 * strong ETag (the SHA-256) and a name go with every range; the transport sends them once, with the first).
 */
export function claimDocumentDownload(f: ClaimDocumentFileQuery['claimDocumentFile']): BinaryBody {
  const headers = {
    'content-disposition': contentDisposition(f.fileName),
    etag: `"${f.sha256}"`,
    // Belt and braces for a file a browser opens: never sniffed (also sent on every answer), never run as a page.
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; sandbox",
  };
  return new BinaryBody(Buffer.from(f.contentBase64, 'base64'), f.contentType, headers, f.sizeBytes);
}

/** The download's next range after the one just read (`offset`, `length` variables), or null at the file's end. */
export function claimDocumentNextRange(
  f: ClaimDocumentFileQuery['claimDocumentFile'],
  variables: Record<string, unknown>,
): Record<string, unknown> | null {
  const end = Number(variables.offset) + Number(variables.length);
  return end < f.sizeBytes ? { ...variables, offset: end } : null;
}
