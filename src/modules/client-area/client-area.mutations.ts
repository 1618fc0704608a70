import { builder } from '../../graphql/builder.ts';
import { DomainRuleError, ValidationError } from '../../lib/problem.ts';
import { clientAreaService } from './client-area.service.ts';
import { ViewerClaimRef, ViewerRef } from './client-area.type.ts';
import type { OtpRequested } from './sign-in/request.ts';
import type { ClientAreaSession } from './sign-in/sign-in.ts';

/**
 * Client-area mutations. Sign-in runs with the organisation's token alone (scope crm: it writes codes, keys and
 * self-registered clients); the viewer's writes need the client headers too and the scope of the same write elsewhere
 * (crm for contact details and claims, bind for a payment prompt). One-time-code failures are ValidationProblem on
 * `otp`; a throttled request is the same code as a GraphQL error, carrying Retry-After over HTTP.
 */

const OtpRequestedRef = builder.objectRef<OtpRequested>('ClientOtpRequested').implement({
  description: 'The same answer whether or not the details belong to a client.',
  fields: (t) => ({
    message: t.exposeString('message', { description: 'A sentence to show the customer.' }),
    expiresInSeconds: t.exposeInt('expiresInSeconds', { description: 'How long a code sent stays valid (300).' }),
    resendAfterSeconds: t.exposeInt('resendAfterSeconds', {
      description: 'How long to wait before asking for another code for the same phone (60).',
    }),
  }),
});

const SessionRef = builder.objectRef<ClientAreaSession>('ClientAreaSession').implement({
  description:
    'Client-area credentials: send X-Client-No and X-Client-Key with the bearer token. The key is shown once.',
  fields: (t) => ({
    clientNo: t.exposeString('clientNo', { description: 'The client number: send as X-Client-No.' }),
    clientKey: t.exposeString('clientKey', {
      description: 'The app key: send as X-Client-Key. Shown once; signing in again replaces it.',
    }),
  }),
});

type PayShape = Awaited<ReturnType<typeof clientAreaService.pay>>;
const ViewerPaymentRef = builder.objectRef<PayShape>('ViewerPayment').implement({
  description: 'An STK push sent for a debit note of the signed-in client. Amounts in cents only.',
  fields: (t) => ({
    id: t.id({ description: 'Payment request id (UUID)', resolve: (a) => a.request.id }),
    checkoutRequestId: t.string({
      description: 'Daraja CheckoutRequestID (follow it with stkPushStatus); null while the push is still sending.',
      nullable: true,
      resolve: (a) => a.request.checkoutRequestId,
    }),
    status: t.string({
      description: 'sending, pending (on the phone), succeeded or failed, as when the push was answered.',
      resolve: (a) => a.request.status,
    }),
    customerMessage: t.string({
      description: 'Daraja’s message for the customer; null when the rail gave none.',
      nullable: true,
      resolve: (a) => a.request.customerMessage,
    }),
    phone: t.string({ description: 'The phone prompted (2547XXXXXXXX).', resolve: (a) => a.request.phone }),
    amountMinor: t.field({
      description: 'The amount asked, in cents.',
      type: 'Cents',
      resolve: (a) => a.request.amountMinor,
    }),
    debitNoteNo: t.exposeString('debitNoteNo', { description: 'The debit note the payment is for.' }),
    replayed: t.exposeBoolean('replayed', {
      description: 'True when this answers an earlier request with the same idempotency key (nothing was sent again).',
    }),
  }),
});

