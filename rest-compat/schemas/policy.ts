import { z } from 'zod';
import { documentAs, jsonSchemaOf } from './json-schema.ts';
import { arr, date, int, money, nullable, obj, ref, str, timestamp, describe, type Schema, oneOf } from './builders.ts';

/**
 * The body of a command on a policy (`/policies/{uuid}/…`) as the route reads it: anything but a JSON object reads as
 * `{}` (the fields absent). The domain finds the policy before it judges the body (404 first), so these definitions
 * check only what GraphQL's variable coercion checked before the domain ran (each value's type); each value rule the
 * domain judges after the lookup is left to it, and said in the field's description.
 */
export function readAsObject<S extends z.ZodObject>(inner: S) {
  return documentAs(
    z.preprocess((v) => (v && typeof v === 'object' && !Array.isArray(v) ? v : {}), inner),
    () => jsonSchemaOf(inner) as Record<string, unknown>,
  );
}

const amountOnly = (extra: Record<string, Schema> = {}) => ({ ...extra, ...money('amount') });

const policyRecord = obj({
  id: int(),
  uuid: str(),
  policy_no: str('MTR-YYYY-000001 (motor), MED-, TRV- or STD- for medical, travel and standard products'),
  risknote: str(),
  status: oneOf(['pending_payment', 'active', 'cancelled', 'expired', 'lapsed', 'renewed', 'not_taken_up']),
  product_line: str('motor, medical, travel or standard'),
  class: nullable(str('Motor: the vehicle class; null for other lines')),
  scope: nullable(str('Motor: the cover type; null for other lines')),
  cover_period: str('annual or tor'),
  start_date: date(),
  end_date: date(),
  payment_mode: oneOf(['full', 'ipf']),
  instalments: int(),
  client: obj({ client_no: str(), name: str(), phone: str() }),
  insurer: obj({ id: int(), name: str() }),
  sales_person: nullable(obj({ id: int(), name: str(), role: str(), code: nullable(str()) })),
  premium: obj({
    ...money('basic_premium'),
    ...money('taxes'),
    ...money('total'),
    levies: arr(obj(amountOnly({ code: str(), name: str() }))),
  }),
  product: nullable(
    obj(
      {
        id: int(),
        code: str('MEDICAL, TRAVEL, or the standard product (PA, DOMESTIC, WIBA, FIRE, GOLFER)'),
        name: str(),
      },
      undefined,
      "Medical, travel and standard policies: the insurer's cover product; null for motor",
    ),
  ),
  cover: describe(
    nullable(ref('CoverDetails')),
    "Medical, travel and standard policies: the cover as bound, with the option's terms (snake_case at any depth); null for motor",
  ),
  insured: describe(
    arr(
      obj({
        id: int('Names this insured on a claim (insured_id) or an endorsement (remove_member, change_sum_insured)'),
        kind: oneOf(['member', 'traveller', 'item']),
        name: str("The person's name, or what the item is"),
        relationship: nullable(str('Medical: principal, spouse, child or employee')),
        age: nullable(int('Whole years at the start of cover (or when added)')),
        date_of_birth: nullable(date()),
        in_school: nullable({ type: 'boolean' }),
        id_no: nullable(str('National ID or passport number')),
        ...money('sum_insured', true),
        details: { type: ['object', 'null'] },
        status: oneOf(['active', 'removed']),
        added_on: nullable(date()),
        removed_on: nullable(describe(date(), 'Y-m-d: the first day without cover')),
      }),
    ),
    'Medical, travel and standard policies: insured persons, travellers or items; empty for motor',
  ),
  vehicles: arr(
    obj({
      regno: str('Normalised: no spaces, upper case'),
      chassis_no: nullable(str()),
      engine_no: nullable(str()),
      make: nullable(str()),
      model: nullable(str()),
      yom: int(),
      ...money('value', true),
      body_type: nullable(str()),
      coverage: nullable(str()),
      status: oneOf(['active', 'removed']),
      added_on: nullable(
        describe(
          date(),
          "Y-m-d: the first day of its cover: the policy's start, or the effective date of the endorsement that added it",
        ),
      ),
      removed_on: nullable(describe(date(), 'Y-m-d: the first day without cover, when removed by an endorsement')),
    }),
  ),
  debit_notes: arr(
    obj({
      number: str(
        'DN-<policy>-<n>/<total> (instalment), DN-<policy>-E<n> (endorsement), DN-<policy>-R<n> (reinstatement)',
      ),
      kind: oneOf(['instalment', 'endorsement', 'reinstatement']),
      instalment_no: int('0 for endorsement and reinstatement notes'),
      due_on: date(),
      ...money('amount'),
      ...money('paid'),
      ...money('credited'),
      ...money('outstanding'),
    }),
  ),
  credit_notes: arr(
    obj({
      number: str('CN-<policy>-<n>'),
      kind: oneOf(['endorsement', 'cancellation']),
      ...money('amount'),
      ...money('basic_premium'),
      ...money('taxes'),
      ...money('applied'),
      ...money('refunded'),
      applications: arr(obj(amountOnly({ debit_note_no: str() }))),
      created_at: timestamp(),
    }),
  ),
  receipts: arr(
    obj({
      receipt_no: str(),
      transaction_ref: str(),
      method: str(),
      purpose: describe(
        oneOf(['premium', 'ipf_repayment']),
        "premium, or ipf_repayment: a premium-finance loan's instalment, paid to the lender (allocated to no debit note of the policy)",
      ),
      account: str('The account paid, as given: a policy number, debit note number or premium-finance loan reference'),
      paid_at: timestamp(),
      ...money('amount'),
      ...money('unallocated'),
      allocations: arr(obj(amountOnly({ debit_note_no: str() }))),
    }),
  ),
  endorsements: arr(ref('Endorsement')),
  cancellations: arr(ref('Cancellation')),
  certificates: arr(ref('Certificate')),
  status_history: describe(
    arr(
      obj({
        from: nullable(str()),
        to: str(),
        source: str('bind, payment, schedule, api, renewal or reinstatement'),
        reason: nullable(str()),
        at: timestamp(),
      }),
    ),
    'Every status the policy has had, oldest first',
  ),
  renewal_of: describe(
    nullable(obj({ uuid: str(), policy_no: str() })),
    "The policy this one renews; null when none, or when it is outside the caller's reach (an agent's).",
  ),
  renewed_by: describe(
    nullable(obj({ uuid: str(), policy_no: str(), status: str() })),
    "The policy that renews this one, once bound; null when none, or when it is outside the caller's reach.",
  ),
  created_at: timestamp(),
});

export const policySchemas = {
  PolicyRecord: policyRecord,
  /** GET /policies/{uuid}: the record and the claims registered against the policy. */
  PolicyDetail: policyRecord.extend({ claims: arr(ref('ClaimSummary')) }),
};
