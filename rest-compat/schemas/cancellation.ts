import { z } from 'zod';
import { arr, date, int, money, nullable, obj, str, timestamp, describe, type Schema, oneOf } from './builders.ts';
import { readAsObject } from './policy.ts';

const line = (extra: Record<string, Schema> = {}) => obj({ code: str(), name: str(), ...money('amount'), ...extra });

/** The domain's lists, written out (the facade imports no module): src/modules/policies/cancellation/shared.ts. */
const CANCELLATION_REASONS = [
  'insured_request',
  'vehicle_sold',
  'non_payment',
  'written_off',
  'stolen',
  'insurer_request',
  'duplicate_cover',
];
const CANCELLATION_REQUESTERS = ['insured', 'intermediary', 'insurer', 'lender'];
/** A note's longest, trimmed (MAX_NOTE). */
const MAX_NOTE = 500;

/**
 * `POST /policies/{uuid}/cancellation`. The domain judges these values after it finds the policy (an unknown one is
 * 404 whatever the body), so only their types are checked here; the rules are the descriptions'.
 */
export const CancellationInput = readAsObject(
  obj(
    {
      reason: str(
        `One of ${CANCELLATION_REASONS.join(', ')} (without regard to case or surrounding spaces; vehicle_sold, written_off and stolen for motor policies only); another, or none, is 422 naming reason. Maps to the registry reason id (8, 15, 21, 29, 30, 8, 8)`,
      ).nullish(),
      requested_by: str(
        `One of ${CANCELLATION_REQUESTERS.join(', ')} (without regard to case or surrounding spaces); another, or none, is 422 naming requested_by`,
      ).nullish(),
      effective_date: str(
        'Y-m-d: the first day without cover; default today (Nairobi); between the start (or the latest confirmed endorsement) and the day after the end. A date before the start is the start. Another text is 422',
      ).nullish(),
      note: str(`At most ${MAX_NOTE} characters once trimmed (422 beyond); blank reads as none`).nullish(),
    },
    [],
  ),
);

/** `POST /policies/{uuid}/reinstate`: the note is judged before the policy is looked up. */
export const ReinstateInput = readAsObject(
  obj(
    {
      note: z
        .string()
        .refine((v) => v.trim().length <= MAX_NOTE, `at most ${MAX_NOTE} characters`)
        .describe(`At most ${MAX_NOTE} characters once trimmed; blank reads as none`)
        .nullish(),
    },
    [],
  ),
);

export const cancellationSchemas = {
  CancellationInput,
  ReinstateInput,
  Cancellation: obj({
    id: int(),
    uuid: str(),
    policy: obj({ uuid: str(), policy_no: str(), status: str() }),
    status: oneOf(
      ['quoted', 'confirmed', 'discarded', 'expired', 'reinstated'],
      'expired: a quoted preview past expires_at',
    ),
    reason: str(),
    registry_reason_id: nullable(int('Registry certificate cancellation reason id (motor); null for other lines')),
    requested_by: str(),
    note: nullable(str()),
    effective_date: describe(date(), 'Y-m-d: the first day without cover'),
    based_on_revision: int('Policy revision priced on; a confirmed change since makes the preview stale'),
    refund: obj({
      days: obj({
        in_period: int('Days in the period, start to end inclusive'),
        covered: int('Days on cover before the effective date'),
        unearned: int('Days from the effective date to the end inclusive'),
      }),
      ...money('basic_premium'),
      levies: describe(arr(line()), "Each percent levy's share, term by term"),
      ...money('taxes'),
      non_refundable: describe(arr(line({ reason: str() })), 'Flat duties (stamp duty): charged once, never refunded'),
      ...money('credit_total'),
      applied_to_debit_notes: describe(
        arr(obj({ debit_note_no: str(), ...money('amount') })),
        'Open debit notes written off by the credit, oldest due first',
      ),
      ...money('applied_total'),
      ...money('refund_to_client'),
      refund_payee: oneOf(
        ['client', 'lender'],
        "Who the rest of the credit goes to: client (added to the client's credit balance, refund_to_client) or lender (the premium-finance lender that paid the premium, refund_to_lender; refund_to_client is then 0)",
      ),
      ...money('refund_to_lender'),
      ...money('outstanding_after'),
      items: arr(
        obj({
          regno: nullable(str('Motor: the vehicle; null for other lines')),
          insured: nullable(
            str(
              'Medical, travel and standard policies: the insured person, traveller or item; null for motor and for a standard cover priced as a whole',
            ),
          ),
          ...money('annual_basic_premium'),
          from: date(),
          to: date(),
          ...money('unearned_basic_premium'),
        }),
      ),
    }),
    credit_note: describe(
      nullable(
        obj({
          number: str('CN-<policy>-<n>'),
          ...money('amount'),
          ...money('applied'),
          ...money('refunded'),
          refund_payee: oneOf(['client', 'lender']),
        }),
      ),
      'Raised on confirmation: applied to open debit notes, the rest refunded to refund_payee (the client credit balance, or the premium-finance lender)',
    ),
    reinstatement_debit_note: describe(
      nullable(obj({ number: str('DN-<policy>-R<n>'), ...money('amount'), ...money('credited') })),
      'Raised by a reinstatement for the credit note amount; credited with what was applied and recovered from the client credit',
    ),
    expires_at: timestamp(),
    confirmed_at: nullable(timestamp()),
    reinstated_at: nullable(timestamp()),
    created_at: timestamp(),
  }),
};
