import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { nodeAccess, KEEPS_REACH } from '../../graphql/access.ts';
import { reachableClient } from '../clients/client.type.ts';
import { OTP_RULES } from '../sms/otp-code.ts';
import { IPF_SCOPES, ipfApplicationReach } from '../access/ipf.visibility.ts';
import type { ApplicationStatus } from './ipf-state.ts';
import { type ApplicationRow, ipfApplicationService } from './application.service.ts';
import type { AgreementView } from './application/read.ts';
import { maskIdNumber, maskKraPin, maskPhone } from './application/mask.ts';
import { ipfHistory } from './history.ts';

/**
 * Premium-finance applications (docs/premium-finance.md "Premium finance"), seen exactly as their policy is; a SACCO or microfinance
 * organisation reads none (ipf_not_offered, enforced by the services and root fields).
 */

export const IpfApplicationStatusEnum = builder.enumType('IpfApplicationStatus', {
  description:
    'Where an application stands: draft → submitted → approved | declined; approved → signed → funded; or cancelled, expired.',
  values: {
    draft: { description: 'Created; KYC and consent may still be completed before it is submitted.' },
    submitted: { description: 'Sent to the lender; its decision is awaited.' },
    approved: { description: 'The lender approved; the client may now sign the agreement with a one-time code.' },
    declined: { description: 'The lender declined, with decisionReasons.' },
    signed: { description: 'The client signed; the loan exists and waits for the deposit.' },
    funded: { description: 'The deposit is paid and the lender has paid the insurer.' },
    cancelled: { description: 'Withdrawn by the broker (a signed one only before any deposit).' },
    expired: { description: 'Not signed, or its deposit not paid, in time.' },
  } as const satisfies Record<ApplicationStatus, { description: string }>,
});

type Line = { seq: number; due_on: string; amount_minor: string };
const ScheduleLineRef = builder.objectRef<Line>('IpfApplicationScheduleLine').implement({
  description: 'One planned payment (1 is the deposit); dated from the day of signing once signed.',
  fields: (t) => ({
    seq: t.exposeInt('seq', { description: 'Its line in the schedule (1 is the deposit).' }),
    dueOn: t.exposeString('due_on', { description: 'Y-m-d' }),
    amount: t.field({
      description: 'The payment.',
      type: MoneyRef,
      resolve: (l) => money(BigInt(l.amount_minor))!,
    }),
  }),
});

const KycRef = builder.objectRef<ApplicationRow>('IpfApplicationKyc').implement({
  description: 'What the applicant declared; identifiers shown partly (the lender alone receives them in full).',
  fields: (t) => ({
    idNumber: t.string({ description: 'Last four characters shown', resolve: (a) => maskIdNumber(a.idNumber) }),
    kraPin: t.string({ description: 'Kind letter and last four shown', resolve: (a) => maskKraPin(a.kraPin) }),
    incomeBand: t.exposeString('incomeBand', { description: 'below_20k, 20k_50k, 50k_100k, 100k_250k, above_250k' }),
    consentAt: t.expose('consentAt', {
      description: 'When the applicant consented to the lender’s checks.',
      type: 'DateTime',
    }),
  }),
});

const ReasonRef = builder.objectRef<{ code: string; message: string }>('IpfDecisionReason').implement({
  description: 'Why the lender declined: premium_below_minimum, premium_above_maximum, unaffordable, existing_arrears.',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'The reason code (premium_below_minimum …).' }),
    message: t.exposeString('message', { description: 'The reason in words.' }),
  }),
});

const SigningRef = builder.objectRef<ApplicationRow>('IpfSigningState').implement({
  description: 'The one-time code that signs the agreement (never the code itself).',
  fields: (t) => ({
    phone: t.string({
      description: 'The phone the code went to, partly masked; null before a code was sent.',
      nullable: true,
      resolve: (a) => (a.signingPhone ? maskPhone(a.signingPhone) : null),
    }),
    codeSentAt: t.expose('signingCodeSentAt', {
      description: 'When the last code was sent; null before.',
      type: 'DateTime',
      nullable: true,
    }),
    codeExpiresAt: t.expose('signingCodeExpires', {
      description: 'When the last code stops working; null before one was sent.',
      type: 'DateTime',
      nullable: true,
    }),
    attemptsLeft: t.int({
      nullable: true,
      description: 'Null when no code is outstanding',
      resolve: (a) => (a.signingCodeHash ? Math.max(0, OTP_RULES.maxAttempts - a.signingAttempts) : null),
    }),
  }),
});

