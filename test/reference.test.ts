import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUSINESS_SOURCES, LEVIES, MOTOR_BENEFITS, PROSPECT_TYPES, STANDARD_PRODUCTS } from '../src/seed/demo-data.ts';
import { expectProblem, useKit, waitFor } from './kit.ts';

const t = useKit();
const api = t.api;
// The readonly client holds `read` and nothing else: enough for every reference list.
const [org, other] = t.useOrgs(2, { tokens: ['readonly', 'staff'] });
let token: string;
let otherToken: string;

beforeAll(async () => {
  [token, otherToken] = [org.tokens.readonly, other.tokens.readonly];
  // Data only the second organisation has: it must never show up for the first.
  await t.db.tenant(other.id, async (tx) => {
    await tx.insurer.create({
      data: {
        tenantId: other.id,
        name: 'Ziwa Assurance',
        legalName: 'Ziwa Assurance Kenya Limited',
        registryMemberId: 199,
        commissionRateBps: 900,
        monogram: 'ZA',
      },
    });
    const product = await tx.motorProduct.findFirstOrThrow({ orderBy: { id: 'asc' } });
    await tx.motorProductBenefit.create({
      data: {
        tenantId: other.id,
        motorProductId: product.id,
        name: 'Excess protector',
        limitMinor: null,
        sortOrder: 99,
      },
    });
    await tx.branch.create({ data: { tenantId: other.id, code: 'ELD', name: 'Eldoret', city: 'Eldoret' } });
    await tx.businessSource.create({ data: { tenantId: other.id, name: 'Roadshow' } });
    await tx.prospectType.create({ data: { tenantId: other.id, code: 'vip', name: 'VIP' } });
  });
});

async function list(path: string, tok = token): Promise<any> {
  const r = await api.get(path, { token: tok });
  expect(r.status, r.text).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  return r.body.data;
}

async function gql(query: string, variables: Record<string, unknown> = {}, tok = token): Promise<any> {
  const r = await api.gql(query, variables, { token: tok });
  expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
  return r.body.data;
}

const sortedById = <T extends { id: unknown }>(rows: T[]) =>
  [...rows].sort((a, b) => String(a.id).localeCompare(String(b.id)));

// GraphQL spelling → the legacy REST spelling, field by field, so a renamed or dropped field shows up as a diff.
const insurerFromGql = (i: any) => ({
  id: i.databaseId,
  name: i.name,
  legal_name: i.legalName,
  registry_member_id: i.registryMemberId,
  commission_rate_bps: i.commissionRateBps,
  status: i.status,
  monogram: i.monogram,
});
const staffFromGql = (u: any) => ({
  id: u.databaseId,
  name: u.name,
  email: u.email,
  phone: u.phone,
  role: u.role,
  code: u.code,
  branch_id: u.branchId,
});
const INSURER_FIELDS = 'databaseId name legalName registryMemberId commissionRateBps status monogram';
const STAFF_FIELDS = 'databaseId name email phone role code branchId';

describe('GET /insurers', () => {
  it('lists the five panel insurers with the spec fields, ordered by name', async () => {
    const rows = await list('/insurers');
    expect(rows.map((r: any) => r.name)).toEqual([
      'Baobab General',
      'Kilima Insurance',
      'Pwani Mutual',
      'Simba General',
      'Twiga Assurance',
    ]);
    for (const r of rows) {
      expect(Object.keys(r).sort()).toEqual([
        'commission_rate_bps',
        'id',
        'legal_name',
        'monogram',
        'name',
        'registry_member_id',
        'status',
      ]);
      expect(Number.isInteger(r.id)).toBe(true);
      expect(r.status).toBe('active');
    }
    expect(rows.find((r: any) => r.monogram === 'TA')).toMatchObject({
      name: 'Twiga Assurance',
      legal_name: 'Twiga Assurance Kenya Limited',
      registry_member_id: 102,
      commission_rate_bps: 1000,
    });
    expect(await gql(`{ insurers { ${INSURER_FIELDS} } }`).then((d) => d.insurers.map(insurerFromGql))).toEqual(rows);
  });

  it.each([
    ['twiga', ['Twiga Assurance']],
    ['ASSURANCE KENYA', ['Twiga Assurance']], // legal name only
    ['assurance', ['Pwani Mutual', 'Twiga Assurance']], // Pwani matches on its legal name
    ['  simba  ', ['Simba General']],
    ['', ['Baobab General', 'Kilima Insurance', 'Pwani Mutual', 'Simba General', 'Twiga Assurance']],
    ['ziwa', []], // the other organisation's insurer
    ['%', []], // a LIKE wildcard is matched literally
    ['_', []],
    ['\\', []],
    ['nothing like this', []],
  ])('search=%j matches short or legal name case-insensitively', async (search, names) => {
    const rows = await list(`/insurers?search=${encodeURIComponent(search)}`);
    expect(rows.map((r: any) => r.name)).toEqual(names);
    const viaGql = await gql(`query($s: String) { insurers(search: $s) { ${INSURER_FIELDS} } }`, { s: search });
    expect(viaGql.insurers.map(insurerFromGql)).toEqual(rows);
  });
});

