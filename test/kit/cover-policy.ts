import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { addDays, annualEnd } from '../../src/lib/dates.ts';
import {
  createPolicy,
  drawPolicyNumbers,
  type NewPolicyRisk,
  pendingPolicyNumbers,
  withNumbers,
} from '../../src/modules/policies/policy-factory.ts';
import { periodPremium } from '../../src/modules/policies/proration.ts';
import { levyTable } from '../../src/modules/reference/rating-rows.ts';
import { TODAY } from '../helpers/clock.ts';
import type { OracleLevy } from '../helpers/money-oracle.ts';
import type { Org } from './org.ts';
import { insurerId, pay, policyInStatus } from './policies.ts';

/**
 * Non-motor policies (medical, travel, standard) pending payment, made through the policy factory (createPolicy) on
 * figures of this file's own rather than a rating line's, so that a lifecycle test (cancellation, endorsement, claim,
 * renewal) computes what it expects from figures it chose, independently of the code under test. Everything after
 * the bind (payment by STK push, cancellation, endorsements, claims, renewal) goes through the public API as usual.
 * The quote → save → bind path itself is kit/cover-bind.ts (REST) and test/covers-e2e.test.ts.
 */

export type CoverLine = 'medical' | 'travel' | 'standard';

export interface CoverPolicyOptions {
  insurer?: string;
  /** Y-m-d (default today; a trip departs in 10 days). */
  startDate?: string;
  /** Y-m-d, inclusive (default: annual; a trip of 15 days). */
  endDate?: string;
  instalments?: number;
  /** Who bound it (default the staff key's user, exec); an agent's policy is within that agent's reach. */
  createdBy?: 'exec' | 'agent1' | 'agent2';
}

export interface CoverPolicy {
  id: number;
  uuid: string;
  policyNo: string;
  clientNo: string;
  /** The client's phone as the client area signs in with it. */
  clientPhone: string;
  productId: number;
  productCode: string;
  line: CoverLine;
  startDate: string;
  endDate: string;
  basicMinor: bigint;
  taxesMinor: bigint;
  totalMinor: bigint;
  /** Each risk with its own annual basic premium (null: the policy is priced as a whole). */
  risks: { id: number; name: string; kind: string; annualBasicMinor: bigint | null; sumInsuredMinor: bigint | null }[];
  /** The one premium item of a policy priced as a whole (standard), else null. */
  policyPremiumMinor: bigint | null;
  debitNotes: { number: string; amountMinor: bigint }[];
}

const KES = (shillings: number) => BigInt(shillings) * 100n;
let seq = 0;

/** A family of three: a principal, a spouse and a child in school, each with a premium of their own. */
const MEDICAL: NewPolicyRisk[] = [
  {
    kind: 'member',
    name: 'Amina Wanjiru',
    relationship: 'principal',
    dateOfBirth: '1986-03-02',
    ageYears: 40,
    idNo: '24681357',
    annualBasicMinor: KES(31_250) + 50n,
  },
  {
    kind: 'member',
    name: 'Otieno Wanjiru',
    relationship: 'spouse',
    dateOfBirth: '1988-09-30',
    ageYears: 37,
    idNo: '13572468',
    annualBasicMinor: KES(28_900),
  },
  {
    kind: 'member',
    name: 'Neema Wanjiru',
    relationship: 'child',
    dateOfBirth: '2017-01-15',
    ageYears: 9,
    inSchool: true,
    annualBasicMinor: KES(12_400) + 25n,
  },
];
const TRAVEL: NewPolicyRisk[] = [
  {
    kind: 'traveller',
    name: 'Grace Achieng',
    dateOfBirth: '1979-05-05',
    ageYears: 47,
    idNo: 'AK1234567',
    annualBasicMinor: KES(4_870),
  },
  {
    kind: 'traveller',
    name: 'Brian Achieng',
    dateOfBirth: '2012-11-11',
    ageYears: 13,
    idNo: 'AK7654321',
    annualBasicMinor: KES(2_435) + 75n,
  },
];
const STANDARD: NewPolicyRisk[] = [
  { kind: 'item', name: 'Household contents', sumInsuredMinor: KES(2_000_000), annualBasicMinor: null },
  {
    kind: 'item',
    name: 'Portable electronics',
    sumInsuredMinor: KES(450_000),
    details: { all_risks: true },
    annualBasicMinor: null,
  },
];
/** The domestic package's premium, as a whole. */
const STANDARD_PREMIUM = KES(9_817) + 33n;

