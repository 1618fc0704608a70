import { builder } from '../../graphql/builder.ts';
import { DuplicateClientError, InvalidStateError, ValidationError } from '../../lib/problem.ts';
import { prospectService } from './prospect.service.ts';
import {
  ProspectInterestEnum,
  ProspectLostReasonEnum,
  ProspectSourceEnum,
  ProspectStatusEnum,
} from './prospect.type.ts';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** Fields shared by create and update (create makes name required); an explicit null clears a field on update. */
const prospectFields = (t: PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>) => ({
  type: t.string({ description: 'individual (default) or business' }),
  phone: t.string({ description: 'Kenyan mobile, any format; duplicate-checked against clients and prospects' }),
  email: t.string({ description: 'Email address; stored lower case.' }),
  idNo: t.string({ description: 'National ID or passport number; duplicate-checked' }),
  kraPin: t.string({ description: 'KRA PIN; duplicate-checked' }),
  source: t.field({ type: ProspectSourceEnum, description: 'How the prospect came to the organisation.' }),
  interests: t.field({
    type: [ProspectInterestEnum],
    description: 'The covers they are interested in (replaces the list on update).',
  }),
  estimatedPremium: t.field({ type: 'Shillings', description: 'Whole shillings a year' }),
  assigneeId: t.int({ description: 'A user who may work prospects; default the acting agent' }),
  nextFollowUpOn: t.string({ description: 'Y-m-d, today or later' }),
  note: t.string({ description: 'Added to the timeline (with a status move: why it moved)' }),
  force: t.boolean({ description: 'Save despite a matching phone, ID number or tax PIN.' }),
});

const CreateProspectInput = builder.inputType('CreateProspectInput', {
  description: 'A new prospect: who they are, how to reach them, what they want.',
  fields: (t) => ({
    name: t.string({ required: true, description: "The person's or business's name; 2 to 200 characters." }),
    ...prospectFields(t),
  }),
});
const UpdateProspectInput = builder.inputType('UpdateProspectInput', {
  description: 'Changes to a prospect: a field left out is unchanged, an explicit null clears it.',
  fields: (t) => ({
    uuid: t.string({ required: true, description: 'The prospect (its uuid).' }),
    name: t.string({ description: "The person's or business's name; 2 to 200 characters." }),
    ...prospectFields(t),
    status: t.field({ type: ProspectStatusEnum, description: 'A move through the state machine' }),
    lostReason: t.field({ type: ProspectLostReasonEnum, description: 'Required with status lost' }),
  }),
});
const AddProspectNoteInput = builder.inputType('AddProspectNoteInput', {
  description: "A note for a prospect's timeline.",
  fields: (t) => ({
    uuid: t.string({ required: true, description: 'The prospect (its uuid).' }),
    body: t.string({ required: true, description: 'The note text; at most 2000 characters.' }),
  }),
});
const ConvertProspectInput = builder.inputType('ConvertProspectInput', {
  description:
    "Turning a prospect into a client: a new client from the prospect's details (corrected here), or an existing client linked.",
  fields: (t) => ({
    uuid: t.string({ required: true, description: 'The prospect (its uuid).' }),
    clientNo: t.string({ description: 'Link this existing client (one you may see) instead of creating one' }),
    force: t.boolean({ description: 'Create the client despite matching clients' }),
    phone: t.string({ description: "Fills or corrects the prospect's details for the new client" }),
    email: t.string({ description: "The new client's email; default the prospect's." }),
    idNo: t.string({ description: "The new client's national ID or passport number; default the prospect's." }),
    kraPin: t.string({ description: "The new client's KRA PIN; default the prospect's." }),
    dateOfBirth: t.string({ description: 'Y-m-d' }),
    physicalAddress: t.string({ description: "The new client's physical address." }),
    branchId: t.int({ description: "Branch (databaseId); the acting user's branch when absent." }),
    riskManagerId: t.int({
      description: 'Account executive (user databaseId); the acting account executive when absent.',
    }),
    salesPersonId: t.int({
      description: "Default: the prospect's assignee when an agent (GET /sales-people lists who may be)",
    }),
  }),
});

const errors = (
  name: string,
  types: (typeof ValidationError | typeof DuplicateClientError | typeof InvalidStateError)[],
) => ({
  types,
  directResult: true as const,
  union: { name: `${name}Result` },
});

builder.mutationFields((t) => ({
  createProspect: t.prismaField({
    type: 'Prospect',
    authScopes: { crm: true },
    errors: errors('CreateProspect', [ValidationError, DuplicateClientError]),
    description: 'Numbers the prospect, normalises its identifiers and checks them against clients and prospects.',
    args: { input: t.arg({ description: 'The new prospect.', type: CreateProspectInput, required: true }) },
    resolve: (query, _r, { input }, ctx) => prospectService.create(ctx, input, query),
  }),
  updateProspect: t.prismaField({
    type: 'Prospect',
    authScopes: { crm: true },
    errors: errors('UpdateProspect', [ValidationError, DuplicateClientError, InvalidStateError]),
    description: 'Changes only the fields sent; a status moves through the state machine; every change is audited.',
    args: {
      input: t.arg({
        description: 'The prospect and the fields to change.',
        type: UpdateProspectInput,
        required: true,
      }),
    },
    resolve: (query, _r, { input }, ctx) => {
      const { uuid, ...patch } = input;
      return prospectService.update(ctx, uuid, patch, query);
    },
  }),
  addProspectNote: t.prismaField({
    type: 'Prospect',
    authScopes: { crm: true },
    errors: errors('AddProspectNote', [ValidationError]),
    description: "Adds a note to the prospect's timeline.",
    args: {
      input: t.arg({ description: 'The prospect and the note to add.', type: AddProspectNoteInput, required: true }),
    },
    resolve: (query, _r, { input }, ctx) => prospectService.addNote(ctx, input.uuid, { body: input.body }, query),
  }),
  convertProspect: t.prismaField({
    type: 'Prospect',
    authScopes: { crm: true },
    errors: errors('ConvertProspect', [ValidationError, DuplicateClientError, InvalidStateError]),
    description: 'Makes a client of the prospect (or links a visible one); the prospect keeps its history.',
    args: {
      input: t.arg({
        description: 'The prospect and the client it becomes (a new client, or an existing one by number).',
        type: ConvertProspectInput,
        required: true,
      }),
    },
    resolve: (query, _r, { input }, ctx) => {
      const { uuid, ...body } = input;
      return prospectService.convert(ctx, uuid, body, query);
    },
  }),
}));