describe('GET /branches, /risk-managers, /sales-people', () => {
  it('branches: id, code, name, city', async () => {
    const rows = await list('/branches');
    expect(rows.map(({ id: _id, ...b }: any) => b)).toEqual([
      { code: 'KSM', name: 'Kisumu', city: 'Kisumu' },
      { code: 'MSA', name: 'Mombasa', city: 'Mombasa' },
      { code: 'NBO', name: 'Nairobi CBD', city: 'Nairobi' },
    ]);
    const viaGql = await gql('{ branches { databaseId code name city } }');
    expect(viaGql.branches.map((b: any) => ({ id: b.databaseId, code: b.code, name: b.name, city: b.city }))).toEqual(
      rows,
    );
  });

  it('risk managers are the account executives, without agent codes', async () => {
    const rows = await list('/risk-managers');
    expect(rows.map((u: any) => u.id).sort()).toEqual([org.users.exec.id, org.users.exec2.id].sort());
    const branches = await list('/branches');
    const branchOf = (code: string) => branches.find((b: any) => b.code === code).id;
    for (const u of rows) {
      expect(Object.keys(u).sort()).toEqual(['branch_id', 'code', 'email', 'id', 'name', 'phone', 'role']);
      expect(u).toMatchObject({ role: 'account_exec', code: null });
      expect(u.email).toMatch(/@example\.co\.ke$/);
    }
    expect(rows.find((u: any) => u.id === org.users.exec.id)).toMatchObject({
      name: 'Wanjiku Kamau',
      branch_id: branchOf('NBO'),
    });
    expect(rows.find((u: any) => u.id === org.users.exec2.id)).toMatchObject({
      name: 'Brian Omondi',
      branch_id: branchOf('KSM'),
    });
    expect((await gql(`{ riskManagers { ${STAFF_FIELDS} } }`)).riskManagers.map(staffFromGql)).toEqual(rows);
  });

  it('sales people are the agents, each with the code X-Agent-Code expects', async () => {
    const rows = await list('/sales-people');
    expect(rows.map((u: any) => [u.id, u.role, u.code])).toEqual([
      [org.users.agent1.id, 'agent', 'AG-0101'],
      [org.users.agent2.id, 'agent', 'AG-0102'],
    ]);
    expect(org.agents.map((a) => a.code).sort()).toEqual(rows.map((u: any) => u.code).sort());
    expect((await gql(`{ salesPeople { ${STAFF_FIELDS} } }`)).salesPeople.map(staffFromGql)).toEqual(rows);
  });
});

