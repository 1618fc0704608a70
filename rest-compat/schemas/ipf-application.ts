import { z } from 'zod';
import { arr, bool, date, int, money, nullable, obj, str, timestamp, oneOf } from './builders.ts';

/**
 * The premium-finance application statuses and income bands, written out (the facade imports no module);
 * test/rest-compat/ipf-application-mapper.test.ts checks they match the finance module's.
 */
export const IPF_APPLICATION_STATUSES = [
  'draft',
  'submitted',
  'approved',
  'declined',
  'signed',
  'funded',
  'cancelled',
  'expired',
];
export const IPF_INCOME_BANDS = ['below_20k', '20k_50k', '50k_100k', '100k_250k', 'above_250k'] as const;

const status = (description?: string) => oneOf(IPF_APPLICATION_STATUSES, description);

const application = {
  id: int(),
  uuid: str(),
  application_no: str('IPFA-YYYY-NNNNNN, gap-free per organisation and year'),
  status: status(),
  policy: obj({ uuid: str(), policy_no: str() }),
  client: obj({ client_no: str(), name: str() }),
  lender: obj({ id: int(), name: str() }),
  tenor_months: int('3–10'),
  ...money('premium'),
  ...money('charge'),
  ...money('deposit'),
  ...money('instalment'),
  ...money('total_repayable'),
  apr_bps: int('The flat rate annualised, basis points'),
  rating_version: int('The rating data version it was priced on'),
  schedule: arr(obj({ seq: int('1 is the deposit'), due_on: date(), ...money('amount') })),
  kyc: obj({
    id_number: str('Partly shown: the last four characters'),
    kra_pin: str('Partly shown: the kind letter and the last four characters'),
    income_band: oneOf(IPF_INCOME_BANDS),
    consent_at: timestamp(),
  }),
  decision: nullable(
    obj({
      lender_ref: nullable(str()),
      decided_at: timestamp(),
      reasons: arr(
        obj({
          code: str('premium_below_minimum, premium_above_maximum, unaffordable, existing_arrears'),
          message: str(),
        }),
      ),
    }),
  ),
  agreement_sha256: nullable(str('SHA-256 (hex) of the agreement the signing code was sent with')),
  signing: obj({
    phone: nullable(str('Partly shown')),
    code_sent_at: nullable(timestamp()),
    code_expires_at: nullable(timestamp()),
    attempts_left: nullable(int('Null when no code is outstanding')),
  }),
  signed_at: nullable(timestamp()),
  expires_at: timestamp(),
  closed_reason: nullable(str()),
  loan: nullable(obj({ uuid: str(), loan_no: str('IPF-YYYY-NNNNNN'), status: str() })),
  created_at: timestamp(),
  updated_at: timestamp(),
};

const history = arr(
  obj({
    from: status(),
    to: status(),
    reason: str(),
    by: str('A user or API client, lender, client or system'),
    at: timestamp(),
  }),
);

/** One of two spellings must be there (a check that runs whatever else is refused, so every missing field is named). */
const eitherOf = (a: string, b: string) =>
  [
    (v: unknown) =>
      !v ||
      typeof v !== 'object' ||
      (v as Record<string, unknown>)[a] != null ||
      (v as Record<string, unknown>)[b] != null,
    { path: [a], message: 'required', when: () => true },
  ] as [(v: unknown) => boolean, { path: string[]; message: string; when: () => boolean }];

/**
 * POST /ipf/applications. Legacy spellings: `idno` for id_number, `pin` for kra_pin, `policy` for policy_uuid (the
 * first wins when both are sent). The policy by policy_uuid or policy_no (one required: 422 on policy_uuid). The ID
 * number and KRA PIN are normalised and must match the client record (422 naming them); the tenor must be one the
 * lender offers.
 */
export const ipfApplicationInput = obj(
  {
    policy_uuid: nullable(
      str('The policy: pending payment, bound with payment_mode ipf (also `policy`); or policy_no').max(64),
    ),
    policy: nullable(str('Legacy spelling of policy_uuid').max(64)),
    policy_no: nullable(str('The policy number, instead of policy_uuid').max(64)),
    lender_id: int('An active lender of the panel').positive(),
    tenor_months: int('3–10, one the lender offers').min(3, '3 to 10 months').max(10, '3 to 10 months'),
    id_number: nullable(str("The applicant's national ID (6–14 digits) or passport number (required: this or `idno`)")),
    idno: nullable(str('Legacy spelling of id_number')),
    kra_pin: nullable(str('A or P, 9 digits and a letter, any case (required: this or `pin`)')),
    pin: nullable(str('Legacy spelling of kra_pin')),
    income_band: oneOf(IPF_INCOME_BANDS, 'Declared monthly income'),
    consent: bool('Must be true: consent to the credit check and to the use of these details'),
    submit: nullable(bool('Submit to the lender at once (default false: a draft)')),
  },
  ['lender_id', 'tenor_months', 'income_band', 'consent'],
)
  .refine(...eitherOf('id_number', 'idno'))
  .refine(...eitherOf('kra_pin', 'pin'));

/** POST /ipf/applications/{uuid}/cancel. */
export const ipfApplicationCancelInput = obj({
  reason: z.string().trim().min(1, 'required').max(500).describe('Why, up to 500 characters'),
});

/** POST /ipf/applications/{uuid}/sign. */
export const ipfApplicationSignInput = obj({
  code: str(
    'The six digits the client received by SMS (anything else: 422 validation_failed on otp, no attempt spent)',
  ),
});

export const ipfApplicationSchemas = {
  IpfApplication: obj(application),
  IpfApplicationDetail: obj({ ...application, history }, [...Object.keys(application), 'history']),
  IpfApplicationInput: ipfApplicationInput,
  IpfApplicationCancelInput: ipfApplicationCancelInput,
  IpfApplicationSignInput: ipfApplicationSignInput,
  IpfSigningCode: obj({
    message: str(),
    sent_to: str("The client's registered phone, partly shown"),
    expires_at: timestamp(),
    expires_in_seconds: int(),
    resend_after_seconds: int(),
    agreement_sha256: str('The agreement the code signs (GET …/agreement)'),
    application: obj(application),
  }),
  IpfAgreement: obj({
    uuid: str(),
    application_no: str(),
    status: status(),
    text: str('The agreement, plain text'),
    sha256: str('SHA-256 (hex) of the text as UTF-8'),
    final: bool('True: the text the signing code was sent with (signed, once signed); false: a preview for today'),
  }),
};

export const IpfApplication = ipfApplicationSchemas.IpfApplication;
export const IpfApplicationDetail = ipfApplicationSchemas.IpfApplicationDetail;
export const IpfSigningCode = ipfApplicationSchemas.IpfSigningCode;
export const IpfAgreement = ipfApplicationSchemas.IpfAgreement;