const PRODUCT = {
  medical: { code: 'MEDICAL', name: 'Family Medical' },
  travel: { code: 'TRAVEL', name: 'Travel Single Trip' },
  standard: { code: 'DOMESTIC', name: 'Domestic Package' },
} as const;

const COVER_DETAILS: Record<CoverLine, Record<string, unknown>> = {
  medical: {
    cover_type: 'family',
    inpatient_limit_minor: Number(KES(1_000_000)),
    riders: [{ code: 'outpatient', limit_minor: Number(KES(100_000)) }],
  },
  travel: { plan: 'STANDARD', region: 'schengen', destination: 'Germany, France' },
  standard: { product: 'DOMESTIC', extensions: [], total_sum_insured_minor: Number(KES(2_450_000)) },
};

/**
 * The insurer's cover product of this line (the seeded one when there is one; otherwise one made here with no rate
 * rows: enough for a policy's record and lifecycle, not for re-pricing).
 */
export async function coverProduct(
  o: Org,
  line: CoverLine,
  insurer = 'Simba General',
): Promise<{ id: number; code: string; version: number }> {
  const insurerIdOf = await insurerId(o, insurer);
  const { code, name } = PRODUCT[line];
  return o.t.db.tenant(o.id, async (tx) => {
    const found = await tx.coverProduct.findFirst({ where: { insurerId: insurerIdOf, productLine: line, code } });
    if (found) return found;
    return tx.coverProduct.create({
      data: {
        tenantId: o.id,
        insurerId: insurerIdOf,
        productLine: line,
        code,
        name: `${insurer} ${name}`,
        maxInstalments: line === 'travel' ? 1 : 4,
        renewable: line !== 'travel',
      },
    });
  });
}

/** A client of the organisation, made through POST /clients. */
async function newClient(o: Org): Promise<{ id: number; clientNo: string; phone: string }> {
  seq += 1;
  // Never 000nnn: the demo seed's clients have the phones 07xx 000nnn (a pid ending in 00 drew a seeded client's).
  const n = `${(process.pid % 90) + 10}${String(seq).padStart(3, '0')}`;
  const phone = `0722 ${n.padStart(6, '0')}`;
  const r = await o.as('staff').post('/clients', {
    body: { name: `Cover ${n} Mwangi`, phone, id_no: `66${n.padStart(6, '0')}` },
    idempotencyKey: randomUUID(),
  });
  expect(r.status, r.text).toBe(201);
  const clientNo: string = r.body.data.client_no;
  const row = await o.t.db.tenant(o.id, (tx) => tx.client.findFirstOrThrow({ where: { clientNo } }));
  return { id: row.id, clientNo, phone };
}

function periodOf(line: CoverLine, opts: CoverPolicyOptions) {
  const startDate = opts.startDate ?? (line === 'travel' ? addDays(TODAY, 10) : TODAY);
  const endDate = opts.endDate ?? (line === 'travel' ? addDays(startDate, 14) : annualEnd(startDate));
  return { startDate, endDate };
}

