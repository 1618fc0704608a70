import { z } from 'zod';
import { todayNairobi } from '../../src/lib/dates.ts';
import {
  allOf,
  arr,
  anyOf,
  bool,
  date,
  dateInput,
  int,
  json,
  money,
  nullable,
  num,
  obj,
  oneOf,
  str,
  type Schema,
} from './builders.ts';

/**
 * What the motor paths accept, as the server reads it (rest-compat/mappers/motor.ts, src/modules/motor/quote.service.ts
 * normaliseRisk, src/modules/policies/bind/validate.ts). The legacy readings are kept: a numeric string ("2019") where a
 * number goes, the vocabulary in any case and with its aliases (the caller's spelling is passed on as sent: the quote
 * echoes it), `idno`/`id_no`, `pin`/`kra_pin`, `regno`/`reg_no`. A JSON null reads as absent, as GraphQL reads it.
 */

const NUMERIC = /^-?\d+(\.\d+)?$/;
/** A numeric string ("2019", " 1500000 ") read as the number it spells, as the legacy mappers always did. */
const asNumber = (v: unknown): unknown => (typeof v === 'string' && NUMERIC.test(v.trim()) ? Number(v) : v);
/** `s`, also accepting the number as a numeric string ("2019"; said in the description). */
export const numeric = <S extends z.ZodType>(s: S, description?: string) => {
  const d = [description ?? s.description, 'a numeric string such as "2019" is read as the number'];
  return z.preprocess(asNumber, s).describe(d.filter(Boolean).join('; '));
};
/** Optional: absent or null (GraphQL reads a null as not sent). */
export const orNull = <S extends z.ZodType>(s: S) => s.nullable();

/**
 * A word of a vocabulary the server reads leniently (any case, aliases): documented as its canonical values, checked
 * with `read` (null: refused with `message`), passed on as sent.
 */
export function vocabulary<const T extends readonly string[]>(
  values: T,
  read: (v: string) => string | null,
  message: string,
  description: string,
) {
  return z
    .string()
    .refine((v) => read(v) !== null, message)
    .meta({ enum: [...values], description });
}

const squash = (v: string) =>
  v
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '');
/** src/modules/motor/classify.ts parseKind. */
const KINDS: Record<string, string> = {
  motor: 'Motor',
  motorvehicle: 'Motor',
  car: 'Motor',
  tuktuk: 'Tuktuk',
  motorcycle: 'Motorcycle',
  motorbike: 'Motorcycle',
  bodaboda: 'Motorcycle',
};
/** src/modules/motor/classify.ts parseScope. */
const SCOPES: Record<string, string> = {
  comprehensive: 'Comprehensive',
  comp: 'Comprehensive',
  tpo: 'TPO',
  'third party only': 'TPO',
  'third party': 'TPO',
  tpft: 'TPFT',
  'third party fire and theft': 'TPFT',
  'third party fire theft': 'TPFT',
};
const scopeKey = (v: string) =>
  v
    .trim()
    .toLowerCase()
    .replace(/[\s_,-]+/g, ' ');

export const motorClass = (description = '') =>
  vocabulary(
    ['Motor', 'Tuktuk', 'Motorcycle'],
    (v) => KINDS[squash(v)] ?? null,
    'one of Motor, Tuktuk, Motorcycle',
    `${description}Any case, spaces, hyphens and underscores ignored; car and motor vehicle (Motor), motorbike and boda boda (Motorcycle) also accepted`,
  );
export const motorScope = () =>
  vocabulary(
    ['Comprehensive', 'TPO', 'TPFT'],
    (v) => SCOPES[scopeKey(v)] ?? null,
    'Comprehensive or TPO (third party only)',
    'Any case; comp, third party (only) and third party fire and theft also accepted. TPFT is priced only where an insurer rates it (no_quote otherwise)',
  );
const coverPeriod = () =>
  vocabulary(
    ['annual', 'tor'],
    (v) => (['annual', 'tor'].includes(v.trim().toLowerCase()) ? v : null),
    'annual or tor',
    'annual (default) or tor (time on risk); any case',
  );

