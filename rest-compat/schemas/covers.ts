import { z } from 'zod';
import {
  arr,
  bool,
  date,
  dateInput,
  describe,
  int,
  money,
  nullable,
  num,
  obj,
  oneOf,
  str,
  type Schema,
} from './builders.ts';
import { InsuredClient, insurerIdFilter, numeric, orNull, quotedFigures, vocabulary } from './motor.ts';

const insurerIds = insurerIdFilter(
  'Limit to these insurers (GET /insurers; an id the organisation does not have is 422 validation_failed on insurer_ids); default every insurer on the panel',
);
const insurerIdAlias = insurerIdFilter('Alias of insurer_ids (the motor spelling); both sent add up');
const text = (description?: string) => orNull(str(description));
const lower = (values: readonly string[]) => (v: string) => (values.includes(v.trim().toLowerCase()) ? v : null);
const startDate = () => orNull(dateInput('a past date starts today'));

const RIDERS = ['outpatient', 'maternity', 'dental', 'optical'] as const;
const RELATIONSHIPS = ['principal', 'spouse', 'child', 'employee'] as const;
const medicalRequest = obj(
  {
    cover_type: orNull(
      vocabulary(
        ['family', 'group'],
        lower(['family', 'group']),
        'family or group',
        'family (default) or group; any case',
      ),
    ),
    inpatient_limit: numeric(num(), "Whole shillings: one of the inpatient limit bands (the insurers' terms)"),
    riders: orNull(
      arr(
        obj({
          code: vocabulary(RIDERS, lower(RIDERS), `one of ${RIDERS.join(', ')}`, 'Any case; each rider at most once'),
          limit: numeric(num(), "Whole shillings: one of the rider's limit bands"),
        }),
      ),
    ),
    members: arr(
      obj(
        {
          name: text('Required to bind'),
          relationship: vocabulary(
            RELATIONSHIPS,
            lower(RELATIONSHIPS),
            `one of ${RELATIONSHIPS.join(', ')}`,
            'Any case. Family: one principal, at most one spouse, children; group: employees with their dependants (spouse, child)',
          ),
          date_of_birth: orNull(dateInput('Y-m-d; or age')),
          age: orNull(
            numeric(
              int().min(0, 'whole years, 0–120').max(120, 'whole years, 0–120'),
              'Whole years, 0–120, when no date of birth is given (one of the two is required)',
            ),
          ),
          in_school: orNull(bool('A child in full-time education (covered to a higher age)')),
          id_no: text('National ID, passport or birth certificate number; `idno` also accepted'),
          idno: text('Alias of id_no'),
        },
        ['relationship'],
      ),
    ).max(500),
    start_date: startDate(),
    insurer_ids: insurerIds,
    insurer_id: insurerIdAlias,
  },
  ['inpatient_limit', 'members'],
);

const AGE = 'whole years, 0–120';
const tripRequest = obj(
  {
    plan: str("A plan code of the insurers' travel products (e.g. BASIC, STANDARD, PREMIER); any case"),
    region: str('africa, schengen (Europe, Europe/Schengen accepted) or worldwide; any case'),
    destination: text('Countries visited'),
    departure_date: dateInput('First day of cover: today or later, at most a year ahead'),
    return_date: dateInput('Last day of cover: on or after departure_date, a trip of at most 365 days'),
    travellers: arr(
      obj(
        {
          name: text('The name as on the passport: required to bind'),
          date_of_birth: orNull(dateInput('Y-m-d; or age (one of the two is required)')),
          age: orNull(
            numeric(
              int()
                .min(0, AGE)
                .max(120, AGE)
                .refine((a) => a !== 0, 'under one year: send date_of_birth (infants are rated by months)'),
              'Whole years, 1–120, when no date of birth is given (an infant: send date_of_birth)',
            ),
          ),
          passport_no: text('4–20 letters and digits'),
        },
        [],
        'date_of_birth or age; a name to bind',
      ),
    )
      .min(1, 'at least one traveller')
      .max(50, 'at most 50 travellers a policy'),
    insurer_ids: insurerIds,
    insurer_id: insurerIdAlias,
  },
  ['plan', 'region', 'departure_date', 'return_date', 'travellers'],
);

