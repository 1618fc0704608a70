import { z } from 'zod';
import { todayNairobi } from '../../src/lib/dates.ts';
import { MAX_SHILLINGS } from '../../src/lib/money.ts';
import { KIND_WORDS, SCOPE_WORDS, VEHICLE_VALUE_RULE } from '../../src/modules/motor/vocabulary.ts';
import {
  arr,
  caseless,
  int,
  money,
  nullable,
  num,
  numeric,
  obj,
  ref,
  spelled,
  str,
  type Schema,
  oneOf,
  allOf,
  json,
  ymdText,
} from './builders.ts';
import { documentAs, jsonSchemaOf } from './json-schema.ts';
import { whole } from './inputs.ts';

/**
 * The motor risk as the server reads it (src/modules/motor/quote.service.ts normaliseRisk, classify.ts): the words of
 * `class` and `scope` come from the domain's own tables, the bounds and messages are the domain's. Rules that depend
 * on another field (days for tor, value for comprehensive, the coverage a kind rates) are the domain's alone: the
 * description says them.
 */
const KIND_SEPARATOR = '[\\s_-]*';
/** A kind's word with spaces, underscores and hyphens allowed anywhere; `k` also as the Kelvin sign, which lower-cases to it. */
const kindPattern = (word: string) =>
  KIND_SEPARATOR + [...word].map((c) => (c === 'k' ? '[k\u212A]' : c)).join(KIND_SEPARATOR) + KIND_SEPARATOR;
export const motorClass = (
  description = 'Motor, Tuktuk or Motorcycle (any case; also car, motor vehicle, motorbike, boda boda)',
) => spelled(Object.values(KIND_WORDS).flat().map(kindPattern), 'one of Motor, Tuktuk, Motorcycle', description);
export const motorScope = (
  description = 'Comprehensive, TPO or TPFT (any case; "third party only", "third party fire and theft" and "comp" accepted)',
) =>
  spelled(
    Object.values(SCOPE_WORDS)
      .flat()
      .map((words) => words.join('[\\s_,-]+')),
    'Comprehensive or TPO (third party only)',
    description,
  );
const coverPeriod = () =>
  spelled(['annual', 'tor'], 'annual or tor', 'annual (default) or tor (time on risk), any case').nullable();
/** The year of manufacture: 1950 to next year (checked at the time of the request, the domain's words either way). */
const yearMessage = () => `year of manufacture, ${1950}–${Number(todayNairobi().slice(0, 4)) + 1}`;
export const yearOfManufacture = (
  description = 'Year of manufacture, 1950 to next year (the upper bound moves each year: checked on the day of the request, not written in this schema)',
) =>
  numeric(
    whole(
      z
        .int()
        .min(1950, { error: yearMessage })
        .refine((y) => y <= Number(todayNairobi().slice(0, 4)) + 1, {
          error: yearMessage,
          params: { code: 'too_large' },
        })
        .describe(description),
    ),
  );

export const vehicleValue = (description: string) =>
  numeric(
    z.number().min(0.01, VEHICLE_VALUE_RULE).max(1_000_000_000, VEHICLE_VALUE_RULE).describe(description),
  ).nullable();
export const tonnage = () =>
  numeric(
    z.number().min(0, 'tonnes, 0–200').max(200, 'tonnes, 0–200').describe('Tonnes, 0–200 (commercial)'),
  ).nullable();
export const pll = () =>
  numeric(
    whole(
      z
        .int()
        .min(0, 'number of passengers, 0–200')
        .max(200, 'number of passengers, 0–200')
        .describe('Passengers for passenger legal liability, 0–200'),
    ),
  ).nullable();
const coverage = () =>
  str(
    'Private (default), a commercial class (own goods, general cartage…) or a PSV class (matatu, taxi…); a tuktuk or motorcycle takes any',
  ).nullable();
const days = () =>
  numeric(whole(z.int().describe('Time on risk: required for tor, 1–364 (ignored for annual cover)'))).nullable();
