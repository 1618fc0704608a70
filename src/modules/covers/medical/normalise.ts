/**
 * Validating and normalising a medical request: shape only (field names in REST spelling with the caller's prefix).
 * Which limits an insurer offers and the family or group composition limits are its data, checked by price().
 */
import { annualEnd, daysBetween, isYmd, YMD_MESSAGE } from '../../../lib/dates.ts';
import { fromShillings } from '../../../lib/money.ts';
import { type FieldError, ValidationError } from '../../../lib/problem.ts';
import { fieldOf, type NormaliseOptions } from '../line.ts';
import type { MedicalQuoteInput, MedicalRisk } from './types.ts';
import { type CoverType, membersOf, recordOf } from './members.ts';
import { RIDER_CODES } from '../vocabulary.ts';

const COVER_TYPES: readonly CoverType[] = ['family', 'group'];
/** Outer bounds: a limit in whole shillings, and how many insurers a request may name. */
const MAX_LIMIT_SHILLINGS = 1_000_000_000;
const MAX_INSURER_IDS = 100;

type Field = (name: string) => string;

/** A limit in whole shillings, as cents; null (with an error) when absent or not a positive whole amount. */
function limitOf(v: unknown, field: string, errors: FieldError[]): bigint | null {
  if (typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= MAX_LIMIT_SHILLINGS) return fromShillings(v);
  const what = `a limit in whole shillings, 1–${MAX_LIMIT_SHILLINGS.toLocaleString('en-KE')}`;
  errors.push({ field, message: v == null ? `required: ${what}` : what });
  return null;
}

function coverTypeOf(v: unknown, f: Field, errors: FieldError[]): CoverType | null {
  if (v == null) return 'family';
  const s = typeof v === 'string' ? v.trim().toLowerCase() : '';
  const found = COVER_TYPES.find((t) => t === s);
  if (!found) errors.push({ field: f('cover_type'), message: 'family or group' });
  return found ?? null;
}

function ridersOf(v: unknown, f: Field, errors: FieldError[]): MedicalRisk['riders'] {
  if (v == null) return [];
  if (!Array.isArray(v) || v.length > RIDER_CODES.length) {
    errors.push({ field: f('riders'), message: `a list of riders, each of ${RIDER_CODES.join(', ')} at most once` });
    return [];
  }
  const riders: MedicalRisk['riders'] = [];
  v.forEach((raw: unknown, i) => {
    const r = recordOf(raw);
    if (!r) {
      errors.push({ field: f(`riders.${i}`), message: 'a rider: code and limit' });
      return;
    }
    const s = typeof r.code === 'string' ? r.code.trim().toLowerCase() : '';
    const code = RIDER_CODES.find((c) => c === s);
    if (!code) errors.push({ field: f(`riders.${i}.code`), message: `one of ${RIDER_CODES.join(', ')}` });
    else if (riders.some((x) => x.code === code)) {
      errors.push({ field: f(`riders.${i}.code`), message: 'each rider at most once' });
    }
    const limitMinor = limitOf(r.limit, f(`riders.${i}.limit`), errors);
    if (code && limitMinor !== null && !riders.some((x) => x.code === code)) riders.push({ code, limitMinor });
  });
  return riders;
}

function insurerIdsOf(v: unknown, f: Field, errors: FieldError[]): number[] | null {
  if (v == null) return null;
  if (!Array.isArray(v) || v.length > MAX_INSURER_IDS) {
    errors.push({ field: f('insurer_ids'), message: `a list of at most ${MAX_INSURER_IDS} insurer ids` });
    return null;
  }
  const ok = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x > 0;
  v.forEach((x: unknown, i) => {
    if (!ok(x)) errors.push({ field: f(`insurer_ids.${i}`), message: 'an insurer id' });
  });
  const ids = [...new Set(v.filter(ok))];
  return ids.length ? ids : null;
}

/** The start of cover: `today` when absent or in the past (a quote cannot cover days gone by). */
function startDateOf(v: unknown, f: Field, today: string, errors: FieldError[]): string {
  if (v == null) return today;
  if (!isYmd(v)) {
    errors.push({ field: f('start_date'), message: YMD_MESSAGE });
    return today;
  }
  return v > today ? v : today;
}

export function normaliseMedical(input: MedicalQuoteInput, opts: NormaliseOptions): MedicalRisk {
  const f = fieldOf(opts.prefix);
  const errors: FieldError[] = [];
  const o = recordOf(input) ?? {};
  const coverType = coverTypeOf(o.coverType, f, errors);
  const inpatientLimitMinor = limitOf(o.inpatientLimit, f('inpatient_limit'), errors);
  const riders = ridersOf(o.riders, f, errors);
  const startDate = startDateOf(o.startDate, f, opts.today, errors);
  const insurerIds = insurerIdsOf(o.insurerIds, f, errors);
  const members = membersOf(o.members, { field: f, coverType, startDate, forBind: opts.forBind === true, errors });
  if (errors.length) throw new ValidationError(errors);
  const endDate = annualEnd(startDate);
  return {
    line: 'medical',
    productCode: 'MEDICAL',
    coverPeriod: 'annual',
    startDate,
    endDate,
    days: daysBetween(startDate, endDate) + 1,
    insurerIds,
    coverType: coverType!,
    inpatientLimitMinor: inpatientLimitMinor!,
    riders,
    members,
  };
}
