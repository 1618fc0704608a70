import { z } from 'zod';
import { arr, bool, int, nullable, obj, str, timestamp, oneOf } from './builders.ts';

const DOCUMENT_TYPES = ['application/pdf', 'image/jpeg', 'image/png', 'image/heic', 'image/webp'] as const;

export const ClaimDocumentFile = obj({
  uuid: str(),
  file_name: str('As uploaded (last path segment, control characters removed)'),
  content_type: oneOf(DOCUMENT_TYPES),
  size_bytes: int(),
  sha256: str('Hex SHA-256 of the bytes (also the download’s ETag)'),
  uploaded_at: timestamp(),
  links: obj({ download: str('Path of GET /claims/{uuid}/documents/{file_uuid}') }),
});

export const ClaimDocument = obj(
  {
    kind: str("A kind of the cause's checklist (claim_form, police_abstract …), or the extras other and photo"),
    required: bool('Holds the claim in documents_pending until received or waived'),
    status: oneOf(['pending', 'received', 'waived']),
    note: nullable(str('Why it was waived, or a note on the decision')),
    decided_at: nullable(timestamp()),
    files: arr(ClaimDocumentFile),
  },
  undefined,
  'A line of the claim’s documents checklist with its files',
);

export const ClaimDocumentUpload = obj(
  {
    kind: str("A kind on the claim's checklist, or other / photo (extras, made on first upload)"),
    file: str(
      `${DOCUMENT_TYPES.join(', ')}; the part's Content-Type must match the content; at most DOCUMENT_MAX_BYTES (10 MiB)`,
    ).meta({ format: 'binary' }),
  },
  ['kind', 'file'],
);

export const ClaimDocumentMark = obj(
  {
    status: oneOf(
      ['received', 'waived', 'pending'],
      'received: the original seen on paper (no file needed); waived: note required; pending: again',
    ),
    note: z
      .string()
      .trim()
      .max(1000)
      .nullable()
      .describe('The reason, required to waive (the service refuses a waiver without one)'),
  },
  ['status'],
);

export const claimDocumentSchemas = { ClaimDocumentFile, ClaimDocument, ClaimDocumentUpload, ClaimDocumentMark };
