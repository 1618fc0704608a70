import { z } from 'zod';
import { arr, bool, date, int, nullable, obj, str, timestamp, type Schema, oneOf } from './builders.ts';

/** A certificate answer's envelope: `{success: true, data}`. */
export const okOf = <S extends Schema>(s: S) => obj({ success: z.literal(true), data: s });

/** The registry's cancellation reasons, written out (the facade imports no module): src/ports/certificate-registry.ts. */
const CANCEL_REASON_IDS = [8, 14, 15, 21, 29, 30] as const;

/** `POST /certificates/{certificate_no}/cancel`: the reason is judged before the certificate is looked up. */
export const cancelCertificateBody = obj({
  reason_id: z
    .literal(CANCEL_REASON_IDS, `one of ${CANCEL_REASON_IDS.join(', ')}`)
    .describe(
      'Registry reason: 8 insured requested, 14 not taken up, 15 sold, 21 non-payment, 29 written off, 30 stolen',
    ),
});

export const certificateSchemas: Record<string, Schema> = {
  Certificate: obj({
    uuid: str(),
    certificate_no: nullable(str('C<class><7 digits>, once issued')),
    status: oneOf(['pending', 'issuing', 'issued', 'failed', 'cancel_pending', 'cancelled', 'cancel_refused', 'void']),
    policy_no: str(),
    policy_uuid: str(),
    regno: str(),
    chassis_no: nullable(str()),
    certificate_class: oneOf(['A', 'B', 'C', 'D'], 'A PSV, B commercial, C private, D motorcycles and three-wheelers'),
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
