import type { SchemaObject } from 'openapi3-ts/oas31';
import { certificateCheckToRest, certificateProblemExtra, certificateToRest } from '../mappers/certificate.ts';
import { asObject, route, type RestRoute } from '../route.ts';
import { arr, bool, date, int, nullable, obj, ref, str, timestamp } from '../schemas.ts';

/** Every certificate failure is a problem document that also carries `success: false` and `message` (spec, Errors). */
const common = {
  tag: 'Certificates',
  serviceOnly: true,
  mapProblemExtra: certificateProblemExtra,
  mapEveryProblem: true,
};
const ok = (data: unknown, status = 200) => ({ status, body: { success: true, data } });
const okOf = (s: SchemaObject): SchemaObject => obj({ success: { type: 'boolean', const: true }, data: s });

export const certificateRoutes: RestRoute[] = [
  route({
    ...common,
    operationId: 'issuePolicyCertificates',
    method: 'POST',
    path: '/policies/{uuid}/certificates',
    summary: 'Issue the certificates due now (and retry failed ones), synchronously',
    description:
      "For an active policy: every live vehicle's due stages (stage k once instalment k is paid in full and stage k−1 is issued), after the registry's double-insurance check. 201 when this call issued at least one, 200 when nothing new was due. Failures carry `success: false` and `message`.",
    scopes: ['bind'],
    idempotent: 'outside-transaction',
    operation: 'IssueCertificates',
    toVariables: ({ params }) => ({ policyUuid: params.uuid }),
    toResponse: (d) =>
      ok(d.issueCertificates.certificates.map(certificateToRest), d.issueCertificates.issued > 0 ? 201 : 200),
    response: {
      status: 201,
      description: "The policy's certificates (200 when nothing new was issued)",
      schema: okOf(arr(ref('Certificate'))),
    },
    errors: [
      'not_found',
      'invalid_state',
      'double_insurance',
      'registry_refused',
      'actor_forbidden',
      'service_unavailable',
    ],
  }),
  route({
    ...common,
    operationId: 'listPolicyCertificates',
    method: 'GET',
    path: '/policies/{uuid}/certificates',
    summary: "A policy's certificates (every stage, vehicle and series)",
    scopes: ['read'],
    idempotent: false,
    operation: 'PolicyCertificates',
    toVariables: ({ params }) => ({ uuid: params.uuid }),
    toResponse: (d) => ok(d.policy.certificates.map(certificateToRest)),
    response: { status: 200, description: 'The certificates', schema: okOf(arr(ref('Certificate'))) },
    errors: ['not_found'],
  }),
  route({
    ...common,
    operationId: 'checkCertificate',
    method: 'GET',
    path: '/certificates/check',
    summary: 'Check a certificate number or a registration at the registry',
    description:
      "By `certificate_no`: the registry's record and whether it is active and in force today (with `regno` too, it must be that vehicle's). By `regno`: whether the vehicle has an active certificate today, and which.",
    scopes: ['read'],
    idempotent: false,
    operation: 'CheckCertificate',
    queryParams: [
      { name: 'certificate_no', in: 'query', schema: str('e.g. CC0000123') },
      { name: 'regno', in: 'query', schema: str('Registration, any spacing') },
    ],
    toVariables: ({ query }) => ({
      certificateNo: query.get('certificate_no') || undefined,
      regNo: query.get('regno') || query.get('reg_no') || undefined,
    }),
    toResponse: (d) => ok(certificateCheckToRest(d.checkCertificate)),
    response: { status: 200, description: "The registry's answer", schema: okOf(ref('CertificateCheck')) },
    errors: ['validation_failed'],
    fieldNames: { certificate_no: 'certificate_no', reg_no: 'regno' },
  }),
  route({
    ...common,
    operationId: 'getCertificate',
    method: 'GET',
    path: '/certificates/{certificate_no}',
    summary: 'One of our certificates by its registry number',
    scopes: ['read'],
    idempotent: false,
    operation: 'Certificate',
    toVariables: ({ params }) => ({ certificateNo: params.certificate_no }),
    toResponse: (d) => ok(certificateToRest(d.certificate)),
    response: { status: 200, description: 'The certificate', schema: okOf(ref('Certificate')) },
    errors: ['not_found'],
  }),
  route({
    ...common,
    operationId: 'cancelCertificate',
    method: 'POST',
    path: '/certificates/{certificate_no}/cancel',
    summary: 'Cancel a certificate at the registry (within 24 hours of issue)',
    description:
      'Past 24 hours the registry refuses: 422 registry_refused, and the certificate is `cancel_refused` (tell the insurer out of band).',
    scopes: ['bind'],
    idempotent: 'outside-transaction',
    operation: 'CancelCertificate',
    requestBody: obj({
      reason_id: int(
        'Registry reason: 8 insured requested, 14 not taken up, 15 sold, 21 non-payment, 29 written off, 30 stolen',
      ),
    }),
    toVariables: ({ params, body }) => ({ certificateNo: params.certificate_no, reasonId: asObject(body).reason_id }),
    toResponse: (d) => ok(certificateToRest(d.cancelCertificate)),
    response: { status: 200, description: 'The cancelled certificate', schema: okOf(ref('Certificate')) },
    errors: ['not_found', 'validation_failed', 'invalid_state', 'registry_refused', 'actor_forbidden'],
  }),
];

export const certificateSchemas: Record<string, SchemaObject> = {
  Certificate: obj({
    uuid: str(),
    certificate_no: nullable(str('C<class><7 digits>, once issued')),
    status: {
      type: 'string',
      enum: ['pending', 'issuing', 'issued', 'failed', 'cancel_pending', 'cancelled', 'cancel_refused', 'void'],
    },
    policy_no: str(),
    policy_uuid: str(),
    regno: str(),
    chassis_no: nullable(str()),
    certificate_class: {
      type: 'string',
      enum: ['A', 'B', 'C', 'D'],
      description: 'A PSV, B commercial, C private, D motorcycles and three-wheelers',
    },
    cover_code: { type: 'integer', enum: [100, 200, 300], description: '100 COMP, 200 TPO, 300 TPFT' },
    cover: str('Cover name'),
    stage: int('1-based stage of an instalment plan'),
    stage_count: int(),
    series: int('1; re-issued after a reinstatement: 2, …'),
    start_date: date(),
    end_date: date(),
    registry_ref: nullable(str()),
    attempts: int(),
    error: nullable(
      obj({ code: str('ER005 double insurance, ER006 no stock, ER007 cancellation refused …'), message: str() }),
    ),
    issued_at: nullable(timestamp()),
    cancelled_at: nullable(timestamp()),
    cancel_reason_id: nullable(int()),
  }),
  CertificateCheck: obj({
    valid: bool(),
    message: str(),
    certificate: nullable(
      obj({
        certificate_no: str(),
        certificate_class: str(),
        cover_code: int(),
        insurer: str(),
        member_company_id: int(),
        registration: str(),
        start_date: date(),
        end_date: date(),
        status: str('Active or Cancelled'),
      }),
    ),
    conflicts: arr(obj({ certificate_no: str(), insurer: str(), cover_ends: date(), message: str() })),
  }),
};
