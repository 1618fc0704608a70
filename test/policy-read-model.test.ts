import { readFileSync } from 'node:fs';
import { Prisma } from '../src/generated/prisma/client.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { planQuery, planSelection, rowPrototype, shapeRows, WHOLE_SELECTION } from '../src/db/selection-sql.ts';
import { approvedClaim } from './kit/approved-claim.ts';
import { activeCoverPolicy } from './kit/cover-policy.ts';
import { countStatements } from './helpers/policies.ts';
import { INSTANT_RAIL, useKit } from './kit.ts';

/**
 * A policy's record read by its selection's plan (src/db/selection-sql.ts, issue 28) instead of Prisma's query.
 * Checked against Prisma itself, the naive second implementation: GraphQL `node` loads a policy through the Pothos
 * plugin's Prisma loader, never the plan, so the same policy read both ways must answer the same; and the plan's rows
 * for a broad selection must equal Prisma's findMany's for the same selection, value for value (BIGINTs, dates, JSON).
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const [org, other] = t.useOrgs([{ fast: true, tokens: ['staff', 'agent'] }, { tokens: ['staff'] }]);

/**
 * A copy of rows answered for `select` without WHOLE_SELECTION, which every row and related row must carry (a JSON
 * column's value is not a row, and is copied as it is).
 */
function unmarked(v: unknown, select: Record<string, unknown>): unknown {
  if (Array.isArray(v)) return v.map((x) => unmarked(x, select));
  if (v === null) return v;
  const row = v as Record<string | symbol, unknown>;
  expect(row[WHOLE_SELECTION], `a row of ${Object.keys(select).join(', ')}`).toBe(true);
  return Object.fromEntries(
    Object.entries(row).map(([k, x]) => {
      const inner = (select[k] as { select?: Record<string, unknown> } | undefined)?.select;
      return [k, inner ? unmarked(x, inner) : x];
    }),
  );
}

/** The plan's statements name the table `"policies" p`; Prisma's name it `"public"."policies"`. */
const PLAN = /FROM "policies" p\s/;

/** The record as the REST facade asks for it: its own fragments, as they are on disk. */
const fragments = ['policy', 'endorsement', 'cancellation', 'certificate']
  .map((f) => readFileSync(new URL(`../rest-compat/operations/fragments/${f}.graphql`, import.meta.url), 'utf8'))
  .join('\n');

/**
 * A broad selection of every kind the plan covers: scalars of each type (BIGINT, dates, timestamps, JSON, enums,
 * uuids), to-one relations keyed on either side, lists ordered and filtered, lists within lists.
 */
const BROAD = {
  id: true,
  uuid: true,
  policyNo: true,
  status: true,
  startDate: true,
  basicMinor: true,
  totalMinor: true,
  coverDetails: true,
  instalmentCount: true,
  createdAt: true,
  client: { select: { id: true, clientNo: true, dateOfBirth: true, type: true, createdAt: true } },
  renewalOf: { select: { id: true, uuid: true, policyNo: true } },
  renewal: { select: { id: true, uuid: true, status: true } },
  vehicles: { orderBy: { id: 'asc' }, select: { id: true, regNo: true, valueMinor: true, yearOfManufacture: true } },
  risks: { orderBy: { id: 'asc' }, select: { id: true, sumInsuredMinor: true, details: true, addedOn: true } },
  debitNotes: {
    orderBy: [{ dueOn: 'asc' }, { instalmentNo: 'asc' }, { id: 'asc' }],
    select: { id: true, number: true, dueOn: true, amountMinor: true, paidMinor: true },
  },
  receipts: {
    orderBy: { id: 'asc' },
    select: {
      id: true,
      paidAt: true,
      amountMinor: true,
      allocations: {
        orderBy: { id: 'desc' },
        select: { id: true, amountMinor: true, debitNote: { select: { number: true, dueOn: true } } },
      },
    },
  },
  cancellations: {
    where: { status: { in: ['confirmed', 'reinstated'] } },
    orderBy: { id: 'desc' },
    select: { id: true, status: true, refund: true, creditNote: { select: { number: true, amountMinor: true } } },
  },
  endorsements: { where: { status: 'confirmed' }, select: { id: true, effect: true, confirmedAt: true } },
  certificates: {
    orderBy: [{ series: 'asc' }, { id: 'asc' }],
    select: { id: true, issuedAt: true, vehicle: { select: { regNo: true } } },
  },
  claims: { orderBy: { id: 'desc' }, select: { id: true, claimNo: true, lossDate: true, status: true } },
};

