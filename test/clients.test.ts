import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, useKit, type HttpResult, type TestTenant } from './kit.ts';

const t = useKit();
const api = t.api;
// Far more than 60 calls a minute go through each token here; the per-token limit has its own tests.
const org = t.useOrg({ fast: true, tokens: ['staff', 'agent'] });
let staff: string;
let agent: string;
/** Reference ids looked up the way a caller would (GET /branches, …) or, where no endpoint lists them, in the DB. */
const ref = { branchNbo: 0, branchMsa: 0, branchKsm: 0, businessSource: 0, prospectType: 0 };

beforeAll(async () => {
  ({ staff, agent } = org.tokens);
  const branches = (await api.get('/branches', { token: staff })).body.data as {
    id: number;
    name: string;
    city: string;
  }[];
  const branch = (city: string) => branches.find((b) => b.city === city)!.id;
  Object.assign(ref, { branchNbo: branch('Nairobi'), branchMsa: branch('Mombasa'), branchKsm: branch('Kisumu') });
  await t.db.tenant(org.id, async (tx) => {
    ref.businessSource = (await tx.businessSource.findFirstOrThrow({ where: { name: 'Referral' } })).id;
    ref.prospectType = (await tx.prospectType.findFirstOrThrow({ where: { code: 'warm' } })).id;
  });
});

// Distinct identities per call: every client in this file must be a new person unless a test says otherwise.
let seq = 0;
const person = () => {
  seq += 1;
  const n = String(seq).padStart(4, '0');
  return {
    nsn: `78${n}${String(Math.floor(Math.random() * 1000)).padStart(3, '0')}`,
    idNo: `4${n}${String(Math.floor(Math.random() * 1000)).padStart(3, '0')}`,
    pin: `A${String(seq).padStart(9, '0')}Q`,
  };
};
const newClient = (extra: Record<string, unknown> = {}) => {
  const p = person();
  return { name: `Client ${randomUUID().slice(0, 8)}`, phone: `0${p.nsn}`, id_no: p.idNo, kra_pin: p.pin, ...extra };
};
const post = (body: unknown, token = staff, headers?: Record<string, string>) =>
  api.post('/clients', { token, body, idempotencyKey: randomUUID(), headers });
const patch = (clientNo: string, body: unknown, token = staff) =>
  api.patch(`/clients/${clientNo}`, { token, body, idempotencyKey: randomUUID() });
async function created(body: Record<string, unknown>, token = staff, headers?: Record<string, string>) {
  const r = await post(body, token, headers);
  expect(r.status, r.text).toBe(201);
  return r.body.data as Record<string, any>;
}
const countClients = (where: Record<string, unknown> = {}) => t.db.tenant(org.id, (tx) => tx.client.count({ where }));
const audits = (clientNo: string) =>
  t.db.tenant(org.id, (tx) =>
    tx.auditLog.findMany({ where: { entityType: 'client', entityId: clientNo }, orderBy: { id: 'asc' } }),
  );

const CLIENT_FIELDS = [
  'id',
  'client_no',
  'type',
  'name',
  'id_no',
  'kra_pin',
  'phone',
  'email',
  'date_of_birth',
  'physical_address',
  'branch',
  'risk_manager',
  'sales_person',
  'business_source',
  'prospect_type',
  'sector',
  'alt_name',
  'alt_phone',
  'alt_email',
  'kyc_status',
  'onboarded_via',
  'created_at',
  'updated_at',
].sort();
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const staffUser = (u: TestTenant['users']['exec'], role: string) => ({
  id: u.id,
  name: u.name,
  role,
  code: u.agentCode,
});

