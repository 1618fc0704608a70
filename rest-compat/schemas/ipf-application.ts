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
export const IPF_INCOME_BANDS = ['below_20k', '20k_50k', '50k_100k', '100k_250k', 'above_250k'];

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

export const ipfApplicationSchemas = {
  IpfApplication: obj(application),
  IpfApplicationDetail: obj({ ...application, history }, [...Object.keys(application), 'history']),
  IpfApplicationInput: obj(
    {
      policy_uuid: str('The policy: pending payment, bound with payment_mode ipf (also `policy`); or policy_no'),
      policy_no: str(),
      lender_id: int('An active lender of the panel'),
      tenor_months: int('3–10, one the lender offers'),
      id_number: str("The applicant's national ID or passport number (also `idno`)"),
      kra_pin: str('A or P, 9 digits and a letter (also `pin`)'),
      income_band: oneOf(IPF_INCOME_BANDS, 'Declared monthly income'),
      consent: bool('Must be true: consent to the credit check and to the use of these details'),
      submit: bool('Submit to the lender at once (default false: a draft)'),
    },
    ['lender_id', 'tenor_months', 'id_number', 'kra_pin', 'income_band', 'consent'],
  ),
  IpfApplicationCancelInput: obj({ reason: str() }),
  IpfApplicationSignInput: obj({ code: str('The six digits the client received by SMS') }),
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
