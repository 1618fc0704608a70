import { AppError, InvalidStateError } from '../../../lib/problem.ts';

/** The certificate problems: typed results in GraphQL; REST adds success: false and message. */

export class DoubleInsuranceError extends AppError {
  constructor(
    detail: string,
    readonly certificateNo: string | null,
  ) {
    super('double_insurance', { detail, extra: { message: detail, ...(certificateNo ? { certificateNo } : {}) } });
  }
}
export class CertificateStateError extends InvalidStateError {
  constructor(detail: string) {
    super(detail, { message: detail });
  }
}
export class RegistryRefusedError extends AppError {
  constructor(
    detail: string,
    readonly registryCode: string,
  ) {
    super('registry_refused', { detail, extra: { message: detail, registryCode } });
  }
}

/** The registry did not answer: the work it was asked for stays queued and is retried by the job or the sweep. */
export function registryUnavailable(detail: string): AppError {
  return new AppError('service_unavailable', { detail, extra: { message: detail } });
}
