import {
  arr,
  bool,
  date,
  int,
  money,
  nullable,
  num,
  obj,
  ref,
  str,
  describe,
  type Schema,
  oneOf,
  anyOf,
} from './builders.ts';

const insurerIds = anyOf(
  [int(), arr(int())],
  'Limit to these insurers (GET /insurers; an id the organisation does not have is 422 validation_failed on insurer_ids); default every insurer on the panel',
);
const insurerIdAlias = anyOf([int(), arr(int())], 'Alias of insurer_ids (the motor spelling); both sent add up');

const medicalRequest = obj(
  {
    cover_type: oneOf(['family', 'group']).default('family'),
    inpatient_limit: int("Whole shillings: one of the inpatient limit bands (the insurers' terms)"),
    riders: arr(
      obj(
        {
          code: oneOf(['outpatient', 'maternity', 'dental', 'optical']),
          limit: int("Whole shillings: one of the rider's limit bands"),
        },
        ['code', 'limit'],
      ),
    ),
    members: arr(
      obj(
        {
          name: str('Required to bind'),
          relationship: oneOf(
            ['principal', 'spouse', 'child', 'employee'],
            'Family: one principal, at most one spouse, children; group: employees with their dependants',
          ),
          date_of_birth: describe(date(), 'Y-m-d; or age'),
          age: int('Whole years, when no date of birth is given'),
          in_school: bool('A child in full-time education (covered to a higher age)'),
          id_no: str('National ID, passport or birth certificate number; `idno` also accepted'),
        },
        ['relationship'],
      ),
    ),
    start_date: describe(date(), 'Y-m-d; a past date starts today'),
    insurer_ids: insurerIds,
    insurer_id: insurerIdAlias,
  },
  ['inpatient_limit', 'members'],
);

const tripRequest = obj(
  {
    plan: str("A plan code of the insurers' travel products (e.g. BASIC, STANDARD, PREMIER)"),
    region: str('africa, schengen (Europe, Europe/Schengen accepted) or worldwide'),
    destination: str('Countries visited'),
    departure_date: describe(date(), 'First day of cover: today or later'),
    return_date: describe(date(), 'Last day of cover'),
    travellers: arr(
      obj({
        name: str('Required to bind'),
        date_of_birth: describe(date(), 'Y-m-d; or age'),
        age: int('Whole years'),
        passport_no: str(),
      }),
    ),
    insurer_ids: insurerIds,
    insurer_id: insurerIdAlias,
  },
  ['plan', 'region', 'departure_date', 'return_date', 'travellers'],
);

const standardRequest = obj(
  {
    product: str('A standard product code (GET /products standard_products[].code): PA, DOMESTIC, WIBA, FIRE, GOLFER'),
    items: arr(
      obj({
        description: str('What is insured, or the insured person; required to bind'),
        sum_insured: int('Whole shillings; required for products rated on the sum insured'),
        id_no: str('Insured persons: national ID or passport'),
      }),
    ),
    headcount: int('Headcount-driven products (WIBA): people covered when not listed as items'),
    extensions: arr(str('An optional extension by code (the option terms list them)')),
    start_date: describe(date(), 'Y-m-d; a past date starts today'),
    insurer_ids: insurerIds,
    insurer_id: insurerIdAlias,
  },
  ['product'],
);

const quotesShown = arr(
  obj({ insurer_id: int(), rate: num(), basic: num(), taxes: num(), total: num('Whole shillings; within KES 1') }, [
    'insurer_id',
  ]),
);

const bindPolicy = obj(
  {
    start_date: describe(date(), 'Required except for a trip, which starts on its departure date'),
    insurer_id: int(),
    total_basic: num('Whole shillings; checked when sent'),
    taxes: num('Whole shillings; checked when sent'),
    premium: num('Gross premium, whole shillings; within KES 1 of the server price'),
    premium_instalments: { type: 'integer', minimum: 1, maximum: 4, default: 1 },
    payment_mode: oneOf(['full', 'ipf']).default('full'),
    product_version: int("Rating version priced on (an option's product_version); a newer one answers price_changed"),
  },
  ['insurer_id', 'premium'],
);

const saveQuote = (key: string, risk: Schema) =>
  obj({ client: ref('InsuredClient'), [key]: risk, quotes: quotesShown, prospect_uuid: str() }, ['client', key]);
const bind = (key: string, risk: Schema) =>
  obj({ client: ref('InsuredClient'), policy: bindPolicy, [key]: risk, prospect_uuid: str() }, [
    'client',
    'policy',
    key,
  ]);

