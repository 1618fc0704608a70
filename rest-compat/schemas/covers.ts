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
  spelled,
  numeric,
  ymdText,
} from './builders.ts';
import { z } from 'zod';
import { isYmd, YMD_MESSAGE } from '../../src/lib/dates.ts';
import { RELATIONSHIPS, REGIONS, RIDER_CODES, STANDARD_LIMITS } from '../../src/modules/covers/vocabulary.ts';
import { documentAs, jsonSchemaOf } from './json-schema.ts';
import { bindFigures, insurerIdList, quotesShown } from './motor.ts';
import { whole } from './inputs.ts';

/** A date as the lines read it (the one date rule, isYmd; YMD_MESSAGE), documented as a date. */
const ymdIn = (description: string) =>
  z
    .string()
    .refine(isYmd, { message: YMD_MESSAGE, params: { code: 'invalid_value' } })
    .meta({ format: 'date' })
    .describe(`${description} (${YMD_MESSAGE})`);
/** Optional text of at most `max` characters once trimmed; null or absent is none. */
const textUpTo = (max: number, message: string, description?: string) => {
  const s = z.string().refine((v) => v.trim().length <= max, message);
  return (description ? s.describe(description) : s).nullable();
};
const isPlainObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
/**
 * A list the server also takes as one item (GraphQL reads a lone value where a list belongs as a list of it): `one`
 * says which lone values are read so.
 */
const listOrOne = <S extends z.ZodType>(item: S, one: (v: unknown) => boolean, list = z.array(item)) =>
  documentAs(
    z.preprocess((v) => (one(v) ? [v] : v), list),
    () => ({
      anyOf: [jsonSchemaOf(item), jsonSchemaOf(list)],
    }),
  );
const filterDescription =
  'Limit to these insurers (GET /insurers; an id the organisation does not have is 422 validation_failed on insurer_ids); default every insurer on the panel. Ids are positive; the list is bounded';
/** The filter as the lines read it: `insurer_ids`, and motor's spelling `insurer_id` as its alias (both add up). */
const insurerFilter = {
  insurer_ids: insurerIdList(filterDescription),
  insurer_id: insurerIdList('Alias of insurer_ids (the motor spelling); both sent add up'),
};

const REGION_WORDS = [...REGIONS.keys()].map((w) => [...w].map((c) => c.replace(/[/]/, '\\/')).join('\\s*'));
const AGE_MESSAGE = 'whole years, 0–120';
const traveller = obj(
  {
    name: textUpTo(200, 'at most 200 characters', 'Required to bind: the name as on the passport'),
    date_of_birth: ymdIn('Not in the future; an age at departure of at most 120 years; or send age').nullable(),
    age: numeric(
      whole(
        z
          .int()
          .min(0, AGE_MESSAGE)
          .max(120, AGE_MESSAGE)
          .describe('Whole years, 1–120, when no date_of_birth is given (under one year: send date_of_birth)'),
      ),
    ).nullable(),
    passport_no: textUpTo(
      200,
      'at most 200 characters',
      'A passport number: 4–20 letters and digits (spaces ignored, any case)',
    ),
  },
  [],
  'A traveller: date_of_birth or age (one is required); the name only to bind',
).refine((t) => t.date_of_birth != null || t.age != null, {
  message: 'date_of_birth or age is required',
  path: ['date_of_birth'],
});

export const TravelQuoteRequest = obj(
  {
    plan: str(
      "A plan code of the insurers' travel products (e.g. BASIC, STANDARD, PREMIER): letters, digits, - or _, at most 40, any case",
    ),
    region: spelled(
      REGION_WORDS,
      'africa, schengen (Europe) or worldwide',
      'africa, schengen (Europe, Europe/Schengen accepted) or worldwide; any case, spaces ignored',
    ),
    destination: textUpTo(200, 'at most 200 characters', 'Countries visited'),
    departure_date: ymdIn('First day of cover: today or later, at most 365 days ahead'),
    return_date: ymdIn('Last day of cover: on or after departure_date, a trip of at most 365 days'),
    travellers: describe(
      listOrOne(
        traveller,
        isPlainObject,
        z.array(traveller).min(1, 'at least one traveller').max(50, 'at most 50 travellers a policy'),
      ),
      'One to 50 travellers (one may be sent alone, not in a list)',
    ),
    ...insurerFilter,
  },
  ['plan', 'region', 'departure_date', 'return_date', 'travellers'],
);

