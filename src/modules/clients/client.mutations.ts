import { builder } from '../../graphql/builder.ts';
import { DuplicateClientError, ValidationError } from '../../lib/problem.ts';
import { clientService } from './client.service.ts';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** Fields shared by create and update (both all optional here; create makes name and phone required). */
const clientFields = (t: PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>) => ({
  type: t.string({ description: 'individual (default) or corporate' }),
  phone: t.string({ description: 'Kenyan mobile, any format' }),
  email: t.string({ description: 'Email address; stored lower case.' }),
  idNo: t.string({ description: 'National ID or passport number' }),
  kraPin: t.string({ description: 'KRA PIN' }),
  dateOfBirth: t.string({ description: 'Date of birth, Y-m-d, in the past.' }),
  physicalAddress: t.string({ description: 'Postal or physical address, up to 500 characters.' }),
  branchId: t.int({ description: "Branch (databaseId); the acting user's branch when absent at creation." }),
  riskManagerId: t.int({
    description:
      'Account executive (user databaseId, one of riskManagers); the acting account executive when absent at creation.',
  }),
  salesPersonId: t.int({
    description:
      'An agent (user databaseId, one of salesPeople); that sales person then sees the client, its policies and claims.',
  }),
  businessSourceId: t.int({ description: 'How the client came (BusinessSource databaseId).' }),
  prospectTypeId: t.int({ description: 'Kind of prospect (ProspectType databaseId).' }),
  sector: t.string({ description: 'Business sector, up to 100 characters.' }),
  altName: t.string({ description: 'Alternative contact person, up to 200 characters.' }),
  altPhone: t.string({ description: 'Alternative Kenyan mobile, any format; stored normalised.' }),
  altEmail: t.string({ description: 'Alternative email; stored lower case.' }),
  force: t.boolean({ description: 'Save despite a matching phone, ID number or tax PIN.' }),
});

const CreateClientInput = builder.inputType('CreateClientInput', {
  description:
    'A new client. Name and phone are required; a match on phone, ID number or tax PIN is duplicate_client unless force is true.',
  fields: (t) => ({
    name: t.string({ description: 'Full name or registered company name, 2 to 200 characters.', required: true }),
    ...clientFields(t),
    phone: t.string({
      description: 'Kenyan mobile, any format (07…, 01…, +254…); stored as 2547…/2541….',
      required: true,
    }),
  }),
});
const UpdateClientInput = builder.inputType('UpdateClientInput', {
  description: 'Changes to a client: only the fields sent change; null clears an optional field.',
  fields: (t) => ({
    clientNo: t.string({ description: 'The client to change, by number (C-000123).', required: true }),
    name: t.string({ description: 'New name, 2 to 200 characters.' }),
    ...clientFields(t),
  }),
});

const errors = (name: string) => ({
  types: [ValidationError, DuplicateClientError],
  directResult: true as const,
  union: { name: `${name}Result` },
});

builder.mutationFields((t) => ({
  createClient: t.prismaField({
    type: 'Client',
    authScopes: { crm: true },
    errors: errors('CreateClient'),
    description: 'Numbers the client, normalises phone and identity numbers, records who added it.',
    args: { input: t.arg({ description: 'The new client.', type: CreateClientInput, required: true }) },
    resolve: (_q, _r, { input }, ctx) => clientService.create(ctx, input),
  }),
  updateClient: t.prismaField({
    type: 'Client',
    authScopes: { crm: true },
    errors: errors('UpdateClient'),
    description: 'Changes only the fields sent; every change is audited.',
    args: {
      input: t.arg({
        description: 'The client number and the fields to change.',
        type: UpdateClientInput,
        required: true,
      }),
    },
    resolve: (_q, _r, { input }, ctx) => {
      const { clientNo, ...patch } = input;
      return clientService.update(ctx, clientNo, patch);
    },
  }),
}));
