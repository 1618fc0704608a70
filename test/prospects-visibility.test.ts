import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, type Caller, useKit } from './kit.ts';
import { createProspect, newPerson } from './kit/prospects.ts';

const t = useKit();
const [org, other] = t.useOrgs([{ fast: true, tokens: ['staff', 'agent'] }, { tokens: ['staff'] }]);
const staff = org.as('staff');
const agent1 = org.as('agent');
const agent2 = org.as('staff', { agent: 2 });

/** Prospects by who created them or is assigned, made in beforeAll. */
const uuid = { byAgent1: '', byAgent2: '', byStaff: '', assignedToAgent2: '', otherTenant: '' };

beforeAll(async () => {
  uuid.byAgent1 = (await createProspect(agent1, { name: 'Made By Agent One' })).uuid;
  uuid.byAgent2 = (await createProspect(agent2, { name: 'Made By Agent Two' })).uuid;
  uuid.byStaff = (await createProspect(staff, { name: 'Made By Staff', next_follow_up_on: '2026-06-15' })).uuid;
  uuid.assignedToAgent2 = (
    await createProspect(staff, {
      name: 'Staff Lead For Agent Two',
      assignee_id: org.users.agent2.id,
      next_follow_up_on: '2026-06-15',
    })
  ).uuid;
  uuid.otherTenant = (await createProspect(other.as('staff'), { name: 'Other Tenant Lead' })).uuid;
});

const CALLERS = ['agent1 (the agent key)', 'agent2 (agent headers on the staff key)'] as const;
const caller = (name: (typeof CALLERS)[number]): [Caller, string[], string[]] =>
  name === CALLERS[0]
    ? [agent1, [uuid.byAgent1], [uuid.byAgent2, uuid.byStaff, uuid.assignedToAgent2]]
    : [agent2, [uuid.byAgent2, uuid.assignedToAgent2], [uuid.byAgent1, uuid.byStaff]];
const write = (c: Caller, method: 'PATCH' | 'POST', path: string, body: Record<string, unknown>) =>
  c.call(method, path, { body, idempotencyKey: randomUUID() });
/** Every path of one prospect, reads and writes. */
const everyPath = (c: Caller, id: string) => [
  () => c.get(`/prospects/${id}`),
  () => write(c, 'PATCH', `/prospects/${id}`, { note: 'peek' }),
  () => write(c, 'POST', `/prospects/${id}/notes`, { body: 'peek' }),
  () => write(c, 'POST', `/prospects/${id}/convert`, { phone: newPerson().phone }),
];
const listed = async (c: Caller, path = '/prospects?limit=100') => {
  const r = await c.get(path);
  expect(r.status, r.text).toBe(200);
  return r.body.data.map((p: any) => p.uuid) as string[];
};

describe('an agent sees only the prospects they created or are assigned', () => {
  it.each(CALLERS)('%s: the list holds exactly those, whatever the filters', async (name) => {
    const [who, own, hidden] = caller(name);
    expect((await listed(who)).sort()).toEqual([...own].sort());
    expect(await listed(who, '/prospects?search=Made%20By%20Staff')).toEqual([]);
    const due = await listed(who, '/prospects/follow-ups');
    expect(due).toEqual(own.filter((u) => u === uuid.assignedToAgent2));
    expect((await listed(staff)).filter((u) => hidden.includes(u)).sort()).toEqual([...hidden].sort());
  });

  it.each(CALLERS)("%s: every path of another's prospect is 404; their own answers", async (name) => {
    const [who, own, hidden] = caller(name);
    for (const id of hidden) for (const call of everyPath(who, id)) expectProblem(await call(), 404, 'not_found');
    const mine = await who.get(`/prospects/${own[0]}`);
    expect(mine.status, mine.text).toBe(200);
    const rows = await t.db.tenant(org.id, (tx) =>
      tx.prospectNote.count({ where: { prospect: { uuid: { in: hidden } }, body: 'peek' } }),
    );
    expect(rows).toBe(0);
  });

  it.each(CALLERS)(
    '%s: GraphQL prospect(uuid:) is not_found, node(id:) null, prospects only their own',
    async (name) => {
      const [who, own, hidden] = caller(name);
      const one = await who.gql('query($u: String!) { prospect(uuid: $u) { prospectNo } }', { u: hidden[0] });
      expect(one.body.errors?.[0]?.extensions?.code).toBe('not_found');
      const ids = await staff.gql('query($u: String!) { prospect(uuid: $u) { id } }', { u: hidden[0] });
      const node = await who.gql('query($id: ID!) { node(id: $id) { id ... on Prospect { name } } }', {
        id: ids.body.data.prospect.id,
      });
      expect(node.body.data.node).toBeNull();
      const list = await who.gql('query { prospects(first: 100) { edges { node { uuid timeline { kind } } } } }');
      expect(list.body.errors).toBeUndefined();
      expect(list.body.data.prospects.edges.map((e: any) => e.node.uuid).sort()).toEqual([...own].sort());
    },
  );
});

