import { z } from 'zod';
import { arr, date, int, money, nullable, obj, str, timestamp, type Schema, oneOf } from './builders.ts';
import { readAsObject } from './policy.ts';

const OPERATIONS = [
  'add_vehicle',
  'remove_vehicle',
  'change_value',
  'change_details',
  'add_member',
  'remove_member',
  'change_sum_insured',
];

/** A value of this type or null (absent): the domain judges what it must be, after it finds the policy. */
const text = (description?: string) => (description ? z.string().describe(description) : z.string()).nullish();
const whole = (description?: string) => (description ? z.int().describe(description) : z.int()).nullish();
const amount = (description: string) => z.number().describe(description).nullish();

const vehicle = obj(
  {
    regno: text('Required: the registration, any spacing (also `reg_no`)'),
    reg_no: text('The same as regno (legacy spelling)'),
    chassis_no: text('Required: the registry certificate needs it'),
    engine_no: text(),
    make: text('Required'),
    model: text('Required'),
    yom: whole('Required: year of manufacture, one the insurer rates'),
    value: amount('Sum insured, whole shillings (required on comprehensive cover)'),
    body_type: text(),
    tonnage: amount('Tonnes (commercial vehicles)'),
    pll: whole('Passengers (PLL), priced per seat'),
    coverage: text("Defaults to the first vehicle's coverage; must rate in the policy's class"),
  },
  [],
  'add_vehicle',
);

const limitsOfLiability = (description: string) => z.unknown().describe(description);

/**
 * `POST /policies/{uuid}/endorse`. The domain finds the policy before it judges the body (an unknown one is 404
 * whatever the body), so each value's type is checked here (what GraphQL's coercion checked before the domain ran)
 * and each rule the domain judges after the lookup is left to it and said in the description: the operation, the
 * fields each operation needs, dates, bounds. A body that is not an object reads as `{}`, as before.
 */
export const EndorsementRequest = readAsObject(
  obj(
    {
      operation: text(
        `Required: one of ${OPERATIONS.join(', ')} (vehicle operations for motor policies, add_member and remove_member for medical, change_sum_insured for standard products, change_details for any); another is 422 naming operation`,
      ),
      effective_date: text(
        'Y-m-d, first day the change applies. Default today (Nairobi), or the start of cover if later. Within the period and not before the latest confirmed endorsement.',
      ),
      regno: text(
        'remove_vehicle, change_value, change_details (of a vehicle): a registration on cover under this policy (also `reg_no`)',
      ),
      reg_no: text('The same as regno (legacy spelling)'),
      vehicle: vehicle.nullish(),
      value: amount('change_value: the new sum insured, whole shillings (comprehensive cover only), more than 0'),
      details: obj(
        {
          chassis_no: text(),
          engine_no: text(),
          make: text(),
          model: text(),
          body_type: text(),
          limits_of_liability: limitsOfLiability("The policy's limits of liability, replaced whole (object or list)"),
        },
        [],
        "change_details: vehicle details (needs regno) and/or the policy's limits of liability; no premium effect; not empty",
      ).nullish(),
      limits_of_liability: limitsOfLiability('Same as details.limits_of_liability'),
      member: obj(
        {
          name: text('Required'),
          relationship: text(
            'Required: principal, spouse or child (family cover); employee, spouse or child (group cover)',
          ),
          date_of_birth: text('Y-m-d; or age'),
          age: whole('Whole years on the effective date, when no date of birth is given'),
          in_school: z.boolean().nullish(),
          id_no: text('National ID or passport number, at most 50 characters'),
        },
        [],
        "add_member (medical): the member, priced by the insurer's current medical rates at their age on the effective date",
      ).nullish(),
      insured_id: whole(
        "remove_member (medical), change_sum_insured (standard): an insured of the policy (the record's insured[].id)",
      ),
      sum_insured: amount("change_sum_insured (standard): the item's new sum insured, whole shillings"),
      note: text('Free text kept with the endorsement (shown as remark), up to 500 characters'),
    },
    [],
  ),
);

export const endorsementSchemas: Record<string, Schema> = {
  EndorsementRequest,
  Endorsement: obj({
    uuid: str(),
    number: str('END-<policy_no>-<n>'),
    operation: oneOf(OPERATIONS),
    status: oneOf(['pending', 'confirmed', 'discarded', 'expired']),
    effective_date: date(),
    policy: obj({ uuid: str(), policy_no: str() }),
    changes: {
      type: 'object',
      description:
        'The requested change, normalised: registrations without spaces, money as whole shillings plus `_minor` cents, `previous_*` values for changes',
    },
    premium_effect: obj(
      {
        ...money('basic_premium'),
        ...money('taxes'),
        ...money('total'),
        levies: arr(obj({ code: str(), name: str(), ...money('amount') })),
      },
      undefined,
      'Signed: Σ ±U(B, e) pro rata to the day, percent levies term by term; flat levies (stamp duty) never. Positive raises a debit note on confirmation, negative a credit note.',
    ),
    days: obj({
      in_period: int('D: days in the policy period'),
      remaining: int('R(e): days from the effective date to the end inclusive'),
    }),
    items: arr(
      obj(
        {
          regno: nullable(str('Motor: the vehicle; null for other lines')),
          insured: nullable(
            str('Medical and standard: the insured person or item; null for a cover priced as a whole'),
          ),
          ...money('annual_basic_before', true),
          ...money('annual_basic_after', true),
        },
        undefined,
        'Annual basic premium (PLL included) of each vehicle, insured person or item touched, before and after',
      ),
    ),
    note: nullable(
      obj(
        {
          kind: oneOf(['debit', 'credit']),
          number: str('DN-<policy_no>-E<n> or CN-<policy_no>-<n>'),
          ...money('amount'),
          due_on: date(),
          ...money('applied'),
          ...money('refunded'),
          applications: arr(obj({ debit_note_no: str(), ...money('amount') })),
        },
        ['kind', 'number', 'amount', 'amount_minor'],
        "Null until confirmed (and for change_details). A debit note carries due_on; a credit note what was applied to open debit notes and what was refunded to the client's credit",
      ),
    ),
    remark: nullable(str()),
    based_on_revision: int(
      'The policy revision it was priced on; a confirm after another change answers preview_stale',
    ),
    expires_at: timestamp(),
    created_at: timestamp(),
    confirmed_at: nullable(timestamp()),
    discarded_at: nullable(timestamp()),
  }),
};