/** A start date as normaliseRisk reads it (the one date rule, isYmd), in its words. */
const startDate = (description: string) => ymdText(description).nullable();

/** One insurer id or a list of them (read as a list; '' or null as none), each a whole number or its text. */
export const insurerIdList = (description: string) => {
  const list = z.array(numeric(whole(z.int())));
  return documentAs(
    z.preprocess((v) => (v == null || v === '' ? undefined : Array.isArray(v) ? v : [v]), list.optional()),
    () => ({
      anyOf: [jsonSchemaOf(numeric(whole(z.int()))), jsonSchemaOf(list), { type: 'null' }, { const: '' }],
      description: `${description}; one id or a list; absent, null, '' or an empty list: every insurer on the panel`,
    }),
  );
};

const isPlainObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
/**
 * A list the server also takes as one item (GraphQL reads a lone value where a list belongs as a list of it): `one`
 * says which lone values are read so.
 */
export const listOrOne = <S extends z.ZodType>(
  item: S,
  one: (v: unknown) => boolean = isPlainObject,
  list: z.ZodType = z.array(item),
) =>
  documentAs(
    z.preprocess((v) => (one(v) ? [v] : v), list as z.ZodArray<S>),
    () => ({
      anyOf: [jsonSchemaOf(item), jsonSchemaOf(list)],
    }),
  );

/** The figures shown to the client (`quotes[]` of a save quote), each within KES 1 of the server's price. */
export const quotesShown = listOrOne(
  obj(
    {
      insurer_id: numeric(whole(z.int())),
      rate: numeric(z.number()).nullable(),
      basic: numeric(z.number().describe('Whole shillings; within KES 1 of the server price')).nullable(),
      taxes: numeric(z.number().describe('Whole shillings; within KES 1 of the server price')).nullable(),
      total: numeric(z.number().describe('Whole shillings; within KES 1 of the server price')).nullable(),
      benefits: z.unknown().describe('The benefits shown (names); not checked'),
    },
    ['insurer_id'],
  ),
);

/** A save quote's vehicle: the risk as a quote reads it (normaliseRisk, field errors under `vehicle.`). */
/** The risk as normaliseRisk reads it: a quote's body, and a saved quote's vehicle. */
const riskFields = () => ({
  coverage: coverage(),
  scope: motorScope(),
  cover_period: coverPeriod(),
  days: days(),
  year: yearOfManufacture(),
  value: vehicleValue(
    'Shillings, to the cent, from 0.01 to 1,000,000,000; required for comprehensive (and TPFT) cover',
  ),
  tonnage: tonnage(),
  pll: pll(),
});
const savedVehicle = obj(
  {
    reg_no: str('Registration; `regno` also accepted').nullable(),
    regno: str('Alias of reg_no').nullable(),
    make: str().nullable(),
    model: str().nullable(),
    class: motorClass('Motor (default), Tuktuk or Motorcycle (any case; also car, motor vehicle, motorbike, boda boda)')
      .nullable()
      .default('Motor'),
    ...riskFields(),
    start_date: startDate('A past date starts today'),
  },
  ['scope', 'year'],
);

