import type { SchemaObject } from 'openapi3-ts/oas31';
import { asObject } from '../route.ts';
import { arr, date, int, money, nullable, obj, ref, str, timestamp } from '../schemas.ts';
import { moneyPair } from './money.ts';

const OPERATIONS = ['add_vehicle', 'remove_vehicle', 'change_value', 'change_details'];

/** Leaves junk (a string where an object belongs) as it is, so GraphQL coercion names the field. */
const maybeObject = (v: unknown, f: (o: Record<string, unknown>) => Record<string, unknown>) =>
  v && typeof v === 'object' && !Array.isArray(v) ? f(v as Record<string, unknown>) : v;

/** The legacy endorse body → EndorsePolicyInput. `regno` and `reg_no` are both accepted. */
export function endorseFromRest(body: unknown): Record<string, unknown> {
  const b = asObject(body);
  const details =
    b.details != null
      ? maybeObject(b.details, (d) => ({
          chassisNo: d.chassis_no,
          engineNo: d.engine_no,
          make: d.make,
          model: d.model,
          bodyType: d.body_type,
          limitsOfLiability: d.limits_of_liability ?? b.limits_of_liability,
        }))
      : b.limits_of_liability != null
        ? { limitsOfLiability: b.limits_of_liability }
        : undefined;
  return {
    operation: b.operation ?? '',
    effectiveDate: b.effective_date,
    regNo: b.regno ?? b.reg_no,
    vehicle: maybeObject(b.vehicle, (v) => ({
      regNo: v.regno ?? v.reg_no,
      chassisNo: v.chassis_no,
      engineNo: v.engine_no,
      make: v.make,
      model: v.model,
      yom: v.yom,
      value: v.value,
      bodyType: v.body_type,
      tonnage: v.tonnage,
      pll: v.pll,
      coverage: v.coverage,
    })),
    value: b.value,
    details,
    note: b.note,
  };
}

const whole = (minor: number) => {
  const w = Math.floor((Math.abs(minor) + 50) / 100);
  return minor < 0 ? -w : w;
};

/** Stored changes are snake_case with cents (`value_minor`): each `x_minor` gains its whole-shilling `x`. */
function changesToRest(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(changesToRest);
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (k === 'vehicle_id') continue;
    if (k.endsWith('_minor') && (typeof x === 'number' || x === null))
      out[k.slice(0, -6)] = x == null ? null : whole(x);
    out[k] = k === 'limits_of_liability' || k === 'previous_limits_of_liability' ? x : changesToRest(x);
  }
  return out;
}

/** GraphQL Endorsement → the REST record. */
export function endorsementToRest(e: any) {
  const pe = e.premiumEffect;
  return {
    uuid: e.uuid,
    number: e.number,
    operation: e.operation,
    status: e.endorsementStatus ?? e.status,
    effective_date: e.effectiveDate,
    policy: { uuid: e.policy.uuid, policy_no: e.policy.policyNo },
    changes: changesToRest(e.changes),
    premium_effect: {
      ...moneyPair('basic_premium', pe.basicPremium),
      ...moneyPair('taxes', pe.taxes),
      ...moneyPair('total', pe.total),
      levies: pe.levies.map((l: any) => ({ code: l.code, name: l.name, ...moneyPair('amount', l.amount) })),
    },
    days: { in_period: e.days.inPeriod, remaining: e.days.remaining },
    items: e.items.map((i: any) => ({
      regno: i.regNo,
      ...moneyPair('annual_basic_before', i.annualBasicBefore),
      ...moneyPair('annual_basic_after', i.annualBasicAfter),
    })),
    note: e.debitNote
      ? {
          kind: 'debit',
          number: e.debitNote.number,
          ...moneyPair('amount', e.debitNote.amount),
          due_on: e.debitNote.dueOn,
        }
      : e.creditNote
        ? {
            kind: 'credit',
            number: e.creditNote.number,
            ...moneyPair('amount', e.creditNote.amount),
            ...moneyPair('applied', e.creditNote.applied),
            ...moneyPair('refunded', e.creditNote.refunded),
            applications: e.creditNote.applications.map((a: any) => ({
              debit_note_no: a.debitNoteNo,
              ...moneyPair('amount', a.amount),
            })),
          }
        : null,
    remark: e.remark,
    based_on_revision: e.basedOnRevision,
    expires_at: e.expiresAt,
    created_at: e.createdAt,
    confirmed_at: e.confirmedAt,
    discarded_at: e.discardedAt,
  };
}

const vehicleProps: Record<string, SchemaObject> = {
  regno: str('Registration, any spacing (also `reg_no`)'),
  chassis_no: str('Required: the registry certificate needs it'),
  engine_no: str(),
  make: str(),
  model: str(),
  yom: int('Year of manufacture'),
  value: int('Sum insured, whole shillings (required on comprehensive cover)'),
  body_type: str(),
  tonnage: { type: 'number', description: 'Tonnes (commercial vehicles)' },
  pll: int('Passengers (PLL), priced per seat'),
  coverage: str("Defaults to the first vehicle's coverage; must rate in the policy's class"),
};

export const endorsementSchemas: Record<string, SchemaObject> = {
  EndorsementRequest: obj(
    {
      operation: { type: 'string', enum: OPERATIONS },
      effective_date: {
        ...date(),
        description:
          'Y-m-d, first day the change applies. Default today (Nairobi), or the start of cover if later. Within the period and not before the latest confirmed endorsement.',
      },
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
      note: str('Free text kept with the endorsement (shown as remark), up to 500 characters'),
    },
    ['operation'],
  ),
  Endorsement: obj({
    uuid: str(),
    number: str('END-<policy_no>-<n>'),
    operation: { type: 'string', enum: OPERATIONS },
    status: { type: 'string', enum: ['pending', 'confirmed', 'discarded', 'expired'] },
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
        { regno: str(), ...money('annual_basic_before', true), ...money('annual_basic_after', true) },
        undefined,
        'Annual basic premium (PLL included) of each vehicle touched, before and after',
      ),
    ),
    note: nullable(
      obj(
        {
          kind: { type: 'string', enum: ['debit', 'credit'] },
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
