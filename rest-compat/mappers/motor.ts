import type {
  BoundPolicyFieldsFragment,
  SavedQuoteFieldsFragment,
  BindMotorPolicyMutationVariables,
  BindVehicleInput,
  InsuredInput,
  MotorQuoteInput,
  MotorQuoteQuery,
  QuotedFiguresInput,
  SaveMotorQuoteMutationVariables,
} from '../generated/operations.ts';
import { asObject, type AsSent, listOrAsSent, objectOrAsSent, type Resolved, type SentInput } from '../route.ts';
import type { z } from 'zod';
import type { BindRequest, MotorQuoteRequest, SaveQuoteRequest } from '../schemas/motor.ts';
import { minor, whole } from './money.ts';
import { instalmentsToRest } from './priced.ts';

type MotorQuote = Resolved<MotorQuoteQuery>['motorQuote'];

/** Numbers sent as numeric strings by legacy clients ("2019") are read as numbers; anything else passes through. */
export function num0(v: unknown): unknown {
  return typeof v === 'string' && v.trim() !== '' && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : v;
}

export function intList(v: unknown): unknown {
  if (v == null || v === '') return undefined;
  return Array.isArray(v) ? v.map(num0) : [num0(v)];
}

/** REST quote body (parsed by its definition: numbers read from their text, the insurer filter a list) → MotorQuoteInput. */
export function quoteInputFromRest(b: z.output<typeof MotorQuoteRequest>): SentInput<MotorQuoteInput> {
  return {
    class: b.class,
    coverage: b.coverage,
    scope: b.scope,
    coverPeriod: b.cover_period,
    days: b.days,
    year: b.year,
    value: b.value,
    tonnage: b.tonnage,
    pll: b.pll,
    insurerIds: b.insurer_id,
    startDate: b.start_date,
  };
}

export function riskToRest(q: MotorQuote['quote']) {
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
    value: whole(q.value),
    value_minor: minor(q.value),
  };
}

export function optionToRest(o: MotorQuote['options'][number]) {
  return {
    insurer_id: o.insurerId,
    insurer_name: o.insurerName,
    monogram: o.monogram,
    motor_product_id: o.motorProductId,
    vehicle_class: o.vehicleClass,
    cover_type: o.coverType,
    rate: o.rate,
    rate_bps: o.rateBps,
    value: whole(o.value),
    value_minor: minor(o.value),
    basic_premium: whole(o.basicPremium),
    basic_premium_minor: minor(o.basicPremium),
    taxes: o.taxes.map((t) => ({ code: t.code, name: t.name, amount: whole(t.amount), amount_minor: minor(t.amount) })),
    taxes_total: whole(o.taxesTotal),
    taxes_total_minor: minor(o.taxesTotal),
    total: whole(o.total),
    total_minor: minor(o.total),
    commission_rate_bps: o.commissionRateBps,
    benefits: o.benefits,
    limits_of_liability: o.limitsOfLiability.map((l) => ({
      benefit_id: l.benefitId,
      item: l.item,
      limit: l.limit?.amount ?? null,
    })),
    excess: o.excess,
    pll: o.pll,
    tonnage: o.tonnage,
    ...instalmentsToRest(o),
    product_version: o.productVersion,
  };
}

/** The spec's client object (legacy `idno`, `pin`, `agentcode` accepted as written) → InsuredInput. */
export function insuredFromRest(raw: unknown): SentInput<InsuredInput> | AsSent {
  // Absent reads as empty (its own fields are then named); a client that is not an object is refused as `client`.
  return raw == null ? insuredFields({}) : objectOrAsSent(raw, insuredFields);
}

