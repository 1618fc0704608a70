import type { InputObjectRef } from '@pothos/core';
import type { Context } from '../../context.ts';
import { builder } from '../../graphql/builder.ts';
import { InvalidStateError, ValidationError } from '../../lib/problem.ts';
import { ipfApplicationService, type SigningCodeSent } from './application.service.ts';
import { maskPhone } from './application/mask.ts';
import { IpfApplicationRef } from './ipf-application.type.ts';

/**
 * Premium-finance application commands (docs/premium-finance.md "Premium finance"): create, submit, cancel, sign. Only the uuid is
 * required by the schema: every other rule is the service's, so a SACCO or microfinance organisation is answered
 * ipf_not_offered before anything about its input (the service's first line), and a missing field is 422 on its name.
 */

const CreateInput = builder.inputType('CreateIpfApplicationInput', {
  description:
    'A premium-finance application for one policy: the offer chosen (lender, tenor) and the applicant’s KYC.',
  fields: (t) => ({
    policyUuid: t.string({ description: 'The policy (pending payment, bound with payment mode ipf); or policyNo' }),
    policyNo: t.string({ description: 'The policy by its number (instead of policyUuid).' }),
    lenderId: t.int({ description: 'Required: an active lender of the panel' }),
    tenorMonths: t.int({ description: 'Required: 3–10, one the lender offers' }),
    idNumber: t.string({ description: "Required: the applicant's national ID or passport number" }),
    kraPin: t.string({ description: 'Required: A or P, 9 digits and a letter' }),
    incomeBand: t.string({
      description: 'Required, the monthly income: below_20k, 20k_50k, 50k_100k, 100k_250k or above_250k',
    }),
    consent: t.boolean({ description: 'Must be true: the applicant consents to the credit check' }),
    submit: t.boolean({ description: 'Submit it to the lender at once' }),
  }),
});
const UuidInput = (name: string) =>
  builder.inputType(name, {
    description: 'The application to act on.',
    fields: (t) => ({ uuid: t.string({ required: true, description: 'The application uuid' }) }),
  });
const SubmitInput = UuidInput('SubmitIpfApplicationInput');
const SigningCodeInput = UuidInput('RequestIpfSigningCodeInput');
const CancelInput = builder.inputType('CancelIpfApplicationInput', {
  description: 'An application to withdraw, and why.',
  fields: (t) => ({
    uuid: t.string({ description: 'The application uuid', required: true }),
    reason: t.string({ description: 'Required: why' }),
  }),
});
const SignInput = builder.inputType('SignIpfApplicationInput', {
  description: 'The client’s signature on an approved application: the one-time code sent to its phone.',
  fields: (t) => ({
    uuid: t.string({ description: 'The application uuid', required: true }),
    code: t.string({ description: 'Required: the six digits the client received by SMS' }),
  }),
});

const SigningCodePayload = builder.objectRef<SigningCodeSent>('RequestIpfSigningCodePayload').implement({
  description: 'A signing code sent to the client, with the agreement it signs.',
  fields: (t) => ({
    application: t.field({
      description: 'The application, its agreement now fixed.',
      type: IpfApplicationRef,
      resolve: (r) => r.application,
    }),
    sentTo: t.string({
      description: "The client's registered phone, partly shown",
      resolve: (r) => maskPhone(r.phone),
    }),
    expiresAt: t.expose('expiresAt', { description: 'When the code stops working.', type: 'DateTime' }),
    expiresInSeconds: t.exposeInt('expiresInSeconds', { description: 'How long the code stays valid (300).' }),
    resendAfterSeconds: t.exposeInt('resendAfterSeconds', {
      description: 'How long to wait before asking for another code (60).',
    }),
    agreementSha256: t.exposeString('agreementSha256', { description: 'The agreement the code signs' }),
  }),
});

const errors = (name: string) => ({
  types: [ValidationError, InvalidStateError],
  directResult: true as const,
  union: { name: `${name}Result` },
});
const reload = (ctx: Context, query: object, row: { uuid: string }) => ipfApplicationService.get(ctx, row.uuid, query);

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

builder.mutationFields((t) => {
  /** A command answering the application as the caller's selection asks (read again after the write). */
  const command = <I extends object>(
    name: string,
    description: string,
    input: InputObjectRef<Types, I>,
    run: (ctx: Context, input: I) => Promise<{ uuid: string }>,
  ) =>
    t.prismaField({
      type: 'IpfApplication',
      authScopes: { bind: true },
      errors: errors(name),
      description,
      args: { input: t.arg({ type: input, required: true, description: 'The application and what this step needs.' }) },
      resolve: async (query, _r, args, ctx) => reload(ctx, query, await run(ctx, (args as { input: I }).input)),
    });
  return {
    createIpfApplication: command(
      'CreateIpfApplication',
      'Applies to finance a policy pending payment (payment mode ipf): KYC, the chosen lender and tenor priced now; draft, or submitted with submit: true.',
      CreateInput,
      (ctx, input) => ipfApplicationService.create(ctx, input),
    ),
    submitIpfApplication: command(
      'SubmitIpfApplication',
      "draft → submitted: the lender's decision is queued (ipf.decided once made).",
      SubmitInput,
      (ctx, input) => ipfApplicationService.submit(ctx, input.uuid),
    ),
    cancelIpfApplication: command(
      'CancelIpfApplication',
      'Withdraws a draft, submitted or approved application; a signed one only before any money (its loan too).',
      CancelInput,
      (ctx, input) => ipfApplicationService.cancel(ctx, input.uuid, { reason: input.reason }),
    ),
    requestIpfSigningCode: t.field({
      type: SigningCodePayload,
      authScopes: { bind: true },
      errors: errors('RequestIpfSigningCode'),
      description:
        'Renders the loan agreement of an approved application and sends the client a one-time code by SMS to sign it (errors on otp: cool-down, per-phone limit).',
      args: {
        input: t.arg({
          description: 'The premium-finance application to sign.',
          type: SigningCodeInput,
          required: true,
        }),
      },
      resolve: (_r, { input }, ctx) => ipfApplicationService.requestSigningCode(ctx, input.uuid),
    }),
    signIpfApplication: command(
      'SignIpfApplication',
      'approved → signed with the client’s code (errors on otp: wrong, expired, attempts spent, agreement changed); creates the loan.',
      SignInput,
      (ctx, input) => ipfApplicationService.sign(ctx, input.uuid, input.code),
    ),
  };
});