describe('POST /clients', () => {
  it('creates a client with every field of the spec, normalised, explicit references kept, audited', async () => {
    const nextNo = `C-${String((await countClients()) + 1).padStart(6, '0')}`;
    const r = await post({
      name: 'Wanjiru Njoki Kamau',
      phone: '0722 123 456',
      email: 'Wanjiru@Example.co.ke',
      id_no: ' 2345-6780 ',
      kra_pin: 'a012345678z',
      date_of_birth: '1988-04-30',
      physical_address: 'Ngong Road, Nairobi',
      branch_id: ref.branchKsm,
      risk_manager_id: org.users.exec2.id,
      sales_person_id: org.users.agent2.id,
      business_source_id: ref.businessSource,
      prospect_type_id: ref.prospectType,
      sector: 'Retail',
      alt_name: 'Njoki K.',
      alt_phone: '+254 711 222 333',
      alt_email: 'njoki@example.co.ke',
    });
    expect(r.status, r.text).toBe(201);
    const c = r.body.data;
    expect(Object.keys(c).sort()).toEqual(CLIENT_FIELDS);
    expect(c).toEqual({
      id: expect.any(Number),
      client_no: nextNo,
      type: 'individual',
      name: 'Wanjiru Njoki Kamau',
      id_no: '23456780',
      kra_pin: 'A012345678Z',
      phone: '254722123456',
      email: 'wanjiru@example.co.ke',
      date_of_birth: '1988-04-30',
      physical_address: 'Ngong Road, Nairobi',
      branch: { id: ref.branchKsm, name: 'Kisumu' },
      risk_manager: staffUser(org.users.exec2, 'account_exec'),
      sales_person: { id: org.users.agent2.id, name: org.users.agent2.name, role: 'agent', code: 'AG-0102' },
      business_source: { id: ref.businessSource, name: 'Referral' },
      prospect_type: { id: ref.prospectType, code: 'warm', name: 'Warm lead' },
      sector: 'Retail',
      alt_name: 'Njoki K.',
      alt_phone: '254711222333',
      alt_email: 'njoki@example.co.ke',
      kyc_status: 'unverified',
      onboarded_via: 'api',
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    const row = (await audits(c.client_no)).at(-1)!;
    expect(row).toMatchObject({
      action: 'client.created',
      actorUserId: org.users.exec.id,
      apiClientId: org.clients.staff.id,
      requestId: r.headers.get('x-request-id'),
    });
  });

  it('defaults: individual, no optional fields, and the following number', async () => {
    const before = await countClients();
    const a = await created(newClient({ name: 'Otieno Minimal' }));
    const b = await created({ name: 'Only Phone', phone: `0${person().nsn}` });
    expect([a.client_no, b.client_no]).toEqual([before + 1, before + 2].map((n) => `C-${String(n).padStart(6, '0')}`));
    expect(b).toMatchObject({
      type: 'individual',
      id_no: null,
      kra_pin: null,
      email: null,
      date_of_birth: null,
      prospect_type: null,
      business_source: null,
      sector: null,
      alt_name: null,
      alt_phone: null,
      alt_email: null,
    });
  });

  it.each([
    ['0722 123 4%', '61'],
    ['+254722123 4%', '62'],
    ['722123 4%', '63'],
    ['254 722-123-4%', '64'],
    ['(0722) 123.4%', '65'],
  ])('stores the phone %s as 2547XXXXXXXX', async (pattern, tail) => {
    // Each format gets its own number (last two digits) so the creations do not collide as duplicates.
    const c = await created({ name: 'Phone Format', phone: pattern.replace('%', tail) });
    expect(c.phone).toBe(`2547221234${tail}`);
  });

  it("defaults the sales person to the acting agent and the branch to that agent's branch", async () => {
    const viaKey = await created(newClient(), agent);
    expect(viaKey.sales_person).toEqual({
      id: org.users.agent1.id,
      name: org.users.agent1.name,
      role: 'agent',
      code: 'AG-0101',
    });
    expect(viaKey.risk_manager).toBeNull();
    expect(viaKey.branch).toEqual({ id: ref.branchNbo, name: 'Nairobi CBD' });

    // Agent headers on the staff key: agent2 (Mombasa) acts, so both defaults follow agent2.
    const a2 = org.agents[1];
    const viaHeaders = await created(newClient(), staff, { 'x-agent-code': a2.code, 'x-agent-key': a2.key });
    expect(viaHeaders.sales_person).toMatchObject({ id: org.users.agent2.id, code: 'AG-0102' });
    expect(viaHeaders.risk_manager).toBeNull();
    expect(viaHeaders.branch).toEqual({ id: ref.branchMsa, name: 'Mombasa' });
  });

  it('defaults the risk manager to the acting account executive', async () => {
    const c = await created(newClient());
    expect(c.risk_manager).toEqual(staffUser(org.users.exec, 'account_exec'));
    expect(c.sales_person).toBeNull();
    expect(c.branch).toEqual({ id: ref.branchNbo, name: 'Nairobi CBD' });
  });
});

describe('POST /clients duplicates', () => {
  let first: Record<string, any>;
  let second: Record<string, any>;
  beforeAll(async () => {
    first = await created(newClient({ name: 'Duplicate Target One' }));
    second = await created(newClient({ name: 'Duplicate Target Two' }));
  });
  const other = () => newClient({ name: 'Someone Else' });

  it.each([
    ['phone (another format)', () => ({ phone: `+${first.phone}` }), ['phone']],
    ['id_no', () => ({ id_no: first.id_no }), ['id_no']],
    ['kra_pin (lower case)', () => ({ kra_pin: first.kra_pin.toLowerCase() }), ['kra_pin']],
    [
      'phone, id_no and kra_pin',
      () => ({ phone: first.phone.slice(3), id_no: first.id_no, kra_pin: first.kra_pin }),
      ['phone', 'id_no', 'kra_pin'],
    ],
  ])('409 duplicate_client on a matching %s, nothing created', async (_what, fields, matched) => {
    const before = await countClients();
    const r = await post({ ...other(), ...fields() });
    expectProblem(r, 409, 'duplicate_client');
    expect(r.body.matches).toEqual([
      { client_no: first.client_no, name: 'Duplicate Target One', matched, redacted: false },
    ]);
    expect(await countClients()).toBe(before);
  });

  it('lists every client matched, each with what matched', async () => {
    const r = await post({ ...other(), phone: first.phone, id_no: second.id_no });
    expectProblem(r, 409, 'duplicate_client');
    expect(r.body.matches).toEqual([
      { client_no: first.client_no, name: first.name, matched: ['phone'], redacted: false },
      { client_no: second.client_no, name: second.name, matched: ['id_no'], redacted: false },
    ]);
  });

  it('hides from an agent the number and name of matched clients it cannot see (a redacted marker)', async () => {
    // Seeds: C-000001 is sold by agent1 (the agent key's actor), C-000002 by agent2.
    const seeds = await t.db.tenant(org.id, (tx) =>
      tx.client.findMany({ where: { clientNo: { in: ['C-000001', 'C-000002'] } }, orderBy: { id: 'asc' } }),
    );
    const r = await post({ ...other(), phone: seeds[1].phone, id_no: seeds[0].idNo }, agent);
    expectProblem(r, 409, 'duplicate_client');
    expect(r.body.matches).toEqual([
      { client_no: 'C-000001', name: seeds[0].name, matched: ['id_no'], redacted: false },
      { client_no: null, name: null, matched: ['phone'], redacted: true },
    ]);
  });

  it('force: true creates the client anyway', async () => {
    const c = await created({ ...other(), phone: first.phone, id_no: first.id_no, force: true });
    expect(c.client_no).not.toBe(first.client_no);
    expect(await countClients({ phone: first.phone, idNo: first.id_no })).toBe(2);
  });
});

describe('POST /clients validation', () => {
  const future = `${new Date().getUTCFullYear() + 1}-01-01`;
  it.each([
    ['missing name', { name: undefined }, 'name'],
    ['too-short phone', { phone: '123' }, 'phone'],
    ['landline-like phone', { phone: '0812345678' }, 'phone'],
    ['malformed KRA PIN', { kra_pin: 'B12345' }, 'kra_pin'],
    ['malformed email', { email: 'not-an-email' }, 'email'],
    ['future date of birth', { date_of_birth: future }, 'date_of_birth'],
    ['date of birth not Y-m-d', { date_of_birth: '30/04/1988' }, 'date_of_birth'],
    ['unknown branch', { branch_id: 999_999 }, 'branch_id'],
    ['unknown risk manager', { risk_manager_id: 999_999 }, 'risk_manager_id'],
    ['unknown sales person', { sales_person_id: 999_999 }, 'sales_person_id'],
  ])('422 validation_failed for a %s, nothing created', async (_what, fields, field) => {
    const before = await countClients();
    const r = await post({ ...newClient(), ...fields });
    expectProblem(r, 422, 'validation_failed');
    expect(r.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(await countClients()).toBe(before);
  });

  it.each([
    ['an account executive as sales person', 'sales_person_id', 'exec2'],
    ['an admin as sales person', 'sales_person_id', 'admin'],
    ['an admin as risk manager', 'risk_manager_id', 'admin'],
  ] as const)(
    'refuses %s: each id must be on its list (GET /sales-people, GET /risk-managers)',
    async (_w, field, who) => {
      const id = org.users[who].id;
      const listed = await api.get(field === 'sales_person_id' ? '/sales-people' : '/risk-managers', { token: staff });
      expect(listed.body.data.map((u: { id: number }) => u.id)).not.toContain(id);
      const before = await countClients();
      const r = await post(newClient({ [field]: id }));
      expectProblem(r, 422, 'validation_failed');
      expect(r.body.errors).toEqual([expect.objectContaining({ field })]);
      expect(await countClients()).toBe(before);
    },
  );

  it('refuses a name of nothing but zero-width or format characters, which trim leaves (outside check)', async () => {
    const before = await countClients();
    for (const name of ['\u200b\u200b', '\u2060 \u200b', 'A\u200b', '\u202e\u202c']) {
      const r = await post(newClient({ name }));
      expectProblem(r, 422, 'validation_failed', 'name');
      expect(r.body.errors, JSON.stringify(name)).toEqual([
        { field: 'name', code: 'too_small', message: 'at least 2 characters' },
      ]);
    }
    // The service's own check, without REST's schema in front: GraphQL.
    const g = await api.gql(
      `mutation($i: CreateClientInput!) { createClient(input: $i) { __typename ... on ValidationProblem { fieldErrors { field } } } }`,
      { i: { name: '\u200b\u200b\u200b', phone: '0712345678' } },
      { token: staff },
    );
    expect(g.body.data?.createClient, JSON.stringify(g.body)).toEqual({
      __typename: 'ValidationProblem',
      fieldErrors: [{ field: 'input.name' }],
    });
    expect(await countClients()).toBe(before);
    // A name with visible characters among them is still a name.
    expect((await post(newClient({ name: 'Wanjiru\u200b Kamau' }))).status).toBe(201);
  });

  it('refuses an agent as risk manager (risk managers are account executives)', async () => {
    const before = await countClients();
    const r = await post(newClient({ risk_manager_id: org.users.agent1.id }));
    expectProblem(r, 422, 'validation_failed');
    expect(r.body.errors).toEqual([expect.objectContaining({ field: 'risk_manager_id' })]);
    expect(await countClients()).toBe(before);
  });
});

describe('GET /clients', () => {
  /** Every client number staff can see, newest first, straight from the database. */
  const allNewestFirst = () =>
    t.db.tenant(org.id, async (tx) =>
      (await tx.client.findMany({ orderBy: { id: 'desc' }, select: { clientNo: true } })).map((c) => c.clientNo),
    );
  const list = async (query: string, token = staff) => {
    const r = await api.get(`/clients${query}`, { token });
    expect(r.status, r.text).toBe(200);
    return r.body as {
      data: Record<string, any>[];
      meta: { limit: number; has_more: boolean; count: number };
      links: { next: string | null };
    };
  };
  const numbers = (b: { data: Record<string, any>[] }): string[] => b.data.map((c) => c.client_no);
  let target: Record<string, any>;
  let corporate: Record<string, any>;

  beforeAll(async () => {
    target = await created(newClient({ name: 'Zawadi Achieng Kiptoo' }));
    corporate = await created(
      newClient({
        name: 'Kiptoo Hardware Ltd',
        type: 'corporate',
        risk_manager_id: org.users.exec2.id,
        sales_person_id: org.users.agent2.id,
      }),
    );
    // Enough clients for more than one default page of 25.
    const short = 30 - (await countClients());
    for (let i = 0; i < short; i++) await created(newClient());
  });

  it('lists newest first with the default page of 25, full client objects', async () => {
    const b = await list('');
    const all = await allNewestFirst();
    expect(numbers(b)).toEqual(all.slice(0, 25));
    expect(b.meta).toEqual({ limit: 25, has_more: true, count: 25 });
    expect(Object.keys(b.data[0]).sort()).toEqual(CLIENT_FIELDS);
    expect(b.links.next).toEqual(expect.stringContaining('cursor='));
  });

  it.each([
    ['part of the name, any case', () => 'aCHIENG kipt'],
    ['the client number', () => target.client_no],
    ['the client number in lower case', () => target.client_no.toLowerCase()],
    ['the phone in another format', () => `0${target.phone.slice(3, 6)} ${target.phone.slice(6)}`],
    ['the ID number', () => target.id_no],
    ['the KRA PIN in lower case', () => target.kra_pin.toLowerCase()],
  ])('search finds a client by %s', async (_what, term) => {
    const b = await list(`?search=${encodeURIComponent(term())}`);
    expect(numbers(b)).toEqual([target.client_no]);
    expect(b.data[0]).toEqual(target);
  });

  it('search by a shared word finds every client with it, newest first', async () => {
    expect(numbers(await list('?search=kiptoo'))).toEqual([corporate.client_no, target.client_no]);
  });

  it('filters by type, sales person and risk manager', async () => {
    const db = (where: Record<string, unknown>) =>
      t.db.tenant(org.id, async (tx) =>
        (await tx.client.findMany({ where, orderBy: { id: 'desc' }, select: { clientNo: true } })).map(
          (c) => c.clientNo,
        ),
      );
    const corporates = await list('?type=corporate&limit=100');
    expect(numbers(corporates)).toEqual(await db({ type: 'corporate' }));
    expect(numbers(corporates)).toContain(corporate.client_no);
    expect(numbers(await list('?type=individual&limit=100'))).toEqual(await db({ type: 'individual' }));

    const sold = await list(`?sales_person_id=${org.users.agent2.id}&limit=100`);
    expect(numbers(sold)).toEqual(await db({ salesPersonId: org.users.agent2.id }));
    expect(numbers(sold)).toEqual(expect.arrayContaining([corporate.client_no, 'C-000002']));

    const managed = await list(`?risk_manager_id=${org.users.exec2.id}&type=corporate`);
    expect(numbers(managed)).toEqual(await db({ riskManagerId: org.users.exec2.id, type: 'corporate' }));
    expect(numbers(managed)).toContain(corporate.client_no);
  });

  it.each(['limit=101', 'limit=0', 'limit=abc', 'per_page=101', 'page=0'])(
    '422 validation_failed for %s',
    async (q) => {
      expectProblem(await api.get(`/clients?${q}`, { token: staff }), 422, 'validation_failed');
    },
  );

  it('walks every page with links.next: no duplicates, no gaps, null at the end', async () => {
    const all = await allNewestFirst();
    const seen: string[] = [];
    let next: string | null = '/api/v1/clients?limit=7';
    let pages = 0;
    while (next) {
      const r: HttpResult = await api.get(`${t.origin}${next}`, { token: staff });
      expect(r.status, r.text).toBe(200);
      seen.push(...numbers(r.body));
      pages += 1;
      const more = seen.length < all.length;
      expect(r.body.meta).toEqual({ limit: 7, has_more: more, count: r.body.data.length });
      if (!more) expect(r.body.links.next).toBeNull();
      next = r.body.links.next;
    }
    expect(seen).toEqual(all);
    expect(pages).toBe(Math.ceil(all.length / 7));
  });

  it('a cursor keeps the search and filters of the first page', async () => {
    const first = await list(`?sales_person_id=${org.users.agent2.id}&limit=1`);
    expect(first.links.next).toContain(`sales_person_id=${org.users.agent2.id}`);
    const second = (await api.get(`${t.origin}${first.links.next}`, { token: staff })).body;
    expect(second.data.every((c: any) => c.sales_person?.id === org.users.agent2.id)).toBe(true);
  });

  it('accepts page and per_page', async () => {
    const all = await allNewestFirst();
    const b = await list('?page=2&per_page=7');
    expect(numbers(b)).toEqual(all.slice(7, 14));
    expect(b.meta).toEqual({ limit: 7, has_more: true, count: 7 });
    const last = Math.ceil(all.length / 7);
    const end = await list(`?page=${last}&per_page=7`);
    expect(numbers(end)).toEqual(all.slice((last - 1) * 7));
    expect(end.meta.has_more).toBe(false);
    expect(end.links.next).toBeNull();
  });
});

describe('GET /clients/{client_no}', () => {
  it('reads a client as it was created', async () => {
    const c = await created(newClient());
    const r = await api.get(`/clients/${c.client_no}`, { token: staff });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ data: c });
  });

  it('404 not_found for an unknown number', async () => {
    expectProblem(await api.get('/clients/C-999999', { token: staff }), 404, 'not_found');
  });
});

describe('PATCH /clients/{client_no}', () => {
  it('changes only the fields sent and audits exactly those, with actor and request id', async () => {
    const c = await created(newClient({ email: 'old@example.co.ke', sector: 'Farming' }));
    const r = await patch(c.client_no, { email: 'New@Example.co.ke', name: 'Renamed Client' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toEqual({
      ...c,
      email: 'new@example.co.ke',
      name: 'Renamed Client',
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    expect(Date.parse(r.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(c.updated_at));
    expect((await api.get(`/clients/${c.client_no}`, { token: staff })).body.data).toEqual(r.body.data);

    const rows = await audits(c.client_no);
    expect(rows.map((a) => a.action)).toEqual(['client.created', 'client.updated']);
    expect(rows[1]).toMatchObject({
      actorUserId: org.users.exec.id,
      apiClientId: org.clients.staff.id,
      requestId: r.headers.get('x-request-id'),
      changes: {
        email: { from: 'old@example.co.ke', to: 'new@example.co.ke' },
        name: { from: c.name, to: 'Renamed Client' },
      },
    });
    expect(Object.keys(rows[1].changes as object).sort()).toEqual(['email', 'name']);
  });

  it('a PATCH that changes nothing (same phone in another format) writes no audit row', async () => {
    const c = await created(newClient({ sector: 'Transport' }));
    const r = await patch(c.client_no, { phone: `+${c.phone}`, sector: 'Transport', kra_pin: c.kra_pin.toLowerCase() });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toEqual(c);
    expect((await audits(c.client_no)).map((a) => a.action)).toEqual(['client.created']);
  });

  it.each([
    ['phone', (o: Record<string, any>) => ({ phone: `0${o.phone.slice(3)}` })],
    ['id_no', (o: Record<string, any>) => ({ id_no: o.id_no })],
    ['kra_pin', (o: Record<string, any>) => ({ kra_pin: o.kra_pin })],
  ])('409 duplicate_client when the new %s belongs to another client, unless force', async (field, fields) => {
    const [c, other] = [await created(newClient()), await created(newClient({ name: 'The Other One' }))];
    const r = await patch(c.client_no, fields(other));
    expectProblem(r, 409, 'duplicate_client');
    expect(r.body.matches).toEqual([
      { client_no: other.client_no, name: 'The Other One', matched: [field], redacted: false },
    ]);
    expect((await api.get(`/clients/${c.client_no}`, { token: staff })).body.data).toEqual(c);
    expect(await audits(c.client_no)).toHaveLength(1);

    const forced = await patch(c.client_no, { ...fields(other), force: true });
    expect(forced.status, forced.text).toBe(200);
    expect(forced.body.data[field]).toBe(other[field]);
    // A phone the organisation changes is held for one-time codes: 72 hours from TEST_NOW (09:00 on 15 June in Nairobi).
    const held =
      field === 'phone'
        ? {
            phone_changed_by: 'organisation',
            codes_held_until: expect.stringMatching(/^2026-06-18T09:\d\d:\d\d\+03:00$/),
          }
        : {};
    expect((await audits(c.client_no)).at(-1)!.changes).toEqual({
      [field]: { from: c[field], to: other[field] },
      ...held,
    });
  });

  it('422 validation_failed for a bad value, nothing changed', async () => {
    const c = await created(newClient());
    const r = await patch(c.client_no, { email: 'nope', phone: '0812345678' });
    expectProblem(r, 422, 'validation_failed');
    expect(r.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'phone']);
    expect((await api.get(`/clients/${c.client_no}`, { token: staff })).body.data).toEqual(c);
  });

  it('404 not_found for an unknown number', async () => {
    expectProblem(await patch('C-999999', { sector: 'Retail' }), 404, 'not_found');
  });
});

describe('GraphQL parity', () => {
  const FIELDS =
    'databaseId clientNo type name idNo kraPin phone email dateOfBirth branch { databaseId name } riskManager { databaseId } salesPerson { databaseId code } kycStatus onboardedVia';
  const CREATE = `mutation($input: CreateClientInput!) { createClient(input: $input) {
    __typename
    ... on Client { ${FIELDS} }
    ... on DuplicateClientProblem { code status matches { clientNo name matched } }
    ... on ValidationProblem { code status fieldErrors { field message } }
  } }`;
  const gqlCreate = async (input: Record<string, unknown>, token = staff) => {
    const r = await api.gql(CREATE, { input }, { token });
    expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
    return r.body.data.createClient;
  };

  it('createClient returns the Client, normalised and numbered like REST, and REST reads it back', async () => {
    const p = person();
    const before = await countClients();
    const c = await gqlCreate({
      name: 'Graph Client',
      phone: `+254 ${p.nsn}`,
      idNo: ` ${p.idNo} `,
      kraPin: p.pin.toLowerCase(),
      dateOfBirth: '1990-02-03',
    });
    expect(c).toEqual({
      __typename: 'Client',
      databaseId: expect.any(Number),
      clientNo: `C-${String(before + 1).padStart(6, '0')}`,
      type: 'individual',
      name: 'Graph Client',
      idNo: p.idNo,
      kraPin: p.pin,
      phone: `254${p.nsn}`,
      email: null,
      dateOfBirth: '1990-02-03',
      branch: { databaseId: ref.branchNbo, name: 'Nairobi CBD' },
      riskManager: { databaseId: org.users.exec.id },
      salesPerson: null,
      kycStatus: 'unverified',
      onboardedVia: 'api',
    });
    const rest = (await api.get(`/clients/${c.clientNo}`, { token: staff })).body.data;
    expect(rest).toMatchObject({
      id: c.databaseId,
      client_no: c.clientNo,
      phone: c.phone,
      id_no: c.idNo,
      kra_pin: c.kraPin,
      date_of_birth: c.dateOfBirth,
    });
    expect((await audits(c.clientNo)).map((a) => a.action)).toEqual(['client.created']);
  });

  it('createClient answers DuplicateClientProblem with the matches, then creates with force', async () => {
    const existing = await created(newClient({ name: 'Graph Duplicate' }));
    const before = await countClients();
    const dup = await gqlCreate({ name: 'Other Person', phone: existing.phone, kraPin: existing.kra_pin });
    expect(dup).toEqual({
      __typename: 'DuplicateClientProblem',
      code: 'duplicate_client',
      status: 409,
      matches: [{ clientNo: existing.client_no, name: 'Graph Duplicate', matched: ['phone', 'kra_pin'] }],
    });
    expect(await countClients()).toBe(before);
    const forced = await gqlCreate({ name: 'Other Person', phone: existing.phone, force: true });
    expect(forced.__typename).toBe('Client');
    expect(await countClients()).toBe(before + 1);
  });

  it('createClient answers ValidationProblem with field errors, nothing created', async () => {
    const before = await countClients();
    const bad = await gqlCreate({ name: 'Bad Input', phone: '123', email: 'nope' });
    expect(bad).toMatchObject({ __typename: 'ValidationProblem', code: 'validation_failed', status: 422 });
    expect(bad.fieldErrors.map((e: { field: string }) => e.field)).toEqual(
      expect.arrayContaining([expect.stringMatching(/phone$/), expect.stringMatching(/email$/)]),
    );
    expect(await countClients()).toBe(before);
  });

  it('clients(first:, search:) is the REST list, and client(clientNo:) the REST record', async () => {
    const q = `query($first: Int, $search: String) { clients(first: $first, search: $search) { pageInfo { hasNextPage } edges { node { ${FIELDS} } } } }`;
    const all = await api.gql(q, { first: 10 }, { token: staff });
    expect(all.body.errors).toBeUndefined();
    const rest = (await api.get('/clients?limit=10', { token: staff })).body;
    const nodes = all.body.data.clients.edges.map((e: any) => e.node);
    expect(nodes.map((n: any) => n.clientNo)).toEqual(rest.data.map((c: any) => c.client_no));
    expect(all.body.data.clients.pageInfo.hasNextPage).toBe(rest.meta.has_more);
    for (const [i, n] of nodes.entries()) {
      expect(rest.data[i]).toMatchObject({
        id: n.databaseId,
        name: n.name,
        phone: n.phone,
        id_no: n.idNo,
        kra_pin: n.kraPin,
        type: n.type,
        kyc_status: n.kycStatus,
      });
    }

    await created(newClient({ name: 'Parity Searchable One' }));
    await created(newClient({ name: 'Parity Searchable Two' }));
    const searched = await api.gql(q, { first: 5, search: 'searchable' }, { token: staff });
    const restSearched = (await api.get('/clients?limit=5&search=searchable', { token: staff })).body.data;
    expect(searched.body.data.clients.edges.map((e: any) => e.node.clientNo)).toEqual(
      restSearched.map((c: any) => c.client_no),
    );
    expect(restSearched).toHaveLength(2);

    const one = await api.gql(
      `query($no: String!) { client(clientNo: $no) { ${FIELDS} } }`,
      { no: nodes[0].clientNo },
      { token: staff },
    );
    expect(one.body.data.client).toEqual(nodes[0]);
    const missing = await api.gql('query { client(clientNo: "C-999999") { clientNo } }', {}, { token: staff });
    expect(missing.body.data).toBeNull();
    expect(missing.body.errors?.[0]?.extensions?.code).toBe('not_found');
  });
});
