import {
  ClaimDocumentFileDocument,
  ClaimDocumentsDocument,
  MarkClaimDocumentDocument,
  UploadClaimDocumentDocument,
} from '../generated/operations.ts';
import {
  claimDocumentDownload,
  claimDocumentMarkFromRest,
  claimDocumentToRest,
  claimDocumentUploadFromRest,
  claimDocumentFileToRest,
  claimDocumentNextRange,
} from '../mappers/claim-document.ts';
import { type AnyRoute, asForm, bodyOf, route } from '../route.ts';
import { markClaimDocumentBody } from '../schemas/claim-document.ts';
import { arr, bool, dataOf, obj, ref, str, json } from '../schemas/builders.ts';

const common = { tag: 'Claims', serviceOnly: true };

/** Room beyond the largest document for the form's boundaries, part headers and the `kind` field. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

/**
 * Bytes per range of a download: each range is one run of the operation (its own short transactions), written and
 * drained before the next is read (src/http/binary-stream.ts), so a download holds no connection while it sends.
 */
const DOWNLOAD_RANGE_BYTES = 512 * 1024;

/** The upload's file parts are reported on the form's field, `file`, whichever part of it was wrong. */
const fileFields = { file_name: 'file', content_type: 'file', content_base64: 'file' };

const binary = json({ type: 'string', format: 'binary' });

export const claimDocumentsRoutes: AnyRoute[] = [
  route({
    ...common,
    operationId: 'listClaimDocuments',
    method: 'GET',
    path: '/claims/{uuid}/documents',
    summary: "A claim's documents checklist with its files, and whether it is complete",
    scopes: ['read', 'crm'],
    idempotent: false,
    operation: ClaimDocumentsDocument,
    toVariables: ({ params }) => ({ claimId: params.uuid }),
    toResponse: (d, { params }) => ({
      status: 200,
      body: {
        data: d.claimChecklist.documents.map((l) => claimDocumentToRest(l, params.uuid)),
        meta: { complete: d.claimChecklist.complete, missing: d.claimChecklist.missing },
      },
    }),
    response: {
      status: 200,
      description: 'The checklist in order, extras last',
      schema: obj({
        data: arr(ref('ClaimDocument')),
        meta: obj({
          complete: bool('Every required line is received or waived: the claim may go to the underwriter'),
          missing: arr(str('Kind of a required line still pending')),
        }),
      }),
    },
    errors: ['not_found'],
  }),
  route({
    ...common,
    operationId: 'uploadClaimDocument',
    method: 'POST',
    path: '/claims/{uuid}/documents',
    summary: 'Upload a document to a checklist line (multipart/form-data: kind, file)',
    description:
      'Marks the line received. The same bytes sent again for the same line store nothing new: the first file is ' +
      'answered with 200 and `duplicate: true`. Open claims only (approved included). Agents may upload to claims ' +
      'within their reach.',
    scopes: ['crm'],
    idempotent: true,
    multipart: { maxBytes: (c) => c.documentMaxBytes + FORM_OVERHEAD_BYTES },
    operation: UploadClaimDocumentDocument,
    requestBody: ref('ClaimDocumentUpload'),
    fieldNames: fileFields,
    toVariables: ({ params, body }) => ({ input: claimDocumentUploadFromRest(params.uuid, asForm(body)) }),
    toResponse: (d, { params }) => {
      const r = d.uploadClaimDocument;
      return {
        status: r.duplicate ? 200 : 201,
        body: {
          data: {
            document: claimDocumentToRest(r.document, params.uuid),
            file: claimDocumentFileToRest(r.file, params.uuid),
            duplicate: r.duplicate,
          },
        },
      };
    },
    response: {
      status: 201,
      description: 'Stored (200 with `duplicate: true` when these bytes were already on the line)',
      schema: dataOf(obj({ document: ref('ClaimDocument'), file: ref('ClaimDocumentFile'), duplicate: bool() })),
    },
    errors: ['not_found', 'invalid_state', 'validation_failed', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'downloadClaimDocument',
    method: 'GET',
    path: '/claims/{uuid}/documents/{file_uuid}',
    summary: 'Download an uploaded document (its bytes)',
    description:
      'Streamed from the document store range by range, with its Content-Length: a connection cut before that ' +
      'many bytes means the file is incomplete. 503 with Retry-After when the organisation is using its whole ' +
      'share of the service (docs/api-conventions.md, fair use).',
    scopes: ['read', 'crm'],
    idempotent: false,
    operation: ClaimDocumentFileDocument,
    toVariables: ({ params }) => ({
      claimId: params.uuid,
      id: params.file_uuid,
      offset: 0,
      length: DOWNLOAD_RANGE_BYTES,
    }),
    toResponse: (d) => ({ status: 200, body: claimDocumentDownload(d.claimDocumentFile) }),
    ranges: { next: (d, variables) => claimDocumentNextRange(d.claimDocumentFile, variables) },
    response: {
      status: 200,
      description: 'The bytes as uploaded, in their content type',
      schema: binary,
      mediaTypes: ['application/pdf', 'image/jpeg', 'image/png', 'image/heic', 'image/webp'],
      headers: {
        'Content-Disposition': {
          description: 'attachment; filename="…" (ASCII) and filename*=UTF-8\'\'… (the name as uploaded)',
          schema: { type: 'string' },
        },
        ETag: { description: 'The SHA-256 of the bytes, quoted', schema: { type: 'string' } },
      },
    },
    errors: ['not_found', 'service_unavailable'],
  }),
  route({
    ...common,
    operationId: 'markClaimDocument',
    method: 'POST',
    path: '/claims/{uuid}/documents/{kind}/mark',
    summary: 'Decide a checklist line by hand: received on paper, waived (with the reason) or pending again',
    scopes: ['crm'],
    idempotent: true,
    operation: MarkClaimDocumentDocument,
    requestBody: markClaimDocumentBody,
    parseBody: true,
    toVariables: (input) => ({
      input: claimDocumentMarkFromRest(input.params.uuid, input.params.kind, bodyOf(input, markClaimDocumentBody)),
    }),
    toResponse: (d, { params }) => ({
      status: 200,
      body: { data: claimDocumentToRest(d.markClaimDocument, params.uuid) },
    }),
    response: { status: 200, description: 'The line as decided', schema: dataOf(ref('ClaimDocument')) },
    errors: ['not_found', 'invalid_state', 'validation_failed', 'actor_forbidden'],
  }),
];
