import { builder } from '../../graphql/builder.ts';

/** The policyholder of a save or a bind: matched to an existing client or added (src/modules/clients/client-matching.ts). */
export const InsuredInputRef = builder.inputType('InsuredInput', {
  fields: (t) => ({
    name: t.string(),
    phone: t.string({ description: 'Kenyan mobile, any format' }),
    email: t.string(),
    idNo: t.string(),
    kraPin: t.string(),
    riskManagerId: t.int(),
    branchId: t.int(),
    salesPersonId: t.int(),
    agentCode: t.string({ description: 'Instead of salesPersonId' }),
    clientNo: t.string({ description: 'Link an existing client the caller can see' }),
    force: t.boolean({ description: 'Add a new client despite duplicate_client matches' }),
    type: t.string(),
  }),
});