const yearMessage = () => `year of manufacture, 1950–${Number(todayNairobi().slice(0, 4)) + 1}`;
/** Year of manufacture: 1950 to next year (Nairobi), as normaliseRisk checks it. */
const yearOfManufacture = (description: string) =>
  numeric(
    int()
      .min(1950, { error: yearMessage })
      .refine((y) => y <= Number(todayNairobi().slice(0, 4)) + 1, { error: yearMessage }),
    `${description}: 1950 to next year`,
  );
const days = () => orNull(numeric(int(), 'Time on risk in days: required for tor, 1–364 (ignored for annual cover)'));
const vehicleValue = () =>
  orNull(
    numeric(
      num().gt(0, 'a positive amount in whole shillings').max(1_000_000_000, 'a positive amount in whole shillings'),
      'Whole shillings, above 0 and at most 1,000,000,000; required for comprehensive cover',
    ),
  );
const tonnage = () =>
  orNull(numeric(num().min(0, 'tonnes, 0–200').max(200, 'tonnes, 0–200'), 'Tonnes (commercial), 0–200'));
const pll = () =>
  orNull(
    numeric(
      int().min(0, 'number of passengers, 0–200').max(200, 'number of passengers, 0–200'),
      'Passengers covered for passenger legal liability, 0–200',
    ),
  );
const text = (description?: string) => orNull(str(description));
const intId = (description?: string) => orNull(numeric(int(), description));

/** Insurer ids: one id or a list (numeric strings read as numbers; an empty string reads as none). */
export const insurerIdFilter = (description: string) =>
  z.preprocess((v) => (v === '' ? null : v), anyOf([numeric(int()), arr(numeric(int()))], description).nullable());

const insuredClient = obj(
  {
    name: text('Required unless client_no is sent'),
    phone: text('Kenyan mobile, any format; required unless client_no is sent'),
    email: text(),
    idno: text('National ID or passport; `id_no` also accepted'),
    id_no: text('Alias of idno'),
    pin: text('Tax PIN; `kra_pin` also accepted'),
    kra_pin: text('Alias of pin'),
    risk_manager_id: intId(),
    branch_id: intId(),
    sales_person_id: intId('`agentcode` (an agent code) accepted instead'),
    agentcode: text('An agent code, instead of sales_person_id'),
    client_no: text('Service-only: link an existing client the caller can see (the other fields are then not needed)'),
    force: orNull(bool('Service-only: add a new client despite duplicate_client matches')),
    type: orNull(oneOf(['individual', 'corporate'], 'individual (default) or corporate')),
  },
  [],
  'The insured: matched by phone, ID number or tax PIN, else created (name and phone then required)',
);
const moneyTriple = obj({ ...money('basic_premium'), ...money('taxes'), ...money('total') });
const figure = (description?: string) => orNull(numeric(num(), description));
/** The figures shown to the client (`quotes[]` of a save quote), motor and every other line. */
export const quotedFigures = arr(
  obj(
    {
      insurer_id: numeric(int()),
      rate: figure(),
      basic: figure('Whole shillings'),
      taxes: figure('Whole shillings'),
      total: figure('Whole shillings; within KES 1 of the server price'),
      benefits: orNull(arr(str())),
    },
    ['insurer_id'],
  ),
);

const motorQuoteRequest = obj(
  {
    class: motorClass('Motor, Tuktuk or Motorcycle. '),
    coverage: text(
      'Private (default), a commercial class (own goods, general cartage…) or a PSV class (matatu, taxi…)',
    ),
    scope: motorScope(),
    cover_period: orNull(coverPeriod()),
    days: days(),
    year: yearOfManufacture('Year of manufacture'),
    value: vehicleValue(),
    tonnage: tonnage(),
    pll: pll(),
    insurer_id: insurerIdFilter(
      'Limit to these insurers (GET /insurers; an id the organisation does not have is 422 validation_failed on insurer_id)',
    ),
    start_date: orNull(dateInput('Service-only; a past date starts today')),
  },
  ['class', 'scope', 'year'],
);

