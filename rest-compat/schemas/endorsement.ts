import { arr, date, int, money, nullable, obj, str, timestamp, describe, type Schema, oneOf, num } from './builders.ts';

const OPERATIONS = [
  'add_vehicle',
  'remove_vehicle',
  'change_value',
  'change_details',
  'add_member',
  'remove_member',
  'change_sum_insured',
];

const vehicleProps: Record<string, Schema> = {
  regno: str('Registration, any spacing (also `reg_no`)'),
  chassis_no: str('Required: the registry certificate needs it'),
  engine_no: str(),
  make: str(),
  model: str(),
  yom: int('Year of manufacture'),
  value: int('Sum insured, whole shillings (required on comprehensive cover)'),
  body_type: str(),
  tonnage: num('Tonnes (commercial vehicles)'),
  pll: int('Passengers (PLL), priced per seat'),
  coverage: str("Defaults to the first vehicle's coverage; must rate in the policy's class"),
};

export const endorsementSchemas: Record<string, Schema> = {
  EndorsementRequest: obj(
    {
      operation: oneOf(OPERATIONS),
      effective_date: describe(
        date(),
        'Y-m-d, first day the change applies. Default today (Nairobi), or the start of cover if later. Within the period and not before the latest confirmed endorsement.',
      ),
      regno: str(
        'remove_vehicle, change_value, change_details (of a vehicle): a registration on cover under this policy',
      ),
      vehicle: obj(vehicleProps, ['regno', 'chassis_no', 'make', 'model', 'yom'], 'add_vehicle'),
      value: int('change_value: the new sum insured, whole shillings (comprehensive cover only)'),
      details: obj(
        {
          chassis_no: str(),
          engine_no: str(),
          make: str(),
          model: str(),
          body_type: str(),
          limits_of_liability: { description: "The policy's limits of liability, replaced whole (object or list)" },
        },
        [],
        "change_details: vehicle details (needs regno) and/or the policy's limits of liability; no premium effect",
      ),
      limits_of_liability: { description: 'Same as details.limits_of_liability' },
      member: obj(
        {
          name: str(),
          relationship: str('principal, spouse or child (family cover); employee, spouse or child (group cover)'),
          date_of_birth: date(),
          age: int('Whole years on the effective date, when no date of birth is given'),
          in_school: { type: 'boolean' },
          id_no: str(),
        },
        ['name', 'relationship'],
        "add_member (medical): the member, priced by the insurer's current medical rates at their age on the effective date",
      ),
      insured_id: int(
        "remove_member (medical), change_sum_insured (standard): an insured of the policy (the record's insured[].id)",
      ),
      sum_insured: int("change_sum_insured (standard): the item's new sum insured, whole shillings"),
      note: str('Free text kept with the endorsement (shown as remark), up to 500 characters'),
    },
    ['operation'],
  ),
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
