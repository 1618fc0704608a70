import { ClaimPaymentDocument, ClaimPaymentsDocument, PayClaimDocument } from '../generated/operations.ts';
import { claimPaymentToRest } from '../mappers/claim-payment.ts';
import { type AnyRoute, bodyOf, route } from '../route.ts';
import { claimPaymentResponse, claimPaymentsResponse, payClaimBody } from '../schemas/claim-payment.ts';

const common = { tag: 'Claims', serviceOnly: true };

export const claimPaymentsRoutes: AnyRoute[] = [
  route({
    ...common,
    operationId: 'payClaim',
    method: 'POST',
    path: '/claims/{uuid}/payments',
    summary: 'Pay an approved claim: an M-Pesa B2C payout, or a bank transfer recorded as paid',
    description:
      'amount: whole shillings, at most what remains (net payable − paid − instructed; 422 validation_failed on amount otherwise); ' +
      'final: true pays exactly what remains, cents included. mpesa_b2c (phone, payee): answered 201 with the payout `pending`, its ' +
      "amount committed; it is sent to the B2C rail after commit and is paid or failed only once the rail's status query confirms " +
      "the rail's Result (M-Pesa pays whole shillings, KES 10–250,000; a failure releases the commitment). bank_transfer " +
      '(bank_name, bank_account, bank_reference, unique per organisation): the recorded transfer is the proof, `paid` at once. A ' +
      'payment consumes the reserve (a `payment` movement); the one that completes the net payable settles the claim (claim.moved, ' +
      'claim.settled). A claim that is not approved is 409 invalid_state. Needs a user who manages claims (403 actor_forbidden).',
    scopes: ['crm'],
    idempotent: true,
    operation: PayClaimDocument,
    requestBody: payClaimBody,
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, payClaimBody);
      return {
        input: {
          claimId: input.params.uuid,
          amount: b.amount,
          final: b.final,
          method: b.method,
          payeeType: b.payee_type,
          payeeName: b.payee_name,
          phone: b.phone,
          bankName: b.bank_name,
          bankAccount: b.bank_account,
          bankReference: b.bank_reference,
          note: b.note,
        },
      };
    },
    toResponse: (d) => ({ status: 201, body: { data: claimPaymentToRest(d.payClaim) } }),
    response: { status: 201, description: 'The payment as recorded', schema: claimPaymentResponse },
    errors: ['not_found', 'validation_failed', 'invalid_state', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'listClaimPayments',
    method: 'GET',
    path: '/claims/{uuid}/payments',
    summary: "A claim's payments, oldest first",
    scopes: ['read', 'crm'],
    idempotent: false,
    operation: ClaimPaymentsDocument,
    toVariables: ({ params }) => ({ claimId: params.uuid }),
    toResponse: (d) => ({ status: 200, body: { data: d.claimPayments.map(claimPaymentToRest) } }),
    response: { status: 200, description: 'The payments', schema: claimPaymentsResponse },
    errors: ['not_found'],
  }),
  route({
    ...common,
    operationId: 'getClaimPayment',
    method: 'GET',
    path: '/claims/{uuid}/payments/{payment_uuid}',
    summary: 'Read one payment of a claim, with the rail’s result',
    scopes: ['read', 'crm'],
    idempotent: false,
    operation: ClaimPaymentDocument,
    toVariables: ({ params }) => ({ claimId: params.uuid, uuid: params.payment_uuid }),
    toResponse: (d) => ({ status: 200, body: { data: claimPaymentToRest(d.claimPayment) } }),
    response: { status: 200, description: 'The payment', schema: claimPaymentResponse },
    errors: ['not_found'],
  }),
];
