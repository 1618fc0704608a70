import type {
  CoverQuoteFieldsFragment,
  MedicalCoverInput,
  StandardCoverInput,
  TripInput,
} from '../generated/operations.ts';
import type { z } from 'zod';
import type { SentInput } from '../route.ts';
import type { bindPolicy, MedicalQuoteRequest, StandardQuoteRequest, TravelQuoteRequest } from '../schemas/covers.ts';
import type { quotesShown } from '../schemas/motor.ts';
import { snakeKeys } from './json-keys.ts';
import { moneyPair, minor, whole } from './money.ts';
import { insuredFromRest, quotesFromRest } from './motor.ts';
import { instalmentsToRest } from './priced.ts';

/**
 * The quote's insurer filter: `insurer_ids` (docs/covers.md), one id or a list (the definition reads both as lists);
 * motor's spelling `insurer_id` is accepted as its alias, and both sent add up.
 */
function insurerIdsFromRest(b: { insurer_ids?: number[]; insurer_id?: number[] }): number[] | undefined {
  if (b.insurer_ids === undefined || b.insurer_id === undefined) return b.insurer_ids ?? b.insurer_id;
  return [...b.insurer_ids, ...b.insurer_id];
}

/**
 * REST ↔ GraphQL for the medical, travel and standard lines. The bodies, as their definitions parsed them (numbers
 * read from their text, a lone item read as a list), spell the risk as the quote does; a save quote or a save carries
 * it under `medical`, `trip` or `cover`, beside `client` (and `policy` for a save).
 */

export function medicalFromRest(b: z.output<typeof MedicalQuoteRequest>): SentInput<MedicalCoverInput> {
  return {
    coverType: b.cover_type,
    inpatientLimit: b.inpatient_limit,
    riders: b.riders?.map((r) => ({ code: r.code, limit: r.limit })),
    members: b.members.map((m) => ({
      name: m.name,
      relationship: m.relationship,
      dateOfBirth: m.date_of_birth,
      age: m.age,
      inSchool: m.in_school,
      idNo: m.idno ?? m.id_no,
    })),
    startDate: b.start_date,
    insurerIds: insurerIdsFromRest(b),
  };
}

export function tripFromRest(b: z.output<typeof TravelQuoteRequest>): SentInput<TripInput> {
  return {
    plan: b.plan,
    region: b.region,
    destination: b.destination,
    departureDate: b.departure_date,
    returnDate: b.return_date,
    travellers: b.travellers.map((x) => ({
      name: x.name,
      dateOfBirth: x.date_of_birth,
      age: x.age,
      passportNo: x.passport_no,
    })),
    insurerIds: insurerIdsFromRest(b),
  };
}

export function standardFromRest(b: z.output<typeof StandardQuoteRequest>): SentInput<StandardCoverInput> {
  return {
    product: b.product,
    items: b.items?.map((x) => ({
      description: x.description ?? x.name,
      sumInsured: x.sum_insured,
      idNo: x.idno ?? x.id_no,
    })),
    headcount: b.headcount,
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
        sum_insured: whole(i.sumInsured),
        sum_insured_minor: minor(i.sumInsured),
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
    basic_premium: whole(o.basicPremium),
    basic_premium_minor: minor(o.basicPremium),
    breakdown: o.breakdown.map((b) => ({ item: b.item, amount: whole(b.amount), amount_minor: minor(b.amount) })),
    insured_premiums: o.insuredPremiums?.map((m) => moneyPair('amount', m)) ?? null,
    terms: snakeKeys(o.terms),
    benefits: o.benefits.map((b) => ({ name: b.name, limit: whole(b.limit), limit_minor: minor(b.limit) })),
    excess: o.excess,
    taxes: o.taxes.map((t) => ({ code: t.code, name: t.name, amount: whole(t.amount), amount_minor: minor(t.amount) })),
    taxes_total: whole(o.taxesTotal),
    taxes_total_minor: minor(o.taxesTotal),
    total: whole(o.total),
    total_minor: minor(o.total),
    commission_rate_bps: o.commissionRateBps,
    ...instalmentsToRest(o),
  };
}

/** The save-quote body: the client, the risk under `key`, figures shown to the client. */
type RiskKey = 'medical' | 'trip' | 'cover';
type Sent = { client: unknown; prospect_uuid?: string | null };

export function saveCoverQuoteFromRest<K extends RiskKey, B, R>(
  b: Sent & { quotes?: z.output<typeof quotesShown> } & Record<K, B>,
  key: K,
  risk: (b: B) => R,
) {
  const base = {
    client: insuredFromRest(b.client),
    quotes: quotesFromRest(b.quotes),
    prospectUuid: b.prospect_uuid,
  };
  return { ...base, [key]: risk(b[key]) } as typeof base & Record<K, R>;
}

export function bindCoverFromRest<K extends RiskKey, B, R>(
  b: Sent & { policy: z.output<ReturnType<typeof bindPolicy>> } & Record<K, B>,
  key: K,
  risk: (b: B) => R,
) {
  const p = b.policy;
  const base = {
    client: insuredFromRest(b.client),
    policy: {
      startDate: p.start_date,
      insurerId: p.insurer_id,
      totalBasic: p.total_basic,
      taxes: p.taxes,
      premium: p.premium,
      premiumInstalments: p.premium_instalments,
      paymentMode: p.payment_mode,
      productVersion: p.product_version,
    },
    prospectUuid: b.prospect_uuid,
  };
  return { ...base, [key]: risk(b[key]) } as typeof base & Record<K, R>;
}
