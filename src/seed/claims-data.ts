import type { Tx } from '../db/client.ts';

/** Whole shillings → cents (integers only). */
const KES = (shillings: number): bigint => BigInt(shillings) * 100n;

/**
 * The claims reference data every organisation starts from (docs/claims.md "Claims"): the causes of loss it accepts per
 * product line, each with its document checklist, its initial-reserve rule and the excess term of the product that
 * applies; and the motor products' structured excess terms. Data, not code: an organisation changes its rows.
 *
 * Initial reserve (claim registration): the reporter's estimate when given, capped at the sum insured; otherwise
 * `reserveBps` of the sum insured, never below `reserveMin` (KES); a cause without a sum insured reserves `reserveMin`.
 */
export interface CauseTemplate {
  productLine: string;
  code: string;
  name: string;
  documents: string[];
  reserveBps: number;
  reserveMin: number;
  excessTerm: 'own_damage' | 'theft' | 'third_party_property' | 'windscreen' | 'none';
}

const MOTOR_DOCS = ['claim_form', 'police_abstract', 'driving_licence', 'logbook', 'policy_copy', 'repair_estimate'];
const THEFT_DOCS = ['claim_form', 'police_abstract', 'driving_licence', 'logbook', 'policy_copy', 'keys', 'valuation'];

export const CLAIM_CAUSES: CauseTemplate[] = [
  {
    productLine: 'motor',
    code: 'accident',
    name: 'Accident (own damage)',
    documents: MOTOR_DOCS,
    reserveBps: 1000,
    reserveMin: 50_000,
    excessTerm: 'own_damage',
  },
  {
    productLine: 'motor',
    code: 'theft',
    name: 'Theft of the vehicle',
    documents: THEFT_DOCS,
    reserveBps: 10_000,
    reserveMin: 0,
    excessTerm: 'theft',
  },
  {
    productLine: 'motor',
    code: 'fire',
    name: 'Fire',
    documents: [...MOTOR_DOCS, 'fire_report'],
    reserveBps: 5000,
    reserveMin: 100_000,
    excessTerm: 'own_damage',
  },
  {
    productLine: 'motor',
    code: 'windscreen',
    name: 'Windscreen or window glass',
    documents: ['claim_form', 'policy_copy', 'repair_estimate'],
    reserveBps: 0,
    reserveMin: 30_000,
    excessTerm: 'none',
  },
  {
    productLine: 'motor',
    code: 'third_party_property',
    name: 'Third-party property damage',
    documents: ['claim_form', 'police_abstract', 'driving_licence', 'policy_copy', 'third_party_claim'],
    reserveBps: 0,
    reserveMin: 100_000,
    excessTerm: 'third_party_property',
  },
  {
    productLine: 'motor',
    code: 'third_party_injury',
    name: 'Third-party bodily injury',
    documents: ['claim_form', 'police_abstract', 'driving_licence', 'policy_copy', 'medical_report'],
    reserveBps: 0,
    reserveMin: 250_000,
    excessTerm: 'none',
  },
  {
    productLine: 'motor',
    code: 'riot_strike',
    name: 'Riot, strike or political violence',
    documents: [...MOTOR_DOCS],
    reserveBps: 1000,
    reserveMin: 50_000,
    excessTerm: 'own_damage',
  },
  {
    productLine: 'medical',
    code: 'inpatient',
    name: 'Inpatient treatment',
    documents: ['claim_form', 'discharge_summary', 'invoice', 'id_copy'],
    reserveBps: 0,
    reserveMin: 100_000,
    excessTerm: 'none',
  },
  {
    productLine: 'medical',
    code: 'outpatient',
    name: 'Outpatient treatment',
    documents: ['claim_form', 'invoice', 'prescription'],
    reserveBps: 0,
    reserveMin: 10_000,
    excessTerm: 'none',
  },
  {
    productLine: 'travel',
    code: 'medical_emergency',
    name: 'Medical emergency abroad',
    documents: ['claim_form', 'medical_report', 'invoice', 'travel_documents'],
    reserveBps: 0,
    reserveMin: 200_000,
    excessTerm: 'none',
  },
  {
    productLine: 'travel',
    code: 'baggage',
    name: 'Lost or delayed baggage',
    documents: ['claim_form', 'property_irregularity_report', 'travel_documents'],
    reserveBps: 0,
    reserveMin: 20_000,
    excessTerm: 'none',
  },
  {
    productLine: 'standard',
    code: 'personal_accident',
    name: 'Personal accident',
    documents: ['claim_form', 'police_abstract', 'medical_report', 'id_copy'],
    reserveBps: 0,
    reserveMin: 100_000,
    excessTerm: 'none',
  },
  {
    productLine: 'standard',
    code: 'fire_perils',
    name: 'Fire and allied perils',
    documents: ['claim_form', 'fire_report', 'valuation', 'photos'],
    reserveBps: 0,
    reserveMin: 200_000,
    excessTerm: 'none',
  },
  // Added with the medical, travel and standard policy lifecycle. Appended (never inserted above): an organisation
  // seeded before keeps its rows' sort order, and each line's list still reads in this order.
  {
    productLine: 'medical',
    code: 'maternity',
    name: 'Maternity',
    documents: ['claim_form', 'discharge_summary', 'invoice', 'birth_notification'],
    reserveBps: 0,
    reserveMin: 80_000,
    excessTerm: 'none',
  },
  {
    productLine: 'medical',
    code: 'dental',
    name: 'Dental treatment',
    documents: ['claim_form', 'invoice', 'dental_report'],
    reserveBps: 0,
    reserveMin: 10_000,
    excessTerm: 'none',
  },
  {
    productLine: 'medical',
    code: 'optical',
    name: 'Optical (eye test, spectacles)',
    documents: ['claim_form', 'invoice', 'prescription'],
    reserveBps: 0,
    reserveMin: 10_000,
    excessTerm: 'none',
  },
  {
    productLine: 'travel',
    code: 'trip_cancellation',
    name: 'Trip cancellation or curtailment',
    documents: ['claim_form', 'travel_documents', 'booking_invoice', 'cancellation_reason_proof'],
    reserveBps: 0,
    reserveMin: 50_000,
    excessTerm: 'none',
  },
  {
    productLine: 'travel',
    code: 'personal_accident',
    name: 'Personal accident abroad',
    documents: ['claim_form', 'medical_report', 'police_report', 'travel_documents'],
    reserveBps: 0,
    reserveMin: 100_000,
    excessTerm: 'none',
  },
  {
    productLine: 'standard',
    code: 'burglary',
    name: 'Burglary or theft',
    documents: ['claim_form', 'police_abstract', 'list_of_items', 'proof_of_ownership'],
    reserveBps: 2500,
    reserveMin: 50_000,
    excessTerm: 'none',
  },
  {
    productLine: 'standard',
    code: 'accidental_damage',
    name: 'Accidental damage',
    documents: ['claim_form', 'photos', 'repair_estimate'],
    reserveBps: 1000,
    reserveMin: 20_000,
    excessTerm: 'none',
  },
  {
    productLine: 'standard',
    code: 'work_injury',
    name: 'Work injury (WIBA)',
    documents: ['claim_form', 'dosh_form_1', 'medical_report', 'id_copy'],
    reserveBps: 0,
    reserveMin: 100_000,
    excessTerm: 'none',
  },
];

