import { builder } from '../../graphql/builder.ts';

/** The policyholder of a save or a bind: matched to an existing client or added (src/modules/clients/client-matching.ts). */
export const InsuredInputRef = builder.inputType('InsuredInput', {
  description:
    'The policyholder of a save or a bind: an existing client by clientNo, else the details of a client to match or add.',
  fields: (t) => ({
    name: t.string({ description: 'Full name (required unless clientNo is given).' }),
    phone: t.string({ description: 'Kenyan mobile, any format' }),
    email: t.string({ description: 'Email address.' }),
    idNo: t.string({ description: 'National ID or passport number (matched against existing clients).' }),
    kraPin: t.string({ description: 'KRA PIN (matched against existing clients).' }),
    riskManagerId: t.int({ description: 'Account executive for a new client (user databaseId, one of riskManagers).' }),
    branchId: t.int({ description: 'Branch for a new client (databaseId).' }),
    salesPersonId: t.int({
      description: 'Sales person credited with a new client (user databaseId, one of salesPeople).',
    }),
    agentCode: t.string({ description: 'Instead of salesPersonId' }),
    clientNo: t.string({ description: 'Link an existing client the caller can see' }),
    force: t.boolean({ description: 'Add a new client despite duplicate_client matches' }),
    type: t.string({ description: 'individual (default) or corporate.' }),
  }),
});
