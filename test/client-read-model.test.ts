import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { countStatements } from './helpers/policies.ts';
import { useKit } from './kit.ts';

/**
 * The clients' read model (src/modules/clients/client/read-model.ts, issue 28): a client's record and a page of
 * clients read with one fixed statement each instead of Prisma's query. Checked against Prisma itself, the naive second
 * implementation: GraphQL `nodes` loads clients through the Pothos plugin's Prisma loader, never the read model, so the
 * same clients read both ways must answer the same; paging is checked against the order and reach worked out here from
 * the rows.
 */
const t = useKit();
const [org, other] = t.useOrgs([{ fast: true, tokens: ['staff', 'agent'] }, { tokens: ['staff'] }]);
const staff = org.as('staff');
const agent = org.as('agent'); // acts as agent1

/** The read model's statements (`… FROM clients c WHERE …`); Prisma's name the table `"public"."clients"`. */
const READ_MODEL = /FROM clients c\s/;

const FIELDS = `id databaseId clientNo type name idNo kraPin phone email dateOfBirth physicalAddress
  branch { databaseId name } riskManager { databaseId name role code } salesPerson { databaseId name role code }
  businessSource { databaseId name } prospectType { databaseId code name }
  sector altName altPhone altEmail kycStatus onboardedVia createdAt updatedAt`;

let seq = 0;
const phone = () =>
  `0793${String((seq += 1)).padStart(3, '0')}${String(Math.floor(Math.random() * 1000)).padStart(3, '0')}`;
async function create(c: typeof staff, body: Record<string, unknown>): Promise<string> {
  const r = await c.post('/clients', { body: { phone: phone(), ...body }, idempotencyKey: randomUUID() });
  expect(r.status, r.text).toBe(201);
  return r.body.data.client_no;
}

let full = '';
let otherClientId = 0;

beforeAll(async () => {
  full = await create(staff, {
    name: 'Every Field Kamau',
    email: 'Every@Example.co.ke',
    id_no: `77${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`,
    date_of_birth: '1988-04-30',
    physical_address: 'Ngong Road, Nairobi',
    risk_manager_id: org.users.exec.id,
    sales_person_id: org.users.agent2.id,
    sector: 'Retail',
    alt_name: 'E. K.',
    alt_phone: '+254 711 222 333',
    alt_email: 'ek@example.co.ke',
  });
  await create(staff, { name: 'Corporate Holdings Ltd', type: 'corporate' });
  await create(agent, { name: 'Created By Agent One' });
  await create(staff, { name: 'Sold By Agent One', sales_person_id: org.users.agent1.id });
  await create(staff, { name: 'Nobody Of Agent One' });
  await create(other.as('staff'), { name: 'Another Organisation' });
  otherClientId = (await t.db.tenant(other.id, (tx) => tx.client.findFirstOrThrow({ select: { id: true } }))).id;
});

/** The organisation's clients newest first, with what reach and the filters look at: worked out from the rows. */
async function rows() {
  return t.db.tenant(org.id, async (tx) => {
    const clients = await tx.client.findMany({
      orderBy: { id: 'desc' },
      select: { id: true, clientNo: true, name: true, type: true, salesPersonId: true, createdByUserId: true },
    });
    const a1 = org.users.agent1.id;
    const viaPolicy = new Set(
      (
        await tx.policy.findMany({
          where: { OR: [{ createdByUserId: a1 }, { salesPersonId: a1 }] },
          select: { clientId: true },
        })
      ).map((p) => p.clientId),
    );
    const agentSees = (c: (typeof clients)[number]) =>
      c.createdByUserId === a1 || c.salesPersonId === a1 || viaPolicy.has(c.id);
    return { all: clients, agent1: clients.filter(agentSees) };
  });
}

/** Every client number of a REST list, following `links.next` page by page. */
async function walk(c: typeof staff, query: string): Promise<string[]> {
  const seen: string[] = [];
  let path: string | null = `/clients?${query}`;
  while (path) {
    const r: { status: number; text: string; body: any } = await c.get(path);
    expect(r.status, r.text).toBe(200);
    seen.push(...r.body.data.map((x: { client_no: string }) => x.client_no));
    path = r.body.links.next ? r.body.links.next.replace(/^.*\/api\/v1/, '') : null;
  }
  return seen;
}

