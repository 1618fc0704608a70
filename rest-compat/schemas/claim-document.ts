import { z } from 'zod';
import { arr, bool, int, nullable, obj, str, timestamp, type Schema, oneOf } from './builders.ts';
import { onText } from './inputs.ts';

const DOCUMENT_TYPES = ['application/pdf', 'image/jpeg', 'image/png', 'image/heic', 'image/webp'];

/** The claims module's line statuses (documents/checklist.ts), written out; claim-document-mapper.test.ts checks them. */
export const LINE_STATUSES = ['pending', 'received', 'waived'] as const;

/** POST /claims/{uuid}/documents/{kind}/mark, as documents/mark.ts validates it (a waiver says why). */
export const markClaimDocumentBody = z
  .object({
    status: z
      .enum(LINE_STATUSES)
      .describe('received: the original seen on paper (no file needed); waived: note required; pending: again'),
    note: z.string().trim().max(1000, onText).describe('The reason, required to waive').nullish(),
  })
  .superRefine((d, c) => {
    if (d.status === 'waived' && !d.note)
      c.addIssue({ code: 'custom', path: ['note'], message: 'Say why it is waived' });
  });

export const claimDocumentSchemas = {
  ClaimDocumentFile: obj({
    uuid: str(),
    file_name: str('As uploaded (last path segment, control and bidirectional characters removed)'),
    content_type: oneOf(DOCUMENT_TYPES),
    size_bytes: int(),
    sha256: str('Hex SHA-256 of the bytes (also the download’s ETag)'),
    uploaded_at: timestamp(),
    links: obj({ download: str('Path of GET /claims/{uuid}/documents/{file_uuid}') }),
  }),
  ClaimDocument: obj(
    {
      kind: str("A kind of the cause's checklist (claim_form, police_abstract …), or the extras other and photo"),
      required: bool('Holds the claim in documents_pending until received or waived'),
      status: oneOf(LINE_STATUSES),
      note: nullable(str('Why it was waived, or a note on the decision')),
      decided_at: nullable(timestamp()),
      files: arr({ $ref: '#/components/schemas/ClaimDocumentFile' }),
    },
    undefined,
    'A line of the claim’s documents checklist with its files',
  ),
  ClaimDocumentUpload: obj(
    {
      kind: str("A kind on the claim's checklist, or other / photo (extras, made on first upload)"),
      file: {
        type: 'string',
        format: 'binary',
        description: `${DOCUMENT_TYPES.join(', ')}; the part's Content-Type must match the content; at most DOCUMENT_MAX_BYTES (10 MiB)`,
      },
    },
    ['kind', 'file'],
  ),
  ClaimDocumentMark: markClaimDocumentBody,
} satisfies Record<string, Schema>;
