/** The medical line's request and normalised risk (medical.ts re-exports them: the contract's names). */
import type { CoverRiskBase } from '../line.ts';

/** A member as sent: principal, spouse or child (family), or employee (group, with their dependants). */
export interface MedicalMemberInput {
  name?: string | null;
  relationship?: string | null;
  /** Y-m-d; or `age` in whole years. */
  dateOfBirth?: string | null;
  age?: number | null;
  inSchool?: boolean | null;
  idNo?: string | null;
}

export interface MedicalRiderInput {
  /** outpatient, maternity, dental, optical */
  code?: string | null;
  /** Whole shillings: one of the rider's limit bands. */
  limit?: number | null;
}

export interface MedicalQuoteInput {
  /** family (default) or group */
  coverType?: string | null;
  /** Whole shillings: one of the inpatient limit bands. */
  inpatientLimit?: number | null;
  riders?: MedicalRiderInput[] | null;
  members?: MedicalMemberInput[] | null;
  startDate?: string | null;
  insurerIds?: number[] | null;
}

export interface MedicalMember {
  name: string | null;
  relationship: 'principal' | 'spouse' | 'child' | 'employee';
  dateOfBirth: string | null;
  /** Whole years at the start of cover. */
  ageYears: number;
  inSchool: boolean;
  idNo: string | null;
}

export type MedicalRiderCode = 'outpatient' | 'maternity' | 'dental' | 'optical';

export interface MedicalRisk extends CoverRiskBase {
  line: 'medical';
  coverType: 'family' | 'group';
  inpatientLimitMinor: bigint;
  riders: { code: MedicalRiderCode; limitMinor: bigint }[];
  members: MedicalMember[];
}