const SUM_INSURED = 'a positive amount in whole shillings, at most 10,000,000,000';
const standardRequest = obj(
  {
    product: str('A standard product code (GET /products standard_products[].code): PA, DOMESTIC, WIBA, FIRE, GOLFER'),
    items: orNull(
      arr(
        obj(
          {
            description: text('What is insured, or the insured person (`name` also accepted); required to bind'),
            name: text('Alias of description'),
            sum_insured: orNull(
              numeric(
                int().min(1, SUM_INSURED).max(10_000_000_000, SUM_INSURED),
                'Whole shillings, up to 10,000,000,000; required for products rated on the sum insured',
              ),
            ),
            id_no: text('Insured persons: national ID or passport; `idno` also accepted'),
            idno: text('Alias of id_no'),
          },
          [],
        ),
      ).max(500, 'at most 500 items a policy'),
    ),
    headcount: orNull(
      numeric(
        int(),
        'Headcount-driven products (WIBA): people covered (1–100,000) when not listed as items; with items, their number',
      ),
    ),
    extensions: orNull(arr(str('An optional extension by code (the option terms list them)')).max(20)),
    start_date: startDate(),
    insurer_ids: insurerIds,
    insurer_id: insurerIdAlias,
  },
  ['product'],
);

const bindPolicy = obj(
  {
    start_date: orNull(dateInput('Required except for a trip, which starts on its departure date')),
    insurer_id: numeric(int()),
    total_basic: orNull(numeric(num(), 'Whole shillings; checked when sent')),
    taxes: orNull(numeric(num(), 'Whole shillings; checked when sent')),
    premium: numeric(num(), 'Gross premium, whole shillings; within KES 1 of the server price'),
    premium_instalments: orNull(
      numeric(int().min(1, '1–4').max(4, '1–4'), '1 (default) to 4, where the insurer allows'),
    ),
    payment_mode: orNull(
      vocabulary(
        ['full', 'ipf'],
        (v) => (['full', 'ipf'].includes(v.toLowerCase()) ? v : null),
        'full or ipf',
        'full (default) or ipf; any case',
      ),
    ),
    product_version: orNull(
      numeric(int(), "Rating version priced on (an option's product_version); a newer one answers price_changed"),
    ),
  },
  ['insurer_id', 'premium'],
);

const saveQuote = <K extends string, R extends z.ZodType>(key: K, risk: R) =>
  obj(
    { client: InsuredClient, [key]: risk, quotes: orNull(quotedFigures), prospect_uuid: text() } as {
      client: typeof InsuredClient;
      quotes: z.ZodNullable<typeof quotedFigures>;
      prospect_uuid: ReturnType<typeof text>;
    } & Record<K, R>,
    ['client', key],
  );
const bind = <K extends string, R extends z.ZodType>(key: K, risk: R) =>
  obj(
    { client: InsuredClient, policy: bindPolicy, [key]: risk, prospect_uuid: text() } as {
      client: typeof InsuredClient;
      policy: typeof bindPolicy;
      prospect_uuid: ReturnType<typeof text>;
    } & Record<K, R>,
    ['client', 'policy', key],
  );

export const CoverOption = obj({
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
  terms: z
    .record(z.string(), z.unknown())
    .describe(
      'Line terms: waiting periods (medical), plan and medical limit (travel), sum insured and extensions (standard)',
    ),
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
export const CoverDetails = obj(
  {
    cover_type: str('Medical: family or group'),
    inpatient_limit: int('Medical: whole shillings'),
    inpatient_limit_minor: int(),
    riders: listOf(obj({ code: str(), limit: int(), limit_minor: int() }), 'Medical'),
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
    terms: z.record(z.string(), z.unknown()).describe("The policy's cover as bound: the option's terms"),
  },
  [],
  'The cover as understood, per line (the fields of the other lines absent), every key snake_case at any depth',
);

export const CoverQuoteResponse = obj({
  message: str(),
  quote: obj({
    product_line: oneOf(['medical', 'travel', 'standard']),
    product: str(),
    cover_period: oneOf(['annual', 'trip']),
    start_date: date(),
    end_date: date(),
    days: int(),
    cover: CoverDetails,
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
  options: arr(CoverOption),
});

/** Each line's request bodies: the quote's, the save quote's and the save's (bind). */
export const MedicalBodies = {
  quote: medicalRequest,
  save: saveQuote('medical', medicalRequest),
  bind: bind('medical', medicalRequest),
};
export const TravelBodies = {
  quote: tripRequest,
  save: saveQuote('trip', tripRequest),
  bind: bind('trip', tripRequest),
};
export const StandardBodies = {
  quote: standardRequest,
  save: saveQuote('cover', standardRequest),
  bind: bind('cover', standardRequest),
};

export const coverSchemas: Record<string, Schema> = {
  CoverDetails,
  MedicalQuoteRequest: MedicalBodies.quote,
  TravelQuoteRequest: TravelBodies.quote,
  StandardQuoteRequest: StandardBodies.quote,
  CoverQuoteResponse,
  SaveMedicalQuoteRequest: MedicalBodies.save,
  SaveTravelQuoteRequest: TravelBodies.save,
  SaveStandardQuoteRequest: StandardBodies.save,
  BindMedicalRequest: MedicalBodies.bind,
  BindTravelRequest: TravelBodies.bind,
  BindStandardRequest: StandardBodies.bind,
};
