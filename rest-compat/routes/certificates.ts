import { jsonSchemaOf } from '../schemas/json-schema.ts';
import {
  CancelCertificateDocument,
  CertificateDocument,
  CheckCertificateDocument,
  IssueCertificatesDocument,
  PolicyCertificatesDocument,
} from '../generated/operations.ts';
import {
  certificateCheckToRest,
  certificateOk as ok,
  certificateProblemExtra,
  certificateToRest,
} from '../mappers/certificate.ts';
import { type AnyRoute, bodyOf, route } from '../route.ts';
import { arr, ref, str } from '../schemas/builders.ts';
import { cancelCertificateBody, okOf } from '../schemas/certificate.ts';

/** Every certificate failure is a problem document that also carries `success: false` and `message` (spec, Errors). */
const common = {
  tag: 'Certificates',
  serviceOnly: true,
  mapProblemExtra: certificateProblemExtra,
  mapEveryProblem: true,
};

export const certificateRoutes: AnyRoute[] = [
  route({
    ...common,
    operationId: 'issuePolicyCertificates',
    method: 'POST',
    path: '/policies/{uuid}/certificates',
    summary: 'Issue the certificates due now (and retry failed ones), synchronously',
    description:
      "For an active motor policy: every live vehicle's due stages (stage k once instalment k is paid in full and stage k−1 is issued), after the registry's double-insurance check. 201 when this call issued at least one, 200 when nothing new was due. A medical, travel or standard policy has no registry certificates (422 domain_rule). Failures carry `success: false` and `message`.",
    scopes: ['bind'],
    idempotent: 'outside-transaction',
    operation: IssueCertificatesDocument,
    toVariables: ({ params }) => ({ policyUuid: params.uuid }),
    toResponse: (d) =>
      ok(d.issueCertificates.certificates.map(certificateToRest), d.issueCertificates.issued > 0 ? 201 : 200),
    response: {
      status: 201,
      description: "The policy's certificates (200 when nothing new was issued)",
      schema: okOf(arr(ref('Certificate'))),
      alsoStatuses: [{ status: 200, description: "Nothing new was due: the policy's certificates as they are" }],
    },
    errors: [
      'not_found',
      'invalid_state',
      'double_insurance',
      'registry_refused',
      'domain_rule',
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
    operation: PolicyCertificatesDocument,
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
    operation: CheckCertificateDocument,
    queryParams: [
      { name: 'certificate_no', in: 'query', schema: jsonSchemaOf(str('e.g. CC0000123')) },
      { name: 'regno', in: 'query', schema: jsonSchemaOf(str('Registration, any spacing')) },
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
    operation: CertificateDocument,
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
    operation: CancelCertificateDocument,
    requestBody: cancelCertificateBody,
    parseBody: true,
    toVariables: (input) => ({
      certificateNo: input.params.certificate_no,
      reasonId: bodyOf(input, cancelCertificateBody).reason_id,
    }),
    toResponse: (d) => ok(certificateToRest(d.cancelCertificate)),
    response: { status: 200, description: 'The cancelled certificate', schema: okOf(ref('Certificate')) },
    errors: ['not_found', 'validation_failed', 'invalid_state', 'registry_refused', 'actor_forbidden'],
  }),
];