const AgreementRef = builder.objectRef<AgreementView>('IpfAgreement').implement({
  description: 'The loan agreement as plain text and its SHA-256 (hex).',
  fields: (t) => ({
    text: t.exposeString('text', { description: 'The agreement, plain text.' }),
    sha256: t.exposeString('sha256', { description: 'SHA-256 of the text, lower-case hex.' }),
    final: t.exposeBoolean('final', {
      description:
        'True: the text a signing code was sent with (and signed with, once signed); false: a preview for today',
    }),
  }),
});

type Change = { fromStatus: string; toStatus: string; reason: string; actor: string; at: Date };
const StatusChangeRef = builder.objectRef<Change>('IpfApplicationStatusChange').implement({
  description: 'One status change of an application: from, to, why, who and when.',
  fields: (t) => ({
    from: t.exposeString('fromStatus', { description: 'The status before (an IpfApplicationStatus value).' }),
    to: t.exposeString('toStatus', { description: 'The status after (an IpfApplicationStatus value).' }),
    reason: t.exposeString('reason', { description: 'Why, in words.' }),
    actor: t.exposeString('actor', { description: "A user's or API client's name, lender, client or system" }),
    at: t.expose('at', { description: 'When it changed.', type: 'DateTime' }),
  }),
});

export const IpfApplicationRef = builder.prismaNode('IpfApplication', {
  ...nodeAccess<{ id: number }>(
    { scopes: IPF_SCOPES, reach: { via: ipfApplicationReach, id: (a) => a.id } },
    ipfApplicationReach,
  ),
  id: { field: 'id' },
  description: 'An application to finance one policy’s premium: the chosen offer, KYC, the lender’s decision, signing.',
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The REST id of the application (an integer).' }),
    uuid: t.exposeString('uuid', { description: 'The application id REST paths and mutations take.' }),
    applicationNo: t.exposeString('applicationNo', { description: 'IPFA-YYYY-NNNNNN' }),
    status: t.field({
      description: 'Where the application stands.',
      type: IpfApplicationStatusEnum,
      resolve: (a) => a.status as ApplicationStatus,
    }),
    // As on a claim: the identifiers are the application's own; the records behind them keep their own rules.
    policy: t.relation('policy', {
      description: 'The policy whose premium it finances; null when the caller may not see it.',
      nullable: true,
    }),
    client: t.field({ ...reachableClient, description: 'The applicant; null when the caller may not see the client.' }),
    policyUuid: t.string({
      description: 'The policy (its uuid).',
      select: { policy: { select: { uuid: true } } },
      resolve: (a) => a.policy.uuid,
    }),
    policyNo: t.string({
      description: 'The policy number.',
      select: { policy: { select: { policyNo: true } } },
      resolve: (a) => a.policy.policyNo,
    }),
    clientNo: t.string({
      description: 'The applicant’s client number.',
      select: { client: { select: { clientNo: true } } },
      resolve: (a) => a.client.clientNo,
    }),
    clientName: t.string({
      description: 'The applicant’s name.',
      select: { client: { select: { name: true } } },
      resolve: (a) => a.client.name,
    }),
    lenderId: t.exposeInt('lenderId', { description: 'The lender chosen (IpfLender id).' }),
    lenderName: t.string({
      description: 'The lender’s name.',
      select: { lender: { select: { name: true } } },
      resolve: (a) => a.lender.name,
    }),
    tenorMonths: t.exposeInt('tenorMonths', { description: 'The tenor chosen, in months.' }),
    premium: t.field({
      description: 'The premium financed.',
      type: MoneyRef,
      resolve: (a) => money(a.premiumMinor)!,
    }),
    charge: t.field({ type: MoneyRef, description: 'The cost of credit', resolve: (a) => money(a.chargeMinor)! }),
    deposit: t.field({
      description: 'The first payment (schedule line 1).',
      type: MoneyRef,
      resolve: (a) => money(a.depositMinor)!,
    }),
    instalment: t.field({
      description: 'Each payment after the deposit.',
      type: MoneyRef,
      resolve: (a) => money(a.instalmentMinor)!,
    }),
    totalRepayable: t.field({
      description: 'Premium + charge.',
      type: MoneyRef,
      resolve: (a) => money(a.totalRepayableMinor)!,
    }),
    aprBps: t.exposeInt('aprBps', { description: 'The flat rate annualised, basis points' }),
    ratingVersion: t.exposeInt('ratingVersion', { description: 'The rating data version it was priced on' }),
    schedule: t.field({
      description: 'The planned payments, deposit first.',
      type: [ScheduleLineRef],
      resolve: (a) => a.schedule as Line[],
    }),
    kyc: t.field({
      description: 'What the applicant declared (identifiers partly masked).',
      type: KycRef,
      resolve: (a) => a,
    }),
    decisionReasons: t.field({
      description: 'Why the lender declined; empty unless declined.',
      type: [ReasonRef],
      resolve: (a) => a.decisionReasons as { code: string; message: string }[],
    }),
    lenderRef: t.exposeString('lenderRef', {
      description: 'The lender’s own reference for the application; null until it gives one.',
      nullable: true,
    }),
    decidedAt: t.expose('decidedAt', {
      description: 'When the lender approved or declined; null before.',
      type: 'DateTime',
      nullable: true,
    }),
    agreementSha256: t.exposeString('agreementSha256', {
      description: 'SHA-256 (hex) of the final agreement text, fixed when a signing code is sent; null before.',
      nullable: true,
    }),
    agreement: t.field({
      description:
        'The agreement: the final text once a signing code was sent, a preview while approved; null otherwise.',
      type: AgreementRef,
      nullable: true,
      resolve: (a, _args, ctx) => ipfApplicationService.agreement(ctx, a),
    }),
    signing: t.field({
      description: 'The state of the signing code.',
      type: SigningRef,
      resolve: (a) => a,
    }),
    signedAt: t.expose('signedAt', {
      description: 'When the client signed; null before.',
      type: 'DateTime',
      nullable: true,
    }),
    expiresAt: t.expose('expiresAt', {
      description: 'When it expires if not completed in time (the daily job then moves it to expired).',
      type: 'DateTime',
    }),
    closedReason: t.exposeString('closedReason', {
      description: 'Why it was cancelled or expired, in words; null otherwise.',
      nullable: true,
    }),
    loan: t.relation('loan', {
      ...KEEPS_REACH,
      description: 'The loan created at signing; null before.',
      nullable: true,
    }),
    history: t.field({
      type: [StatusChangeRef],
      description: 'Every move, oldest first: who, when, why',
      resolve: (a, _args, ctx) => ipfHistory(ctx, 'application', a.id),
    }),
    createdAt: t.expose('createdAt', { description: 'When the application was created.', type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { description: 'When it last changed.', type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  ipfApplications: t.prismaConnection({
    ...KEEPS_REACH,
    type: 'IpfApplication',
    cursor: 'id',
    authScopes: { read: true, bind: true },
    description: 'Premium-finance applications the caller may see, newest first.',
    args: {
      status: t.arg({ description: 'Only applications in one of these states.', type: [IpfApplicationStatusEnum] }),
      policyUuid: t.arg.string({ description: 'Only applications financing this policy (its uuid).' }),
      policyNo: t.arg.string({ description: 'Only applications financing this policy (policy number).' }),
      clientNo: t.arg.string({ description: "Only this client's applications (client number)." }),
      lenderId: t.arg.int({ description: "Only this lender's applications (lender databaseId)." }),
    },
    resolve: (query, _root, args, ctx) => ipfApplicationService.list(ctx, args, query),
  }),
  ipfApplication: t.prismaField({
    ...KEEPS_REACH,
    type: 'IpfApplication',
    nullable: true,
    authScopes: { read: true, bind: true },
    description: 'An application by uuid; null with not_found when missing or outside the caller’s reach.',
    args: { uuid: t.arg.string({ description: 'The application (its uuid).', required: true }) },
    resolve: (query, _root, args, ctx) => ipfApplicationService.get(ctx, args.uuid, query),
  }),
}));