export const PAYMENT_MODE = new RegExp(`^(?:${caseless('full|ipf')})$`);
/** A figure a bind agrees to: shillings (cents allowed), from 0 to the Money bound (docs/api-conventions.md). */
const agreed = (description: string) => z.number().min(0).max(MAX_SHILLINGS).describe(description);
/** The figures a bind agrees to (every line): checked against the server price when sent. */
export const bindFigures = (paymentMode: string) => ({
  total_basic: numeric(agreed('Whole shillings; checked when sent')).nullable(),
  taxes: numeric(agreed('Whole shillings; checked when sent')).nullable(),
  premium: numeric(agreed('Gross premium, whole shillings; within KES 1 of the server price')),
  premium_instalments: numeric(
    whole(z.int().min(1, '1–4').max(4, '1–4').describe('1 (default) to 4; premium finance is one instalment')),
  ).nullable(),
  payment_mode: z.string().regex(PAYMENT_MODE, 'full or ipf').describe(paymentMode).nullable(),
});
const BIND_VEHICLE = 'exactly one vehicle per save; add more by endorsement (add_vehicle)';
/** A bind's vehicle: its year, value, tonnage and passengers are the risk (normaliseRisk), as a quote reads them. */
const boundVehicle = obj(
  {
    regno: str('Registration (or reg_no); required').nullable(),
    reg_no: str('Alias of regno').nullable(),
    chassis_no: str('Needed for the registry certificate').nullable(),
    make: str().nullable(),
    model: str().nullable(),
    yom: yearOfManufacture(),
    value: vehicleValue(
      'Shillings, to the cent, from 0.01 to 1,000,000,000; required for comprehensive (and TPFT) cover',
    ),
    coverage: coverage(),
    engine_no: str().nullable(),
    body_type: str().nullable(),
    tonnage: tonnage(),
    pll: pll(),
    basic_premium: numeric(z.number()).nullable(),
    rate: numeric(z.number()).nullable(),
    benefits: z.unknown().describe('The benefits shown (names); not checked'),
  },
  ['yom'],
).refine((v) => v.regno != null || v.reg_no != null, { message: 'required', path: ['regno'] });

export const BindRequest = obj(
  {
    client: ref('InsuredClient'),
    policy: obj(
      {
        start_date: ymdText('A past date starts today; at most 90 days ahead'),
        end_date: str(
          'Y-m-d; read only for tor cover without days, where it sets the days (otherwise ignored)',
        ).nullable(),
        insurer_id: numeric(whole(z.int())),
        class: motorClass(),
        coverage: coverage(),
        scope: motorScope(),
        cover_period: coverPeriod(),
        days: days(),
        ...bindFigures('full (default) or ipf, any case; service-only; ipf is always one instalment'),
        limits_of_liability: z.unknown().describe('As the quote option gave them; not checked'),
        product_version: numeric(
          whole(
            z
              .int()
              .describe(
                'Service-only: rating version priced on (from the quote option); a newer one answers price_changed',
              ),
          ),
        ).nullable(),
      },
      ['start_date', 'insurer_id', 'class', 'scope', 'premium'],
    ),
    taxes: z.unknown().describe('Accepted for compatibility and ignored: the server computes the levies'),
    vehicles: listOrOne(boundVehicle, undefined, z.array(boundVehicle).length(1, BIND_VEHICLE)).describe(
      'Exactly one vehicle (it may be sent alone, not in a list); add more by endorsement',
    ),
    prospect_uuid: str(
      'Service-only: the prospect this policy is for; it moves to won (docs/motor-and-clients.md "Prospects")',
    ).nullable(),
  },
  ['client', 'policy', 'vehicles'],
);

export const SaveQuoteRequest = obj(
  {
    client: ref('InsuredClient'),
    vehicle: savedVehicle,
    quotes: quotesShown,
    prospect_uuid: str(
      'Service-only: the prospect this quote is for; it moves to quoted (docs/motor-and-clients.md "Prospects")',
    ).nullable(),
  },
  ['client', 'vehicle'],
);

export const MotorQuoteRequest = obj(
  {
    class: motorClass(),
    ...riskFields(),
    insurer_id: insurerIdList(
      'Limit to these insurers (GET /insurers; an id the organisation does not have is 422 validation_failed on insurer_id)',
    ),
    start_date: startDate('Service-only; a past date starts today'),
  },
  ['class', 'scope', 'year'],
);

/** A whole number as the mappers read it (num0: also its text), a non-number refused as GraphQL's Int refuses it. */
const wholeIn = (description?: string) =>
  numeric(whole(description ? z.int().describe(description) : z.int())).nullable();

