import { builder } from '../../graphql/builder.ts';
import { KEEPS_REACH } from '../../graphql/access.ts';
import { ProblemRef, syncTypeCheck } from '../../graphql/common.ts';
import { DomainRuleError, InvalidStateError, ValidationError } from '../../lib/problem.ts';
import {
  type CertificateCheck,
  certificateService,
  COVER_NAMES,
  DoubleInsuranceError,
  RegistryRefusedError,
} from './certificate.service.ts';
import { CERTIFICATE_STATES } from './certificate-state.ts';
import type { CertificateRecord } from '../../ports/certificate-registry.ts';
import { onePolicy } from '../access/policy.visibility.ts';

const CERTIFICATE_STATE_DESCRIPTIONS: Record<(typeof CERTIFICATE_STATES)[number], string> = {
  pending: 'Waiting to be sent to the registry.',
  issuing: 'The registry call is under way, or got no answer and is retried.',
  issued: 'Issued by the registry: certificateNo is set.',
  failed: 'Refused by the registry (see error); may be retried by hand (back to pending).',
  void: 'Dropped before issue because the policy or vehicle was cancelled.',
  cancel_pending: 'Cancellation asked of the registry, not yet answered.',
  cancelled: 'Cancelled at the registry.',
  cancel_refused: 'The registry refused the cancellation (past 24 hours).',
};

const CertificateStatusEnum = builder.enumType('CertificateStatus', {
  description:
    'pending → issuing → issued | failed | void; failed → pending (manual retry); issued → cancel_pending → cancelled | cancel_refused (registry refused: past 24 hours). issuing: the registry call is under way, or got no answer and is retried; void: dropped before issue because the policy or vehicle was cancelled.',
  values: Object.fromEntries(
    CERTIFICATE_STATES.map((s) => [s, { description: CERTIFICATE_STATE_DESCRIPTIONS[s] }]),
  ) as Record<(typeof CERTIFICATE_STATES)[number], { description: string }>,
});

const CertificateErrorRef = builder.objectRef<{ code: string; message: string }>('CertificateError').implement({
  description:
    "The registry's (or our) last refusal: ER005 double insurance, ER006 no stock, ER007 cancellation refused …",
  fields: (t) => ({
    code: t.exposeString('code', { description: "The code: the registry's ERnnn, or ours." }),
    message: t.exposeString('message', { description: 'The refusal in words.' }),
  }),
});

builder.prismaObject('Certificate', {
  select: { id: true, policyId: true },
  ...onePolicy,
  description:
    'A motor certificate of one vehicle for one stage of the cover period (one stage unless paid by instalments).',
  fields: (t) => ({
    uuid: t.exposeString('uuid', { description: "The certificate row's UUID." }),
    certificateNo: t.exposeString('certificateNo', {
      nullable: true,
      description: "The registry's number (C<class><7 digits>) once issued.",
    }),
    status: t.field({
      select: { status: true },
      description: 'Where the certificate is (see CertificateStatus).',
      type: CertificateStatusEnum,
      resolve: (c) => c.status as (typeof CERTIFICATE_STATES)[number],
    }),
    policy: t.relation('policy', { ...KEEPS_REACH, description: 'The motor policy.' }),
    vehicle: t.relation('vehicle', { description: 'The insured vehicle.' }),
    regNo: t.string({
      description: "The vehicle's registration.",
      select: { vehicle: { select: { regNo: true } } },
      resolve: (c) => c.vehicle.regNo,
    }),
    chassisNo: t.string({
      description: "The vehicle's chassis number; null when not given.",
      nullable: true,
      select: { vehicle: { select: { chassisNo: true } } },
      resolve: (c) => c.vehicle.chassisNo,
    }),
    certificateClass: t.exposeString('certificateClass', {
      description: 'A PSV, B commercial, C private, D motorcycles and three-wheelers.',
    }),
    coverCode: t.exposeInt('coverCode', { description: '100 COMP, 200 TPO, 300 TPFT.' }),
    coverName: t.string({
      select: { coverCode: true },
      description: 'The cover in words (COMP, TPO, TPFT).',
      resolve: (c) => COVER_NAMES[c.coverCode] ?? String(c.coverCode),
    }),
    stage: t.exposeInt('stage', { description: 'Which stage of the cover period this certificate covers (1-based).' }),
    stageCount: t.exposeInt('stageCount', {
      description: 'How many stages the cover period is split into (1 unless paid by instalments).',
    }),
    series: t.exposeInt('series', {
      description: "1; a reinstated policy's re-issued certificates are the next series.",
    }),
    startDate: t.expose('startDate', { description: 'First day this certificate covers.', type: 'Date' }),
    endDate: t.expose('endDate', { description: 'Last day this certificate covers.', type: 'Date' }),
    registryRef: t.exposeString('registryRef', {
      description: "The registry's reference for the issue; null before.",
      nullable: true,
    }),
    attempts: t.exposeInt('attempts', { description: 'How many times the registry has been asked.' }),
    error: t.field({
      select: { errorCode: true, errorMessage: true },
      description: 'The last refusal; null when none.',
      type: CertificateErrorRef,
      nullable: true,
      resolve: (c) => (c.errorCode ? { code: c.errorCode, message: c.errorMessage ?? '' } : null),
    }),
    issuedAt: t.expose('issuedAt', {
      description: 'When the registry issued it; null before.',
      type: 'DateTime',
      nullable: true,
    }),
    cancelledAt: t.expose('cancelledAt', {
      description: 'When it was cancelled at the registry; null unless cancelled.',
      type: 'DateTime',
      nullable: true,
    }),
    cancelReasonId: t.exposeInt('cancelReasonId', {
      description: "The registry's cancellation reason id; null unless a cancellation was asked.",
      nullable: true,
    }),
  }),
});