describe('GET /business-sources, /prospect-types', () => {
  // What a client's business_source_id and prospect_type_id take (docs: motor-and-clients.md).
  it('business sources: id and name, by name, the same by GraphQL', async () => {
    const rows = await list('/business-sources');
    expect(rows.map((r: any) => Object.keys(r).sort())).toEqual(rows.map(() => ['id', 'name']));
    expect(rows.map((r: any) => r.name)).toEqual([...BUSINESS_SOURCES].sort());
    const viaGql = await gql('{ businessSources { databaseId name } }');
    expect(viaGql.businessSources.map((b: any) => ({ id: b.databaseId, name: b.name }))).toEqual(rows);
  });

  it('prospect types: id, code and name, by name, the same by GraphQL', async () => {
    const rows = await list('/prospect-types');
    const byName = [...PROSPECT_TYPES].sort((a, b) => a.name.localeCompare(b.name));
    expect(rows.map((r: any) => ({ code: r.code, name: r.name }))).toEqual(byName);
    const viaGql = await gql('{ prospectTypes { databaseId code name } }');
    expect(viaGql.prospectTypes.map((p: any) => ({ id: p.databaseId, code: p.code, name: p.name }))).toEqual(rows);
  });

  it("each organisation lists its own: the other's rows never appear", async () => {
    const [mineSources, mineTypes] = [await list('/business-sources'), await list('/prospect-types')];
    const [theirSources, theirTypes] = [
      await list('/business-sources', otherToken),
      await list('/prospect-types', otherToken),
    ];
    expect(mineSources.map((r: any) => r.name)).not.toContain('Roadshow');
    expect(mineTypes.map((r: any) => r.code)).not.toContain('vip');
    expect(theirSources.map((r: any) => r.name)).toContain('Roadshow');
    expect(theirTypes.map((r: any) => r.code)).toContain('vip');
    const ids = (rows: { id: number }[]) => rows.map((r) => r.id);
    for (const id of ids(mineSources)) expect(ids(theirSources)).not.toContain(id);
    for (const id of ids(mineTypes)) expect(ids(theirTypes)).not.toContain(id);
    // What a client takes: its own organisation's ids, and another's refused as not existing (422, the field named).
    const staff = org.tokens.staff;
    const made = await api.post('/clients', {
      token: staff,
      body: { type: 'individual', name: 'Achieng Reference Test', phone: '0733 100 200' },
      idempotencyKey: randomUUID(),
    });
    expect(made.status, made.text).toBe(201);
    const path = `/clients/${made.body.data.client_no}`;
    const patch = (body: object) => api.patch(path, { token: staff, body, idempotencyKey: randomUUID() });
    const ok = await patch({ business_source_id: mineSources[0].id, prospect_type_id: mineTypes[0].id });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.business_source).toEqual(mineSources[0]);
    expect(ok.body.data.prospect_type).toMatchObject({ id: mineTypes[0].id, name: mineTypes[0].name });
    const roadshow = theirSources.find((r: any) => r.name === 'Roadshow').id;
    const vip = theirTypes.find((r: any) => r.code === 'vip').id;
    expectProblem(await patch({ business_source_id: roadshow }), 422, 'validation_failed', 'business_source_id');
    expectProblem(await patch({ prospect_type_id: vip }), 422, 'validation_failed', 'prospect_type_id');
    expect((await api.get(path, { token: staff })).body.data.business_source).toEqual(mineSources[0]);
    // GraphQL names the field in its own spelling.
    const viaGqlRefusal = await api.gql(
      `mutation ($input: UpdateClientInput!) { updateClient(input: $input) {
        __typename ... on ValidationProblem { code fieldErrors { field } } } }`,
      { input: { clientNo: made.body.data.client_no, businessSourceId: roadshow, prospectTypeId: vip } },
      { token: staff },
    );
    expect(viaGqlRefusal.body.data.updateClient).toEqual({
      __typename: 'ValidationProblem',
      code: 'validation_failed',
      fieldErrors: [{ field: 'input.businessSourceId' }, { field: 'input.prospectTypeId' }],
    });
    const viaGql = await gql('{ businessSources { name } prospectTypes { code } }');
    expect(viaGql.businessSources.map((b: any) => b.name)).not.toContain('Roadshow');
    expect(viaGql.prospectTypes.map((p: any) => p.code)).not.toContain('vip');
  });
});

describe('GET /policy/taxes', () => {
  it('TL 20 bps, PHCF 25 bps, SD flat KES 40, with nulls where a field does not apply', async () => {
    const rows = await list('/policy/taxes');
    expect(rows.map(({ id: _id, ...l }: any) => l)).toEqual([
      {
        code: 'TL',
        name: LEVIES[0].name,
        basis: 'percent',
        rate_bps: 20,
        rate_percent: 0.2,
        amount: null,
        amount_minor: null,
      },
      {
        code: 'PHCF',
        name: LEVIES[1].name,
        basis: 'percent',
        rate_bps: 25,
        rate_percent: 0.25,
        amount: null,
        amount_minor: null,
      },
      {
        code: 'SD',
        name: LEVIES[2].name,
        basis: 'flat',
        rate_bps: null,
        rate_percent: null,
        amount: 40,
        amount_minor: 4000,
      },
    ]);
    for (const l of rows) expect(Number.isInteger(l.id)).toBe(true);
    const viaGql = await gql(
      '{ levies { databaseId code name basis rateBps ratePercent amount { amount amountMinor currency } } }',
    );
    expect(viaGql.levies.find((l: any) => l.code === 'SD').amount.currency).toBe('KES');
    expect(
      viaGql.levies.map((l: any) => ({
        id: l.databaseId,
        code: l.code,
        name: l.name,
        basis: l.basis,
        rate_bps: l.rateBps,
        rate_percent: l.ratePercent,
        amount: l.amount?.amount ?? null,
        amount_minor: l.amount?.amountMinor ?? null,
      })),
    ).toEqual(rows);
  });
});

