/**
 * A medical product's terms (cover_products.terms), read defensively: a product whose terms are missing or malformed
 * for the cover asked is ineligible with a reason, never a crash. The keys are documented in rating.ts.
 */
import type { Ineligible } from '../line.ts';
import type { MedicalMember } from './types.ts';
import { type CoverType, recordOf } from './members.ts';

export interface Composition {
  /** principal (family) or employee (group). */
  head: 'principal' | 'employee';
  headMinAge: number;
  headMaxAge: number;
  /** Per principal (family) or per employee (group). */
  maxSpouses: number;
  spouseMinAge: number;
  /** Inclusive: a child is covered up to this age, or up to studentMaxAge when in school. */
  childMaxAge: number;
  studentMaxAge: number;
}

export interface MedicalTerms {
  composition: Composition;
  waitingPeriods: { illnessDays: number; maternityMonths: number };
  /** Benefit names by code (inpatient and the riders); a code without a name is shown by its code. */
  benefitNames: Record<string, string>;
}

/** A non-negative whole number at `obj[key]`, or the dotted path of the key for the refusal. */
function wholeAt(obj: Record<string, unknown>, key: string, path: string, missing: string[]): number {
  const v = obj[key];
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  missing.push(`${path}.${key}`);
  return 0;
}

function compositionOf(c: Record<string, unknown>, coverType: CoverType, missing: string[]): Composition {
  const head = coverType === 'family' ? 'principal' : 'employee';
  return {
    head,
    headMinAge: wholeAt(c, `${head}_min_age`, coverType, missing),
    headMaxAge: wholeAt(c, `${head}_max_age`, coverType, missing),
    maxSpouses: wholeAt(c, 'max_spouses', coverType, missing),
    spouseMinAge: wholeAt(c, 'spouse_min_age', coverType, missing),
    childMaxAge: wholeAt(c, 'child_max_age', coverType, missing),
    studentMaxAge: wholeAt(c, 'student_max_age', coverType, missing),
  };
}

export function medicalTermsOf(terms: unknown, coverType: CoverType): MedicalTerms | Ineligible {
  const t = recordOf(terms);
  const c = t && recordOf(t[coverType]);
  if (!t || !c) return { ineligible: `does not offer ${coverType} medical cover` };
  const missing: string[] = [];
  const composition = compositionOf(c, coverType, missing);
  const w = recordOf(recordOf(t.waiting_periods)?.[coverType]) ?? {};
  const path = `waiting_periods.${coverType}`;
  const waitingPeriods = {
    illnessDays: wholeAt(w, 'illness_days', path, missing),
    maternityMonths: wholeAt(w, 'maternity_months', path, missing),
  };
  const names = recordOf(t.benefit_names) ?? {};
  const benefitNames = Object.fromEntries(
    Object.entries(names).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].trim() !== ''),
  );
  if (missing.length) return { ineligible: `its medical terms are incomplete (${missing.join(', ')})` };
  return { composition, waitingPeriods, benefitNames };
}

const years = (n: number) => `${n} ${n === 1 ? 'year' : 'years'}`;
const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');

function memberRefusal(c: Composition, m: MedicalMember, n: number, spouses: number): string | null {
  if (m.relationship === c.head && (m.ageYears < c.headMinAge || m.ageYears > c.headMaxAge)) {
    return `covers ${article(c.head)} ${c.head} aged ${c.headMinAge}–${c.headMaxAge} (member ${n} is ${m.ageYears})`;
  }
  if (m.relationship === 'spouse' && spouses > c.maxSpouses) {
    return `covers at most ${c.maxSpouses} ${c.maxSpouses === 1 ? 'spouse' : 'spouses'} per ${c.head} (member ${n})`;
  }
  if (m.relationship === 'spouse' && m.ageYears < c.spouseMinAge) {
    return `covers a spouse aged ${c.spouseMinAge} or over (member ${n} is ${m.ageYears})`;
  }
  const childMax = m.inSchool ? Math.max(c.childMaxAge, c.studentMaxAge) : c.childMaxAge;
  if (m.relationship === 'child' && m.ageYears > childMax) {
    return (
      `covers children up to ${years(c.childMaxAge)} old, or ${c.studentMaxAge} in school ` +
      `(member ${n} is ${m.ageYears}${m.inSchool ? ', in school' : ', not in school'})`
    );
  }
  return null;
}

/**
 * Why the insurer's composition limits refuse these members (the first reason, members counted from 1), or null. A
 * family counts its spouses together; a group counts each employee's, the dependants following their employee.
 */
export function compositionRefusal(c: Composition, members: readonly MedicalMember[]): string | null {
  let spouses = 0;
  for (const [i, m] of members.entries()) {
    if (m.relationship === 'employee') spouses = 0;
    if (m.relationship === 'spouse') spouses += 1;
    const refusal = memberRefusal(c, m, i + 1, spouses);
    if (refusal) return refusal;
  }
  return null;
}
