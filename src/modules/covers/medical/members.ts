/**
 * The members of a medical request: each one's shape (relationship, age or date of birth, in school, name, ID) and
 * the family or group outline (one principal; a group's dependants after their employee). The composition limits
 * insurers set (ages, spouses, children's ages) are data, checked when pricing (composition.ts).
 */
import { isYmd, YMD_MESSAGE } from '../../../lib/dates.ts';
import type { FieldError } from '../../../lib/problem.ts';
import type { MedicalMember } from './types.ts';
import { RELATIONSHIPS } from '../vocabulary.ts';

/** Outer bounds of a request (no insurer's terms reach them). */
export const MAX_MEMBERS = 500;
export const MAX_AGE = 120;
const MAX_NAME = 200;
const MAX_ID = 50;

export type CoverType = 'family' | 'group';
type Relationship = MedicalMember['relationship'];

export interface MemberContext {
  field: (name: string) => string;
  /** null when the cover type itself is invalid: any relationship of either type passes. */
  coverType: CoverType | null;
  startDate: string;
  forBind: boolean;
  errors: FieldError[];
}

/** A plain object, or null for anything else (arrays, strings, null). */
export const recordOf = (x: unknown): Record<string, unknown> | null =>
  x !== null && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : null;

/** Whole years from a date of birth to a day (a 29 February birthday comes on 1 March in other years). */
export function ageOn(dateOfBirth: string, on: string): number {
  const years = Number(on.slice(0, 4)) - Number(dateOfBirth.slice(0, 4));
  return on.slice(5) < dateOfBirth.slice(5) ? years - 1 : years;
}

/** Optional text: null when absent or blank; an error when not a string or too long. */
export function optionalText(v: unknown, field: string, max: number, errors: FieldError[]): string | null {
  if (v == null) return null;
  if (typeof v !== 'string') {
    errors.push({ field, message: 'text' });
    return null;
  }
  const s = v.trim();
  if (s.length > max) errors.push({ field, message: `at most ${max} characters` });
  return s || null;
}

function relationshipOf(v: unknown, field: string, ctx: MemberContext): Relationship | null {
  const allowed: readonly Relationship[] = ctx.coverType
    ? RELATIONSHIPS[ctx.coverType]
    : [...RELATIONSHIPS.family, 'employee'];
  const s = typeof v === 'string' ? v.trim().toLowerCase() : '';
  const found = allowed.find((r) => r === s);
  if (!found) {
    const what = ctx.coverType ? `for ${ctx.coverType} cover, ` : '';
    ctx.errors.push({ field, message: `${v == null ? 'required: ' : ''}${what}one of ${allowed.join(', ')}` });
  }
  return found ?? null;
}

/** Age in whole years at the start of cover: from the date of birth when sent, else `age`. */
function ageOf(m: Record<string, unknown>, f: (name: string) => string, ctx: MemberContext): number | null {
  const { errors } = ctx;
  let age: number | null = null;
  if (m.age != null) {
    if (typeof m.age !== 'number' || !Number.isInteger(m.age) || m.age < 0 || m.age > MAX_AGE) {
      errors.push({ field: f('age'), message: `whole years, 0–${MAX_AGE}` });
    } else age = m.age;
  }
  if (m.dateOfBirth == null) {
    if (m.age == null)
      errors.push({ field: f('date_of_birth'), code: 'required', message: 'required: a date of birth or an age' });
    return age;
  }
  if (!isYmd(m.dateOfBirth)) {
    errors.push({ field: f('date_of_birth'), message: YMD_MESSAGE });
    return null;
  }
  if (m.dateOfBirth > ctx.startDate) {
    errors.push({ field: f('date_of_birth'), message: `on or before the start of cover (${ctx.startDate})` });
    return null;
  }
  const years = ageOn(m.dateOfBirth, ctx.startDate);
  if (years > MAX_AGE) {
    errors.push({ field: f('date_of_birth'), message: `an age of at most ${MAX_AGE} at the start of cover` });
    return null;
  }
  return years;
}

function memberOf(raw: unknown, i: number, ctx: MemberContext): MedicalMember | null {
  const f = (name: string) => ctx.field(`members.${i}.${name}`);
  const m = recordOf(raw);
  if (!m) {
    ctx.errors.push({ field: ctx.field(`members.${i}`), message: 'a member: relationship, date_of_birth or age' });
    return null;
  }
  const before = ctx.errors.length;
  const name = optionalText(m.name, f('name'), MAX_NAME, ctx.errors);
  if (ctx.forBind && name === null && (m.name == null || typeof m.name === 'string')) {
    ctx.errors.push({ field: f('name'), code: 'required', message: 'required' });
  }
  const relationship = relationshipOf(m.relationship, f('relationship'), ctx);
  const ageYears = ageOf(m, f, ctx);
  if (m.inSchool != null && typeof m.inSchool !== 'boolean') {
    ctx.errors.push({ field: f('in_school'), message: 'true or false' });
  }
  const idNo = optionalText(m.idNo, f('id_no'), MAX_ID, ctx.errors);
  if (ctx.errors.length > before || relationship === null || ageYears === null) return null;
  return {
    name,
    relationship,
    dateOfBirth: typeof m.dateOfBirth === 'string' ? m.dateOfBirth : null,
    ageYears,
    inSchool: m.inSchool === true,
    idNo,
  };
}

/** The outline every insurer shares: a family has exactly one principal; a group lists an employee first. */
function outlineErrors(members: readonly (MedicalMember | null)[], ctx: MemberContext): void {
  if (ctx.coverType === 'group') {
    if (members[0] && members[0].relationship !== 'employee') {
      ctx.errors.push({
        field: ctx.field('members.0.relationship'),
        message: 'a group lists each employee first, followed by their spouse and children',
      });
    }
    return;
  }
  if (ctx.coverType !== 'family' || members.some((m) => m === null)) return;
  const principals = members.flatMap((m, i) => (m?.relationship === 'principal' ? [i] : []));
  if (!principals.length) ctx.errors.push({ field: ctx.field('members'), message: 'a family needs one principal' });
  for (const i of principals.slice(1)) {
    ctx.errors.push({ field: ctx.field(`members.${i}.relationship`), message: 'a family has one principal' });
  }
}

/** The members in the request's order; every error collected into ctx.errors. */
export function membersOf(raw: unknown, ctx: MemberContext): MedicalMember[] {
  if (raw == null || !Array.isArray(raw) || raw.length === 0) {
    ctx.errors.push({ field: ctx.field('members'), message: `a list of 1–${MAX_MEMBERS} members` });
    return [];
  }
  if (raw.length > MAX_MEMBERS) {
    ctx.errors.push({ field: ctx.field('members'), message: `at most ${MAX_MEMBERS} members` });
    return [];
  }
  const members = raw.map((m, i) => memberOf(m, i, ctx));
  outlineErrors(members, ctx);
  return members.filter((m): m is MedicalMember => m !== null);
}