describe('GET /motor/benefits', () => {
  it('lists each distinct benefit name once, with an id derived from the name alone', async () => {
    const rows = await list('/motor/benefits');
    expect(rows.map((b: any) => b.name)).toEqual(MOTOR_BENEFITS.map((b) => b.name).sort());
    for (const b of rows) expect(b.id).toMatch(/^mb_[0-9a-f]{16}$/);
    expect(new Set(rows.map((b: any) => b.id)).size).toBe(rows.length);

    // Different rows in a different organisation, same names: the same ids (so they survive re-seeding).
    const theirs = await list('/motor/benefits', otherToken);
    const theirIds = new Map(theirs.map((b: any) => [b.name, b.id]));
    for (const b of rows) expect(theirIds.get(b.name)).toBe(b.id);
    expect(theirs.map((b: any) => b.name)).toContain('Excess protector');
    expect(rows.map((b: any) => b.name)).not.toContain('Excess protector');

    expect((await gql('{ motorBenefits { id name } }')).motorBenefits).toEqual(rows);
  });
});

describe('GET /products', () => {
  it('lists a line only while the organisation has a product of an active insurer for it', async () => {
    const travel = (active: boolean) =>
      org.t.db.tenant(org.id, (tx) =>
        tx.coverProduct.updateMany({ where: { productLine: 'travel' }, data: { active } }),
      );
    const lines = async () => (await list('/products')).lines.map((l: any) => l.code);
    await travel(false);
    try {
      // The rating cache is dropped in every process when the transaction commits (docs/performance.md "Caches").
      await waitFor('travel to leave GET /products', lines, (l) => !l.includes('travel'));
      expect(await lines()).toEqual(['motor', 'medical', 'standard']);
      const r = await org.api.post('/travel/quote', { token: org.tokens.staff, body: {} });
      expectProblem(r, 422, 'validation_failed');
    } finally {
      await travel(true);
    }
    await waitFor('travel to come back', lines, (l) => l.includes('travel'));
  });

  it('the product lines that can be quoted, and the standard-product catalogue', async () => {
    const data = await list('/products');
    expect(Object.keys(data).sort()).toEqual(['lines', 'standard_products']);
    expect(data.lines.map((l: any) => l.code)).toEqual(['motor', 'medical', 'travel', 'standard']);
    // Every line listed can really be quoted: its endpoint exists (an empty body is refused as invalid, never 404).
    for (const l of data.lines) {
      const r = await org.api.post(l.quote_endpoint, { token: org.tokens.staff, body: {} });
      expectProblem(r, 422, 'validation_failed');
    }
    expect(data.lines.find((l: any) => l.code === 'motor')).toEqual({
      code: 'motor',
      name: 'Motor',
      quote_endpoint: '/motor/quote',
    });
    for (const l of data.lines) expect(l.quote_endpoint).toMatch(/^\/[a-z]+\/quote$/);

    expect(data.standard_products.map(({ id: _id, ...p }: any) => p)).toEqual(
      [...STANDARD_PRODUCTS]
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((p) => ({
          code: p.code,
          name: p.name,
          description: p.description,
          brochure_url: null,
          product_line: 'standard',
        })),
    );
    for (const p of data.standard_products) expect(Number.isInteger(p.id)).toBe(true);

    const viaGql = await gql(
      '{ products { lines { code name quoteEndpoint } standardProducts { databaseId code name description brochureUrl productLine } } }',
    );
    expect({
      lines: viaGql.products.lines.map((l: any) => ({ code: l.code, name: l.name, quote_endpoint: l.quoteEndpoint })),
      standard_products: viaGql.products.standardProducts.map((p: any) => ({
        id: p.databaseId,
        code: p.code,
        name: p.name,
        description: p.description,
        brochure_url: p.brochureUrl,
        product_line: p.productLine,
      })),
    }).toEqual(data);
  });
});