function insuredFields(c: Record<string, unknown>): SentInput<InsuredInput> {
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

/** The figures shown to the client (`quotes[]` of a save quote), motor and every other line. */
export function quotesFromRest(quotes: unknown) {
  return listOrAsSent(quotes, (q): SentInput<QuotedFiguresInput> => {
    const x = asObject(q);
    return {
      insurerId: num0(x.insurer_id),
      rate: num0(x.rate),
      basic: num0(x.basic),
      taxes: num0(x.taxes),
      total: num0(x.total),
      benefits: x.benefits,
    };
  });
}

/** The save-quote body, as its definition parsed it (numbers read from their text, aliases kept) → the mutation's variables. */
export function saveQuoteFromRest(b: z.output<typeof SaveQuoteRequest>): SentInput<SaveMotorQuoteMutationVariables> {
  const v = b.vehicle;
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
      days: v.days,
      year: v.year,
      value: v.value,
      tonnage: v.tonnage,
      pll: v.pll,
      startDate: v.start_date,
    },
    quotes: quotesFromRest(b.quotes),
    prospectUuid: b.prospect_uuid,
  };
}

/** The bind body, as its definition parsed it (numbers read from their text, one vehicle in a list) → the mutation's variables. */
export function bindFromRest(b: z.output<typeof BindRequest>): SentInput<BindMotorPolicyMutationVariables> {
  const p = b.policy;
  return {
    client: insuredFromRest(b.client),
    policy: {
      startDate: p.start_date,
      endDate: p.end_date,
      insurerId: p.insurer_id,
      class: p.class,
      coverage: p.coverage,
      scope: p.scope,
      coverPeriod: p.cover_period,
      days: p.days,
      totalBasic: p.total_basic,
      taxes: p.taxes,
      premium: p.premium,
      premiumInstalments: p.premium_instalments,
      paymentMode: p.payment_mode,
      limitsOfLiability: p.limits_of_liability,
      productVersion: p.product_version,
    },
    // `taxes` at the top level is accepted for compatibility and ignored: the server computes levies.
    vehicles: b.vehicles.map((v): SentInput<BindVehicleInput> => ({
      regNo: v.regno ?? v.reg_no,
      chassisNo: v.chassis_no,
      engineNo: v.engine_no,
      make: v.make,
      model: v.model,
      yom: v.yom,
      value: v.value,
      coverage: v.coverage,
      bodyType: v.body_type,
      tonnage: v.tonnage,
      pll: v.pll,
      basicPremium: v.basic_premium,
      rate: v.rate,
      benefits: v.benefits,
    })),
    prospectUuid: b.prospect_uuid,
  };
}

export function savedQuoteToRest(q: SavedQuoteFieldsFragment) {
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
      options: q.options.map((o) => ({
        option_id: o.optionId,
        insurer_id: o.insurerId,
        insurer_name: o.insurerName,
        rate: o.rate,
        total: whole(o.total),
        total_minor: minor(o.total),
      })),
    },
  };
}

export const PORTAL_NOTE = 'The client already has client-area credentials; they keep working.';
export const REPLAY_NOTE =
  'Replayed response: the client key was shown once, in the first response to this Idempotency-Key.';

export function boundPolicyToRest(b: BoundPolicyFieldsFragment, url: URL) {
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
      basic_premium: whole(p.basicPremium),
      basic_premium_minor: minor(p.basicPremium),
      taxes: whole(p.taxes),
      taxes_minor: minor(p.taxes),
      total: whole(p.total),
      total_minor: minor(p.total),
    },
    debit_note: {
      number: `DN-${p.policyNo}`,
      due_on: dn[0]?.dueOn ?? null,
      amount: whole(p.total),
      amount_minor: minor(p.total),
      instalments: dn.map((d) => ({
        number: d.number,
        instalment_no: d.instalmentNo,
        due_on: d.dueOn,
        amount: whole(d.amount),
        amount_minor: minor(d.amount),
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

export function redactBindReplay(body: ReturnType<typeof boundPolicyToRest>) {
  return { ...body, client_key: null, portal: { ...body.portal, client_key: null }, replay_note: REPLAY_NOTE };
}
