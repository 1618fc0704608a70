import { builder } from '../../graphql/builder.ts';
import { InvalidStateError, ValidationError } from '../../lib/problem.ts';
import { claimPaymentService } from './claim-payment.service.ts';

const PayClaimInput = builder.inputType('PayClaimInput', {
  description: 'A payout on an approved claim: how much, by which method, to whom.',
  fields: (t) => ({
    claimId: t.string({ required: true, description: 'The claim uuid' }),
    amount: t.field({ type: 'Shillings', description: 'Whole shillings; omit with final: true' }),
    final: t.boolean({ description: 'Pay exactly what remains (net payable − paid − instructed), cents included' }),
    method: t.string({ required: true, description: 'mpesa_b2c or bank_transfer' }),
    payeeType: t.string({ description: 'claimant (default), garage or other' }),
    payeeName: t.string({ required: true, description: 'Who is paid, as shown on the payment; 1–200 characters.' }),
    phone: t.string({ description: 'mpesa_b2c: the receiving Kenyan mobile, any format' }),
    bankName: t.string({ description: 'bank_transfer' }),
    bankAccount: t.string({ description: 'bank_transfer' }),
    bankReference: t.string({ description: "bank_transfer: the transfer's reference, once per organisation" }),
    note: t.string({ description: 'Free text kept with the payment; at most 1,000 characters.' }),
  }),
});

builder.mutationFields((t) => ({
  payClaim: t.prismaField({
    type: 'ClaimPayment',
    authScopes: { crm: true },
    errors: { types: [ValidationError, InvalidStateError], directResult: true, union: { name: 'PayClaimResult' } },
    description:
      'Pays an approved claim, within what remains of its net payable. mpesa_b2c: recorded pending and sent to the B2C rail ' +
      'after commit; paid or failed once the rail confirms it. bank_transfer: the recorded transfer is the proof, paid at ' +
      'once. The payment that completes the net payable settles the claim. Needs a user who manages claims.',
    args: {
      input: t.arg({ description: 'The approved claim and the payment to make.', type: PayClaimInput, required: true }),
    },
    resolve: async (query, _r, { input }, ctx) => {
      const { claimId, ...rest } = input;
      const payment = await claimPaymentService.pay(ctx, claimId, rest);
      return claimPaymentService.byId(ctx, payment.id, query);
    },
  }),
}));
