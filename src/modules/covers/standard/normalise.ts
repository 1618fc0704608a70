/**
 * A standard-product request checked and normalised. Only its shape is checked here: which products rate on the sum
 * insured or on headcount, and which extensions exist, are each insurer's terms (data), so price() refuses what a
 * product cannot rate. Every field error is collected and thrown at once in the caller's spelling.
 */
import { boundsCode } from '../../../lib/field-errors.ts';
import { annualEnd, daysBetween, isYmd, YMD_MESSAGE } from '../../../lib/dates.ts';
import { fromShillings } from '../../../lib/money.ts';
import { type FieldError, ValidationError } from '../../../lib/problem.ts';
import { fieldOf, type NormaliseOptions } from '../line.ts';
import type { StandardItem, StandardRisk } from './types.ts';
import { STANDARD_LIMITS } from '../vocabulary.ts';

type Field = (name: string) => string;
type Input = Record<string, unknown>;

const isRecord = (v: unknown): v is Input => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Optional text: absent, null or blank is null; otherwise a string of at most `max` characters once trimmed. */
function optionalText(v: unknown, max: number): string | null | undefined {
  if (v == null) return null;
  if (typeof v !== 'string' || v.trim().length > max) return undefined;
  return v.trim() || null;
}

function normaliseItem(v: unknown, at: Field, forBind: boolean, errors: FieldError[]): StandardItem {
  const item: StandardItem = { description: null, sumInsuredMinor: null, idNo: null };
  if (!isRecord(v)) {
    errors.push({ field: at(''), message: 'an item: description, sum_insured (whole shillings), id_no' });
    return item;
  }
  const description = optionalText(v.description, STANDARD_LIMITS.text);
  if (description === undefined) {
    errors.push({ field: at('description'), message: `text, at most ${STANDARD_LIMITS.text} characters` });
  } else if (description === null && forBind) {
    errors.push({
      field: at('description'),
      code: 'required',
      message: 'required to bind: what is insured, or the person insured',
    });
  } else item.description = description;
  const si = v.sumInsured;
  if (si != null) {
    const code =
      typeof si !== 'number'
        ? 'not_a_number'
        : boundsCode(si, { whole: true, min: 1, max: STANDARD_LIMITS.sumInsured });
    if (code) {
      errors.push({
        field: at('sum_insured'),
        code,
        message: `a positive amount in whole shillings, at most ${STANDARD_LIMITS.sumInsured.toLocaleString('en')}`,
      });
    } else item.sumInsuredMinor = fromShillings(si as number);
  }
  const idNo = optionalText(v.idNo, STANDARD_LIMITS.idNo);
  if (idNo === undefined) errors.push({ field: at('id_no'), message: `at most ${STANDARD_LIMITS.idNo} characters` });
  else item.idNo = idNo;
  return item;
}

function normaliseItems(v: unknown, f: Field, forBind: boolean, errors: FieldError[]): StandardItem[] {
  if (v == null) return [];
  if (!Array.isArray(v)) {
    errors.push({ field: f('items'), message: 'a list of the insured items or persons' });
    return [];
  }
  if (v.length > STANDARD_LIMITS.items) {
    errors.push({ field: f('items'), message: `at most ${STANDARD_LIMITS.items} items a policy` });
    return [];
  }
  return v.map((item, i) =>
    normaliseItem(item, (name) => f(name ? `items.${i}.${name}` : `items.${i}`), forBind, errors),
  );
}

function normaliseHeadcount(v: unknown, items: StandardItem[], f: Field, errors: FieldError[]): number | null {
  if (v == null) return items.length || null;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1 || v > STANDARD_LIMITS.headcount) {
    errors.push({
      field: f('headcount'),
      message: `persons covered, a whole number 1–${STANDARD_LIMITS.headcount.toLocaleString('en')}`,
    });
    return null;
  }
  if (items.length && v !== items.length) {
    errors.push({
      field: f('headcount'),
      message: `must equal the number of items listed (${items.length}), or be left out`,
    });
  }
  return v;
}

function normaliseExtensions(v: unknown, f: Field, errors: FieldError[]): string[] {
  if (v == null) return [];
  if (!Array.isArray(v) || v.length > STANDARD_LIMITS.extensions) {
    errors.push({
      field: f('extensions'),
      message: `a list of at most ${STANDARD_LIMITS.extensions} extension codes`,
    });
    return [];
  }
  const out = new Set<string>();
  for (const [i, code] of v.entries()) {
    const ok = typeof code === 'string' && /^[a-z0-9_]+$/i.test(code.trim());
    if (!ok || code.trim().length > STANDARD_LIMITS.code) {
      errors.push({ field: f(`extensions.${i}`), message: "an extension code, as the product's terms list it" });
    } else out.add(code.trim().toLowerCase());
  }
  return [...out];
}

function normaliseInsurers(v: unknown, f: Field, errors: FieldError[]): number[] | null {
  if (v == null) return null;
  const ok =
    Array.isArray(v) &&
    v.length <= STANDARD_LIMITS.insurers &&
    v.every((id) => typeof id === 'number' && Number.isSafeInteger(id) && id > 0);
  if (!ok) {
    errors.push({
      field: f('insurer_ids'),
      message: `a list of at most ${STANDARD_LIMITS.insurers} insurer ids`,
    });
    return null;
  }
  return v.length ? [...new Set(v as number[])] : null;
}

function normaliseProduct(v: unknown, f: Field, errors: FieldError[]): string {
  const code = typeof v === 'string' ? v.trim().toUpperCase() : '';
  if (!code || code.length > STANDARD_LIMITS.code || !/^[A-Z0-9_-]+$/.test(code)) {
    errors.push({
      field: f('product'),
      message: 'the standard product code (GET /products standard_products[].code), e.g. DOMESTIC',
    });
  }
  return code;
}

export function normaliseStandard(input: unknown, opts: NormaliseOptions): StandardRisk {
  const f = fieldOf(opts.prefix);
  const o = isRecord(input) ? input : {};
  const errors: FieldError[] = [];
  const productCode = normaliseProduct(o.product, f, errors);
  const items = normaliseItems(o.items, f, opts.forBind ?? false, errors);
  const headcount = normaliseHeadcount(o.headcount, items, f, errors);
  if (!items.length && o.headcount == null && !errors.some((e) => e.field === f('items'))) {
    errors.push({ field: f('items'), message: 'list at least one insured item or person, or send headcount' });
  }
  const extensions = normaliseExtensions(o.extensions, f, errors);
  const insurerIds = normaliseInsurers(o.insurerIds, f, errors);
  let startDate = opts.today;
  if (o.startDate != null) {
    if (!isYmd(o.startDate)) errors.push({ field: f('start_date'), message: YMD_MESSAGE });
    else if (o.startDate > opts.today) startDate = o.startDate;
  }
  if (errors.length) throw new ValidationError(errors);
  const endDate = annualEnd(startDate);
  return {
    line: 'standard',
    productCode,
    coverPeriod: 'annual',
    startDate,
    endDate,
    days: daysBetween(startDate, endDate) + 1,
    insurerIds,
    items,
    headcount,
    totalSumInsuredMinor: items.reduce((s, it) => s + (it.sumInsuredMinor ?? 0n), 0n),
    extensions,
  };
}
