import { describe, expect, it } from 'vitest';
import { coverPolicy, INSTANT_RAIL, TEST_NOW, useKit } from './kit.ts';

/**
 * A new policy and every row it starts with are written in one statement (src/modules/policies/policy-factory.ts
 * createPolicy, issue 28): the policy, its levy lines, vehicles or insured, premium items, first status-history row and
 * instalment debit notes. What each row must hold, read back from the database beside what was submitted, in two
 * organisations side by side: each row in the order submitted, each premium item on its own vehicle or person.
 */
const t = useKit(INSTANT_RAIL);
const [o, other] = t.useOrgs(2, { fast: true });

/** The rows of one policy, each table in id order. */
async function rows(org: typeof o, uuid: string) {
  return t.db.tenant(org.id, async (tx) => {
    const policy = await tx.policy.findFirstOrThrow({ where: { uuid } });
    const where = { where: { policyId: policy.id }, orderBy: { id: 'asc' as const } };
    return {
      policy,
      taxes: await tx.policyTax.findMany(where),
      vehicles: await tx.policyVehicle.findMany(where),
      risks: await tx.policyRisk.findMany(where),
      items: await tx.policyPremiumItem.findMany(where),
      history: await tx.policyStatusChange.findMany(where),
      notes: await tx.debitNote.findMany(where),
    };
  });
}

/** Y-m-d `months` calendar months after `ymd` (the test dates fall on the 15th: no month-end clamping needed). */
function monthsAfter(ymd: string, months: number): string {
  const [y, m, d] = ymd.split('-').map(Number);
  const total = y * 12 + (m - 1) + months;
  return `${Math.floor(total / 12)}-${String((total % 12) + 1).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}
const day = (d: Date | null) => d?.toISOString().slice(0, 10);

describe('a new policy written in one statement', () => {
  it('a motor bind in four instalments: its vehicle, the vehicle premium item, one pending_payment row, four notes a month apart', async () => {
    const [mine, theirs] = await Promise.all([
      o.pendingPolicy({ instalments: 4 }),
      other.pendingPolicy({ instalments: 4 }),
    ]);
    for (const [org, bound] of [
      [o, mine],
      [other, theirs],
    ] as const) {
      const uuid = bound.uuid;
      const r = await rows(org, uuid);
      const all = [r.policy, ...r.taxes, ...r.vehicles, ...r.items, ...r.history, ...r.notes];
      expect(new Set(all.map((x) => ('tenantId' in x ? x.tenantId : org.id)))).toEqual(new Set([org.id]));
      expect(r.policy).toMatchObject({ productLine: 'motor', status: 'pending_payment', instalmentCount: 4 });
      // The bind instant on the service's clock (the test clock starts at TEST_NOW and runs on).
      expect(r.policy.createdAt.getTime()).toBeGreaterThanOrEqual(Date.parse(TEST_NOW));
      expect(r.policy.createdAt.getTime()).toBeLessThan(Date.parse(TEST_NOW) + 3_600_000);

      // Stored as normalised (spaces dropped).
      expect(r.vehicles.map((v) => [v.regNo, v.make, v.model, day(v.addedOn), v.status])).toEqual([
        [bound.regno.replace(/ /g, ''), 'Toyota', 'Axio', day(r.policy.startDate), 'active'],
      ]);
      // One annual cover of one vehicle: its premium item is the whole basic premium, for the whole period.
      expect(r.items.map((i) => [i.vehicleId, i.riskId, i.annualBasicMinor, day(i.fromDate), day(i.toDate)])).toEqual([
        [r.vehicles[0].id, null, r.policy.basicMinor, day(r.policy.startDate), day(r.policy.endDate)],
      ]);
      expect(r.taxes.reduce((s, x) => s + x.amountMinor, 0n)).toBe(r.policy.taxesMinor);
      // The levy lines in the order the answer lists them.
      const record = await org.api.get(`/policies/${uuid}`, { token: org.tokens.staff });
      expect(record.status, record.text).toBe(200);
      expect(r.taxes.map((x) => x.code)).toEqual(record.body.data.premium.levies.map((l: any) => l.code));

      expect(r.history.map((h) => [h.fromStatus, h.toStatus, h.source, h.at.toISOString()])).toEqual([
        [null, 'pending_payment', 'bind', r.policy.createdAt.toISOString()],
      ]);

      const start = day(r.policy.startDate)!;
      const policyNo = record.body.data.policy_no;
      expect(r.notes.map((n) => [n.number, n.instalmentNo, n.instalmentCount, day(n.dueOn), n.kind])).toEqual(
        [0, 1, 2, 3].map((i) => [`DN-${policyNo}-${i + 1}/4`, i + 1, 4, monthsAfter(start, i), 'instalment']),
      );
      expect(r.notes.reduce((s, n) => s + n.amountMinor, 0n)).toBe(r.policy.totalMinor);
      expect(r.notes.every((n) => n.paidMinor === 0n && n.creditedMinor === 0n)).toBe(true);
    }
  });

  it('a family medical policy: the members in the order given, each premium item on its own member', async () => {
    const [mine, theirs] = await Promise.all([
      coverPolicy(o, 'medical', { instalments: 3 }),
      coverPolicy(other, 'medical', { instalments: 3 }),
    ]);
    for (const [org, pol] of [
      [o, mine],
      [other, theirs],
    ] as const) {
      const r = await rows(org, pol.uuid);
      expect(r.risks.map((x) => x.name)).toEqual(['Amina Wanjiru', 'Otieno Wanjiru', 'Neema Wanjiru']);
      expect(r.risks.map((x) => x.id)).toEqual(pol.risks.map((x) => x.id));
      expect(r.risks.map((x) => [x.relationship, day(x.dateOfBirth), x.ageYears, x.inSchool])).toEqual([
        ['principal', '1986-03-02', 40, null],
        ['spouse', '1988-09-30', 37, null],
        ['child', '2017-01-15', 9, true],
      ]);
      // Each member's own premium, on that member (the figures the kit submitted, by name).
      const byName = new Map(pol.risks.map((x) => [x.name, x.annualBasicMinor]));
      expect(
        r.items.map((i) => [r.risks.find((x) => x.id === i.riskId)?.name, i.vehicleId, i.annualBasicMinor]),
      ).toEqual(r.risks.map((x) => [x.name, null, byName.get(x.name)]));
      expect(r.vehicles).toEqual([]);
      expect(r.notes.map((n) => n.number)).toEqual(pol.debitNotes.map((d) => d.number));
      expect(r.notes.map((n) => day(n.dueOn))).toEqual([0, 1, 2].map((i) => monthsAfter(pol.startDate, i)));
    }
  });

  it('a standard cover: its items without premium items of their own, and one premium item for the whole policy', async () => {
    const [mine, theirs] = await Promise.all([coverPolicy(o, 'standard'), coverPolicy(other, 'standard')]);
    for (const [org, pol] of [
      [o, mine],
      [other, theirs],
    ] as const) {
      const r = await rows(org, pol.uuid);
      expect(r.risks.map((x) => [x.kind, x.name, x.sumInsuredMinor, x.details])).toEqual([
        ['item', 'Household contents', 2_000_000_00n, null],
        ['item', 'Portable electronics', 450_000_00n, { all_risks: true }],
      ]);
      expect(r.items.map((i) => [i.vehicleId, i.riskId, i.annualBasicMinor])).toEqual([
        [null, null, pol.policyPremiumMinor],
      ]);
      expect(r.policy.coverDetails).not.toBeNull();
    }
  });
});