describe('another organisation', () => {
  it('is 404 on every path, and its prospects are in no list', async () => {
    for (const call of everyPath(staff, uuid.otherTenant)) expectProblem(await call(), 404, 'not_found');
    expect(await listed(staff)).not.toContain(uuid.otherTenant);
    expect(await listed(other.as('staff'))).toEqual([uuid.otherTenant]);
    for (const call of everyPath(other.as('staff'), uuid.byStaff)) expectProblem(await call(), 404, 'not_found');
  });

  it('an unknown or malformed uuid is 404 too', async () => {
    expectProblem(await staff.get(`/prospects/${randomUUID()}`), 404, 'not_found');
    expectProblem(await staff.get('/prospects/P-000001'), 404, 'not_found');
  });
});

describe("a prospect linked to a client out of the agent's reach", () => {
  it('reads client: null, clientNo: null and no error, in the list and alone (the whole list was 404)', async () => {
    // Staff's own client: not agent 1's. The prospect is assigned to agent 1, who sees it.
    const staffClient = (
      await staff.post('/clients', {
        body: { name: newPerson().name, phone: newPerson().phone },
        idempotencyKey: randomUUID(),
      })
    ).body.data.client_no as string;
    const p = await createProspect(staff, { name: newPerson().name, assignee_id: org.users.agent1.id });
    expect((await write(staff, 'POST', `/prospects/${p.uuid}/convert`, { client_no: staffClient })).status).toBe(200);
    const q = `query($u: String!) {
      prospect(uuid: $u) { uuid clientNo client { clientNo } }
      prospects(first: 100) { edges { node { uuid clientNo client { clientNo } } } }
    }`;
    const r = await agent1.gql(q, { u: p.uuid });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.prospect).toEqual({ uuid: p.uuid, clientNo: null, client: null });
    expect(r.body.data.prospects.edges.map((e: any) => e.node)).toContainEqual({
      uuid: p.uuid,
      clientNo: null,
      client: null,
    });
    // Staff sees the client through the same fields.
    const s = await staff.gql(q, { u: p.uuid });
    expect(s.body.data.prospect).toEqual({ uuid: p.uuid, clientNo: staffClient, client: { clientNo: staffClient } });
    // REST agrees.
    expect((await agent1.get(`/prospects/${p.uuid}`)).body.data.client_no).toBeNull();
  });
});