builder.prismaObjectField('Policy', 'certificates', (t) =>
  t.relation('certificates', {
    ...KEEPS_REACH,
    description: 'Motor certificates of the policy, by series, stage and vehicle.',
    query: { orderBy: [{ series: 'asc' }, { stage: 'asc' }, { vehicleId: 'asc' }, { id: 'asc' }] },
  }),
);

const RegistryCertificateRef = builder.objectRef<CertificateRecord>('RegistryCertificate').implement({
  description: "The registry's public record of a certificate (any insurer's): no holder details.",
  fields: (t) => ({
    certificateNo: t.exposeString('certificateNo', { description: 'The certificate number.' }),
    certificateClass: t.exposeString('certificateClass', {
      description: 'A PSV, B commercial, C private, D motorcycles and three-wheelers.',
    }),
    coverCode: t.exposeInt('typeOfCover', { description: '100 COMP, 200 TPO, 300 TPFT.' }),
    insurer: t.exposeString('insurer', { description: 'The issuing insurer, as the registry names it.' }),
    memberCompanyId: t.exposeInt('memberCompanyId', {
      description: "The insurer's member company id at the registry.",
    }),
    registration: t.exposeString('registrationNumber', { description: 'The vehicle registration.' }),
    startDate: t.string({ description: 'Y-m-d', resolve: (r) => ymd(r.commencingDate) }),
    endDate: t.string({ description: 'Y-m-d', resolve: (r) => ymd(r.expiringDate) }),
    status: t.exposeString('status', { description: 'Active or Cancelled' }),
  }),
});
const ymd = (d: string) => `${d.slice(6, 10)}-${d.slice(3, 5)}-${d.slice(0, 2)}`;

const ConflictRef = builder.objectRef<CertificateCheck['conflicts'][number]>('CertificateConflict').implement({
  description: 'Another certificate in force for the same vehicle, as the registry reports it.',
  fields: (t) => ({
    certificateNo: t.exposeString('certificateNo', { description: 'Its certificate number.' }),
    insurer: t.exposeString('insurer', { description: 'Its insurer, as the registry names it.' }),
    coverEnds: t.string({ description: 'Y-m-d', resolve: (c) => ymd(c.coverEndDate) }),
    message: t.exposeString('message', { description: "The registry's words." }),
  }),
});

const CertificateCheckRef = builder.objectRef<CertificateCheck>('CertificateCheck').implement({
  description: "The registry's answer to a certificate check.",
  fields: (t) => ({
    valid: t.exposeBoolean('valid', {
      description:
        'By number: active and in force today. By registration: the vehicle has an active certificate today.',
    }),
    message: t.exposeString('message', { description: "The registry's answer in words." }),
    certificate: t.field({
      description: 'The certificate found; null when none.',
      type: RegistryCertificateRef,
      nullable: true,
      resolve: (c) => c.certificate,
    }),
    conflicts: t.field({
      description: 'Other certificates in force for the same vehicle; empty when none.',
      type: [ConflictRef],
      resolve: (c) => c.conflicts,
    }),
  }),
});

