import {
  RegisterClientAreaClientDocument,
  RequestClientOtpDocument,
  VerifyClientOtpDocument,
} from '../generated/operations.ts';
import { type AnyRoute, bodyOf, route } from '../route.ts';
import { bodyObject } from '../schemas/inputs.ts';
import { dataOf, ref } from '../schemas/builders.ts';
import { otpRequestBody, registerBody, verifyOtpBody } from '../schemas/client-area.ts';

const common = { tag: 'Client area', serviceOnly: true };
const signIn = ['validation_failed', 'actor_forbidden'] as const;

/** Client-area sign-in: a one-time code by SMS, then the client's number and key (docs/client-area.md "Client area"). */
export const clientAreaSignInRoutes: AnyRoute[] = [
  route({
    ...common,
    operationId: 'requestClientOtp',
    method: 'POST',
    path: '/client-area/otp',
    summary: 'Send a one-time sign-in (or registration) code by SMS',
    description:
      'By phone, or by client_no with id_no. 6 digits, valid 5 minutes, 5 attempts; a new code replaces the earlier one. ' +
      'The answer, and the work done before it, are the same whether or not the details belong to a client: the SMS ' +
      'goes after the 202, by a job, and the outbox shows the code masked. A new code for the same handset and ' +
      'purpose is refused for 60 s however the client is named (phone, or client_no with id_no), and at most 5 per ' +
      'handset and 20 per address per hour: 422 validation_failed on `otp` with Retry-After. No Idempotency-Key: a ' +
      'repeated request is answered by the cool-down, never by a second code.',
    scopes: ['crm'],
    idempotent: false,
    operation: RequestClientOtpDocument,
    requestBody: bodyObject(otpRequestBody),
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, otpRequestBody);
      return {
        input: { phone: b.phone, clientNo: b.client_no, idNo: b.id_no, purpose: b.purpose, customerIp: b.customer_ip },
      };
    },
    toResponse: ({ requestClientOtp: r }) => ({
      status: 202,
      body: {
        data: {
          message: r.message,
          expires_in_seconds: r.expiresInSeconds,
          resend_after_seconds: r.resendAfterSeconds,
        },
      },
    }),
    response: { status: 202, description: 'Sent if the details match', schema: dataOf(ref('ClientOtpRequested')) },
    errors: [...signIn],
  }),
  route({
    ...common,
    operationId: 'verifyClientOtp',
    method: 'POST',
    path: '/client-area/verify-otp',
    summary: 'Sign in with the code: client_no and client_key',
    description:
      'A wrong, expired, used or exhausted code, and one for details that are no client’s, are 422 validation_failed ' +
      "on `otp` with the same words (a wrong guess spends one of the handset code's 5 attempts). The client's earlier app keys stop " +
      'working; keys from policy saves keep working. The key is shown once (no Idempotency-Key: it would store it).',
    scopes: ['crm'],
    idempotent: false,
    operation: VerifyClientOtpDocument,
    requestBody: bodyObject(verifyOtpBody),
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, verifyOtpBody);
      return { input: { phone: b.phone, clientNo: b.client_no, code: b.code } };
    },
    toResponse: ({ verifyClientOtp: s }) => ({
      status: 200,
      body: { data: { client_no: s.clientNo, client_key: s.clientKey } },
    }),
    response: { status: 200, description: 'Signed in', schema: dataOf(ref('ClientAreaSession')) },
    errors: [...signIn],
  }),
  route({
    ...common,
    operationId: 'registerClientAreaClient',
    method: 'POST',
    path: '/client-area/register',
    summary: 'Self-register a client (phone proven by a code with purpose register) and sign in',
    description:
      'Creates the client with onboarded_via client_area. A phone or ID number already on the books is 409 ' +
      'duplicate_client with no matches listed: sign in instead.',
    scopes: ['crm'],
    idempotent: false,
    operation: RegisterClientAreaClientDocument,
    requestBody: bodyObject(registerBody),
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, registerBody);
      return {
        input: {
          name: b.name,
          phone: b.phone,
          code: b.code,
          idNo: b.id_no,
          kraPin: b.kra_pin,
          email: b.email,
          dateOfBirth: b.date_of_birth,
          physicalAddress: b.physical_address,
        },
      };
    },
    toResponse: ({ registerClientAreaClient: s }) => ({
      status: 201,
      body: { data: { client_no: s.clientNo, client_key: s.clientKey } },
    }),
    response: { status: 201, description: 'Registered and signed in', schema: dataOf(ref('ClientAreaSession')) },
    errors: [...signIn, 'duplicate_client'],
  }),
];