const option = obj({
  insurer_id: int(),
  insurer_name: str(),
  monogram: str(),
  product_id: int('The cover product priced'),
  product_code: str(),
  product_name: str(),
  product_version: int('Rating version; send it back as policy.product_version'),
  rate: nullable(num('Percent, where the premium is a rate of a sum insured')),
  rate_bps: nullable(int()),
  ...money('basic_premium'),
  breakdown: arr(obj({ item: str(), ...money('amount') })),
  insured_premiums: nullable(arr(obj({ ...money('amount') }))),
  terms: {
    type: 'object',
    description:
      'Line terms: waiting periods (medical), plan and medical limit (travel), sum insured and extensions (standard)',
  },
  benefits: arr(obj({ name: str(), ...money('limit', true) })),
  excess: str(),
  taxes: arr(obj({ code: str(), name: str(), ...money('amount') })),
  ...money('taxes_total'),
  ...money('total'),
  commission_rate_bps: int(),
  instalments: arr(obj({ parts: int(), amounts: arr(int()), amounts_minor: arr(int()) })),
  ipf_offers: arr(
    obj({ tenor_months: int(), ...money('deposit'), ...money('instalment'), apr_bps: int(), lender_name: str() }),
  ),
  ipf_reason: nullable(str()),
});

const sumInsured = { ...money('sum_insured', true) };
const listOf = (items: Schema, description: string) => describe(arr(items), description);

/** The cover as understood (a quote's echo) or as bound (the policy's `cover`, with the option's `terms`): snake_case at any depth. */
const coverDetails = obj(
  {
    cover_type: str('Medical: family or group'),
    inpatient_limit: int('Medical: whole shillings'),
    inpatient_limit_minor: int(),
    riders: listOf(
      obj(
        {
          code: str(),
          limit: nullable(int('Whole shillings; absent when the rider states none')),
          limit_minor: nullable(int()),
        },
        ['code'],
      ),
      'Medical',
    ),
    plan: str('Travel'),
    region: str('Travel: africa, schengen or worldwide'),
    destination: nullable(str('Travel')),
    departure_date: describe(date(), 'Travel: first day of cover'),
    return_date: describe(date(), 'Travel: last day of cover'),
    travellers: listOf(
      obj({
        name: nullable(str()),
        date_of_birth: nullable(date()),
        age: nullable(int()),
        passport_no: nullable(str()),
      }),
      'Travel',
    ),
    product: str('Standard: the product code'),
    cover_period: str('Standard: annual'),
    start_date: date(),
    end_date: date(),
    days: int(),
    items: listOf(obj({ description: nullable(str()), ...sumInsured, id_no: nullable(str()) }), 'Standard'),
    headcount: nullable(int('Medical: members; standard: people covered')),
    total_sum_insured_minor: int('Standard: cents'),
    extensions: listOf(str(), 'Standard: extension codes'),
    terms: { type: 'object', description: "The policy's cover as bound: the option's terms" },
  },
  [],
  'The cover as understood, per line (the fields of the other lines absent), every key snake_case at any depth',
);

export const coverSchemas: Record<string, Schema> = {
  CoverDetails: coverDetails,
  MedicalQuoteRequest: medicalRequest,
  TravelQuoteRequest: tripRequest,
  StandardQuoteRequest: standardRequest,
  CoverQuoteResponse: obj({
    message: str(),
    quote: obj({
      product_line: oneOf(['medical', 'travel', 'standard']),
      product: str(),
      cover_period: oneOf(['annual', 'trip']),
      start_date: date(),
      end_date: date(),
      days: int(),
      cover: ref('CoverDetails'),
      insured: arr(
        obj({
          kind: oneOf(['member', 'traveller', 'item']),
          name: str(),
          relationship: nullable(str()),
          date_of_birth: nullable(date()),
          age: nullable(int()),
          in_school: nullable(bool()),
          id_no: nullable(str()),
          ...money('sum_insured', true),
        }),
      ),
    }),
    options: arr(option),
  }),
  SaveMedicalQuoteRequest: saveQuote('medical', medicalRequest),
  SaveTravelQuoteRequest: saveQuote('trip', tripRequest),
  SaveStandardQuoteRequest: saveQuote('cover', standardRequest),
  BindMedicalRequest: bind('medical', medicalRequest),
  BindTravelRequest: bind('trip', tripRequest),
  BindStandardRequest: bind('cover', standardRequest),
};
