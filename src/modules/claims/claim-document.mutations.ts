import type { ClaimDocumentFile } from '../../generated/prisma/client.ts';
import { builder } from '../../graphql/builder.ts';
import { InvalidStateError, ValidationError } from '../../lib/problem.ts';
import { claimDocumentService, DOCUMENT_TYPES } from './claim-document.service.ts';
import { LINE_STATUSES } from './documents/checklist.ts';

const UploadClaimDocumentInput = builder.inputType('UploadClaimDocumentInput', {
  description: 'A file for a checklist line of a claim, sent inline as base64.',
  fields: (t) => ({
    claimId: t.string({ required: true, description: 'The claim uuid' }),
    kind: t.string({ required: true, description: "A kind on the claim's checklist, or other / photo (extras)" }),
    fileName: t.string({
      required: true,
      description:
        'The name to show: its last path segment is kept, control and bidirectional characters removed, at most 200 characters; empty becomes <kind><extension>.',
    }),
    contentType: t.string({
      required: true,
      description: `One of ${Object.keys(DOCUMENT_TYPES).join(', ')}; the content's first bytes must agree`,
    }),
    contentBase64: t.string({
      required: true,
      description: 'The file, base64 with padding; at most DOCUMENT_MAX_BYTES (10 MiB by default) once decoded',
    }),
  }),
});

/** Defined here (the type file imports this one, so the dependency runs one way) and shown on ClaimDocument too. */
export const ClaimDocumentStatusEnum = builder.enumType('ClaimDocumentStatus', {
  description: 'pending until received (a file, or the original seen on paper) or waived with a reason.',
  values: {
    pending: { description: 'Not yet received: a required line holds the claim in documents_pending.' },
    received: { description: 'A file was uploaded, or claims staff saw the original on paper.' },
    waived: { description: 'Not needed for this claim; the reason is in note.' },
  } satisfies Record<(typeof LINE_STATUSES)[number], { description: string }>,
});

const MarkClaimDocumentInput = builder.inputType('MarkClaimDocumentInput', {
  description: 'A decision on one checklist line, by hand.',
  fields: (t) => ({
    claimId: t.string({ required: true, description: 'The claim uuid' }),
    kind: t.string({ required: true, description: "The line's kind (ClaimDocument.kind), e.g. claim_form." }),
    status: t.field({
      type: ClaimDocumentStatusEnum,
      required: true,
      description:
        'received (seen on paper, no file needed), waived (note required) or pending again (e.g. a file unreadable).',
    }),
    note: t.string({ description: 'Required to waive: the reason' }),
  }),
});

interface Uploaded {
  documentId: number;
  file: ClaimDocumentFile;
  duplicate: boolean;
}

const UploadPayload = builder.objectRef<Uploaded>('UploadClaimDocumentPayload').implement({
  description: 'The outcome of uploadClaimDocument: the checklist line and the file stored (or already there).',
  fields: (t) => ({
    document: t.prismaField({
      type: 'ClaimDocument',
      description: 'The checklist line, now received',
      resolve: (query, r, _a, ctx) => claimDocumentService.lineById(ctx, r.documentId, query),
    }),
    // The file's type exposes no relation: the row the upload returned already holds every field a query can ask for.
    file: t.prismaField({
      type: 'ClaimDocumentFile',
      description: 'The file stored; when duplicate, the one already on the line.',
      resolve: (_query, r) => r.file,
    }),
    duplicate: t.exposeBoolean('duplicate', {
      description: 'The same bytes were already on this line: that file is answered, nothing new stored',
    }),
  }),
});

const errors = (name: string, types: (typeof ValidationError | typeof InvalidStateError)[]) => ({
  types,
  directResult: true as const,
  union: { name: `${name}Result` },
});

builder.mutationFields((t) => ({
  uploadClaimDocument: t.field({
    type: UploadPayload,
    authScopes: { crm: true },
    errors: errors('UploadClaimDocument', [ValidationError, InvalidStateError]),
    description:
      "Adds a file to a claim's checklist line (agents too, on claims within reach) and marks the line received. " +
      'Open claims only (approved included). Larger than the limit: payload_too_large.',
    args: {
      input: t.arg({
        description: 'The claim, the document kind and its bytes.',
        type: UploadClaimDocumentInput,
        required: true,
      }),
    },
    resolve: (_r, { input }, ctx) => {
      const { claimId, ...file } = input;
      return claimDocumentService.upload(ctx, claimId, file);
    },
  }),
  markClaimDocument: t.prismaField({
    type: 'ClaimDocument',
    authScopes: { crm: true },
    errors: errors('MarkClaimDocument', [ValidationError, InvalidStateError]),
    description:
      'Decides a checklist line by hand (claims staff): received on paper, waived with a reason, or pending.',
    args: {
      input: t.arg({
        description: 'The claim document and its new review state.',
        type: MarkClaimDocumentInput,
        required: true,
      }),
    },
    resolve: async (query, _r, { input }, ctx) => {
      const { claimId, ...decision } = input;
      const line = await claimDocumentService.mark(ctx, claimId, decision);
      return claimDocumentService.lineById(ctx, line.id, query);
    },
  }),
}));