const RequestOtpInput = builder.inputType('RequestClientOtpInput', {
  description: 'Who asks for a one-time code: a phone, or a client number with its ID number.',
  fields: (t) => ({
    phone: t.string({ description: 'The registered phone (sign-in) or the phone to register' }),
    clientNo: t.string({ description: 'Sign-in by client number, with idNo' }),
    idNo: t.string({ description: 'The client’s ID or passport number, with clientNo.' }),
    purpose: t.string({ description: 'signin (default) or register' }),
    customerIp: t.string({ description: "The customer's address as your app saw it (per-address throttle)" }),
  }),
});
const VerifyOtpInput = builder.inputType('VerifyClientOtpInput', {
  description: 'The one-time code received by SMS, with the phone or client number it was requested for.',
  fields: (t) => ({
    phone: t.string({ description: 'The phone the code was requested with (any Kenyan format).' }),
    clientNo: t.string({ description: 'The client number the code was requested with (instead of phone).' }),
    code: t.string({ description: 'The 6-digit code (5 minutes, 5 attempts).', required: true }),
  }),
});
const RegisterInput = builder.inputType('RegisterClientAreaClientInput', {
  description: 'A person registering in the client area, proven by a code sent to the phone (purpose register).',
  fields: (t) => ({
    name: t.string({ description: 'Full name.', required: true }),
    phone: t.string({ description: 'Kenyan mobile the code was sent to (any format).', required: true }),
    code: t.string({ required: true, description: 'The code requested with purpose register' }),
    idNo: t.string({ description: 'National ID or passport number; optional.' }),
    kraPin: t.string({ description: 'KRA PIN (A or P, 9 digits, a letter); optional.' }),
    email: t.string({ description: 'Email address; optional.' }),
    dateOfBirth: t.string({ description: 'Y-m-d' }),
    physicalAddress: t.string({ description: 'Postal or physical address; optional.' }),
  }),
});
const ContactInput = builder.inputType('UpdateViewerContactInput', {
  description: 'The signed-in client’s contact details to change; omitted fields stay as they are.',
  fields: (t) => ({
    phone: t.string({
      description:
        'The client’s phone: signed in with a one-time code, trusted for codes at once; the previous phone is told by SMS',
    }),
    email: t.string({ description: 'A new email address.' }),
    altPhone: t.string({ description: 'A new alternative phone (Kenyan mobile, any format).' }),
    physicalAddress: t.string({ description: 'A new postal or physical address.' }),
  }),
});
const PayInput = builder.inputType('ViewerPayInput', {
  description: 'An M-Pesa prompt for one of the signed-in client’s open debit notes.',
  fields: (t) => ({
    debitNoteNo: t.string({ description: 'Required: one of your open debit notes' }),
    phone: t.string({ description: "Default: the client's phone" }),
    amountMinor: t.field({ type: 'Cents', description: 'Cents, a multiple of 100; default the outstanding amount' }),
    idempotencyKey: t.string({ description: 'A retry with it never prompts the phone twice' }),
  }),
});
// Fields are optional here and checked by the service: the customer check (401) then comes before any field check.
const ClaimInput = builder.inputType('ViewerRegisterClaimInput', {
  description: 'A first notice of loss on one of the signed-in client’s policies.',
  fields: (t) => ({
    policyUuid: t.string({ description: 'One of your policies (required)' }),
    registration: t.string({ description: 'Required for motor' }),
    insuredId: t.int({
      description: 'Required for medical, travel and standard: who or what of the policy (insured id)',
    }),
    cause: t.string({ description: "Required: a cause code of the policy's product line" }),
    lossDate: t.string({ description: 'Required: Y-m-d' }),
    lossTime: t.string({ description: 'HH:MM, Nairobi' }),
    lossPlace: t.string({ description: 'Required' }),
    description: t.string({ description: 'Required' }),
    policeAbstractNo: t.string({
      description: 'The police abstract number, when the loss was reported to the police.',
    }),
    antiTheftDevice: t.boolean({ description: 'Theft: an approved anti-theft device was fitted (excess terms).' }),
    estimatedLossMinor: t.field({ description: 'The loss the claimant estimates, in cents; optional.', type: 'Cents' }),
  }),
});

const errors = (name: string, types: (typeof ValidationError | typeof DomainRuleError)[] = [ValidationError]) => ({
  types,
  directResult: true as const,
  union: { name: `${name}Result` },
});

builder.mutationFields((t) => ({
  requestClientOtp: t.field({
    type: OtpRequestedRef,
    authScopes: { crm: true },
    errors: errors('RequestClientOtp'),
    description: 'Sends a 6-digit one-time code by SMS (5 minutes, 5 attempts); the same answer for unknown details.',
    args: {
      input: t.arg({
        description: 'Who asks for a code: phone or client number.',
        type: RequestOtpInput,
        required: true,
      }),
    },
    resolve: (_r, { input }, ctx) => clientAreaService.requestOtp(ctx, input),
  }),
  verifyClientOtp: t.field({
    type: SessionRef,
    authScopes: { crm: true },
    errors: errors('VerifyClientOtp'),
    description: "Signs in: a new app key; the client's earlier app keys stop working (policy keys do not).",
    args: {
      input: t.arg({
        description: 'The phone or client number and the code received by SMS.',
        type: VerifyOtpInput,
        required: true,
      }),
    },
    resolve: (_r, { input }, ctx) => clientAreaService.verifyOtp(ctx, input),
  }),
  registerClientAreaClient: t.field({
    type: SessionRef,
    authScopes: { crm: true },
    errors: errors('RegisterClientAreaClient'),
    description: 'Creates a self-registered client (onboarded_via client_area) once the phone is proven, and signs in.',
    args: {
      input: t.arg({
        description: 'The new client area user: name, phone and identity.',
        type: RegisterInput,
        required: true,
      }),
    },
    resolve: (_r, { input }, ctx) => clientAreaService.register(ctx, input),
  }),
  updateViewerContact: t.field({
    type: ViewerRef,
    authScopes: { crm: true },
    errors: errors('UpdateViewerContact'),
    description: "The signed-in client's phone, email, alternative phone and physical address (audited).",
    args: { input: t.arg({ description: 'The new email or alternative phone.', type: ContactInput, required: true }) },
    resolve: (_r, { input }, ctx) => clientAreaService.updateContact(ctx, input),
  }),
  viewerPay: t.field({
    type: ViewerPaymentRef,
    authScopes: { bind: true },
    errors: errors('ViewerPay', [ValidationError, DomainRuleError]),
    description: "An M-Pesa STK push for one of the signed-in client's open debit notes (cents).",
    args: {
      input: t.arg({ description: 'The debit note to pay and the phone to prompt.', type: PayInput, required: true }),
    },
    resolve: (_r, { input }, ctx) => clientAreaService.pay(ctx, input),
  }),
  viewerRegisterClaim: t.field({
    type: ViewerClaimRef,
    authScopes: { crm: true },
    errors: errors('ViewerRegisterClaim', [ValidationError, DomainRuleError]),
    description: "A first notice of loss on one of the signed-in client's policies (channel client_area; cents).",
    args: { input: t.arg({ description: 'The policy and the loss.', type: ClaimInput, required: true }) },
    resolve: (_r, { input }, ctx) => clientAreaService.registerClaim(ctx, input),
  }),
}));
