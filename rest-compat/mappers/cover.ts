import type {
  CoverQuoteFieldsFragment,
  MedicalCoverInput,
  StandardCoverInput,
  TripInput,
} from '../generated/operations.ts';
import { asObject, listOrAsSent, type SentInput } from '../route.ts';
import { snakeKeys } from './json-keys.ts';
import { moneyPair } from './money.ts';
import { insuredFromRest, intList, num0, quotesFromRest } from './motor.ts';
import { instalmentsToRest } from './priced.ts';

/**
 * The quote's insurer filter: `insurer_ids` (docs/covers.md), one id or a list; motor's spelling `insurer_id` is
 * accepted as its alias, and both sent add up.
 */
function insurerIdsFromRest(b: Record<string, unknown>): unknown {
  const ids = intList(b.insurer_ids);
  const alias = intList(b.insurer_id);
  if (ids === undefined || alias === undefined) return ids ?? alias;
  return [...(ids as unknown[]), ...(alias as unknown[])];
}

/**
 * REST ↔ GraphQL for the medical, travel and standard lines. The bodies spell the risk as the quote does; a save
 * quote or a save carries it under `medical`, `trip` or `cover`, beside `client` (and `policy` for a save).
 */

export function medicalFromRest(raw: unknown): SentInput<MedicalCoverInput> {
  const b = asObject(raw);
  return {
    coverType: b.cover_type,
    inpatientLimit: num0(b.inpatient_limit),
    riders:
      b.riders == null
        ? undefined
        : listOrAsSent(b.riders, (r) => {
            const x = asObject(r);
            return { code: x.code, limit: num0(x.limit) };
          }),
    members: listOrAsSent(b.members, (m) => {
      const x = asObject(m);
      return {
        name: x.name,
        relationship: x.relationship,
        dateOfBirth: x.date_of_birth,
        age: num0(x.age),
        inSchool: x.in_school,
        idNo: x.idno ?? x.id_no,
      };
    }),
    startDate: b.start_date,
    insurerIds: insurerIdsFromRest(b),
  };
}

export function tripFromRest(raw: unknown): SentInput<TripInput> {
  const b = asObject(raw);
  return {
    plan: b.plan,
    region: b.region,
    destination: b.destination,
    departureDate: b.departure_date,
    returnDate: b.return_date,
    travellers: listOrAsSent(b.travellers, (t) => {
      const x = asObject(t);
      return { name: x.name, dateOfBirth: x.date_of_birth, age: num0(x.age), passportNo: x.passport_no };
    }),
    insurerIds: insurerIdsFromRest(b),
  };
}

export function standardFromRest(raw: unknown): SentInput<StandardCoverInput> {
  const b = asObject(raw);
  return {
    product: b.product,
    items:
      b.items == null
        ? undefined
        : listOrAsSent(b.items, (i) => {
            const x = asObject(i);
            return { description: x.description ?? x.name, sumInsured: num0(x.sum_insured), idNo: x.idno ?? x.id_no };
          }),
    headcount: num0(b.headcount),
    extensions: b.extensions,
    startDate: b.start_date,
    insurerIds: insurerIdsFromRest(b),
  };
}

type Quote = CoverQuoteFieldsFragment;

export function coverQuoteToRest(q: Quote) {
  const r = q.quote;
  return {
    message: q.message,
    quote: {
      product_line: r.productLine,
      product: r.product,
      cover_period: r.coverPeriod,
      start_date: r.startDate,
      end_date: r.endDate,
      days: r.days,
      cover: snakeKeys(r.cover),
      insured: r.insured.map((i) => ({
        kind: i.kind,
        name: i.name,
        relationship: i.relationship,
        date_of_birth: i.dateOfBirth,
        age: i.age,
        in_school: i.inSchool,
        id_no: i.idNo,
        ...moneyPair('sum_insured', i.sumInsured),
      })),
    },
    options: q.options.map(coverOptionToRest),
  };
}

function coverOptionToRest(o: Quote['options'][number]) {
  return {
    insurer_id: o.insurerId,
    insurer_name: o.insurerName,
    monogram: o.monogram,
    product_id: o.productId,
    product_code: o.productCode,
    product_name: o.productName,
    product_version: o.productVersion,
    rate: o.rate,
    rate_bps: o.rateBps,
    ...moneyPair('basic_premium', o.basicPremium),
    breakdown: o.breakdown.map((b) => ({ item: b.item, ...moneyPair('amount', b.amount) })),
    insured_premiums: o.insuredPremiums?.map((m) => moneyPair('amount', m)) ?? null,
    terms: snakeKeys(o.terms),
    benefits: o.benefits.map((b) => ({ name: b.name, ...moneyPair('limit', b.limit) })),
    excess: o.excess,
    taxes: o.taxes.map((t) => ({ code: t.code, name: t.name, ...moneyPair('amount', t.amount) })),
    ...moneyPair('taxes_total', o.taxesTotal),
    ...moneyPair('total', o.total),
    commission_rate_bps: o.commissionRateBps,
    ...instalmentsToRest(o),
  };
}

/** The save-quote body: the client, the risk under `key`, figures shown to the client. */
type RiskKey = 'medical' | 'trip' | 'cover';

export function saveCoverQuoteFromRest<K extends RiskKey, R>(raw: unknown, key: K, risk: (b: unknown) => R) {
  const b = asObject(raw);
  const base = {
    client: insuredFromRest(b.client),
    quotes: quotesFromRest(b.quotes),
    prospectUuid: b.prospect_uuid,
  };
  return { ...base, [key]: risk(b[key]) } as typeof base & Record<K, R>;
}

export function bindCoverFromRest<K extends RiskKey, R>(raw: unknown, key: K, risk: (b: unknown) => R) {
  const b = asObject(raw);
  const p = asObject(b.policy);
  const base = {
    client: insuredFromRest(b.client),
    policy: {
      startDate: p.start_date,
      insurerId: num0(p.insurer_id),
      totalBasic: num0(p.total_basic),
      taxes: num0(p.taxes),
      premium: num0(p.premium),
      premiumInstalments: num0(p.premium_instalments),
      paymentMode: p.payment_mode,
      productVersion: num0(p.product_version),
    },
    prospectUuid: b.prospect_uuid,
  };
  return { ...base, [key]: risk(b[key]) } as typeof base & Record<K, R>;
}