describe('REST and GraphQL', () => {
  const FIELDS = `uuid prospectNo type name phone idNo kraPin source interests status lostReason nextFollowUpOn clientNo
    estimatedPremium { amount amountMinor } assignee { databaseId } timeline { kind fromStatus toStatus body actorId }`;
  const CREATE = `mutation($input: CreateProspectInput!) { createProspect(input: $input) {
    __typename ... on Prospect { ${FIELDS} }
    ... on DuplicateClientProblem { code matches { kind prospectNo matched redacted } } } }`;
  const restView = (p: any) => ({
    uuid: p.uuid,
    prospect_no: p.prospectNo,
    type: p.type,
    name: p.name,
    phone: p.phone,
    id_no: p.idNo,
    kra_pin: p.kraPin,
    source: p.source,
    interests: p.interests,
    status: p.status,
    lost_reason: p.lostReason,
    next_follow_up_on: p.nextFollowUpOn,
    client_no: p.clientNo,
    estimated_premium: p.estimatedPremium.amount,
    estimated_premium_minor: p.estimatedPremium.amountMinor,
    assignee: { id: p.assignee.databaseId },
    timeline: p.timeline.map((e: any) => ({
      kind: e.kind,
      from_status: e.fromStatus,
      to_status: e.toStatus,
      body: e.body,
      actor_id: e.actorId,
    })),
  });

  it('a prospect created over GraphQL reads the same by REST and GraphQL; a duplicate is a typed result', async () => {
    const who = newPerson('Graph');
    const input = {
      name: who.name,
      phone: who.phone,
      idNo: who.id_no,
      kraPin: who.kra_pin,
      source: 'event',
      interests: ['travel'],
      estimatedPremium: 18_000,
      note: 'from the expo',
    };
    const made = (await agent1.gql(CREATE, { input })).body.data.createProspect;
    expect(made.__typename).toBe('Prospect');
    const rest = (await agent1.get(`/prospects/${made.uuid}`)).body.data;
    expect(rest).toMatchObject(restView(made));
    const read = await agent1.gql(`query($u: String!) { prospect(uuid: $u) { ${FIELDS} } }`, { u: made.uuid });
    const { __typename, ...fields } = made;
    expect(read.body.data.prospect).toEqual(fields);
    const twin = (await agent1.gql(CREATE, { input: { ...input, name: 'Twin' } })).body.data.createProspect;
    expect(twin).toMatchObject({ __typename: 'DuplicateClientProblem', code: 'duplicate_client' });
    expect(twin.matches).toEqual([
      { kind: 'prospect', prospectNo: made.prospectNo, matched: ['phone', 'id_no', 'kra_pin'], redacted: false },
    ]);
  });

  it('updateProspect, addProspectNote and convertProspect over GraphQL, with InvalidStateProblem', async () => {
    const p = await createProspect(staff, { name: newPerson().name, phone: newPerson().phone });
    const update = `mutation($input: UpdateProspectInput!) { updateProspect(input: $input) {
      __typename ... on Prospect { status } ... on InvalidStateProblem { code http: status } } }`;
    const moved = await staff.gql(update, { input: { uuid: p.uuid, status: 'qualified', note: 'budget ok' } });
    expect(moved.body.data.updateProspect).toEqual({ __typename: 'Prospect', status: 'qualified' });
    const refused = await staff.gql(update, { input: { uuid: p.uuid, status: 'won' } });
    expect(refused.body.data.updateProspect).toMatchObject({
      __typename: 'InvalidStateProblem',
      code: 'invalid_state',
      http: 409,
    });
    const noted = await staff.gql(
      `mutation($input: AddProspectNoteInput!) { addProspectNote(input: $input) {
        __typename ... on Prospect { timeline { kind body } } } }`,
      { input: { uuid: p.uuid, body: 'sent a proposal' } },
    );
    expect(noted.body.data.addProspectNote.timeline.at(-1)).toEqual({ kind: 'note', body: 'sent a proposal' });
    const converted = await staff.gql(
      `mutation($input: ConvertProspectInput!) { convertProspect(input: $input) {
        __typename ... on Prospect { clientNo client { onboardedVia } } } }`,
      { input: { uuid: p.uuid } },
    );
    expect(converted.body.data.convertProspect).toMatchObject({
      __typename: 'Prospect',
      clientNo: expect.stringMatching(/^C-/),
      client: { onboardedVia: 'prospect' },
    });
  });
});
