import { builder } from '../../graphql/builder.ts';
import { KEEPS_REACH } from '../../graphql/access.ts';
import { CLAIM_SCOPES, oneClaim } from '../access/claim.visibility.ts';
import { claimDocumentService, stateOf } from './claim-document.service.ts';
import { ClaimDocumentStatusEnum } from './claim-document.mutations.ts';
import type { LineStatus } from './documents/checklist.ts';
import { LINE_ORDER } from './documents/read.ts';

const readScopes = Object.fromEntries(CLAIM_SCOPES.map((s) => [s, true]));

builder.prismaObject('ClaimDocumentFile', {
  ...oneClaim,
  description: "An uploaded file of a claim's checklist line; its bytes are read only when asked for.",
  fields: (t) => ({
    id: t.exposeID('uuid', { description: 'The file uuid' }),
    fileName: t.exposeString('fileName', {
      description: 'As uploaded (last path segment, control and bidirectional characters removed)',
    }),
    contentType: t.exposeString('contentType', { description: 'Declared and confirmed by the content' }),
    sizeBytes: t.exposeInt('sizeBytes', { description: 'Size of the file in bytes (decoded).' }),
    sha256: t.exposeString('sha256', { description: 'Hex SHA-256 of the bytes' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was uploaded.' }),
    contentBase64: t.string({
      description:
        'The bytes, base64, read from the document store for this field only: the whole file, or `length` bytes ' +
        'from byte `offset` (empty past the end). One request may read at most one whole document: more (aliases, ' +
        'several files) is refused query_too_complex; read a large file in ranges, or download it over REST.',
      args: {
        offset: t.arg.int({ description: 'First byte, from 0 (default 0)' }),
        length: t.arg.int({ description: 'At most this many bytes (default: to the end)' }),
      },
      resolve: async (f, a, ctx) => (await claimDocumentService.content(ctx, f, a)).toString('base64'),
    }),
  }),
});

builder.prismaObject('ClaimDocument', {
  ...oneClaim,
  description: 'A line of a claim’s documents checklist: a kind, required (the cause’s checklist) or extra.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: "A kind of the cause's checklist (claim_form …), or other / photo" }),
    required: t.exposeBoolean('required', { description: 'Holds the claim in documents_pending until decided' }),
    status: t.field({
      type: ClaimDocumentStatusEnum,
      description: 'pending, received or waived.',
      resolve: (d) => d.status as LineStatus,
    }),
    note: t.exposeString('note', { nullable: true, description: 'Why it was waived, or a note on the decision' }),
    decidedAt: t.expose('decidedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was received (upload or by hand) or waived; null while pending.',
    }),
    files: t.relation('files', {
      ...KEEPS_REACH,
      description: 'Uploaded files, oldest first',
      query: { orderBy: { id: 'asc' } },
    }),
  }),
});

interface Checklist {
  claimId: number;
  complete: boolean;
  missing: string[];
}

const ClaimChecklistRef = builder.objectRef<Checklist>('ClaimChecklist').implement({
  description: "A claim's documents checklist and whether it lets the claim go to the underwriter.",
  fields: (t) => ({
    complete: t.exposeBoolean('complete', { description: 'Every required line is received or waived' }),
    missing: t.exposeStringList('missing', { description: 'Kinds of the required lines still pending' }),
    documents: t.prismaField({
      type: ['ClaimDocument'],
      description: 'The lines in checklist order, extras last',
      resolve: (query, c, _a, ctx) => claimDocumentService.linesOf(ctx, c.claimId, query),
    }),
  }),
});

builder.queryFields((t) => ({
  // The checklist of a claim within reach (claimDocumentService.checklist looks the claim up through its visibility):
  // its lines are within reach too.
  claimChecklist: t.field({
    ...KEEPS_REACH,
    type: ClaimChecklistRef,
    authScopes: readScopes,
    description: "A claim's documents checklist (by claim uuid); not_found when the claim is not visible.",
    args: { claimId: t.arg.string({ required: true, description: 'The claim uuid' }) },
    resolve: (_r, a, ctx) => claimDocumentService.checklist(ctx, a.claimId),
  }),
  claimDocumentFile: t.prismaField({
    ...KEEPS_REACH,
    type: 'ClaimDocumentFile',
    authScopes: readScopes,
    description: 'One uploaded file of a claim; not_found when the claim or the file is not visible.',
    args: {
      claimId: t.arg.string({ required: true, description: 'The claim uuid' }),
      id: t.arg.string({ required: true, description: 'The file uuid' }),
    },
    resolve: (query, _r, a, ctx) => claimDocumentService.file(ctx, a.claimId, a.id, query),
  }),
}));

/** The Claim type (claim.type.ts) carries its checklist: added here, through the type's name. */
builder.prismaObjectFields('Claim', (t) => ({
  documents: t.relation('documents', {
    ...KEEPS_REACH,
    description: 'The documents checklist in order, extras last, with the files',
    query: { orderBy: [...LINE_ORDER] },
  }),
  documentsComplete: t.boolean({
    description: 'Every required document received or waived: the claim may go to the underwriter',
    select: { documents: { select: { kind: true, required: true, status: true } } },
    resolve: (c) => stateOf(c.documents).complete,
  }),
}));
