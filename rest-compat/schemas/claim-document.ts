import { arr, bool, int, nullable, obj, str, timestamp, type Schema, oneOf } from './builders.ts';

const DOCUMENT_TYPES = ['application/pdf', 'image/jpeg', 'image/png', 'image/heic', 'image/webp'];

export const claimDocumentSchemas = {
  ClaimDocumentFile: obj({
    uuid: str(),
    file_name: str('As uploaded (last path segment, control characters removed)'),
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
      status: oneOf(['pending', 'received', 'waived']),
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
  ClaimDocumentMark: obj(
    {
      status: oneOf(
        ['received', 'waived', 'pending'],
        'received: the original seen on paper (no file needed); waived: note required; pending: again',
      ),
      note: str('The reason, required to waive'),
    },
    ['status'],
  ),
} satisfies Record<string, Schema>;