const L = STANDARD_LIMITS;
const SUM_INSURED = `a positive amount in whole shillings, at most ${L.sumInsured.toLocaleString('en')}`;
const HEADCOUNT = `persons covered, a whole number 1–${L.headcount.toLocaleString('en')}`;
const EXTENSION = "an extension code, as the product's terms list it";
const standardItem = obj(
  {
    description: textUpTo(
      L.text,
      `text, at most ${L.text} characters`,
      'What is insured, or the insured person; required to bind',
    ),
    name: textUpTo(L.text, `text, at most ${L.text} characters`, 'Alias of description (read when it is absent)'),
    sum_insured: numeric(
      z
        .number()
        .min(1, SUM_INSURED)
        .max(L.sumInsured, SUM_INSURED)
        .refine(Number.isInteger, SUM_INSURED)
        .describe('Whole shillings; products rated on the sum insured need it (their terms say so)'),
    ).nullable(),
    id_no: textUpTo(
      L.idNo,
      `at most ${L.idNo} characters`,
      'Insured persons: national ID or passport; `idno` also accepted',
    ),
    idno: textUpTo(L.idNo, `at most ${L.idNo} characters`, 'Alias of id_no'),
  },
  [],
);

export const StandardQuoteRequest = obj(
  {
    product: str(
      'A standard product code (GET /products standard_products[].code): PA, DOMESTIC, WIBA, FIRE, GOLFER; any case',
    ),
    items: describe(
      listOrOne(standardItem, isPlainObject, z.array(standardItem).max(L.items, `at most ${L.items} items a policy`)),
      `The insured items or persons, at most ${L.items}; at least one, or send headcount`,
    ).nullable(),
    headcount: numeric(
      whole(
        z
          .int()
          .min(1, HEADCOUNT)
          .max(L.headcount, HEADCOUNT)
          .describe(
            'Headcount-driven products (WIBA): people covered when not listed as items; with items, their number',
          ),
      ),
    ).nullable(),
    extensions: describe(
      listOrOne(
        z.string().regex(new RegExp(`^\\s*[a-zA-Z0-9_]{1,${L.code}}\\s*$`), EXTENSION),
        (v) => typeof v === 'string',
        z
          .array(z.string().regex(new RegExp(`^\\s*[a-zA-Z0-9_]{1,${L.code}}\\s*$`), EXTENSION))
          .max(L.extensions, `a list of at most ${L.extensions} extension codes`),
      ),
      `Optional extensions by code (the option terms list them), at most ${L.extensions}`,
    ).nullable(),
    start_date: ymdIn('A past date starts today').nullable(),
    ...insurerFilter,
  },
  ['product'],
);

const LIMIT = `a limit in whole shillings, 1–${(1_000_000_000).toLocaleString('en-KE')}`;
const limitIn = (description: string) =>
  numeric(z.number().gt(0, LIMIT).max(1_000_000_000, LIMIT).refine(Number.isInteger, LIMIT).describe(description));
const RELATIONSHIP_WORDS = [...new Set([...RELATIONSHIPS.family, ...RELATIONSHIPS.group])];
const medicalMember = obj(
  {
    name: textUpTo(200, 'at most 200 characters', 'Required to bind'),
    relationship: spelled(
      RELATIONSHIP_WORDS,
      `one of ${RELATIONSHIP_WORDS.join(', ')}`,
      'Family: one principal, at most one spouse, children; group: employees with their dependants (any case)',
    ),
    date_of_birth: ymdIn('On or before the start of cover, an age of at most 120 then; or send age').nullable(),
    age: numeric(
      whole(
        z
          .int()
          .min(0, AGE_MESSAGE)
          .max(120, AGE_MESSAGE)
          .describe('Whole years, 0–120, when no date of birth is given'),
      ),
    ).nullable(),
    in_school: z.boolean().describe('A child in full-time education (covered to a higher age)').nullable(),
    id_no: textUpTo(
      50,
      'at most 50 characters',
      'National ID, passport or birth certificate number; `idno` also accepted',
    ),
    idno: textUpTo(50, 'at most 50 characters', 'Alias of id_no'),
  },
  ['relationship'],
  'A member: relationship, and date_of_birth or age (one is required); the name only to bind',
).refine((m) => m.date_of_birth != null || m.age != null, {
  message: 'required: a date of birth or an age',
  path: ['date_of_birth'],
});
const RIDERS = `a list of riders, each of ${RIDER_CODES.join(', ')} at most once`;
const rider = obj({
  code: spelled(RIDER_CODES, `one of ${RIDER_CODES.join(', ')}`, 'A rider by code (any case), each at most once'),
  limit: limitIn("Whole shillings: one of the rider's limit bands"),
});

