/**
 * The medical line: family or group cover, an inpatient limit and optional riders, priced per member by age band.
 * Validation in normalise.ts (shape only), the rating rules, tables and terms in rating.ts.
 */
import { toShillings } from '../../../lib/money.ts';
import type { CoverInsured, CoverLine } from '../line.ts';
import { normaliseMedical } from './normalise.ts';
import { priceMedical } from './rating.ts';
import type { MedicalQuoteInput, MedicalRisk } from './types.ts';

export type {
  MedicalMember,
  MedicalMemberInput,
  MedicalQuoteInput,
  MedicalRiderCode,
  MedicalRiderInput,
  MedicalRisk,
} from './types.ts';

function insured(risk: MedicalRisk): CoverInsured[] {
  return risk.members.map((m) => ({
    kind: 'member',
    name: m.name ?? '',
    relationship: m.relationship,
    dateOfBirth: m.dateOfBirth,
    ageYears: m.ageYears,
    inSchool: m.inSchool,
    idNo: m.idNo,
  }));
}

function coverDetails(risk: MedicalRisk): Record<string, unknown> {
  return {
    cover_type: risk.coverType,
    inpatient_limit: toShillings(risk.inpatientLimitMinor),
    inpatient_limit_minor: Number(risk.inpatientLimitMinor),
    riders: risk.riders.map((r) => ({
      code: r.code,
      limit: toShillings(r.limitMinor),
      limit_minor: Number(r.limitMinor),
    })),
    headcount: risk.members.length,
  };
}

const describe = (risk: MedicalRisk): string =>
  risk.coverType === 'group'
    ? `group medical cover (${risk.members.length} ${risk.members.length === 1 ? 'member' : 'members'})`
    : 'family medical cover';

export const medicalLine: CoverLine<MedicalQuoteInput, MedicalRisk> = {
  line: 'medical',
  label: 'Medical',
  normalise: normaliseMedical,
  price: priceMedical,
  insured,
  coverDetails,
  describe,
};
