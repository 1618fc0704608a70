import { builder } from '../../graphql/builder.ts';
import { DuplicateClientError, ValidationError } from '../../lib/problem.ts';
import { clientService } from './client.service.ts';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** Fields shared by create and update (both all optional here; create makes name and phone required). */
const clientFields = (t: PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>) => ({
  type: t.string({ description: 'individual (default) or corporate' }),
  phone: t.string({ description: 'Kenyan mobile, any format' }),
  email: t.string(),
  idNo: t.string({ description: 'National ID or passport number' }),
  kraPin: t.string({ description: 'KRA PIN' }),
  dateOfBirth: t.string({ description: 'Y-m-d' }),
  physicalAddress: t.string(),
  branchId: t.int(),
  riskManagerId: t.int(),
  salesPersonId: t.int({ description: 'That sales person then sees the client, its policies and claims.' }),
  businessSourceId: t.int(),
  prospectTypeId: t.int(),
  sector: t.string(),
  altName: t.string(),
  altPhone: t.string(),
  altEmail: t.string(),
  force: t.boolean({ description: 'Save despite a matching phone, ID number or tax PIN.' }),
});

const CreateClientInput = builder.inputType('CreateClientInput', {
  fields: (t) => ({ name: t.string({ required: true }), ...clientFields(t), phone: t.string({ required: true }) }),
});
const UpdateClientInput = builder.inputType('UpdateClientInput', {
  fields: (t) => ({ clientNo: t.string({ required: true }), name: t.string(), ...clientFields(t) }),
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
    args: { input: t.arg({ type: CreateClientInput, required: true }) },
    resolve: (_q, _r, { input }, ctx) => clientService.create(ctx, input),
  }),
  updateClient: t.prismaField({
    type: 'Client',
    authScopes: { crm: true },
    errors: errors('UpdateClient'),
    description: 'Changes only the fields sent; every change is audited.',
    args: { input: t.arg({ type: UpdateClientInput, required: true }) },
    resolve: (_q, _r, { input }, ctx) => {
      const { clientNo, ...patch } = input;
      return clientService.update(ctx, clientNo, patch);
    },
  }),
}));