/**
 * The insured as the server reads it (src/modules/clients/client-matching.ts resolveInsured): only the kinds of the
 * values are checked here; what a new client needs (name, phone, identifiers) is the client service's rule, and a
 * linked `client_no` needs nothing else.
 */
export const InsuredClient = obj(
  {
    name: str('Required for a new client').nullable(),
    phone: str('Kenyan mobile, any format; required for a new client').nullable(),
    email: str().nullable(),
    idno: str('National ID or passport; `id_no` also accepted').nullable(),
    id_no: str('Alias of idno').nullable(),
    pin: str('Tax PIN; `kra_pin` also accepted').nullable(),
    kra_pin: str('Alias of pin').nullable(),
    risk_manager_id: wholeIn('An id from GET /risk-managers (an active account executive)'),
    branch_id: wholeIn(),
    sales_person_id: wholeIn(
      'An id from GET /sales-people (an active agent); `agentcode` (an agent code) accepted instead',
    ),
    agentcode: str().nullable(),
    client_no: str('Service-only: link an existing client the caller can see (nothing else is then needed)').nullable(),
    force: z.boolean().describe('Service-only: add a new client despite duplicate_client matches').nullable(),
    type: str('individual (default) or corporate').nullable(),
  },
  [],
);
const clientObject = InsuredClient;
const moneyTriple = obj({ ...money('basic_premium'), ...money('taxes'), ...money('total') });

export const motorSchemas: Record<string, Schema> = {
  MotorQuoteRequest,
  MotorRisk: obj({
    class: str(),
    coverage: str(),
    scope: str(),
    vehicle_class: oneOf(['private', 'commercial', 'psv', 'motorcycle']),
    cover_type: oneOf(['comprehensive', 'tpo', 'tpft']),
    cover_period: str(),
    days: int(),
    start_date: { type: 'string', format: 'date' },
    end_date: { type: 'string', format: 'date' },
    year: int(),
    tonnage: nullable(num()),
    pll: int(),
    ...money('value', true),
  }),
  MotorOption: obj({
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
    instalments: arr(obj({ parts: int(), amounts: arr(int()), amounts_minor: arr(int()) })),
    ipf_offers: arr(
      obj({ tenor_months: int(), ...money('deposit'), ...money('instalment'), apr_bps: int(), lender_name: str() }),
    ),
    ipf_reason: nullable(str('Why premium finance is not offered')),
    product_version: int('Rating version (service-only)'),
  }),

  InsuredClient: clientObject,
  SaveQuoteRequest,
  SavedQuote: obj({
    message: str(),
    id: int(),
    uuid: str(),
    quote_no: str(),
    client_no: str(),
    valid_until: { type: 'string', format: 'date', description: '14 days after saving' },
    data: obj({
      uuid: str(),
      product_line: str(),
      status: oneOf(['presented']),
      options: arr(
        obj({ option_id: int(), insurer_id: int(), insurer_name: str(), rate: nullable(num()), ...money('total') }),
      ),
    }),
  }),
  BindRequest,
  SavedPolicy: obj(
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
      start_date: { type: 'string', format: 'date' },
      end_date: { type: 'string', format: 'date' },
      payment_mode: oneOf(['full', 'ipf']),
      instalments: int(),
      premium: moneyTriple,
      debit_note: obj({
        number: str(),
        due_on: { type: 'string', format: 'date' },
        ...money('amount'),
        instalments: arr(
          obj({
            number: str('DN-<policy>-<n>/<total>'),
            instalment_no: int(),
            due_on: { type: 'string', format: 'date' },
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
  ),
  PremiumMismatchProblem: allOf(
    json({ $ref: '#/components/schemas/Problem' }),
    obj({ server: arr(obj({ insurer_id: int(), ...money('basic_premium'), ...money('taxes'), ...money('total') })) }),
  ),
};

export const motorQuoteResponse = obj({ message: str(), quote: ref('MotorRisk'), options: arr(ref('MotorOption')) });