const uuids: string[] = [];
let agentsOwn = '';
let othersUuid = '';

beforeAll(async () => {
  const endorsed = await org.activePolicy({ instalments: 2 });
  await org.endorse(endorsed.uuid, { operation: 'change_value', regno: endorsed.regno, value: 1_300_000 });
  const cancelled = await org.cancelledPolicy();
  const medical = await activeCoverPolicy(org, 'medical');
  const agents = await org.pendingPolicy({ token: org.tokens.agent });
  agentsOwn = agents.uuid;
  await approvedClaim(org, endorsed.uuid, { net: 250_000n });
  // A renewal, linked as renewing would link it (the renewal window is weeks away; the link is what is read here).
  await t.db.tenant(org.id, async (tx) => {
    const [from, to] = await Promise.all(
      [cancelled.uuid, agents.uuid].map((uuid) => tx.policy.findUniqueOrThrow({ where: { uuid } })),
    );
    await tx.policy.update({ where: { id: to.id }, data: { renewalOfId: from.id } });
  });
  othersUuid = (await other.pendingPolicy()).uuid;
  uuids.push(endorsed.uuid, cancelled.uuid, medical.uuid, agents.uuid);
  // Wait for the rail's callbacks and the certificate jobs to finish with these policies: the tests below compare
  // reads made one after the other, which a policy still moving would set apart.
  const records = () => Promise.all(uuids.map(async (u) => (await org.as('staff').get(`/policies/${u}`)).text));
  let last = await records();
  for (let i = 0; i < 60; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const now = await records();
    if (now.join() === last.join()) break;
    last = now;
  }
}, 180_000);

