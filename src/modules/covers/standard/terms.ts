/**
 * A standard product's terms (cover_products.terms) as rating reads them, parsed defensively: a product whose terms
 * do not have this shape is refused with the reason, never a crash. The keys are documented in rating.ts.
 */

export type Basis = 'sum_insured' | 'headcount';
/** What an extension's rate rows apply to: the total sum insured (rate), each head (amount), the policy (amount). */
export type ExtensionPer = 'sum_insured' | 'head' | 'policy';

export interface ExtensionTerms {
  code: string;
  name: string;
  per: ExtensionPer;
  limitMinor: bigint | null;
}

export interface StandardTerms {
  basis: Basis;
  perInsured: boolean;
  headLabel: string;
  maxItems: number | null;
  maxItemSumInsuredMinor: bigint | null;
  extensions: ExtensionTerms[];
  benefits: { name: string; limitMinor: bigint | null }[];
}

type Parsed<T> = T | { malformed: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/** An optional amount in cents: absent or null is null; otherwise a non-negative safe integer. */
function optionalMinor(v: unknown): Parsed<bigint | null> {
  if (v == null) return null;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  return { malformed: 'an amount in cents is not a whole number' };
}

const failed = <T>(p: Parsed<T>): p is { malformed: string } => isRecord(p) && 'malformed' in p;

function parseBenefits(v: unknown): Parsed<StandardTerms['benefits']> {
  if (v == null) return [];
  if (!Array.isArray(v)) return { malformed: 'benefits is not a list' };
  const out: StandardTerms['benefits'] = [];
  for (const b of v) {
    if (!isRecord(b) || !isText(b.name)) return { malformed: 'a benefit has no name' };
    const limit = optionalMinor(b.limit_minor);
    if (failed(limit)) return limit;
    out.push({ name: b.name, limitMinor: limit });
  }
  return out;
}

function parseExtensions(v: unknown): Parsed<ExtensionTerms[]> {
  if (v == null) return [];
  if (!Array.isArray(v)) return { malformed: 'extensions is not a list' };
  const out: ExtensionTerms[] = [];
  for (const e of v) {
    if (!isRecord(e) || !isText(e.code) || !isText(e.name)) return { malformed: 'an extension has no code or name' };
    if (e.per !== 'sum_insured' && e.per !== 'head' && e.per !== 'policy') {
      return { malformed: `extension ${e.code} says neither per sum_insured, head nor policy` };
    }
    const limit = optionalMinor(e.limit_minor);
    if (failed(limit)) return limit;
    out.push({ code: e.code.trim().toLowerCase(), name: e.name, per: e.per, limitMinor: limit });
  }
  return out;
}

export function parseTerms(raw: unknown): Parsed<StandardTerms> {
  if (!isRecord(raw)) return { malformed: 'the terms are not an object' };
  if (raw.basis !== 'sum_insured' && raw.basis !== 'headcount') {
    return { malformed: 'basis is neither sum_insured nor headcount' };
  }
  if (raw.max_items != null && !isCount(raw.max_items)) return { malformed: 'max_items is not a positive number' };
  const maxItemSi = optionalMinor(raw.max_item_sum_insured_minor);
  if (failed(maxItemSi)) return maxItemSi;
  const extensions = parseExtensions(raw.extensions);
  if (failed(extensions)) return extensions;
  const benefits = parseBenefits(raw.benefits);
  if (failed(benefits)) return benefits;
  return {
    basis: raw.basis,
    perInsured: raw.per_insured === true,
    headLabel: isText(raw.head_label) ? raw.head_label : 'persons',
    maxItems: isCount(raw.max_items) ? raw.max_items : null,
    maxItemSumInsuredMinor: maxItemSi,
    extensions,
    benefits,
  };
}

export const isMalformed = failed;