const saveQuoteRequest = obj(
  {
    client: insuredClient,
    vehicle: obj(
      {
        reg_no: text('Registration; `regno` also accepted'),
        regno: text('Alias of reg_no'),
        make: text(),
        model: text(),
        class: orNull(motorClass('Motor (default), Tuktuk or Motorcycle. ')),
        coverage: text('As for POST /motor/quote'),
        scope: motorScope(),
        cover_period: orNull(coverPeriod()),
        days: days(),
        year: yearOfManufacture('Year of manufacture'),
        value: vehicleValue(),
        tonnage: tonnage(),
        pll: pll(),
        start_date: orNull(dateInput('A past date starts today')),
      },
      ['year', 'scope'],
    ),
    quotes: orNull(quotedFigures),
    prospect_uuid: text(
      'Service-only: the prospect this quote is for; it moves to quoted (docs/motor-and-clients.md "Prospects")',
    ),
  },
  ['client', 'vehicle'],
);

const bindVehicle = obj(
  {
    regno: text('Registration, such as KAA 123A; `reg_no` also accepted; one of them required'),
    reg_no: text('Alias of regno'),
    chassis_no: text('Needed for the registry certificate'),
    make: text(),
    model: text(),
    yom: numeric(int(), 'Year of manufacture: 1950 to next year (refused on policy.year otherwise)'),
    value: vehicleValue(),
    coverage: text(),
    engine_no: text(),
    body_type: text(),
    tonnage: tonnage(),
    pll: pll(),
    basic_premium: figure(),
    rate: figure(),
    benefits: orNull(arr(str())),
  },
  ['yom'],
);
const INSTALMENTS = '1–4';
const bindRequest = obj(
  {
    client: insuredClient,
    policy: obj(
      {
        start_date: dateInput('A past date starts today; at most 90 days ahead'),
        end_date: text('Y-m-d. Ignored for annual cover; for tor without days it sets the days'),
        insurer_id: numeric(int()),
        class: motorClass(),
        coverage: text(),
        scope: motorScope(),
        cover_period: orNull(coverPeriod()),
        days: days(),
        total_basic: figure('Whole shillings; checked when sent'),
        taxes: figure('Whole shillings; checked when sent'),
        premium: numeric(num(), 'Gross premium, whole shillings; within KES 1 of the server price'),
        premium_instalments: orNull(
          numeric(int().min(1, INSTALMENTS).max(4, INSTALMENTS), '1 (default) to 4, where the insurer allows'),
        ),
        payment_mode: orNull(
          vocabulary(
            ['full', 'ipf'],
            (v) => (['full', 'ipf'].includes(v.toLowerCase()) ? v : null),
            'full or ipf',
            'full (default) or ipf (service-only; always one instalment); any case',
          ),
        ),
        limits_of_liability: orNull(
          arr(obj({ benefit_id: str(), item: str(), limit: nullable(int()) }, [])).describe(
            'Accepted as sent and kept with the policy',
          ),
        ),
        product_version: intId(
          'Service-only: rating version priced on (from the quote option); a newer one answers price_changed',
        ),
      },
      ['start_date', 'insurer_id', 'class', 'scope', 'premium'],
    ),
    taxes: z.unknown().describe('Accepted for compatibility and ignored: the server computes the levies'),
    vehicles: arr(bindVehicle).length(1, 'exactly one vehicle per save; add more by endorsement (add_vehicle)'),
    prospect_uuid: text(
      'Service-only: the prospect this policy is for; it moves to won (docs/motor-and-clients.md "Prospects")',
    ),
  },
  ['client', 'policy', 'vehicles'],
);

export const MotorRisk = obj({
  class: str('As sent'),
  coverage: str(),
  scope: str('As sent'),
  vehicle_class: oneOf(['private', 'commercial', 'psv', 'motorcycle']),
  cover_type: oneOf(['comprehensive', 'tpo', 'tpft']),
  cover_period: oneOf(['annual', 'tor']),
  days: int(),
  start_date: date(),
  end_date: date(),
  year: int(),
  tonnage: nullable(num()),
  pll: int(),
  ...money('value', true),
});