/** A policy of `line` pending payment, for a new client (docs/testing.md "How to write a test": a builder of state). */
export async function coverPolicy(o: Org, line: CoverLine, opts: CoverPolicyOptions = {}): Promise<CoverPolicy> {
  const product = await coverProduct(o, line, opts.insurer);
  const client = await newClient(o);
  const { startDate, endDate } = periodOf(line, opts);
  const risks = line === 'medical' ? MEDICAL : line === 'travel' ? TRAVEL : STANDARD;
  const policyPremiumMinor = line === 'standard' ? STANDARD_PREMIUM : null;
  const basicMinor = policyPremiumMinor ?? risks.reduce((s, r) => s + (r.annualBasicMinor ?? 0n), 0n);
  const user = o.users[opts.createdBy ?? 'exec'];
  const days = Math.round((Date.parse(endDate) - Date.parse(startDate)) / 86_400_000) + 1;
  const made = await o.t.db.tenant(o.id, async (tx) => {
    // Each premium item levied on its own, as a bind of several items levies them (proration.ts periodPremium).
    const items = policyPremiumMinor != null ? [policyPremiumMinor] : risks.map((r) => r.annualBasicMinor ?? 0n);
    const { levies: taxes, taxesMinor } = periodPremium(items, await levyTable(tx));
    const created = await createPolicy(
      tx,
      {
        tenantId: o.id,
        clientId: client.id,
        insurerId: await insurerId(o, opts.insurer ?? 'Simba General'),
        coverProductId: product.id,
        productLine: line,
        productVersion: product.version,
        coverDetails: COVER_DETAILS[line],
        coverPeriod: line === 'travel' ? 'trip' : 'annual',
        days,
        startDate,
        endDate,
        paymentMode: 'full',
        instalmentCount: opts.instalments ?? 1,
        rateBps: null,
        basicMinor,
        taxesMinor,
        totalMinor: basicMinor + taxesMinor,
        salesPersonId: user.id,
        createdByUserId: user.id,
        createdByApiClientId: o.clients.staff.id,
        taxes,
        vehicles: [],
        risks,
        policyPremiumMinor,
        initialStatus: { source: 'bind', reason: 'test fixture (test/kit/cover-policy.ts)', actorUserId: user.id },
      },
      pendingPolicyNumbers(),
    );
    // Numbered as a bind numbers its policy: last (src/db/counters.ts pendingNumber).
    const numbers = await drawPolicyNumbers(tx, created.policy, TODAY, line);
    return { ...withNumbers(created, numbers), risks: created.risks, taxesMinor };
  });
  const { policy } = made;
  return {
    id: policy.id,
    uuid: policy.uuid,
    policyNo: policy.policyNo,
    clientNo: client.clientNo,
    clientPhone: client.phone,
    productId: product.id,
    productCode: PRODUCT[line].code,
    line,
    startDate,
    endDate,
    basicMinor,
    taxesMinor: made.taxesMinor,
    totalMinor: basicMinor + made.taxesMinor,
    risks: made.risks.map((r, i) => ({
      id: r.id,
      name: r.name,
      kind: r.kind,
      annualBasicMinor: risks[i].annualBasicMinor,
      sumInsuredMinor: r.sumInsuredMinor,
    })),
    policyPremiumMinor,
    debitNotes: made.debitNotes.map((d) => ({ number: d.number, amountMinor: d.amountMinor })),
  };
}

/** A cover policy whose first `paid` instalments (default 1) are paid by STK push, waited for until active. */
export async function activeCoverPolicy(
  o: Org,
  line: CoverLine,
  opts: CoverPolicyOptions & { paid?: number } = {},
): Promise<CoverPolicy & { record: any }> {
  const pol = await coverPolicy(o, line, opts);
  for (const dn of pol.debitNotes.slice(0, opts.paid ?? 1)) await pay(o, dn.number, dn.amountMinor);
  return { ...pol, record: await policyInStatus(o, pol.uuid, 'active') };
}

/** The organisation's levy table in the oracle's form (helpers/money-oracle.ts), for a test's expected figures. */
export async function oracleLevies(o: Org): Promise<OracleLevy[]> {
  const rows = await o.t.db.tenant(o.id, (tx) => tx.levy.findMany());
  return rows.map((l) => ({ code: l.code, basis: l.basis, rateBps: l.rateBps, amountMinor: l.amountMinor }));
}

/** A policy's row with Σ of its debit notes and of its credit notes (the policy total must be their difference). */
export function noteTotals(o: Org, uuid: string) {
  return o.t.db.tenant(o.id, async (tx) => {
    const p = await tx.policy.findFirstOrThrow({ where: { uuid }, include: { debitNotes: true, creditNotes: true } });
    const dn = p.debitNotes.reduce((s, n) => s + n.amountMinor, 0n);
    const cn = p.creditNotes.reduce((s, n) => s + n.amountMinor, 0n);
    return { p, dn, cn };
  });
}
