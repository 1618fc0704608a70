import { asObject } from '../route.ts';
import { moneyPair } from './money.ts';
import type { SchemaObject } from 'openapi3-ts/oas31';
import { arr, int, money, nullable, num, obj, str } from '../schemas.ts';

/** Numbers sent as numeric strings by legacy clients ("2019") are read as numbers; anything else passes through. */
export function num0(v: unknown): unknown {
  return typeof v === 'string' && v.trim() !== '' && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : v;
}

export function intList(v: unknown): unknown {
  if (v == null || v === '') return undefined;
  return Array.isArray(v) ? v.map(num0) : [num0(v)];
}

/** REST quote body → MotorQuoteInput. */
export function quoteInputFromRest(b: Record<string, unknown>) {
  return {
    class: b.class,
    coverage: b.coverage,
    scope: b.scope,
    coverPeriod: b.cover_period,
    days: num0(b.days),
    year: num0(b.year),
    value: num0(b.value),
    tonnage: num0(b.tonnage),
    pll: num0(b.pll),
    insurerIds: intList(b.insurer_id),
    startDate: b.start_date,
  };
}

export function riskToRest(q: any) {
  return {
    class: q.class,
    coverage: q.coverage,
    scope: q.scope,
    vehicle_class: q.vehicleClass,
    cover_type: q.coverType,
    cover_period: q.coverPeriod,
    days: q.days,
    start_date: q.startDate,
    end_date: q.endDate,
    year: q.year,
    tonnage: q.tonnage,
    pll: q.pll,
    ...moneyPair('value', q.value),
  };
}

export function optionToRest(o: any) {
  return {
    insurer_id: o.insurerId,
    insurer_name: o.insurerName,
    monogram: o.monogram,
    motor_product_id: o.motorProductId,
    vehicle_class: o.vehicleClass,
    cover_type: o.coverType,
    rate: o.rate,
    rate_bps: o.rateBps,
    ...moneyPair('value', o.value),
    ...moneyPair('basic_premium', o.basicPremium),
    taxes: o.taxes.map((t: any) => ({ code: t.code, name: t.name, ...moneyPair('amount', t.amount) })),
    ...moneyPair('taxes_total', o.taxesTotal),
    ...moneyPair('total', o.total),
    commission_rate_bps: o.commissionRateBps,
    benefits: o.benefits,
    limits_of_liability: o.limitsOfLiability.map((l: any) => ({
      benefit_id: l.benefitId,
      item: l.item,
      limit: l.limit?.amount ?? null,
    })),
    excess: o.excess,
    pll: o.pll,
    tonnage: o.tonnage,
    instalments: o.instalments.map((i: any) => ({
      parts: i.parts,
      amounts: i.amounts.map((a: any) => a.amount),
      amounts_minor: i.amounts.map((a: any) => a.amountMinor),
    })),
    ipf_offers: o.ipfOffers.map((x: any) => ({
      tenor_months: x.tenorMonths,
      ...moneyPair('deposit', x.deposit),
      ...moneyPair('instalment', x.instalment),
      apr_bps: x.aprBps,
      lender_name: x.lenderName,
    })),
    ipf_reason: o.ipfReason,
    product_version: o.productVersion,
  };
}

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
      insurer_id: { oneOf: [int(), arr(int())], description: 'Limit to these insurers' },
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
};

/** The spec's client object (legacy `idno`, `pin`, `agentcode` accepted as written) → InsuredInput. */
export function insuredFromRest(raw: unknown) {
  const c = asObject(raw);
  return {
    name: c.name,
    phone: c.phone,
    email: c.email,
    idNo: c.idno ?? c.id_no,
    kraPin: c.pin ?? c.kra_pin,
    riskManagerId: num0(c.risk_manager_id),
    branchId: num0(c.branch_id),
    salesPersonId: num0(c.sales_person_id),
    agentCode: c.agentcode,
    clientNo: c.client_no,
    force: c.force,
    type: c.type,
  };
}

export function saveQuoteFromRest(raw: unknown) {
  const b = asObject(raw);
  const v = asObject(b.vehicle);
  return {
    client: insuredFromRest(b.client),
    vehicle: {
      regNo: v.reg_no ?? v.regno,
      make: v.make,
      model: v.model,
      class: v.class,
      coverage: v.coverage,
      scope: v.scope,
      coverPeriod: v.cover_period,
      days: num0(v.days),
      year: num0(v.year),
      value: num0(v.value),
      tonnage: num0(v.tonnage),
      pll: num0(v.pll),
      startDate: v.start_date,
    },
    quotes: Array.isArray(b.quotes)
      ? b.quotes.map((q) => {
          const x = asObject(q);
          return {
            insurerId: num0(x.insurer_id),
            rate: num0(x.rate),
            basic: num0(x.basic),
            taxes: num0(x.taxes),
            total: num0(x.total),
            benefits: x.benefits,
          };
        })
      : b.quotes,
  };
}

