import { isYmd, toDbDate, YMD_MESSAGE } from '../../../lib/dates.ts';
import { DomainRuleError, type FieldError, ValidationError } from '../../../lib/problem.ts';
import { medicalLine } from '../../covers/medical/medical.ts';
import { ageOn, MAX_AGE } from '../../covers/medical/members.ts';
import { RELATIONSHIPS } from '../../covers/vocabulary.ts';
import { medicalRiskOf, memberOf, policyCoverProduct, priceOrRefuse } from '../cover-risk.ts';
import { priceTerms } from '../proration.ts';
import { activeRisks, startRiskItem } from './insured.ts';
import { cleanText, type EndorseMemberInput, type EndorsementOperationRules, n, storedEffect } from './shared.ts';

type Relationship = (typeof RELATIONSHIPS)['family' | 'group'][number];
const ANY_RELATIONSHIP: readonly string[] = [...new Set([...RELATIONSHIPS.family, ...RELATIONSHIPS.group])];

/** `changes.member` as price stored it. */
interface StoredMember {
  name: string;
  relationship: Relationship;
  date_of_birth: string | null;
  age: number;
  in_school: boolean;
  id_no: string | null;
}

/**
 * A member joins a medical policy from the effective date: their annual premium is their share of the family's (or
 * group's) premium priced by the medical line on the policy's cover product at the insurer's current rates, the
 * member's age taken on the effective date; effect +U(B, e). The insurer's composition rules (ages, spouses) apply.
 */
export const addMember: EndorsementOperationRules = {
  lines: ['medical'],

  validate(input) {
    const m = input.member;
    if (!m)
      return [
        { field: 'input.member', code: 'required', message: 'required: name, relationship, date_of_birth or age' },
      ];
    const errors: FieldError[] = [];
    if (!cleanText(m.name, 200)) errors.push({ field: 'input.member.name', code: 'required', message: 'required' });
    if (!ANY_RELATIONSHIP.includes((m.relationship ?? '').trim().toLowerCase()))
      errors.push({ field: 'input.member.relationship', message: `one of ${ANY_RELATIONSHIP.join(', ')}` });
    if (m.dateOfBirth != null && !isYmd(m.dateOfBirth))
      errors.push({ field: 'input.member.dateOfBirth', code: 'invalid_value', message: YMD_MESSAGE });
    if (m.age != null && !(Number.isInteger(m.age) && m.age >= 0 && m.age <= MAX_AGE))
      errors.push({ field: 'input.member.age', message: `whole years, 0–${MAX_AGE}` });
    if (m.dateOfBirth == null && m.age == null)
      errors.push({
        field: 'input.member.dateOfBirth',
        code: 'required',
        message: 'required: a date of birth or an age',
      });
    if (m.idNo != null && m.idNo.length > 50)
      errors.push({ field: 'input.member.idNo', message: 'at most 50 characters' });
    return errors;
  },

  async price({ ctx, tx, pol, input, e, period, table }) {
    const member = storedMember(input.member!, e);
    const coverType = (pol.coverDetails as { cover_type?: string } | null)?.cover_type === 'group' ? 'group' : 'family';
    if (!(RELATIONSHIPS[coverType] as readonly string[]).includes(member.relationship))
      throw new DomainRuleError(`A ${coverType} cover's members are ${RELATIONSHIPS[coverType].join(', ')}`);
    if (member.relationship === 'principal' && activeRisks(pol).some((r) => r.relationship === 'principal'))
      throw new DomainRuleError('A family has one principal, and this one has theirs');
    const product = await policyCoverProduct(ctx, tx, pol);
    const members = [...activeRisks(pol).map((r) => memberOf(r)), toMedical(member)];
    const priced = priceOrRefuse(medicalLine, product, medicalRiskOf(pol, product, members, period));
    const b = priced.perInsuredMinor?.at(-1);
    if (b == null) throw new Error('the medical line priced a family without each member’s share');
    const effect = storedEffect(priceTerms(period, [{ annualBasicMinor: b, at: e, sign: 1 }], table), period, e, [
      {
        regno: null,
        vehicle_id: null,
        insured: member.name,
        risk_id: null,
        annual_basic_before_minor: null,
        annual_basic_after_minor: n(b),
      },
    ]);
    return { changes: { member }, effect, productVersion: product.version };
  },

  async apply(a) {
    const m = a.changes.member as StoredMember;
    const risk = await a.tx.policyRisk.create({
      data: {
        tenantId: a.pol.tenantId,
        policyId: a.pol.id,
        kind: 'member',
        name: m.name,
        relationship: m.relationship,
        dateOfBirth: m.date_of_birth ? toDbDate(m.date_of_birth) : null,
        ageYears: m.age,
        inSchool: m.in_school,
        idNo: m.id_no,
        addedOn: a.end.effectiveDate,
        addedByEndorsementId: a.end.id,
      },
    });
    await startRiskItem(a, risk.id, BigInt(a.effect.items[0].annual_basic_after_minor!));
    a.effect.items[0].risk_id = risk.id;
    return {};
  },
};

/** The member as stored in `changes`: their age on the effective date (from the date of birth when given). */
function storedMember(m: EndorseMemberInput, e: string): StoredMember {
  const dob = m.dateOfBirth ?? null;
  if (dob && dob > e)
    throw new ValidationError([
      { field: 'input.member.dateOfBirth', message: `on or before the effective date (${e})` },
    ]);
  return {
    name: cleanText(m.name, 200)!,
    relationship: m.relationship!.trim().toLowerCase() as Relationship,
    date_of_birth: dob,
    age: dob ? ageOn(dob, e) : m.age!,
    in_school: m.inSchool === true,
    id_no: cleanText(m.idNo, 50),
  };
}

const toMedical = (m: StoredMember) => ({
  name: m.name,
  relationship: m.relationship,
  dateOfBirth: m.date_of_birth,
  ageYears: m.age,
  inSchool: m.in_school,
  idNo: m.id_no,
});
