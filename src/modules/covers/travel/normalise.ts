import { addDays, daysBetween, isYmd, YMD_MESSAGE } from '../../../lib/dates.ts';
import { type FieldError, ValidationError } from '../../../lib/problem.ts';
import { fieldOf, type NormaliseOptions } from '../line.ts';
import type { Traveller, TravelQuoteInput, TravelRegion, TravelRisk } from './types.ts';
import { REGIONS } from '../vocabulary.ts';

/**
 * Bounds of the request's shape, not insurer terms (what an insurer rates — plans, day bands, ages — is its data):
 * a departure at most a year ahead, a trip of at most a year, 1 to 50 travellers, ages a person can have.
 */
const MAX_DAYS_AHEAD = 365;
const MAX_TRIP_DAYS = 365;
const MAX_TRAVELLERS = 50;
const MAX_AGE_YEARS = 120;
const MAX_TEXT = 200;
const MAX_INSURER_IDS = 100;
const PLAN_CODE = /^[A-Z0-9][A-Z0-9_-]{0,39}$/;
const PASSPORT_NO = /^[A-Z0-9]{4,20}$/;

type Field = (name: string) => string;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Age in whole months and whole years on a day. A month (or year) is complete on the same day of the month as the
 * birth; a birthday on a day the month lacks (29–31) completes on the 1st of the next month.
 */
export function ageOn(dateOfBirth: string, on: string): { years: number; months: number } {
  const [by, bm, bd] = dateOfBirth.split('-').map(Number) as [number, number, number];
  const [y, m, d] = on.split('-').map(Number) as [number, number, number];
  const months = (y - by) * 12 + (m - bm) - (d < bd ? 1 : 0);
  return { years: Math.floor(months / 12), months };
}

/** Optional free text: trimmed, null when empty; an error when not a string or too long. */
function optionalText(v: unknown, field: string, errors: FieldError[], max = MAX_TEXT): string | null {
  if (v == null) return null;
  if (typeof v !== 'string') errors.push({ field, message: 'text' });
  else if (v.trim().length > max) errors.push({ field, message: `at most ${max} characters` });
  else return v.trim() || null;
  return null;
}

function planCode(v: unknown, f: Field, errors: FieldError[]): string | null {
  const code = typeof v === 'string' ? v.trim().toUpperCase() : null;
  if (v == null || code === '')
    errors.push({ field: f('plan'), code: 'required', message: 'required: a travel plan code' });
  else if (code === null || !PLAN_CODE.test(code))
    errors.push({ field: f('plan'), message: 'a plan code: letters, digits, - or _, at most 40' });
  else return code;
  return null;
}

function regionOf(v: unknown, f: Field, errors: FieldError[]): TravelRegion | null {
  const region = typeof v === 'string' ? REGIONS.get(v.replace(/\s+/g, '').toLowerCase()) : undefined;
  if (region) return region;
  errors.push({ field: f('region'), message: 'africa, schengen (Europe) or worldwide' });
  return null;
}

/** Departure today or later and at most a year ahead; return on or after it; the trip at most a year. */
function tripDates(o: Record<string, unknown>, f: Field, today: string, errors: FieldError[]) {
  const [dep, ret] = [o.departureDate, o.returnDate];
  const latest = addDays(today, MAX_DAYS_AHEAD);
  let start: string | null = null;
  const departure = (message: string) => errors.push({ field: f('departure_date'), message });
  if (dep == null) departure('required: the first day of cover, Y-m-d');
  else if (!isYmd(dep)) departure(YMD_MESSAGE);
  else if (dep < today) departure(`today (${today}) or later: cover cannot start in the past`);
  else if (dep > latest) departure(`at most ${MAX_DAYS_AHEAD} days ahead (${latest} at the latest)`);
  else start = dep;
  const back = (message: string) => errors.push({ field: f('return_date'), message });
  if (ret == null) back('required: the last day of cover, Y-m-d');
  else if (!isYmd(ret)) back(YMD_MESSAGE);
  else if (start !== null && ret < start) back('on or after departure_date');
  else if (start !== null && daysBetween(start, ret) + 1 > MAX_TRIP_DAYS)
    back(`a trip of at most ${MAX_TRIP_DAYS} days, departure to return inclusive`);
  else if (start !== null) return { start, end: ret };
  return null;
}

interface TravellerContext {
  f: Field;
  /** Ages are taken at departure (today when the departure date is itself in error). */
  departure: string;
  today: string;
  forBind: boolean;
}

type Age = { years: number; months: number; dateOfBirth: string | null };