export function bindFromRest(raw: unknown) {
  const b = asObject(raw);
  const p = asObject(b.policy);
  return {
    client: insuredFromRest(b.client),
    policy: {
      startDate: p.start_date,
      endDate: p.end_date,
      insurerId: num0(p.insurer_id),
      class: p.class,
      coverage: p.coverage,
      scope: p.scope,
      coverPeriod: p.cover_period,
      days: num0(p.days),
      totalBasic: num0(p.total_basic),
      taxes: num0(p.taxes),
      premium: num0(p.premium),
      premiumInstalments: num0(p.premium_instalments),
      paymentMode: p.payment_mode,
      limitsOfLiability: p.limits_of_liability,
      productVersion: num0(p.product_version),
    },
    // `taxes` at the top level is accepted for compatibility and ignored: the server computes levies.
    vehicles: Array.isArray(b.vehicles)
      ? b.vehicles.map((raw) => {
          const v = asObject(raw);
          return {
            regNo: v.regno ?? v.reg_no,
            chassisNo: v.chassis_no,
            engineNo: v.engine_no,
            make: v.make,
            model: v.model,
            yom: num0(v.yom),
            value: num0(v.value),
            coverage: v.coverage,
            bodyType: v.body_type,
            tonnage: num0(v.tonnage),
            pll: num0(v.pll),
            basicPremium: num0(v.basic_premium),
            rate: num0(v.rate),
            benefits: v.benefits,
          };
        })
      : b.vehicles,
  };
}

/** premium_mismatch: `server` as the REST money pairs. */
export function serverFiguresToRest(extra: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(extra.server)) return extra;
  return {
    ...extra,
    server: extra.server.map((s: any) => ({
      insurer_id: s.insurer_id,
      basic_premium: s.basic_premium.amount,
      basic_premium_minor: s.basic_premium.amount_minor,
      taxes: s.taxes.amount,
      taxes_minor: s.taxes.amount_minor,
      total: s.total.amount,
      total_minor: s.total.amount_minor,
    })),
  };
}

export function savedQuoteToRest(q: any) {
  return {
    message: 'Quote saved',
    id: q.databaseId,
    uuid: q.uuid,
    quote_no: q.quoteNo,
    client_no: q.clientNo,
    valid_until: q.validUntil,
    data: {
      uuid: q.uuid,
      product_line: q.productLine,
      status: q.quoteStatus,
      options: q.options.map((o: any) => ({
        option_id: o.optionId,
        insurer_id: o.insurerId,
        insurer_name: o.insurerName,
        rate: o.rate,
        ...moneyPair('total', o.total),
      })),
    },
  };
}

export const PORTAL_NOTE = 'The client already has client-area credentials; they keep working.';
export const REPLAY_NOTE =
  'Replayed response: the client key was shown once, in the first response to this Idempotency-Key.';

export function boundPolicyToRest(b: any, url: URL) {
  const p = b.policy;
  const dn = p.debitNotes;
  return {
    message: 'Policy saved, pending payment',
    id: p.databaseId,
    uuid: p.uuid,
    risknote: p.riskNote,
    policy_no: p.policyNo,
    client_no: b.clientNo,
    client_key: b.clientKey,
    status: p.status,
    product_line: p.productLine,
    start_date: p.startDate,
    end_date: p.endDate,
    payment_mode: p.paymentMode,
    instalments: p.instalments,
    premium: {
      basic_premium: p.basicPremium.amount,
      basic_premium_minor: p.basicPremium.amountMinor,
      taxes: p.taxes.amount,
      taxes_minor: p.taxes.amountMinor,
      total: p.total.amount,
      total_minor: p.total.amountMinor,
    },
    debit_note: {
      number: `DN-${p.policyNo}`,
      due_on: dn[0]?.dueOn ?? null,
      amount: p.total.amount,
      amount_minor: p.total.amountMinor,
      instalments: dn.map((d: any) => ({
        number: d.number,
        instalment_no: d.instalmentNo,
        due_on: d.dueOn,
        amount: d.amount.amount,
        amount_minor: d.amount.amountMinor,
      })),
    },
    portal: {
      client_no: b.clientNo,
      client_key: b.clientKey,
      ...(b.clientKey ? {} : { note: b.portalNote ?? PORTAL_NOTE }),
    },
    links: { policy: `${url.origin}/api/v1/policies/${p.uuid}` },
  };
}

export function redactBindReplay(body: any) {
  return { ...body, client_key: null, portal: { ...body.portal, client_key: null }, replay_note: REPLAY_NOTE };
}

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

Object.assign(motorSchemas, {
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
});
