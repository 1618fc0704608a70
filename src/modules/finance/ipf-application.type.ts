import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { nodeAccess } from '../../graphql/access.ts';
import { OTP_RULES } from '../sms/otp-code.ts';
import { IPF_SCOPES, ipfApplicationReach } from '../access/ipf.visibility.ts';
import { APPLICATION_STATUSES, type ApplicationStatus } from './ipf-state.ts';
import { type ApplicationRow, ipfApplicationService } from './application.service.ts';
import type { AgreementView } from './application/read.ts';
import { maskIdNumber, maskKraPin, maskPhone } from './application/mask.ts';
import { ipfHistory } from './history.ts';

/**
 * Premium-finance applications (docs/premium-finance.md "Premium finance"), seen exactly as their policy is; a SACCO or microfinance
 * organisation reads none (ipf_not_offered, enforced by the services and root fields).
 */

export const IpfApplicationStatusEnum = builder.enumType('IpfApplicationStatus', {
  values: APPLICATION_STATUSES as [ApplicationStatus, ...ApplicationStatus[]],
});

type Line = { seq: number; due_on: string; amount_minor: string };
const ScheduleLineRef = builder.objectRef<Line>('IpfApplicationScheduleLine').implement({
  description: 'One planned payment (1 is the deposit); dated from the day of signing once signed.',
  fields: (t) => ({
    seq: t.exposeInt('seq'),
    dueOn: t.exposeString('due_on', { description: 'Y-m-d' }),
    amount: t.field({ type: MoneyRef, resolve: (l) => money(BigInt(l.amount_minor))! }),
  }),
});

const KycRef = builder.objectRef<ApplicationRow>('IpfApplicationKyc').implement({
  description: 'What the applicant declared; identifiers shown partly (the lender alone receives them in full).',
  fields: (t) => ({
    idNumber: t.string({ description: 'Last four characters shown', resolve: (a) => maskIdNumber(a.idNumber) }),
    kraPin: t.string({ description: 'Kind letter and last four shown', resolve: (a) => maskKraPin(a.kraPin) }),
    incomeBand: t.exposeString('incomeBand', { description: 'below_20k, 20k_50k, 50k_100k, 100k_250k, above_250k' }),
    consentAt: t.expose('consentAt', { type: 'DateTime' }),
  }),
});

const ReasonRef = builder.objectRef<{ code: string; message: string }>('IpfDecisionReason').implement({
  description: 'Why the lender declined: premium_below_minimum, premium_above_maximum, unaffordable, existing_arrears.',
  fields: (t) => ({ code: t.exposeString('code'), message: t.exposeString('message') }),
});

const SigningRef = builder.objectRef<ApplicationRow>('IpfSigningState').implement({
  description: 'The one-time code that signs the agreement (never the code itself).',
  fields: (t) => ({
    phone: t.string({ nullable: true, resolve: (a) => (a.signingPhone ? maskPhone(a.signingPhone) : null) }),
    codeSentAt: t.expose('signingCodeSentAt', { type: 'DateTime', nullable: true }),
    codeExpiresAt: t.expose('signingCodeExpires', { type: 'DateTime', nullable: true }),
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
    text: t.exposeString('text'),
    sha256: t.exposeString('sha256'),
    final: t.exposeBoolean('final', {
      description:
        'True: the text a signing code was sent with (and signed with, once signed); false: a preview for today',
    }),
  }),
});

type Change = { fromStatus: string; toStatus: string; reason: string; actor: string; at: Date };
const StatusChangeRef = builder.objectRef<Change>('IpfApplicationStatusChange').implement({
  fields: (t) => ({
    from: t.exposeString('fromStatus'),
    to: t.exposeString('toStatus'),
    reason: t.exposeString('reason'),
    actor: t.exposeString('actor', { description: "A user's or API client's name, lender, client or system" }),
    at: t.expose('at', { type: 'DateTime' }),
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
    databaseId: t.exposeInt('id'),
    uuid: t.exposeString('uuid'),
    applicationNo: t.exposeString('applicationNo', { description: 'IPFA-YYYY-NNNNNN' }),
    status: t.field({ type: IpfApplicationStatusEnum, resolve: (a) => a.status as ApplicationStatus }),
    // As on a claim: the identifiers are the application's own; the records behind them keep their own rules.
    policy: t.relation('policy', { nullable: true }),
    client: t.relation('client', { nullable: true }),
    policyUuid: t.string({ select: { policy: { select: { uuid: true } } }, resolve: (a) => a.policy.uuid }),
    policyNo: t.string({ select: { policy: { select: { policyNo: true } } }, resolve: (a) => a.policy.policyNo }),
    clientNo: t.string({ select: { client: { select: { clientNo: true } } }, resolve: (a) => a.client.clientNo }),
    clientName: t.string({ select: { client: { select: { name: true } } }, resolve: (a) => a.client.name }),
    lenderId: t.exposeInt('lenderId'),
    lenderName: t.string({ select: { lender: { select: { name: true } } }, resolve: (a) => a.lender.name }),
    tenorMonths: t.exposeInt('tenorMonths'),
    premium: t.field({ type: MoneyRef, resolve: (a) => money(a.premiumMinor)! }),
    charge: t.field({ type: MoneyRef, description: 'The cost of credit', resolve: (a) => money(a.chargeMinor)! }),
    deposit: t.field({ type: MoneyRef, resolve: (a) => money(a.depositMinor)! }),
    instalment: t.field({ type: MoneyRef, resolve: (a) => money(a.instalmentMinor)! }),
    totalRepayable: t.field({ type: MoneyRef, resolve: (a) => money(a.totalRepayableMinor)! }),
    aprBps: t.exposeInt('aprBps', { description: 'The flat rate annualised, basis points' }),
    ratingVersion: t.exposeInt('ratingVersion', { description: 'The rating data version it was priced on' }),
    schedule: t.field({ type: [ScheduleLineRef], resolve: (a) => a.schedule as Line[] }),
    kyc: t.field({ type: KycRef, resolve: (a) => a }),
    decisionReasons: t.field({
      type: [ReasonRef],
      resolve: (a) => a.decisionReasons as { code: string; message: string }[],
    }),
    lenderRef: t.exposeString('lenderRef', { nullable: true }),
    decidedAt: t.expose('decidedAt', { type: 'DateTime', nullable: true }),
    agreementSha256: t.exposeString('agreementSha256', { nullable: true }),
    agreement: t.field({
      type: AgreementRef,
      nullable: true,
      resolve: (a, _args, ctx) => ipfApplicationService.agreement(ctx, a),
    }),
    signing: t.field({ type: SigningRef, resolve: (a) => a }),
    signedAt: t.expose('signedAt', { type: 'DateTime', nullable: true }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    closedReason: t.exposeString('closedReason', { nullable: true }),
    loan: t.relation('loan', { nullable: true }),
    history: t.field({
      type: [StatusChangeRef],
      description: 'Every move, oldest first: who, when, why',
      resolve: (a, _args, ctx) => ipfHistory(ctx, 'application', a.id),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  ipfApplications: t.prismaConnection({
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
    type: 'IpfApplication',
    nullable: true,
    authScopes: { read: true, bind: true },
    description: 'An application by uuid; null with not_found when missing or outside the caller’s reach.',
    args: { uuid: t.arg.string({ description: 'The application (its uuid).', required: true }) },
    resolve: (query, _root, args, ctx) => ipfApplicationService.get(ctx, args.uuid, query),
  }),
}));