/** From date_of_birth at departure, or `age` in whole years (counted as age × 12 months) when no date is sent. */
function travellerAge(t: Record<string, unknown>, at: Field, c: TravellerContext, errors: FieldError[]): Age | null {
  const dob = t.dateOfBirth;
  if (dob != null) {
    if (!isYmd(dob)) errors.push({ field: at('date_of_birth'), message: YMD_MESSAGE });
    else if (dob > c.today) errors.push({ field: at('date_of_birth'), message: 'not in the future' });
    else {
      const age = ageOn(dob, c.departure);
      if (age.years <= MAX_AGE_YEARS) return { ...age, dateOfBirth: dob };
      errors.push({ field: at('date_of_birth'), message: `an age of at most ${MAX_AGE_YEARS} years` });
    }
    return null;
  }
  const age = t.age;
  if (age == null) errors.push({ field: at('date_of_birth'), message: 'date_of_birth or age is required' });
  else if (typeof age !== 'number' || !Number.isInteger(age) || age < 0 || age > MAX_AGE_YEARS)
    errors.push({ field: at('age'), message: `whole years, 0–${MAX_AGE_YEARS}` });
  else if (age === 0)
    errors.push({ field: at('age'), message: 'under one year: send date_of_birth (infants are rated by months)' });
  else return { years: age, months: age * 12, dateOfBirth: null };
  return null;
}

function traveller(t: unknown, i: number, c: TravellerContext, errors: FieldError[]): Traveller | null {
  const at: Field = (name) => c.f(`travellers.${i}.${name}`);
  if (!isRecord(t)) {
    errors.push({ field: c.f(`travellers.${i}`), message: 'a traveller: name, date_of_birth or age, passport_no' });
    return null;
  }
  const before = errors.length;
  const name = optionalText(t.name, at('name'), errors);
  if (c.forBind && name === null && errors.length === before)
    errors.push({ field: at('name'), code: 'required', message: 'required to bind: the name as on the passport' });
  const age = travellerAge(t, at, c, errors);
  const passport = optionalText(t.passportNo, at('passport_no'), errors);
  const passportNo = passport === null ? null : passport.replace(/\s+/g, '').toUpperCase();
  if (passportNo !== null && !PASSPORT_NO.test(passportNo))
    errors.push({ field: at('passport_no'), message: 'a passport number: 4–20 letters and digits' });
  if (!age) return null;
  return { name, dateOfBirth: age.dateOfBirth, ageYears: age.years, ageMonths: age.months, passportNo };
}

function travellers(v: unknown, c: TravellerContext, errors: FieldError[]): (Traveller | null)[] {
  const field = c.f('travellers');
  if (v == null) errors.push({ field, code: 'required', message: 'required: at least one traveller' });
  else if (!Array.isArray(v)) errors.push({ field, message: 'a list of travellers' });
  else if (v.length === 0) errors.push({ field, message: 'at least one traveller' });
  else if (v.length > MAX_TRAVELLERS) errors.push({ field, message: `at most ${MAX_TRAVELLERS} travellers a policy` });
  else return v.map((t, i) => traveller(t, i, c, errors));
  return [];
}

function insurerIds(v: unknown, f: Field, errors: FieldError[]): number[] | null {
  if (v == null) return null;
  if (!Array.isArray(v)) errors.push({ field: f('insurer_ids'), message: 'a list of insurer ids' });
  else if (v.length > MAX_INSURER_IDS)
    errors.push({ field: f('insurer_ids'), message: `at most ${MAX_INSURER_IDS} insurer ids` });
  else {
    const bad = v.findIndex((x) => !Number.isSafeInteger(x) || (x as number) < 1);
    if (bad < 0) return v.length ? [...new Set(v as number[])] : null;
    errors.push({ field: f(`insurer_ids.${bad}`), message: 'an insurer id: a positive whole number' });
  }
  return null;
}

/** Validates and normalises a travel request: every field error at once, in the caller's (REST) spelling. */
export function normaliseTravel(input: TravelQuoteInput, opts: NormaliseOptions): TravelRisk {
  const o: Record<string, unknown> = isRecord(input) ? input : {};
  const f = fieldOf(opts.prefix);
  const errors: FieldError[] = [];
  const plan = planCode(o.plan, f, errors);
  const region = regionOf(o.region, f, errors);
  const destination = optionalText(o.destination, f('destination'), errors);
  const dates = tripDates(o, f, opts.today, errors);
  const context = { f, departure: dates?.start ?? opts.today, today: opts.today, forBind: opts.forBind === true };
  const list = travellers(o.travellers, context, errors);
  const ids = insurerIds(o.insurerIds, f, errors);
  if (errors.length || !plan || !region || !dates) throw new ValidationError(errors);
  return {
    line: 'travel',
    productCode: 'TRAVEL',
    coverPeriod: 'trip',
    startDate: dates.start,
    endDate: dates.end,
    days: daysBetween(dates.start, dates.end) + 1,
    insurerIds: ids,
    plan,
    region,
    destination,
    travellers: list as Traveller[],
  };
}
