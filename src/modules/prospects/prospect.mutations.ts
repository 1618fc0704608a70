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
  email: t.string(),
  idNo: t.string({ description: 'National ID or passport number; duplicate-checked' }),
  kraPin: t.string({ description: 'KRA PIN; duplicate-checked' }),
  source: t.field({ type: ProspectSourceEnum }),
  interests: t.field({ type: [ProspectInterestEnum] }),
  estimatedPremium: t.field({ type: 'Shillings', description: 'Whole shillings a year' }),
  assigneeId: t.int({ description: 'A user who may work prospects; default the acting agent' }),
  nextFollowUpOn: t.string({ description: 'Y-m-d, today or later' }),
  note: t.string({ description: 'Added to the timeline (with a status move: why it moved)' }),
  force: t.boolean({ description: 'Save despite a matching phone, ID number or tax PIN.' }),
});

const CreateProspectInput = builder.inputType('CreateProspectInput', {
  fields: (t) => ({ name: t.string({ required: true }), ...prospectFields(t) }),
});
const UpdateProspectInput = builder.inputType('UpdateProspectInput', {
  fields: (t) => ({
    uuid: t.string({ required: true }),
    name: t.string(),
    ...prospectFields(t),
    status: t.field({ type: ProspectStatusEnum, description: 'A move through the state machine' }),
    lostReason: t.field({ type: ProspectLostReasonEnum, description: 'Required with status lost' }),
  }),
});
const AddProspectNoteInput = builder.inputType('AddProspectNoteInput', {
  fields: (t) => ({ uuid: t.string({ required: true }), body: t.string({ required: true }) }),
});
const ConvertProspectInput = builder.inputType('ConvertProspectInput', {
  fields: (t) => ({
    uuid: t.string({ required: true }),
    clientNo: t.string({ description: 'Link this existing client (one you may see) instead of creating one' }),
    force: t.boolean({ description: 'Create the client despite matching clients' }),
    phone: t.string({ description: "Fills or corrects the prospect's details for the new client" }),
    email: t.string(),
    idNo: t.string(),
    kraPin: t.string(),
    dateOfBirth: t.string({ description: 'Y-m-d' }),
    physicalAddress: t.string(),
    branchId: t.int(),
    riskManagerId: t.int(),
    salesPersonId: t.int({ description: "Default: the prospect's assignee when they sell" }),
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
