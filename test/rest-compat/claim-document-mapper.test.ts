import { describe, expect, it } from 'vitest';
import type { ClaimDocumentFieldsFragment } from '../../rest-compat/generated/operations.ts';
import {
  claimDocumentDownload,
  claimDocumentMarkFromRest,
  claimDocumentToRest,
  claimDocumentUploadFromRest,
  contentDisposition,
} from '../../rest-compat/mappers/claim-document.ts';
import { BinaryBody } from '../../rest-compat/route.ts';
import { LINE_STATUSES } from '../../rest-compat/schemas/claim-document.ts';
import type { FormBody } from '../../src/http/body.ts';
import { LINE_STATUSES as MODULE_LINE_STATUSES } from '../../src/modules/claims/documents/checklist.ts';

const CLAIM = '7d3f0c1e-5b0a-4c51-9a57-3c1f2b8e6d40';
const FILE = '0b9f3a52-1c2d-4e6f-8a9b-0c1d2e3f4a5b';
const file = {
  id: FILE,
  fileName: 'abstract.pdf',
  contentType: 'application/pdf',
  sizeBytes: 1234,
  sha256: 'ab'.repeat(32),
  createdAt: '2026-06-15T06:00:00.000Z',
};
const line: ClaimDocumentFieldsFragment = {
  kind: 'police_abstract',
  required: true,
  lineStatus: 'received',
  note: null,
  decidedAt: '2026-06-15T06:00:00.000Z',
  files: [file],
};

describe('claim document mapper', () => {
  it('a checklist line with its files, each with its download path', () => {
    expect(claimDocumentToRest(line, CLAIM)).toEqual({
      kind: 'police_abstract',
      required: true,
      status: 'received',
      note: null,
      decided_at: '2026-06-15T06:00:00.000Z',
      files: [
        {
          uuid: FILE,
          file_name: 'abstract.pdf',
          content_type: 'application/pdf',
          size_bytes: 1234,
          sha256: 'ab'.repeat(32),
          uploaded_at: '2026-06-15T06:00:00.000Z',
          links: { download: `/api/v1/claims/${CLAIM}/documents/${FILE}` },
        },
      ],
    });
    expect(claimDocumentToRest({ ...line, lineStatus: 'pending', decidedAt: null, files: [] }, CLAIM)).toMatchObject({
      status: 'pending',
      decided_at: null,
      files: [],
    });
  });

  it('the upload form → GraphQL input: the file base64; a missing file or one sent as text leaves its fields out', () => {
    const bytes = Buffer.from('%PDF-1.4 test');
    const form = { kind: 'claim_form', file: { fileName: 'form.pdf', contentType: 'application/pdf', bytes } };
    expect(claimDocumentUploadFromRest(CLAIM, form)).toEqual({
      claimId: CLAIM,
      kind: 'claim_form',
      fileName: 'form.pdf',
      contentType: 'application/pdf',
      contentBase64: bytes.toString('base64'),
    });
    for (const f of [{ kind: 'claim_form' }, { kind: 'claim_form', file: 'not a file' }] as FormBody[]) {
      expect(claimDocumentUploadFromRest(CLAIM, f)).toEqual({
        claimId: CLAIM,
        kind: 'claim_form',
        fileName: undefined,
        contentType: undefined,
        contentBase64: undefined,
      });
    }
    expect(claimDocumentMarkFromRest(CLAIM, 'logbook', { status: 'waived', note: 'Seen' })).toEqual({
      claimId: CLAIM,
      kind: 'logbook',
      status: 'waived',
      note: 'Seen',
    });
  });

  it('Content-Disposition is header-safe whatever the name: ASCII fallback and the UTF-8 name percent-encoded', () => {
    expect(contentDisposition('report.pdf')).toBe(`attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`);
    expect(contentDisposition('Ripoti ya "ajali" \\ (1).pdf')).toBe(
      `attachment; filename="Ripoti ya _ajali_ _ (1).pdf"; filename*=UTF-8''Ripoti%20ya%20%22ajali%22%20%5C%20%281%29.pdf`,
    );
    const evil = contentDisposition('a\r\nSet-Cookie: x=1;.pdf');
    expect(evil).not.toMatch(/[\r\n]/);
    expect(contentDisposition('Mkataba – ñ.pdf')).toBe(
      `attachment; filename="Mkataba _ _.pdf"; filename*=UTF-8''Mkataba%20%E2%80%93%20%C3%B1.pdf`,
    );
  });

  it('the download: bytes decoded, its type, the SHA-256 as a strong ETag, never sniffed or run', () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    const out = claimDocumentDownload({ ...file, contentType: 'image/png', contentBase64: bytes.toString('base64') });
    expect(out).toBeInstanceOf(BinaryBody);
    expect(Buffer.from(out.bytes).equals(bytes)).toBe(true);
    expect(out.contentType).toBe('image/png');
    expect(out.headers).toMatchObject({
      etag: `"${'ab'.repeat(32)}"`,
      'x-content-type-options': 'nosniff',
      'content-disposition': `attachment; filename="abstract.pdf"; filename*=UTF-8''abstract.pdf`,
    });
  });
});

describe('the checklist line statuses', () => {
  it('match the claims module', () => {
    expect(LINE_STATUSES).toEqual(MODULE_LINE_STATUSES);
  });
});
