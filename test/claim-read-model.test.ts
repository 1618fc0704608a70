import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { claimColumns } from '../src/modules/claims/read-model.ts';
import { rowPrototype, shapedAsPlanned } from '../src/db/selection-sql.ts';
import { countStatements } from './helpers/policies.ts';
import { motorNotice } from './kit/approved-claim.ts';
import { INSTANT_RAIL, useKit } from './kit.ts';

/**
 * The claims list's read model (src/modules/claims/read-model.ts, issue 28): a page of claims, with the policy, client
 * and insured risk each names, read with one fixed statement instead of Prisma's query. Checked against Prisma
 * itself, the naive second implementation: GraphQL `nodes` loads claims through the Pothos plugin's Prisma loader,
 * never the read model, so the same claims read both ways must answer the same; paging, filters and an agent's reach
 * are checked against what is worked out here from the rows.
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const [org, other] = t.useOrgs([{ fast: true, tokens: ['staff', 'agent'] }, { tokens: ['staff'] }]);
const staff = org.as('staff');
const agent = org.as('agent'); // acts as agent1

/** The read model's statement (`… FROM claims c LEFT JOIN …`); Prisma's names the table `"public"."claims"`. */
const READ_MODEL = /FROM claims c\s/;

const MONEY = '{ amount amountMinor }';
const FIELDS = `id databaseId uuid claimNo status policyUuid policyNo clientNo clientName insurer { databaseId name }
  registration insured { databaseId kind name } productLine cause lossDate lossTime lossPlace description thirdParties
  witnesses policeAbstractNo antiTheftDevice reporterName reporterPhone reporterRelationship channel reportedAt
  lateNotification estimatedLoss ${MONEY} sumInsured ${MONEY} reserve ${MONEY} assessorName assessorPhone assessorFirm
  assessorAppointedAt assessedAmount ${MONEY} salvage ${MONEY} assessmentNotes assessedAt approvedAmount ${MONEY}
  excess ${MONEY} netPayable ${MONEY} approvedAt paid ${MONEY} outstanding ${MONEY} repudiationReason repudiationNote
  assignee { databaseId name } statusChangedAt slaDueAt slaBreached closedAt createdAt updatedAt`;

async function register(c: typeof staff, body: Record<string, unknown>): Promise<string> {
  const r = await c.post('/claims', { body, idempotencyKey: randomUUID() });
  expect(r.status, r.text).toBe(201);
  return r.body.data.uuid;
}

let otherClaimId = 0;

beforeAll(async () => {
  const [byStaff, byAgent, theirs] = await Promise.all([
    org.activePolicy(),
    org.activePolicy({ token: org.tokens.agent, insurer: 'Pwani Mutual' }),
    other.activePolicy(),
  ]);
  await register(staff, motorNotice(byStaff, { estimated_loss: 120_000, third_parties: [{ name: 'J. Otieno' }] }));
  await register(staff, motorNotice(byAgent, { witnesses: [{ name: 'A. Wairimu', phone: '0712345678' }] }));
  const assigned = await register(staff, motorNotice(byStaff, { assignee_id: org.users.agent1.id }));
  expect(
    (
      await staff.post(`/claims/${assigned}/transitions`, {
        body: { to: 'documents_pending' },
        idempotencyKey: randomUUID(),
      })
    ).status,
  ).toBe(200);
  await register(staff, motorNotice(byStaff, { cause: 'theft', loss_time: undefined }));
  await register(other.as('staff'), motorNotice(theirs));
  otherClaimId = (await t.db.tenant(other.id, (tx) => tx.claim.findFirstOrThrow({ select: { id: true } }))).id;
}, 120_000);

/** The organisation's claims newest first, with what reach and the filters look at: worked out from the rows. */
async function rows() {
  return t.db.tenant(org.id, async (tx) => {
    const a1 = org.users.agent1.id;
    const claims = await tx.claim.findMany({
      orderBy: { id: 'desc' },
      select: {
        id: true,
        uuid: true,
        status: true,
        insurerId: true,
        assigneeUserId: true,
        createdByUserId: true,
        policy: {
          select: {
            createdByUserId: true,
            salesPersonId: true,
            client: { select: { createdByUserId: true, salesPersonId: true } },
          },
        },
      },
    });
    const agentSees = (c: (typeof claims)[number]) =>
      c.createdByUserId === a1 ||
      c.assigneeUserId === a1 ||
      c.policy.createdByUserId === a1 ||
      c.policy.salesPersonId === a1 ||
      c.policy.client.createdByUserId === a1 ||
      c.policy.client.salesPersonId === a1;
    return { all: claims, agent1: claims.filter(agentSees) };
  });
}

