/**
 * A travel product's terms (cover_products.terms), parsed defensively: a product whose terms do not have this shape
 * is refused with the reason, never a crash. The keys are documented in rating.ts.
 */
export interface TravelPlan {
  /** Upper case; requests match it in any case. */
  code: string;
  name: string;
  /** Emergency medical expenses limit, whole euros. */
  medicalLimitEur: number;
  /** Further benefits, as stated (shown with the option). */
  benefits: string[];
}

export interface TravelTerms {
  plans: TravelPlan[];
  /** The Schengen visa's minimum medical cover, whole euros; null when the terms do not state one. */
  schengenMinMedicalEur: number | null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const isWholeEuros = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;

const isText = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

function planOf(v: unknown, i: number): TravelPlan | string {
  if (!isRecord(v)) return `plans[${i}] is not an object`;
  if (!isText(v.code)) return `plans[${i}].code is missing`;
  if (!isText(v.name)) return `plans[${i}].name is missing`;
  if (!isWholeEuros(v.medical_limit_eur)) return `plans[${i}].medical_limit_eur is not a positive whole number`;
  const benefits = v.benefits ?? [];
  if (!Array.isArray(benefits) || !benefits.every(isText)) return `plans[${i}].benefits is not a list of texts`;
  return {
    code: v.code.trim().toUpperCase(),
    name: v.name.trim(),
    medicalLimitEur: v.medical_limit_eur,
    benefits: benefits.map((b) => b.trim()),
  };
}

/** The terms, or what is wrong with them. */
export function parseTravelTerms(terms: unknown): TravelTerms | { malformed: string } {
  if (!isRecord(terms)) return { malformed: 'terms are not an object' };
  if (!Array.isArray(terms.plans) || terms.plans.length === 0) return { malformed: 'terms list no plans' };
  const plans: TravelPlan[] = [];
  for (const [i, v] of terms.plans.entries()) {
    const plan = planOf(v, i);
    if (typeof plan === 'string') return { malformed: plan };
    if (plans.some((p) => p.code === plan.code)) return { malformed: `plan ${plan.code} is listed twice` };
    plans.push(plan);
  }
  const min = terms.schengen_min_medical_eur;
  if (min != null && !isWholeEuros(min))
    return { malformed: 'schengen_min_medical_eur is not a positive whole number' };
  return { plans, schengenMinMedicalEur: isWholeEuros(min) ? min : null };
}
