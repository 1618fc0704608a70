import type {
  CoverQuoteFieldsFragment,
  MedicalCoverInput,
  StandardCoverInput,
  TripInput,
} from '../generated/operations.ts';
import type { z } from 'zod';
import type { SentInput } from '../route.ts';
import type { Wire } from '../schemas/builders.ts';
import type {
  CoverDetails,
  CoverOption,
  CoverQuoteResponse,
  MedicalBodies,
  StandardBodies,
  TravelBodies,
} from '../schemas/covers.ts';
import type { InsuredClient, quotedFigures } from '../schemas/motor.ts';
import { snakeKeys } from './json-keys.ts';
import { moneyPair } from './money.ts';
import { idList, insuredFromRest, known, quotesFromRest } from './motor.ts';
import { instalmentsToRest } from './priced.ts';

type Medical = z.output<typeof MedicalBodies.quote>;
type Trip = z.output<typeof TravelBodies.quote>;
type Standard = z.output<typeof StandardBodies.quote>;

/**
 * The quote's insurer filter: `insurer_ids` (docs/covers.md), one id or a list; motor's spelling `insurer_id` is
 * accepted as its alias, and both sent add up.
 */
function insurerIdsFromRest(b: Pick<Medical, 'insurer_ids' | 'insurer_id'>): number[] | undefined {
  const ids = idList(b.insurer_ids);
  const alias = idList(b.insurer_id);
  if (ids === undefined || alias === undefined) return ids ?? alias;
  return [...ids, ...alias];
}

/**
 * REST ↔ GraphQL for the medical, travel and standard lines. The bodies spell the risk as the quote does; a save
 * quote or a save carries it under `medical`, `trip` or `cover`, beside `client` (and `policy` for a save).
 */

export function medicalFromRest(b: Medical): SentInput<MedicalCoverInput> {
  return {
    coverType: b.cover_type,
    inpatientLimit: b.inpatient_limit,
    riders: b.riders?.map((r) => ({ code: r.code, limit: r.limit })),
    members: b.members.map((x) => ({
      name: x.name,
      relationship: x.relationship,
      dateOfBirth: x.date_of_birth,
      age: x.age,
      inSchool: x.in_school,
      idNo: x.idno ?? x.id_no,
    })),
    startDate: b.start_date,
    insurerIds: insurerIdsFromRest(b),
  };
}

export function tripFromRest(b: Trip): SentInput<TripInput> {
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

export function standardFromRest(b: Standard): SentInput<StandardCoverInput> {
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

export function coverQuoteToRest(q: Quote): Wire<typeof CoverQuoteResponse> {
  const r = q.quote;
  return {
    message: q.message,
    quote: {
      product_line: known(['medical', 'travel', 'standard'], r.productLine),
      product: r.product,
      cover_period: known(['annual', 'trip'], r.coverPeriod),
      start_date: r.startDate,
      end_date: r.endDate,
      days: r.days,
      // The cover is GraphQL JSON (its keys camelCase at any depth): CoverDetails documents it, the kit checks it.
      cover: snakeKeys(r.cover) as Wire<typeof CoverDetails>,
      insured: r.insured.map((i) => ({
        kind: known(['member', 'traveller', 'item'], i.kind),
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

function coverOptionToRest(o: Quote['options'][number]): Wire<typeof CoverOption> {
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
    terms: snakeKeys(o.terms) as Record<string, unknown>,
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
type Insured = z.output<typeof InsuredClient>;
type Figures = z.output<typeof quotedFigures>;
type BindPolicy = z.output<typeof MedicalBodies.bind>['policy'];

export function saveCoverQuoteFromRest<K extends RiskKey, B, R>(
  b: { client: Insured; quotes?: Figures | null; prospect_uuid?: string | null } & Record<K, B>,
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
  b: { client: Insured; policy: BindPolicy; prospect_uuid?: string | null } & Record<K, B>,
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