describe('the policy record from its selection plan', () => {
  it('answers the full record as Prisma does: policy(uuid) from the plan in one statement, node from Prisma', async () => {
    const agent = org.as('agent');
    for (const caller of [org.as('staff'), agent]) {
      for (const uuid of uuids) {
        // The rail's callbacks and the certificate jobs may still move a policy between the two reads: the two must
        // agree once it is still (an implementation that differs never does).
        for (let attempt = 1; ; attempt++) {
          let viaPlan: any;
          const planned = await countStatements(
            t,
            async () => {
              viaPlan = await caller.gql(
                `query($u: String!) { policy(uuid: $u) { id ...PolicyDetail } }\n${fragments}`,
                { u: uuid },
              );
            },
            PLAN,
          );
          if (caller === agent && uuid !== agentsOwn) {
            // Outside the agent's reach: not found, as for Prisma's where.
            expect(viaPlan.body.errors?.[0]?.extensions?.code, uuid).toBe('not_found');
            break;
          }
          expect(viaPlan.body.errors, JSON.stringify(viaPlan.body.errors)).toBeUndefined();
          expect(planned).toBe(1);
          const record = viaPlan.body.data.policy;
          let viaPrisma: any;
          const prismaReads = await countStatements(
            t,
            async () => {
              viaPrisma = await caller.gql(
                `query($id: ID!) { node(id: $id) { ... on Policy { id ...PolicyDetail } } }\n${fragments}`,
                { id: record.id },
              );
            },
            PLAN,
          );
          expect(prismaReads).toBe(0);
          expect(viaPrisma.body.errors).toBeUndefined();
          if (attempt < 10 && JSON.stringify(record) !== JSON.stringify(viaPrisma.body.data.node)) {
            await new Promise((r) => setTimeout(r, 300));
            continue;
          }
          expect(record).toEqual(viaPrisma.body.data.node);
          break;
        }
      }
    }
    const staffRecord = (await org.as('staff').get(`/policies/${uuids[0]}`)).body.data;
    expect(staffRecord.claims).toHaveLength(1);
    expect(staffRecord.endorsements).toHaveLength(1);
  });

  it("REST reads a record with the plan, and another organisation's policy is not found", async () => {
    const n = await countStatements(
      t,
      async () => {
        const r = await org.as('staff').get(`/policies/${uuids[1]}`);
        expect(r.status, r.text).toBe(200);
        expect(r.body.data.cancellations).toHaveLength(1);
      },
      PLAN,
    );
    expect(n).toBe(1);
    const r = await org.as('staff').get(`/policies/${othersUuid}`);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
  });

  it('answers a page of full records as Prisma does, for each caller and filter, newest first', async () => {
    const agent = org.as('agent');
    for (const [caller, args, expected] of [
      [org.as('staff'), '', 4],
      [agent, '', 1],
      [org.as('staff'), ', status: active', 2],
      [org.as('staff'), ', productLine: "medical"', 1],
    ] as const) {
      let page: any;
      const planned = await countStatements(
        t,
        async () => {
          page = await caller.gql(
            `{ policies(first: 10${args}) { edges { node { id ...PolicyDetail } } } }\n${fragments}`,
          );
        },
        PLAN,
      );
      expect(page.body.errors, JSON.stringify(page.body.errors)).toBeUndefined();
      expect(planned).toBe(1);
      const nodes = page.body.data.policies.edges.map((e: any) => e.node);
      expect(nodes.length, args).toBe(expected);
      const ids = nodes.map((n: any) => n.databaseId);
      expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));
      const viaPrisma = await caller.gql(
        `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Policy { id ...PolicyDetail } } }\n${fragments}`,
        { ids: nodes.map((n: any) => n.id) },
      );
      expect(viaPrisma.body.errors).toBeUndefined();
      expect(nodes).toEqual(viaPrisma.body.data.nodes);
    }
    // A search is Prisma's: its matching rules (registrations normalised) stay in one place.
    const searched = await countStatements(
      t,
      async () => {
        const r = await org.as('staff').get('/policies?limit=25&search=P');
        expect(r.status, r.text).toBe(200);
      },
      PLAN,
    );
    expect(searched).toBe(0);
    const rest = await countStatements(
      t,
      async () => {
        const r = await org.as('staff').get('/policies?limit=2');
        expect(r.status, r.text).toBe(200);
        expect(r.body.data).toHaveLength(2);
      },
      PLAN,
    );
    expect(rest).toBe(1);
  });

  it("the plan's rows equal Prisma's for a broad selection, value for value", async () => {
    await t.db.tenant(org.id, async (tx) => {
      const plan = planSelection(tx, 'Policy', 'p', BROAD)!;
      expect(plan).not.toBeNull();
      const mine = plan.rows(await tx.$queryRaw<unknown[]>`${plan.head} ORDER BY p.id`);
      const prisma = await tx.policy.findMany({ select: BROAD as never, orderBy: { id: 'asc' } });
      expect(mine.length).toBeGreaterThanOrEqual(4);
      // Every object it answered, related rows included, is marked as a whole selection (graphql/column-fields.ts
      // resolves relations from such rows); apart from the mark, it is Prisma's answer.
      expect(unmarked(mine, BROAD)).toEqual(prisma);
      const types = JSON.stringify(mine, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
      expect(types).toMatch(/"basicMinor":"\d+n"/);
      expect(mine.some((p: any) => p.renewal && p.renewalOf === null)).toBe(true);
      expect(mine.some((p: any) => p.receipts.some((r: any) => r.allocations.length))).toBe(true);
      expect(mine.some((p: any) => p.risks.length)).toBe(true);
      expect((mine[0] as any).createdAt).toBeInstanceOf(Date);
    });
  });

  it("gives a plan's rows, and Prisma's shaped by shapeRows, their models' getters, each answering its field's value", async () => {
    await t.db.tenant(org.id, async (tx) => {
      const plan = planSelection(tx, 'Policy', 'p', BROAD)!;
      const mine = plan.rows<any>(await tx.$queryRaw<unknown[]>`${plan.head} ORDER BY p.id`);
      const prisma: any[] = await tx.policy.findMany({ select: BROAD as never, orderBy: { id: 'asc' } });
      shapeRows(tx, 'Policy', BROAD, prisma);
      const [policy, debitNote] = [rowPrototype('Policy'), rowPrototype('DebitNote')];
      expect(policy && debitNote).toBeTruthy();
      let notes = 0;
      for (const rows of [mine, prisma]) {
        for (const p of rows) {
          expect(Object.getPrototypeOf(p)).toBe(policy);
          // Worked by hand from the columns: a Money of the cents, the date as Y-m-d.
          expect(p.$Policy$total.amountMinor).toBe(p.totalMinor);
          expect(p.$Policy$startDate).toBe(p.startDate.toISOString().slice(0, 10));
          for (const d of p.debitNotes) {
            notes += 1;
            expect(Object.getPrototypeOf(d)).toBe(debitNote);
            expect(d.$DebitNote$dueOn).toBe(d.dueOn.toISOString().slice(0, 10));
            expect(d.$DebitNote$amount.amountMinor).toBe(d.amountMinor);
          }
          // A model without derived fields keeps plain objects; a JSON column's value is not a row.
          if (p.client) expect(Object.getPrototypeOf(p.client)).toBe(rowPrototype('Client') ?? Object.prototype);
          if (p.coverDetails && typeof p.coverDetails === 'object')
            expect(Object.getPrototypeOf(p.coverDetails)).toBe(Object.prototype);
        }
      }
      expect(notes).toBeGreaterThan(0);
      // The getters are not own, enumerable properties: Object.keys, JSON and spreads never see them.
      expect(Object.keys(mine[0]).some((k) => k.startsWith('$'))).toBe(false);
      expect(JSON.stringify(prisma[0], (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain('$Policy');
    });
  });

  it('keeps one statement text per shape its caller names, and refuses (in tests) a shape naming two texts', async () => {
    await t.db.tenant(org.id, async (tx) => {
      const plan = planSelection(tx, 'Policy', 'p', { id: true, policyNo: true })!;
      const ids = async (shape: string, rest: Prisma.Sql) =>
        (await plan.query<{ id: number }>(tx, shape, rest)).map((r) => r.id);
      const all = await ids('all', Prisma.sql`ORDER BY p.id`);
      expect(all.length).toBeGreaterThanOrEqual(4);
      // The same shape with other values: the kept text, the new values.
      expect(await ids('after', Prisma.sql`WHERE p.id > ${all[1]} ORDER BY p.id`)).toEqual(all.slice(2));
      expect(await ids('after', Prisma.sql`WHERE p.id > ${all[2]} ORDER BY p.id`)).toEqual(all.slice(3));
      await expect(ids('after', Prisma.sql`WHERE p.id < ${all[2]} ORDER BY p.id`)).rejects.toThrow(
        /the shape "after" names two statement texts/,
      );
    });
  });

  it("holds to the schema: a relation it joins on its model's id references that id", () => {
    // The data models the plan reads do not say which field a relation references; the plan joins on the related
    // model's `id` and refuses a model without one. Every relation of the schema must keep that true.
    const schema = readFileSync(new URL('../prisma/schema.prisma', import.meta.url), 'utf8');
    const models = new Map<string, Set<string>>();
    for (const m of schema.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm))
      models.set(m[1], new Set([...m[2].matchAll(/^\s+(\w+)\s/gm)].map((f) => f[1])));
    const relations = [...schema.matchAll(/^\s+\w+\s+(\w+)\??\s+@relation\([^)]*references: \[([^\]]+)\]/gm)];
    expect(relations.length).toBeGreaterThan(100);
    for (const [line, model, refs] of relations) {
      if (refs === 'id') continue;
      expect(models.get(model)?.has('id'), line).toBe(false);
    }
  });

  it('leaves to Prisma every query it does not cover', async () => {
    await t.db.tenant(org.id, async (tx) => {
      for (const q of [
        { include: { vehicles: true } },
        { select: { id: true }, orderBy: { id: 'asc' } },
        { select: { id: true, _count: { select: { vehicles: true } } } },
        { select: { vehicles: { take: 1, select: { id: true } } } },
        { select: { vehicles: { where: { policy: { status: 'active' } }, select: { id: true } } } },
        { select: { vehicles: true } },
        { select: { notAField: true } },
        { select: {} },
      ])
        expect(planQuery(tx, 'Policy', 'p', q), JSON.stringify(q)).toBeNull();
      expect(planQuery(tx, 'Policy', 'p', { select: { id: true } })).not.toBeNull();
    });
  });
});