export const MedicalQuoteRequest = obj(
  {
    cover_type: spelled(['family', 'group'], 'family or group', 'family (default) or group, any case').nullable(),
    inpatient_limit: limitIn("Whole shillings: one of the inpatient limit bands (the insurers' terms)"),
    riders: describe(
      listOrOne(rider, isPlainObject, z.array(rider).max(RIDER_CODES.length, RIDERS)),
      'Optional riders (one may be sent alone, not in a list)',
    ).nullable(),
    members: describe(
      listOrOne(
        medicalMember,
        isPlainObject,
        z.array(medicalMember).min(1, 'a list of 1–500 members').max(500, 'at most 500 members'),
      ),
      'One to 500 members (one may be sent alone, not in a list)',
    ),
    start_date: ymdIn('A past date starts today').nullable(),
    ...insurerFilter,
  },
  ['inpatient_limit', 'members'],
);

/**
 * A bind's policy for these lines (src/modules/policies/bind/cover-bind.ts): the insurer and the premium agreed, the
 * payment plan as paymentPlan reads it; the start date required except for a trip (which starts on its departure).
 */
export const bindPolicy = (startRequired: boolean) =>
  obj(
    {
      start_date: ymdText(
        startRequired
          ? 'A past date starts today; at most 90 days ahead'
          : 'Optional for a trip, which starts on its departure date (when sent, it must be that date)',
      ).nullable(),
      insurer_id: numeric(whole(z.int())),
      ...bindFigures('full (default) or ipf, any case'),
      product_version: numeric(
        whole(
          z.int().describe("Rating version priced on (an option's product_version); a newer one answers price_changed"),
        ),
      ).nullable(),
    },
    startRequired ? ['start_date', 'insurer_id', 'premium'] : ['insurer_id', 'premium'],
  );

const prospect = () => str('Service-only: the prospect this is for (docs/motor-and-clients.md "Prospects")').nullable();
const saveQuote = <K extends string, R extends z.ZodType>(key: K, risk: R) =>
  obj(
    { client: ref('InsuredClient'), [key]: risk, quotes: quotesShown, prospect_uuid: prospect() } as {
      client: z.ZodType;
      quotes: typeof quotesShown;
      prospect_uuid: ReturnType<typeof prospect>;
    } & Record<K, R>,
    ['client', key],
  );
const bind = <K extends string, R extends z.ZodType>(key: K, risk: R, startRequired = true) =>
  obj(
    { client: ref('InsuredClient'), policy: bindPolicy(startRequired), [key]: risk, prospect_uuid: prospect() } as {
      client: z.ZodType;
      policy: ReturnType<typeof bindPolicy>;
      prospect_uuid: ReturnType<typeof prospect>;
    } & Record<K, R>,
    ['client', 'policy', key],
  );

export const SaveMedicalQuoteRequest = saveQuote('medical', MedicalQuoteRequest);
export const SaveTravelQuoteRequest = saveQuote('trip', TravelQuoteRequest);
export const SaveStandardQuoteRequest = saveQuote('cover', StandardQuoteRequest);
export const BindMedicalRequest = bind('medical', MedicalQuoteRequest);
export const BindTravelRequest = bind('trip', TravelQuoteRequest, false);
export const BindStandardRequest = bind('cover', StandardQuoteRequest);

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
  MedicalQuoteRequest,
  TravelQuoteRequest,
  StandardQuoteRequest,
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
  SaveMedicalQuoteRequest,
  SaveTravelQuoteRequest,
  SaveStandardQuoteRequest,
  BindMedicalRequest,
  BindTravelRequest,
  BindStandardRequest,
};