const ENDPOINTS: [path: string, gqlQuery: string][] = [
  ['/insurers', '{ insurers { databaseId } }'],
  ['/branches', '{ branches { databaseId } }'],
  ['/business-sources', '{ businessSources { databaseId } }'],
  ['/prospect-types', '{ prospectTypes { databaseId } }'],
  ['/risk-managers', '{ riskManagers { databaseId } }'],
  ['/sales-people', '{ salesPeople { databaseId } }'],
  ['/policy/taxes', '{ levies { databaseId } }'],
  ['/motor/benefits', '{ motorBenefits { id } }'],
  ['/products', '{ products { lines { code } } }'],
];

describe('access', () => {
  it.each(ENDPOINTS)('%s needs a token (401 unauthenticated), on REST and GraphQL', async (path, query) => {
    expectProblem(await api.get(path), 401, 'unauthenticated');
    const r = await api.gql(query);
    expect(r.body.data ?? null).toBeNull();
    expect(r.body.errors?.[0]?.extensions.code).toBe('unauthenticated');
  });

  it.each(ENDPOINTS)('%s needs scope read (403 insufficient_scope without it)', async (path, query) => {
    const noRead = await noReadToken();
    const r = await api.get(path, { token: noRead });
    expectProblem(r, 403, 'insufficient_scope');
    expect(r.body.required_scopes).toEqual(['read']);
    expect((await api.gql(query, {}, { token: noRead })).body.errors?.[0]?.extensions.code).toBe('insufficient_scope');
  });
});

let noReadCache: Promise<string> | undefined;
function noReadToken(): Promise<string> {
  noReadCache ??= (async () => {
    const o = await t.newOrg({ clientOverrides: { readonly: { scopes: ['quote'] } }, tokens: ['readonly'] });
    return o.tokens.readonly;
  })();
  return noReadCache;
}

describe('tenant scoping', () => {
  it("another organisation's rows never appear, by REST or GraphQL", async () => {
    const theirIds = await t.db.tenant(other.id, async (tx) => ({
      insurers: (await tx.insurer.findMany()).map((r) => r.id),
      branches: (await tx.branch.findMany()).map((r) => r.id),
      users: (await tx.user.findMany()).map((r) => r.id),
      levies: (await tx.levy.findMany()).map((r) => r.id),
      products: (await tx.standardProduct.findMany()).map((r) => r.id),
    }));
    expect(theirIds.insurers).toHaveLength(6);

    const ids = (rows: { id: number }[]) => rows.map((r) => r.id);
    const mine = {
      insurers: ids(await list('/insurers')),
      branches: ids(await list('/branches')),
      users: [...ids(await list('/risk-managers')), ...ids(await list('/sales-people'))],
      levies: ids(await list('/policy/taxes')),
      products: ids((await list('/products')).standard_products),
    };
    expect(mine.insurers).toHaveLength(5);
    expect(mine.branches).toHaveLength(3);
    expect(mine.users).toHaveLength(4);
    expect(mine.levies).toHaveLength(3);
    expect(mine.products).toHaveLength(5);
    for (const k of Object.keys(mine) as (keyof typeof mine)[]) {
      for (const id of mine[k]) expect(theirIds[k], `${k} ${id}`).not.toContain(id);
    }

    const viaGql = await gql('{ insurers { databaseId name } branches { name } }');
    expect(viaGql.insurers.map((i: any) => i.name)).not.toContain('Ziwa Assurance');
    expect(viaGql.branches.map((b: any) => b.name)).not.toContain('Eldoret');
    expect(sortedById(viaGql.insurers.map((i: any) => ({ id: i.databaseId })))).toEqual(
      sortedById(mine.insurers.map((id) => ({ id }))),
    );

    // And the other way round: their token sees their extra insurer and branch.
    expect((await list('/insurers?search=ziwa', otherToken)).map((r: any) => r.name)).toEqual(['Ziwa Assurance']);
    expect((await list('/branches', otherToken)).map((r: any) => r.code)).toContain('ELD');
  });

  it('disabled staff drop out of the risk-manager and sales-people lists', async () => {
    await t.db.tenant(other.id, (tx) =>
      tx.user.update({ where: { id: other.users.agent2.id }, data: { disabled: true } }),
    );
    await t.heard(); // the other organisation's directory may be held: the change reaches it by notification
    expect((await list('/sales-people', otherToken)).map((u: any) => u.id)).toEqual([other.users.agent1.id]);
    expect((await gql('{ salesPeople { databaseId } }', {}, otherToken)).salesPeople).toEqual([
      { databaseId: other.users.agent1.id },
    ]);
  });
});
