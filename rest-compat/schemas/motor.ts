import type { SchemaObject } from 'openapi3-ts/oas31';
import { arr, int, money, nullable, num, obj, ref, str } from './builders.ts';

const clientObject = obj(
  {
    name: str(),
    phone: str('Kenyan mobile, any format'),
    email: str(),
    idno: str('National ID or passport; `id_no` also accepted'),
    pin: str('Tax PIN; `kra_pin` also accepted'),
    risk_manager_id: int(),
    branch_id: int(),
    sales_person_id: int('`agentcode` (an agent code) accepted instead'),
    agentcode: str(),
    client_no: str('Service-only: link an existing client the caller can see'),
    force: { type: 'boolean', description: 'Service-only: add a new client despite duplicate_client matches' },
    type: { type: 'string', enum: ['individual', 'corporate'] },
  },
  ['name', 'phone'],
);
const moneyTriple = obj({ ...money('basic_premium'), ...money('taxes'), ...money('total') });

export const motorSchemas: Record<string, SchemaObject> = {
  MotorQuoteRequest: obj(
    {
      class: str('Motor, Tuktuk or Motorcycle (case-insensitive)'),
      coverage: str(
        'Private (default), a commercial class (own goods, general cartage…) or a PSV class (matatu, taxi…)',
      ),
      scope: str('Comprehensive or TPO; "third party only" accepted'),
      cover_period: { type: 'string', enum: ['annual', 'tor'], default: 'annual' },
      days: { type: 'integer', minimum: 1, maximum: 364, description: 'Required for tor' },
      year: int('Year of manufacture'),
      value: int('Whole shillings; required for comprehensive'),
      tonnage: num('Tonnes (commercial)'),
      pll: int('Passengers for passenger legal liability'),
      insurer_id: {
        oneOf: [int(), arr(int())],
        description:
          'Limit to these insurers (GET /insurers; an id the organisation does not have is 422 validation_failed on insurer_id)',
      },
      start_date: { type: 'string', format: 'date', description: 'Service-only; a past date starts today' },
    },
    ['class', 'scope', 'year'],
  ),
  MotorRisk: obj({
    class: str(),
    coverage: str(),
    scope: str(),
    vehicle_class: { type: 'string', enum: ['private', 'commercial', 'psv', 'motorcycle'] },
    cover_type: { type: 'string', enum: ['comprehensive', 'tpo', 'tpft'] },
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
  SaveQuoteRequest: obj(
    {
      client: { $ref: '#/components/schemas/InsuredClient' },
      vehicle: obj(
        {
          value: int(),
          year: int(),
          reg_no: str(),
          coverage: str(),
          scope: str(),
          make: str(),
          model: str(),
          class: { type: 'string', enum: ['Motor', 'Tuktuk', 'Motorcycle'], default: 'Motor' },
        },
        ['year', 'scope'],
      ),
      quotes: arr(
        obj(
          {
            insurer_id: int(),
            rate: num(),
            basic: num(),
            taxes: num(),
            total: num('Whole shillings; within KES 1 of the server price'),
            benefits: arr(str()),
          },
          ['insurer_id'],
        ),
      ),
      prospect_uuid: str(
        'Service-only: the prospect this quote is for; it moves to quoted (docs/motor-and-clients.md "Prospects")',
      ),
    },
    ['client', 'vehicle'],
  ),
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
      status: { type: 'string', enum: ['presented'] },
      options: arr(
        obj({ option_id: int(), insurer_id: int(), insurer_name: str(), rate: nullable(num()), ...money('total') }),
      ),
    }),
  }),
  BindRequest: obj(
    {
      client: { $ref: '#/components/schemas/InsuredClient' },
      policy: obj(
        {
          start_date: {
            type: 'string',
            format: 'date',
            description: 'A past date starts today; at most 90 days ahead',
          },
          end_date: {
            type: 'string',
            format: 'date',
            description: 'Ignored for annual cover; for tor without days it sets the days',
          },
          insurer_id: int(),
          class: { type: 'string', enum: ['Motor', 'Tuktuk', 'Motorcycle'] },
          coverage: str(),
          scope: { type: 'string', enum: ['Comprehensive', 'TPO'] },
          cover_period: { type: 'string', enum: ['annual', 'tor'] },
          days: int(),
          total_basic: num('Whole shillings; checked when sent'),
          taxes: num('Whole shillings; checked when sent'),
          premium: num('Gross premium, whole shillings; within KES 1 of the server price'),
          premium_instalments: { type: 'integer', minimum: 1, maximum: 4, default: 1 },
          payment_mode: {
            type: 'string',
            enum: ['full', 'ipf'],
            description: 'Service-only; ipf is always one instalment',
          },
          limits_of_liability: arr(obj({ benefit_id: str(), item: str(), limit: nullable(int()) }, [])),
          product_version: int(
            'Service-only: rating version priced on (from the quote option); a newer one answers price_changed',
          ),
        },
        ['start_date', 'insurer_id', 'class', 'scope', 'premium'],
      ),
      taxes: arr(obj({ tax_id: int(), rate: num(), amount: num() }, [])),
      vehicles: {
        ...arr(
          obj(
            {
              regno: str('Or reg_no'),
              chassis_no: str('Needed for the registry certificate'),
              make: str(),
              model: str(),
              yom: int(),
              value: int(),
              coverage: str(),
              engine_no: str(),
              body_type: str(),
              tonnage: num(),
              pll: int(),
              basic_premium: num(),
              rate: num(),
              benefits: arr(str()),
            },
            ['regno', 'yom'],
          ),
        ),
        minItems: 1,
        maxItems: 1,
      },
      prospect_uuid: str(
        'Service-only: the prospect this policy is for; it moves to won (docs/motor-and-clients.md "Prospects")',
      ),
    },
    ['client', 'policy', 'vehicles'],
  ),
  SavedPolicy: obj(
    {
      message: str(),
      id: int(),
      uuid: str(),
      risknote: str(),
      policy_no: str(),
      client_no: str(),
      client_key: nullable(str('Only when the client had no client-area key; null on a replay')),
      status: { type: 'string', enum: ['pending_payment'] },
      product_line: str(),
      start_date: { type: 'string', format: 'date' },
      end_date: { type: 'string', format: 'date' },
      payment_mode: { type: 'string', enum: ['full', 'ipf'] },
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
  PremiumMismatchProblem: {
    allOf: [
      { $ref: '#/components/schemas/Problem' },
      obj({ server: arr(obj({ insurer_id: int(), ...money('basic_premium'), ...money('taxes'), ...money('total') })) }),
    ],
  },
};

export const motorQuoteResponse = obj({ message: str(), quote: ref('MotorRisk'), options: arr(ref('MotorOption')) });
