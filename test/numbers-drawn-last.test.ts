import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { coverBindBody } from './kit/cover-bind.ts';
import { bindVars } from './kit/policies.ts';
import { INSTANT_RAIL, useKit } from './kit.ts';

/**
 * A bind draws its client and policy numbers last (issue 28, src/db/counters.ts pendingNumber): its rows are written
 * with a stand-in and the numbers written over it just before COMMIT. Two organisations side by side, binding at
 * once through REST (motor and a cover line) and GraphQL: each organisation's numbers stay its own and gap-free, no
 * stand-in is ever committed or answered, and everything that carries a number (debit notes, the audit trail, the
 * answer) carries the drawn one.
 */
const t = useKit({ ...INSTANT_RAIL, bindRateLimit: 1000 });
const [a, b] = t.useOrgs(2, { fast: true });

const GQL_BIND = `mutation B($client: InsuredInput!, $policy: BindPolicyInput!, $vehicles: [BindVehicleInput!]!) {
  bindMotorPolicy(client: $client, policy: $policy, vehicles: $vehicles) {
    __typename
    ... on Problem { code detail }
    ... on BoundPolicy { clientNo policy { uuid policyNo debitNotes { number } } }
  }
}`;

type Org = typeof a;

/** What one organisation's numbers look like in the database now. */
async function numbersOf(o: Org) {
  return t.db.tenant(o.id, async (tx) => ({
    counters: Object.fromEntries(
      (await tx.tenantCounter.findMany({ where: { name: { in: ['client_no', 'policy_no'] } } })).map((c) => [
        c.name,
        Number(c.value),
      ]),
    ),
    clientNos: (await tx.client.findMany({ select: { clientNo: true } })).map((c) => c.clientNo),
    policies: await tx.policy.findMany({
      select: { uuid: true, policyNo: true, riskNote: true, debitNotes: { select: { number: true } } },
    }),
    audits: await tx.auditLog.findMany({
      where: { action: { in: ['client.created', 'policy.bound'] } },
      select: { action: true, entityId: true, changes: true },
    }),
  }));
}

const seqOf = (no: string) => Number(no.slice(no.lastIndexOf('-') + 1));

/** Six binds at once: four motor (one with three instalments, one through GraphQL) and two medical. */
async function bindsAtOnce(o: Org) {
  const motor = await Promise.all([1, 1, 3, 1].map((instalments) => o.bindBody({ instalments })));
  const medical = await Promise.all([0, 1].map(() => coverBindBody(o.api, o.tokens.staff, 'medical')));
  const rest = (path: string, body: unknown) =>
    o.api.post(path, { token: o.tokens.staff, idempotencyKey: randomUUID(), body });
  const [gql, ...rs] = await Promise.all([
    o.api.gql(GQL_BIND, bindVars(motor[3].body), { token: o.tokens.staff }),
    ...motor.slice(0, 3).map((m) => rest('/motor/save', m.body)),
    ...medical.map((m) => rest('/medical/save', m.body)),
  ]);
  for (const r of rs) expect(r.status, r.text).toBe(201);
  expect(gql.body.data?.bindMotorPolicy?.__typename, JSON.stringify(gql.body)).toBe('BoundPolicy');
  const g = gql.body.data.bindMotorPolicy;
  return [
    ...rs.map((r) => ({
      uuid: r.body.uuid as string,
      policyNo: r.body.policy_no as string,
      clientNo: r.body.client_no,
    })),
    { uuid: g.policy.uuid as string, policyNo: g.policy.policyNo as string, clientNo: g.clientNo as string },
  ];
}

describe('numbers drawn last', () => {
  let before: Record<string, Awaited<ReturnType<typeof numbersOf>>>;
  let answered: Record<string, Awaited<ReturnType<typeof bindsAtOnce>>>;
  beforeAll(async () => {
    // One organisation starts past six digits of clients: the number grows a digit rather than being cut.
    await t.db.tenant(b.id, (tx) =>
      tx.tenantCounter.upsert({
        where: { tenantId_name: { tenantId: b.id, name: 'client_no' } },
        create: { tenantId: b.id, name: 'client_no', value: 999_998n },
        update: { value: 999_998n },
      }),
    );
    before = { a: await numbersOf(a), b: await numbersOf(b) };
    const [ra, rb] = await Promise.all([bindsAtOnce(a), bindsAtOnce(b)]);
    answered = { a: ra, b: rb };
  }, 120_000);

  it("each organisation's new clients and policies are numbered from its own counters, gap-free", async () => {
    for (const [key, o] of [
      ['a', a],
      ['b', b],
    ] as const) {
      const was = before[key].counters;
      const now = await numbersOf(o);
      const got = answered[key];
      expect(now.counters.policy_no).toBe((was.policy_no ?? 0) + 6);
      expect(now.counters.client_no).toBe((was.client_no ?? 0) + 6);
      expect(got.map((x) => seqOf(x.policyNo)).sort((x, y) => x - y)).toEqual(
        [1, 2, 3, 4, 5, 6].map((i) => (was.policy_no ?? 0) + i),
      );
      expect(got.map((x) => seqOf(x.clientNo)).sort((x, y) => x - y)).toEqual(
        [1, 2, 3, 4, 5, 6].map((i) => (was.client_no ?? 0) + i),
      );
      for (const x of got) {
        expect(x.policyNo).toMatch(/^(MTR|MED)-\d{4}-\d{6,}$/);
        expect(x.clientNo).toMatch(/^C-\d{6,}$/);
      }
    }
    // Past six digits the number grows: C-999999, then C-1000000 …
    expect(answered.b.map((x) => x.clientNo).sort()).toContain('C-1000000');
    expect(answered.b.map((x) => x.clientNo)).toContain('C-999999');
  });

  it('no stand-in is committed, and the debit notes, risk notes and audit trail carry the drawn numbers', async () => {
    for (const [key, o] of [
      ['a', a],
      ['b', b],
    ] as const) {
      const now = await numbersOf(o);
      expect(now.clientNos.filter((n) => n.startsWith('~'))).toEqual([]);
      for (const x of answered[key]) {
        const p = now.policies.find((row) => row.uuid === x.uuid)!;
        expect(p.policyNo).toBe(x.policyNo);
        expect(p.riskNote).toBe(`RN-${x.policyNo.split('-')[1]}-${x.policyNo.split('-')[2]}`);
        expect(p.debitNotes.length).toBeGreaterThan(0);
        const n = p.debitNotes.length;
        expect(p.debitNotes.map((d) => d.number).sort()).toEqual(
          Array.from({ length: n }, (_, i) => `DN-${x.policyNo}-${i + 1}/${n}`),
        );
        const bound = now.audits.find((e) => e.action === 'policy.bound' && e.entityId === x.uuid);
        expect(bound?.changes).toMatchObject({ policy_no: x.policyNo, client_no: x.clientNo });
        expect(now.audits.filter((e) => e.action === 'client.created' && e.entityId === x.clientNo)).toHaveLength(1);
      }
      expect(now.audits.filter((e) => e.entityId.startsWith('~'))).toEqual([]);
    }
  });

  it('a client numbered outside a bind takes the next number after the binds', async () => {
    const r = await a.api.post('/clients', {
      token: a.tokens.staff,
      idempotencyKey: randomUUID(),
      body: { name: 'After The Binds', phone: '0722 913 577' },
    });
    expect(r.status, r.text).toBe(201);
    const top = Math.max(...answered.a.map((x) => seqOf(x.clientNo)));
    expect(r.body.data.client_no).toBe(`C-${String(top + 1).padStart(6, '0')}`);
  });
});
