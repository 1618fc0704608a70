import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { addDays } from '../../src/lib/dates.ts';
import { TODAY } from '../helpers/clock.ts';
import type { Api } from '../helpers/http.ts';

/**
 * Medical, travel and standard covers through the REST API, as an integrator sends them: one plausible risk per line
 * (a family of three, a Schengen trip for two, a domestic package), and a bind body priced by the server's own quote.
 */

export type CoverLineName = 'medical' | 'travel' | 'standard';

/** The field a save_quote or a save carries the risk under. */
export const RISK_KEY = { medical: 'medical', travel: 'trip', standard: 'cover' } as const;

export const COVER_RISKS = {
  medical: {
    cover_type: 'family',
    inpatient_limit: 1_000_000,
    riders: [{ code: 'outpatient', limit: 100_000 }],
    members: [
      { name: 'Wanjiru Kamau', relationship: 'principal', age: 38 },
      { name: 'Otieno Kamau', relationship: 'spouse', age: 40 },
      { name: 'Baraka Kamau', relationship: 'child', age: 9 },
    ],
  },
  travel: {
    plan: 'standard',
    region: 'Europe/Schengen',
    destination: 'France, Italy',
    departure_date: addDays(TODAY, 10),
    return_date: addDays(TODAY, 23),
    travellers: [
      { name: 'Wanjiru Kamau', age: 45, passport_no: 'AK123456' },
      { name: 'Mzee Kamau', age: 71, passport_no: 'AK654321' },
    ],
  },
  standard: {
    product: 'DOMESTIC',
    items: [
      { description: 'Household contents', sum_insured: 1_500_000 },
      { description: 'Jewellery and electronics (all risks)', sum_insured: 300_000 },
    ],
  },
} as const;

let n = 0;
/** A new insured client each time (its ID number and phone unique in the run). */
export function newClient(label = 'cover') {
  n += 1;
  const k = `${Date.now() % 1e6}${n}`.padStart(8, '0').slice(-8);
  return { name: `Wanjiru ${label} ${k}`, phone: `07${k}`, idno: `3${k}` };
}

/** The server's quote of the line's risk: the options, cheapest first. */
export async function coverQuote(api: Api, token: string, line: CoverLineName, risk: object = COVER_RISKS[line]) {
  const r = await api.post(`/${line}/quote`, { token, body: risk });
  expect(r.status, r.text).toBe(200);
  return r.body as { quote: any; options: any[] };
}

/** A bind body at the cheapest option's price, for a new client. */
export async function coverBindBody(api: Api, token: string, line: CoverLineName, risk: object = COVER_RISKS[line]) {
  const { options } = await coverQuote(api, token, line, risk);
  const o = options[0];
  const body = {
    client: newClient(line),
    policy: {
      ...(line === 'travel' ? {} : { start_date: TODAY }),
      insurer_id: o.insurer_id,
      premium: o.total,
      product_version: o.product_version,
    },
    [RISK_KEY[line]]: risk,
  };
  return { body, option: o };
}

/** A policy of the line bound through POST /<line>/save, pending payment. */
export async function bindCover(api: Api, token: string, line: CoverLineName, risk: object = COVER_RISKS[line]) {
  const { body, option } = await coverBindBody(api, token, line, risk);
  const r = await api.post(`/${line}/save`, { token, idempotencyKey: randomUUID(), body });
  expect(r.status, r.text).toBe(201);
  return { ...r.body, option };
}