/** A motor product's excess terms: for each term, `rate_bps` of the basis (`sum_insured` or `claim`), at least `min_minor`. */
export interface ExcessTerm {
  rate_bps: number;
  min_minor: number;
  basis: 'sum_insured' | 'claim';
}
export type ExcessTerms = Partial<
  Record<'own_damage' | 'theft' | 'theft_no_device' | 'third_party_property' | 'windscreen', ExcessTerm>
>;

/** The market's usual terms (domain notes), as EXCESS_TEXT states them in words. */
export const EXCESS_TERMS: ExcessTerms = {
  own_damage: { rate_bps: 250, min_minor: Number(KES(15_000)), basis: 'sum_insured' },
  theft: { rate_bps: 1000, min_minor: Number(KES(20_000)), basis: 'sum_insured' },
  theft_no_device: { rate_bps: 2000, min_minor: Number(KES(20_000)), basis: 'sum_insured' },
  third_party_property: { rate_bps: 0, min_minor: Number(KES(7_500)), basis: 'claim' },
};

/**
 * Gives an organisation the claims reference data it lacks: causes by (product line, code), and excess terms on
 * motor products that have none. Safe to run on every start: it only adds.
 */
export async function ensureClaimReference(tx: Tx, tenantId: number): Promise<void> {
  await tx.claimCause.createMany({
    data: CLAIM_CAUSES.map((c, i) => ({
      tenantId,
      productLine: c.productLine,
      code: c.code,
      name: c.name,
      documents: c.documents,
      reserveBps: c.reserveBps,
      reserveMinMinor: KES(c.reserveMin),
      excessTerm: c.excessTerm,
      sortOrder: i,
    })),
    skipDuplicates: true,
  });
  await tx.$executeRaw`UPDATE motor_products SET excess_terms = ${JSON.stringify(EXCESS_TERMS)}::jsonb
                        WHERE tenant_id = ${tenantId} AND excess_terms IS NULL`;
}
