import { z } from 'zod';
import { arr, bool, date, int, money, nullable, obj, str, timestamp, oneOf } from './builders.ts';
import { readAsObject } from './policy.ts';

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

/**
 * The premium-finance commands' bodies. An organisation that does not offer premium finance is answered 403
 * ipf_not_offered whatever it sends, before the values are judged; so only each value's type is checked here (what
 * GraphQL's coercion checked before the domain ran), each rule is the domain's (src/modules/finance/application/)
 * and said in the description. A body that is not an object reads as `{}`, as before.
 */
const text = (description: string) => z.string().describe(description).nullish();

/** `POST /ipf/applications`. */
export const IpfApplicationInput = readAsObject(
  obj(
    {
      policy_uuid: text(
        'The policy: pending payment, bound with payment_mode ipf (also `policy`); or policy_no (one of them is required)',
      ),
      policy: text('The same as policy_uuid (legacy spelling)'),
      policy_no: text('The policy by its number, instead of policy_uuid'),
      lender_id: z.int().describe('Required: an active lender of the panel (another is 422 naming it)').nullish(),
      tenor_months: z.int().describe('Required: 3–10, one the lender offers (another is 422 naming it)').nullish(),
      id_number: text(
        "Required: the applicant's national ID (6–14 digits) or passport number, as the client record holds it (also `idno`)",
      ),
      idno: text('The same as id_number (legacy spelling)'),
      kra_pin: text('Required: A or P, 9 digits and a letter, as the client record holds it (also `pin`)'),
      pin: text('The same as kra_pin (legacy spelling)'),
      income_band: text(`Required, the declared monthly income: one of ${IPF_INCOME_BANDS.join(', ')}`),
      consent: z
        .boolean()
        .describe('Required and true: consent to the credit check and to the use of these details')
        .nullish(),
      submit: z.boolean().describe('Submit to the lender at once (default false: a draft)').nullish(),
    },
    [],
  ),
);

/** `POST /ipf/applications/{uuid}/cancel`. */
export const IpfApplicationCancelInput = readAsObject(
  obj({ reason: text('Required: why, at most 500 characters (trimmed)') }, []),
);

/** `POST /ipf/applications/{uuid}/sign`: a code that is not six digits is refused under `otp`, as a wrong code. */
export const IpfApplicationSignInput = readAsObject(
  obj({ code: text('The six digits the client received by SMS (anything else is 422 naming otp)') }, []),
);

export const ipfApplicationSchemas = {
  IpfApplication: obj(application),
  IpfApplicationDetail: obj({ ...application, history }, [...Object.keys(application), 'history']),
  IpfApplicationInput,
  IpfApplicationCancelInput,
  IpfApplicationSignInput,
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