builder.objectType(DoubleInsuranceError, {
  description:
    'double_insurance (409): the vehicle already has other cover for these dates: the registry refused it as double insurance (ER005) when issuing, or another policy of ours covers it when reinstating.',
  name: 'DoubleInsuranceProblem',
  interfaces: [ProblemRef],
  ...syncTypeCheck(DoubleInsuranceError),
  fields: (t) => ({
    certificateNo: t.string({
      nullable: true,
      description:
        'The certificate already in force, when the registry named it; null otherwise (always null on reinstatement).',
      resolve: (e) => e.certificateNo,
    }),
  }),
});
builder.objectType(RegistryRefusedError, {
  description:
    'registry_refused (422): the certificate registry refused the request; registryCode is its own code, detail its words.',
  name: 'RegistryRefusedProblem',
  interfaces: [ProblemRef],
  ...syncTypeCheck(RegistryRefusedError),
  fields: (t) => ({
    registryCode: t.string({ description: "The registry's own error code (ER001 …).", resolve: (e) => e.registryCode }),
  }),
});

const IssuedCertificatesRef = builder
  .objectRef<Awaited<ReturnType<typeof certificateService.issue>>>('IssuedCertificates')
  .implement({
    description: 'What issueCertificates answers.',
    fields: (t) => ({
      issued: t.exposeInt('issued', { description: 'How many this call issued' }),
      certificates: t.prismaField({
        description: 'The certificates of the answer (issued shows how many this call issued).',
        type: ['Certificate'],
        resolve: (query, r, _a, ctx) =>
          certificateService.byIds(
            ctx,
            r.certificates.map((c) => c.id),
            query,
          ),
      }),
    }),
  });

builder.queryFields((t) => ({
  certificate: t.prismaField({
    ...KEEPS_REACH,
    type: 'Certificate',
    authScopes: { read: true },
    description: 'One of our certificates by its registry number (visibility through its policy).',
    args: { certificateNo: t.arg.string({ description: 'The certificate number.', required: true }) },
    resolve: async (query, _r, a, ctx) => {
      const c = await certificateService.get(ctx, a.certificateNo);
      return certificateService.byId(ctx, c.id, query);
    },
  }),
  checkCertificate: t.field({
    type: CertificateCheckRef,
    authScopes: { read: true },
    description: 'Checks a certificate number, or a registration, at the registry.',
    args: {
      certificateNo: t.arg.string({ description: 'A certificate number to check (or give regNo).' }),
      regNo: t.arg.string({ description: 'A vehicle registration to check (any spacing; or give certificateNo).' }),
    },
    resolve: (_r, a, ctx) => certificateService.check(ctx, a),
  }),
}));

builder.mutationFields((t) => ({
  issueCertificates: t.field({
    type: IssuedCertificatesRef,
    authScopes: { bind: true },
    errors: {
      types: [ValidationError, InvalidStateError, DoubleInsuranceError, RegistryRefusedError, DomainRuleError],
      directResult: true,
      union: { name: 'IssueCertificatesResult' },
    },
    description:
      'Issues what is due now for an active motor policy and retries failed certificates, synchronously (DomainRuleProblem for a medical, travel or standard policy: no registry certificates).',
    args: { policyUuid: t.arg.string({ description: 'The active motor policy (its uuid).', required: true }) },
    resolve: (_r, a, ctx) => certificateService.issue(ctx, a.policyUuid),
  }),
  cancelCertificate: t.prismaField({
    type: 'Certificate',
    authScopes: { bind: true },
    errors: {
      types: [ValidationError, InvalidStateError, RegistryRefusedError],
      directResult: true,
      union: { name: 'CancelCertificateResult' },
    },
    description: 'Cancels a certificate at the registry (within 24 hours of issue).',
    args: {
      certificateNo: t.arg.string({ description: 'The certificate number to cancel at the registry.', required: true }),
      reasonId: t.arg.int({ required: true, description: '8, 14, 15, 21, 29 or 30' }),
    },
    resolve: async (query, _r, a, ctx) => {
      const c = await certificateService.cancel(ctx, a.certificateNo, a.reasonId);
      return certificateService.byId(ctx, c.id, query);
    },
  }),
}));