describe('the clients read model', () => {
  it('answers every field as Prisma does: the page and the record from the read model, nodes from Prisma', async () => {
    for (const caller of [staff, agent]) {
      let page: any;
      const readModel = await countStatements(
        t,
        async () => {
          page = await caller.gql(`{ clients(first: 100) { edges { node { ${FIELDS} } } } }`);
        },
        READ_MODEL,
      );
      expect(page.body.errors).toBeUndefined();
      expect(readModel).toBe(1);
      const nodes = page.body.data.clients.edges.map((e: any) => e.node);
      expect(nodes.length).toBeGreaterThan(caller === staff ? 5 : 1);

      let viaPrisma: any;
      const prismaReads = await countStatements(
        t,
        async () => {
          viaPrisma = await caller.gql(`query($ids: [ID!]!) { nodes(ids: $ids) { ... on Client { ${FIELDS} } } }`, {
            ids: nodes.map((n: any) => n.id),
          });
        },
        READ_MODEL,
      );
      expect(viaPrisma.body.errors).toBeUndefined();
      expect(prismaReads).toBe(0);
      expect(nodes).toEqual(viaPrisma.body.data.nodes);

      for (const n of nodes) {
        const one = await caller.gql(`query($no: String!) { client(clientNo: $no) { ${FIELDS} } }`, {
          no: n.clientNo,
        });
        expect(one.body.data.client).toEqual(n);
      }
    }
    // The date of birth is the calendar date given, whatever the process's time zone.
    const r = await staff.get(`/clients/${full}`);
    expect(r.body.data).toMatchObject({
      date_of_birth: '1988-04-30',
      email: 'every@example.co.ke',
      alt_phone: '254711222333',
      risk_manager: { id: org.users.exec.id },
      sales_person: { id: org.users.agent2.id },
    });
  });

  it('a record out of reach or of another organisation is 404 from the read model as from Prisma', async () => {
    const { all, agent1 } = await rows();
    const hidden = all.filter((c) => !agent1.some((s) => s.id === c.id));
    expect(hidden.length).toBeGreaterThan(2);
    for (const c of hidden) expect((await agent.get(`/clients/${c.clientNo}`)).status).toBe(404);
    for (const c of agent1) expect((await agent.get(`/clients/${c.clientNo}`)).status).toBe(200);
    const theirs = await t.db.tenant(other.id, (tx) => tx.client.findFirstOrThrow({ select: { clientNo: true } }));
    if (!all.some((c) => c.clientNo === theirs.clientNo))
      expect((await staff.get(`/clients/${theirs.clientNo}`)).status).toBe(404);
  });

  it('pages as Prisma does: cursors, page numbers and the equality filters, for staff and an agent', async () => {
    const { all, agent1 } = await rows();
    const numbers = (list: typeof all) => list.map((c) => c.clientNo);
    expect(await walk(staff, 'limit=2')).toEqual(numbers(all));
    expect(await walk(agent, 'limit=1')).toEqual(numbers(agent1));
    expect(await walk(staff, 'limit=3&type=corporate')).toEqual(numbers(all.filter((c) => c.type === 'corporate')));
    const a1 = org.users.agent1.id;
    expect(await walk(staff, `limit=2&sales_person_id=${a1}`)).toEqual(
      numbers(all.filter((c) => c.salesPersonId === a1)),
    );
    const second = await staff.get('/clients?limit=2&page=2');
    expect(second.body.data.map((x: { client_no: string }) => x.client_no)).toEqual(numbers(all).slice(2, 4));
    const past = await agent.get(`/clients?limit=2&page=${Math.ceil(agent1.length / 2) + 1}`);
    expect(past.body.data).toEqual([]);
  });

  it("a page after a cursor holds the rows after its id, whether or not the cursor's row is in the list", async () => {
    const { all, agent1 } = await rows();
    const cursor = (id: number) => encodeURIComponent(Buffer.from(`GPC:N:${id}`).toString('base64'));
    const page = async (c: typeof staff, query: string) => {
      const r = await c.get(`/clients?${query}`);
      expect(r.status, r.text).toBe(200);
      return r.body.data.map((x: { client_no: string }) => x.client_no);
    };
    const after = (list: typeof all, id: number, n: number) =>
      list
        .filter((c) => c.id < id)
        .slice(0, n)
        .map((c) => c.clientNo);
    // A row the filter leaves out: the next corporate client is not skipped (Prisma's cursor skipped it).
    const corporate = all.filter((c) => c.type === 'corporate');
    const individualAbove = all.find((c) => c.type !== 'corporate' && c.id > corporate[0].id)!;
    expect(await page(staff, `type=corporate&limit=5&cursor=${cursor(individualAbove.id)}`)).toEqual(
      after(corporate, individualAbove.id, 5),
    );
    // A row out of the agent's reach answers as a row that is not there: the agent's rows after that id.
    const hidden = all.find((c) => !agent1.some((a) => a.id === c.id) && c.id > agent1[agent1.length - 1].id)!;
    expect(await page(agent, `limit=100&cursor=${cursor(hidden.id)}`)).toEqual(after(agent1, hidden.id, 100));
    // So does another organisation's, and an id no row has.
    for (const id of [2 ** 31 - 1, otherClientId])
      expect(await page(staff, `limit=5&cursor=${cursor(id)}`)).toEqual(after(all, id, 5));
    // Prisma's path (a search) pages the same way.
    const named = agent1.filter((c) => c.name.includes('Agent One'));
    expect(named.length).toBe(2);
    expect(await page(agent, `search=${encodeURIComponent('Agent One')}&cursor=${cursor(named[0].id + 1)}`)).toEqual(
      after(named, named[0].id + 1, 100),
    );
    expect(await page(agent, `search=${encodeURIComponent('Agent One')}&cursor=${cursor(named[0].id)}`)).toEqual(
      after(named, named[0].id, 100),
    );
  });

  it('leaves to Prisma what it does not answer (a search, paging backwards), with the same reach', async () => {
    let found: any;
    const readModel = await countStatements(
      t,
      async () => {
        found = await agent.get(`/clients?search=${encodeURIComponent('Agent One')}`);
      },
      READ_MODEL,
    );
    expect(readModel).toBe(0);
    const names = found.body.data.map((x: { name: string }) => x.name).sort();
    expect(names).toEqual(['Created By Agent One', 'Sold By Agent One']);

    const { agent1 } = await rows();
    let last: any;
    const backwards = await countStatements(
      t,
      async () => {
        last = await agent.gql('{ clients(last: 2) { edges { node { clientNo } } } }');
      },
      READ_MODEL,
    );
    expect(backwards).toBe(0);
    expect(last.body.data.clients.edges.map((e: any) => e.node.clientNo)).toEqual(
      agent1.slice(-2).map((c) => c.clientNo),
    );
  });
});