/** Every claim of a REST list, following `links.next` page by page. */
async function walk(c: typeof staff, query: string): Promise<string[]> {
  const seen: string[] = [];
  let path: string | null = `/claims?${query}`;
  while (path) {
    const r: { status: number; text: string; body: any } = await c.get(path);
    expect(r.status, r.text).toBe(200);
    seen.push(...r.body.data.map((x: { uuid: string }) => x.uuid));
    path = r.body.links.next ? r.body.links.next.replace(/^.*\/api\/v1/, '') : null;
  }
  return seen;
}

describe('the claims read model', () => {
  it('answers every field as Prisma does: the page from the read model, nodes from Prisma', async () => {
    for (const caller of [staff, agent]) {
      let page: any;
      const readModel = await countStatements(
        t,
        async () => {
          page = await caller.gql(`{ claims(first: 100) { edges { node { ${FIELDS} } } } }`);
        },
        READ_MODEL,
      );
      expect(page.body.errors).toBeUndefined();
      expect(readModel).toBe(1);
      const nodes = page.body.data.claims.edges.map((e: any) => e.node);
      expect(nodes.length).toBe(caller === staff ? 4 : 2);

      let viaPrisma: any;
      const prismaReads = await countStatements(
        t,
        async () => {
          viaPrisma = await caller.gql(`query($ids: [ID!]!) { nodes(ids: $ids) { ... on Claim { ${FIELDS} } } }`, {
            ids: nodes.map((n: any) => n.id),
          });
        },
        READ_MODEL,
      );
      expect(viaPrisma.body.errors).toBeUndefined();
      expect(prismaReads).toBe(0);
      expect(nodes).toEqual(viaPrisma.body.data.nodes);
    }
    // What the REST list says of them, through the same statement.
    const r = await staff.get('/claims?limit=100');
    const withLoss = r.body.data.find((c: any) => c.estimated_loss === 120_000);
    expect(withLoss).toMatchObject({
      third_parties: [{ name: 'J. Otieno' }],
      policy: { uuid: expect.any(String), policy_no: expect.any(String) },
    });
  });

  it("pages as Prisma does, within the caller's reach: cursors, page numbers and the equality filters", async () => {
    const { all, agent1 } = await rows();
    const uuids = (list: typeof all) => list.map((c) => c.uuid);
    expect(agent1.length).toBe(2);
    expect(await walk(staff, 'limit=1')).toEqual(uuids(all));
    expect(await walk(agent, 'limit=1')).toEqual(uuids(agent1));
    expect(await walk(staff, 'limit=2&status=documents_pending')).toEqual(
      uuids(all.filter((c) => c.status === 'documents_pending')),
    );
    expect(await walk(staff, 'limit=2&status=registered,documents_pending')).toEqual(uuids(all));
    const pwani = all.find((c) => c.insurerId !== all[all.length - 1].insurerId)?.insurerId ?? all[0].insurerId;
    expect(await walk(agent, `limit=5&insurer_id=${pwani}`)).toEqual(
      uuids(agent1.filter((c) => c.insurerId === pwani)),
    );
    expect(await walk(staff, `limit=5&assignee_id=${org.users.agent1.id}`)).toEqual(
      uuids(all.filter((c) => c.assigneeUserId === org.users.agent1.id)),
    );
    const second = await staff.get('/claims?limit=2&page=2');
    expect(second.body.data.map((x: { uuid: string }) => x.uuid)).toEqual(uuids(all).slice(2, 4));
  });

  it("a page after a cursor holds the claims after its id, whether or not the cursor's claim is in the list", async () => {
    const { all, agent1 } = await rows();
    const cursor = (id: number) => encodeURIComponent(Buffer.from(`GPC:N:${id}`).toString('base64'));
    const page = async (c: typeof staff, query: string) => {
      const r = await c.get(`/claims?${query}`);
      expect(r.status, r.text).toBe(200);
      return r.body.data.map((x: { uuid: string }) => x.uuid);
    };
    const after = (list: typeof all, id: number) => list.filter((c) => c.id < id).map((c) => c.uuid);
    // A claim the filter leaves out: the next registered claim is not skipped (Prisma's cursor skipped it).
    const registered = all.filter((c) => c.status === 'registered');
    const other = all.find((c) => c.status !== 'registered' && c.id > registered[registered.length - 1].id)!;
    expect(await page(staff, `status=registered&limit=10&cursor=${cursor(other.id)}`)).toEqual(
      after(registered, other.id),
    );
    // A claim out of the agent's reach answers as one that is not there: the agent's claims after that id.
    const hidden = all.find((c) => !agent1.some((a) => a.id === c.id) && c.id > agent1[agent1.length - 1].id)!;
    expect(await page(agent, `limit=10&cursor=${cursor(hidden.id)}`)).toEqual(after(agent1, hidden.id));
    for (const id of [2 ** 31 - 1, otherClaimId])
      expect(await page(staff, `limit=10&cursor=${cursor(id)}`)).toEqual(after(all, id));
    // Prisma's path (a date filter) pages the same way.
    expect(await page(agent, `loss_from=2000-01-01&limit=10&cursor=${cursor(hidden.id)}`)).toEqual(
      after(agent1, hidden.id),
    );
  });

  it("a claim within an agent's reach on a policy out of it names the policy as null, not the whole answer not_found", async () => {
    const r = await agent.gql(
      '{ claims(first: 10) { edges { node { uuid assignee { databaseId } policy { policyNo } policyNo } } } }',
    );
    expect(r.body.errors).toBeUndefined();
    const nodes = r.body.data.claims.edges.map((e: any) => e.node);
    const assigned = nodes.find((n: any) => n.assignee?.databaseId === org.users.agent1.id);
    const own = nodes.find((n: any) => n !== assigned);
    expect(assigned.policy).toBeNull();
    expect(assigned.policyNo).toEqual(expect.any(String));
    expect(own.policy).toEqual({ policyNo: own.policyNo });
    const one = await agent.gql('query($u: String!) { claim(uuid: $u) { policy { policyNo } } }', { u: assigned.uuid });
    expect(one.body.errors).toBeUndefined();
    expect(one.body.data.claim.policy).toBeNull();
    const staffSees = await staff.gql('query($u: String!) { claim(uuid: $u) { policy { policyNo } policyNo } }', {
      u: assigned.uuid,
    });
    expect(staffSees.body.data.claim.policy).toEqual({ policyNo: staffSees.body.data.claim.policyNo });
  });

  it("gives its rows, and Prisma's shaped alike, the Claim getters the facade reads, each answering its field's value", async () => {
    await t.db.tenant(org.id, async (tx) => {
      const mine = claimColumns.rows<any>(
        await tx.$queryRaw<unknown[]>`SELECT ${claimColumns.columns} FROM claims c ${claimColumns.joins} ORDER BY c.id`,
      );
      const select = {
        id: true,
        lossDate: true,
        reserveMinor: true,
        estimatedLossMinor: true,
        netPayableMinor: true,
        paidMinor: true,
        policy: { select: { policyNo: true, uuid: true } },
        client: { select: { name: true } },
      };
      const prisma: any[] = shapedAsPlanned(
        tx,
        'Claim',
        { select },
        await tx.claim.findMany({ select, orderBy: { id: 'asc' } }),
      );
      const claim = rowPrototype('Claim');
      expect(claim).toBeTruthy();
      expect(mine.length).toBe(4);
      expect(prisma.length).toBe(4);
      let estimated = 0;
      for (const rows of [mine, prisma])
        for (const c of rows) {
          expect(Object.getPrototypeOf(c)).toBe(claim);
          // Worked by hand from the columns: a Money of the cents (null when none), the day as Y-m-d.
          expect(c.$Claim$reserve.amountMinor).toBe(c.reserveMinor);
          if (c.estimatedLossMinor == null) expect(c.$Claim$estimatedLoss).toBeNull();
          else {
            expect(c.$Claim$estimatedLoss.amountMinor).toBe(c.estimatedLossMinor);
            estimated += 1;
          }
          expect(c.$Claim$outstanding).toBeNull(); // none approved: no net payable yet
          expect(c.$Claim$lossDate).toBe(c.lossDate.toISOString().slice(0, 10));
          expect(c.$Claim$policyNo).toBe(c.policy.policyNo);
          expect(c.$Claim$clientName).toBe(c.client.name);
        }
      expect(estimated).toBe(2); // the one given 120,000, from each read
      expect(Object.keys(mine[0]).some((k) => k.startsWith('$'))).toBe(false);
    });
  });

  it('leaves to Prisma what it does not answer (a search, a date filter), with the same reach', async () => {
    const { agent1 } = await rows();
    const claimNo = (await agent.get(`/claims/${agent1[0].uuid}`)).body.data.claim_no;
    let found: any;
    const readModel = await countStatements(
      t,
      async () => {
        found = await agent.get(`/claims?search=${encodeURIComponent(claimNo)}`);
        expect((await agent.get('/claims?loss_from=2000-01-01')).body.data.length).toBe(2);
      },
      READ_MODEL,
    );
    expect(readModel).toBe(0);
    expect(found.body.data.map((x: { uuid: string }) => x.uuid)).toEqual([agent1[0].uuid]);
  });
});
