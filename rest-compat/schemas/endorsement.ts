import { z } from 'zod';
import { arr, bool, date, dateInput, int, money, nullable, obj, str, timestamp, oneOf, num } from './builders.ts';

const OPERATIONS = [
  'add_vehicle',
  'remove_vehicle',
  'change_value',
  'change_details',
  'add_member',
  'remove_member',
  'change_sum_insured',
] as const;

/** An object or a list, replaced whole (JSON). */
const limits = (description: string) =>
  nullable(z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).describe(description));

/**
 * POST /policies/{uuid}/endorse. Which members an operation needs is the service's rule (422 naming the field):
 * add_vehicle needs `vehicle` (regno, chassis_no, make, model, yom; value on comprehensive cover); remove_vehicle and
 * change_value need `regno` (change_value also `value`); change_details needs `details` (or `limits_of_liability`),
 * with `regno` for vehicle particulars; add_member needs `member` (name, relationship, date_of_birth or age);
 * remove_member needs `insured_id`; change_sum_insured `insured_id` and `sum_insured`. Absent and null are the same.
 */
export const endorsementRequest = obj(
  {
    operation: oneOf(OPERATIONS),
    effective_date: nullable(
      dateInput(
        'First day the change applies. Default today (Nairobi), or the start of cover if later. Within the period and not before the latest confirmed endorsement',
      ),
    ),
    regno: nullable(
      str('remove_vehicle, change_value, change_details (of a vehicle): a registration on cover under this policy'),
    ),
    reg_no: nullable(str('Legacy spelling of regno (regno wins when both are sent)')),
    vehicle: nullable(
      obj(
        {
          regno: nullable(str('Registration, any spacing (required: this or `reg_no`)')),
          reg_no: nullable(str('Legacy spelling of regno')),
          chassis_no: nullable(str('Required: the registry certificate needs it')),
          engine_no: nullable(str()),
          make: nullable(str('Required')),
          model: nullable(str('Required')),
          yom: nullable(int('Year of manufacture (required)')),
          value: nullable(num('Sum insured, whole shillings (required on comprehensive cover)')),
          body_type: nullable(str()),
          tonnage: nullable(num('Tonnes (commercial vehicles)')),
          pll: nullable(int('Passengers (PLL), priced per seat')),
          coverage: nullable(str("Defaults to the first vehicle's coverage; must rate in the policy's class")),
        },
        [],
        'add_vehicle',
      ),
    ),
    value: nullable(
      num('change_value: the new sum insured, a positive amount in whole shillings (comprehensive cover only)'),
    ),
    details: nullable(
      obj(
        {
          chassis_no: nullable(str()),
          engine_no: nullable(str()),
          make: nullable(str()),
          model: nullable(str()),
          body_type: nullable(str()),
          limits_of_liability: limits("The policy's limits of liability, replaced whole (object or list)"),
        },
        [],
        "change_details: vehicle details (needs regno) and/or the policy's limits of liability; no premium effect",
      ),
    ),
    limits_of_liability: limits('Same as details.limits_of_liability (details.limits_of_liability wins)'),
    member: nullable(
      obj(
        {
          name: nullable(str('Required')),
          relationship: nullable(
            str('Required: principal, spouse or child (family cover); employee, spouse or child (group cover)'),
          ),
          date_of_birth: nullable(dateInput('Or age')),
          age: nullable(int('Whole years on the effective date, when no date of birth is given').min(0).max(120)),
          in_school: nullable(bool('A child in school (older children are covered while at school)')),
          id_no: nullable(str('At most 50 characters').max(50)),
        },
        [],
        "add_member (medical): the member, priced by the insurer's current medical rates at their age on the effective date",
      ),
    ),
    insured_id: nullable(
      int(
        "remove_member (medical), change_sum_insured (standard): an insured of the policy (the record's insured[].id)",
      ),
    ),
    sum_insured: nullable(num("change_sum_insured (standard): the item's new sum insured, whole shillings")),
    note: nullable(str('Free text kept with the endorsement (shown as remark), up to 500 characters').max(500)),
  },
  ['operation'],
);

export const endorsementSchemas = {
  EndorsementRequest: endorsementRequest,
  Endorsement: obj({
    uuid: str(),
    number: str('END-<policy_no>-<n>'),
    operation: oneOf(OPERATIONS),
    status: oneOf(['pending', 'confirmed', 'discarded', 'expired']),
    effective_date: date(),
    policy: obj({ uuid: str(), policy_no: str() }),
    changes: z
      .record(z.string(), z.unknown())
      .describe(
        'The requested change, normalised: registrations without spaces, money as whole shillings plus `_minor` cents, `previous_*` values for changes',
      ),
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
export const Endorsement = endorsementSchemas.Endorsement;