const instalmentPlans = {
  instalments: arr(obj({ parts: int(), amounts: arr(int()), amounts_minor: arr(int()) })),
  ipf_offers: arr(
    obj({ tenor_months: int(), ...money('deposit'), ...money('instalment'), apr_bps: int(), lender_name: str() }),
  ),
  ipf_reason: nullable(str('Why premium finance is not offered')),
};
/** The instalment plans and premium-finance offers of an option, motor or any other line (mappers/priced.ts). */
export const InstalmentPlans = obj(instalmentPlans);

export const MotorOption = obj({
  insurer_id: int(),
  insurer_name: str(),
  monogram: str(),
  motor_product_id: int(),
  vehicle_class: str(),
  cover_type: str(),
  rate: nullable(num('Percent')),
  rate_bps: nullable(int()),
  ...money('value', true),
  ...money('basic_premium'),
  taxes: arr(obj({ code: str(), name: str(), ...money('amount') })),
  ...money('taxes_total'),
  ...money('total'),
  commission_rate_bps: int(),
  benefits: arr(obj({ id: str(), name: str() })),
  limits_of_liability: arr(
    obj({ benefit_id: str(), item: str(), limit: nullable(int('Whole shillings; null is unlimited')) }),
  ),
  excess: str(),
  pll: int(),
  tonnage: nullable(num()),
  ...instalmentPlans,
  product_version: int('Rating version (service-only)'),
});

export const SavedQuote = obj({
  message: str(),
  id: int(),
  uuid: str(),
  quote_no: str(),
  client_no: str(),
  valid_until: date().describe('14 days after saving'),
  data: obj({
    uuid: str(),
    product_line: str(),
    status: oneOf(['presented']),
    options: arr(
      obj({ option_id: int(), insurer_id: int(), insurer_name: str(), rate: nullable(num()), ...money('total') }),
    ),
  }),
});

export const SavedPolicy = obj(
  {
    message: str(),
    id: int(),
    uuid: str(),
    risknote: str(),
    policy_no: str(),
    client_no: str(),
    client_key: nullable(str('Only when the client had no client-area key; null on a replay')),
    status: oneOf(['pending_payment']),
    product_line: str(),
    start_date: date(),
    end_date: date(),
    payment_mode: oneOf(['full', 'ipf']),
    instalments: int(),
    premium: moneyTriple,
    debit_note: obj({
      number: str(),
      due_on: date(),
      ...money('amount'),
      instalments: arr(
        obj({
          number: str('DN-<policy>-<n>/<total>'),
          instalment_no: int(),
          due_on: date(),
          ...money('amount'),
        }),
      ),
    }),
    portal: obj({ client_no: str(), client_key: nullable(str()), note: str() }, ['client_no', 'client_key']),
    links: obj({ policy: str('URL of the policy') }),
    replay_note: str('On a replayed request'),
  },
  [
    'message',
    'id',
    'uuid',
    'risknote',
    'policy_no',
    'client_no',
    'client_key',
    'status',
    'product_line',
    'start_date',
    'end_date',
    'payment_mode',
    'instalments',
    'premium',
    'debit_note',
    'portal',
    'links',
  ],
);

export const motorSchemas: Record<string, Schema> = {
  MotorQuoteRequest: motorQuoteRequest,
  MotorRisk,
  MotorOption,
  InsuredClient: insuredClient,
  SaveQuoteRequest: saveQuoteRequest,
  SavedQuote,
  BindRequest: bindRequest,
  SavedPolicy,
  PremiumMismatchProblem: allOf(
    json({ $ref: '#/components/schemas/Problem' }),
    obj({ server: arr(obj({ insurer_id: int(), ...money('basic_premium'), ...money('taxes'), ...money('total') })) }),
  ),
};

export const MotorQuoteRequest = motorQuoteRequest;
export const SaveQuoteRequest = saveQuoteRequest;
export const BindRequest = bindRequest;
export const InsuredClient = insuredClient;
export const MotorQuoteResponse = obj({ message: str(), quote: MotorRisk, options: arr(MotorOption) });
