import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, THIS_YEAR, TODAY, useKit } from './kit.ts';

const t = useKit();
const api = t.api;
const org = t.useOrg({ fast: true, tokens: ['staff', 'agent'] });
let staff: string;
let agent: string;
let insurerIds: Map<string, number>;
// Seeded customers of the test organisation (demo-data.ts): John is agent1's, Mary agent2's, Peter nobody's.
const JOHN = {
  clientNo: 'C-000001',
  name: 'John Kariuki Mwangi',
  phone: '254722000101',
  idNo: '23456789',
  kraPin: 'A004416331M',
};
const MARY = { clientNo: 'C-000002', name: 'Mary Atieno Odhiambo', phone: '254711000202', idNo: '28765432' };
const PETER = { clientNo: 'C-000003', name: 'Peter Kiprono Rotich' };

beforeAll(async () => {
  ({ staff, agent } = org.tokens);
  insurerIds = await org.insurers();
});

const id = (name: string) => insurerIds.get(name)!;
const plusDays = (s: string, n: number) =>
  new Date(Date.parse(`${s}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

// Fresh identities per test, clear of the seeded customers' numbers.
let seq = 0;
const fresh = () => {
  seq += 1;
  const n = String(seq).padStart(4, '0');
  return {
    name: `Test Person ${n} Njoroge`,
    phone: `0745 00${n.slice(0, 2)} ${n.slice(2)}`,
    normalisedPhone: `25474500${n}`,
    idNo: `4100${n}`,
    kraPin: `A0000${n}9Q`,
  };
};

const VEHICLE = {
  value: 1_500_000,
  year: THIS_YEAR - 3,
  reg_no: 'KDA 123A',
  coverage: 'Private',
  scope: 'Comprehensive',
  make: 'Toyota',
  model: 'Axio',
  class: 'Motor',
};

function save(body: Record<string, unknown>, o: { token?: string; key?: string } = {}) {
  return api.post('/motor/save_quote', { token: o.token ?? staff, body, idempotencyKey: o.key ?? randomUUID() });
}

const counts = () =>
  t.db.tenant(org.id, (tx) => Promise.all([tx.client.count(), tx.quote.count(), tx.quoteOption.count()]));
const clientRow = (clientNo: string) =>
  t.db.tenant(org.id, (tx) => tx.client.findFirstOrThrow({ where: { clientNo } }));

describe('POST /motor/save_quote: a new client', () => {
  it("stores the quote with every insurer's option and answers 201 with the saved-quote shape", async () => {
    const who = fresh();
    const priced = await api.post('/motor/quote', {
      token: staff,
      body: { class: 'Motor', coverage: 'Private', scope: 'Comprehensive', year: VEHICLE.year, value: VEHICLE.value },
    });
    expect(priced.status, priced.text).toBe(200);
    const before = await counts();
    const r = await save({
      client: { name: who.name, phone: who.phone, idno: who.idNo, pin: who.kraPin, email: 'tp@example.co.ke' },
      vehicle: VEHICLE,
    });
    expect(r.status, r.text).toBe(201);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(r.body).sort()).toEqual([
      'client_no',
      'data',
      'id',
      'message',
      'quote_no',
      'uuid',
      'valid_until',
    ]);
    expect(r.body.message).toEqual(expect.any(String));
    expect(Number.isInteger(r.body.id)).toBe(true);
    expect(r.body.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(r.body.quote_no).toMatch(new RegExp(`^Q-${TODAY.slice(0, 4)}-\\d{6}$`));
    expect(r.body.client_no).toMatch(/^C-\d{6}$/);
    expect(r.body.valid_until).toBe(plusDays(TODAY, 14));
    expect(Object.keys(r.body.data).sort()).toEqual(['options', 'product_line', 'status', 'uuid']);
    expect(r.body.data).toMatchObject({ uuid: r.body.uuid, product_line: 'motor', status: 'presented' });

    // One option per insurer, at the price /motor/quote gives, cheapest first.
    expect(
      r.body.data.options.map((o: any) => ({
        insurer_id: o.insurer_id,
        insurer_name: o.insurer_name,
        rate: o.rate,
        total: o.total,
        total_minor: o.total_minor,
      })),
    ).toEqual(
      priced.body.options.map((o: any) => ({
        insurer_id: o.insurer_id,
        insurer_name: o.insurer_name,
        rate: o.rate,
        total: o.total,
        total_minor: o.total_minor,
      })),
    );
    for (const o of r.body.data.options) {
      expect(Object.keys(o).sort()).toEqual([
        'insurer_id',
        'insurer_name',
        'option_id',
        'rate',
        'total',
        'total_minor',
      ]);
      expect(Number.isInteger(o.option_id)).toBe(true);
    }
    expect(new Set(r.body.data.options.map((o: any) => o.option_id)).size).toBe(5);

    const after = await counts();
    expect(after).toEqual([before[0] + 1, before[1] + 1, before[2] + 5]);
    const stored = await t.db.tenant(org.id, (tx) =>
      tx.quote.findUniqueOrThrow({ where: { uuid: r.body.uuid }, include: { client: true, options: true } }),
    );
    expect(stored).toMatchObject({
      id: r.body.id,
      quoteNo: r.body.quote_no,
      status: 'presented',
      productLine: 'motor',
      createdByUserId: org.users.exec.id,
    });
    expect(stored.validUntil.toISOString().slice(0, 10)).toBe(plusDays(TODAY, 14));
    expect(stored.options.map((o) => [o.id, Number(o.totalMinor)]).sort((a, b) => a[0] - b[0])).toEqual(
      r.body.data.options.map((o: any) => [o.option_id, o.total_minor]).sort((a: number[], b: number[]) => a[0] - b[0]),
    );
    expect(stored.client).toMatchObject({
      clientNo: r.body.client_no,
      name: who.name,
      phone: who.normalisedPhone,
      idNo: who.idNo,
      kraPin: who.kraPin,
      onboardedVia: 'api',
    });
    // A new client gets the acting account executive as risk manager.
    expect(stored.client.riskManagerId).toBe(org.users.exec.id);
    const audit = await t.db.tenant(org.id, (tx) =>
      tx.auditLog.findFirst({ where: { action: 'quote.saved', entityId: r.body.quote_no } }),
    );
    expect(audit).not.toBeNull();
  });

  it('needs an Idempotency-Key, and a retry with the same key replays the first answer', async () => {
    const who = fresh();
    const body = { client: { name: who.name, phone: who.phone }, vehicle: VEHICLE };
    const missing = await api.post('/motor/save_quote', { token: staff, body });
    expectProblem(missing, 400, 'idempotency_key_required');
    const key = randomUUID();
    const first = await save(body, { key });
    expect(first.status, first.text).toBe(201);
    const before = await counts();
    const again = await save(body, { key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await counts()).toEqual(before);
  });

  it('rates the vehicle as a Motor when `class` is left out', async () => {
    const who = fresh();
    const { class: _c, ...vehicle } = VEHICLE;
    const r = await save({ client: { name: who.name, phone: who.phone }, vehicle });
    expect(r.status, r.text).toBe(201);
    const stored = await t.db.tenant(org.id, (tx) => tx.quote.findUniqueOrThrow({ where: { uuid: r.body.uuid } }));
    expect(stored.request).toMatchObject({ kind: 'motor', vehicleClass: 'private', coverType: 'comprehensive' });
  });

  it('is open to the quote scope and to the bind scope, not to read alone', async () => {
    const quoteOnly = await api.token(org.clients.staff.clientId, org.clients.staff.secret, 'quote');
    const bindOnly = await api.token(org.clients.staff.clientId, org.clients.staff.secret, 'bind');
    const readOnly = await api.token(org.clients.staff.clientId, org.clients.staff.secret, 'read');
    for (const tok of [quoteOnly, bindOnly]) {
      const who = fresh();
      const r = await save({ client: { name: who.name, phone: who.phone }, vehicle: VEHICLE }, { token: tok });
      expect(r.status, r.text).toBe(201);
    }
    const who = fresh();
    expectProblem(
      await save({ client: { name: who.name, phone: who.phone }, vehicle: VEHICLE }, { token: readOnly }),
      403,
      'insufficient_scope',
    );
  });
});

describe('POST /motor/save_quote: quotes[] against the server price', () => {
  // Kilima private TPO: basic 6,000.00 + TL 12.00 + PHCF 15.00 + SD 40.00 = 6,067.00, a whole-shilling total.
  const TPO = { ...VEHICLE, scope: 'TPO', value: undefined };
  const kilima = (figures: Record<string, number>) => [{ insurer_id: id('Kilima Insurance'), rate: null, ...figures }];

  it('accepts every option as shown (whole shillings)', async () => {
    const priced = await api.post('/motor/quote', {
      token: staff,
      body: { class: 'Motor', scope: 'Comprehensive', year: VEHICLE.year, value: VEHICLE.value },
    });
    const quotes = priced.body.options.map((o: any) => ({
      insurer_id: o.insurer_id,
      rate: o.rate,
      basic: o.basic_premium,
      taxes: o.taxes_total,
      total: o.total,
      benefits: o.benefits.map((b: any) => b.id),
    }));
    const who = fresh();
    const r = await save({ client: { name: who.name, phone: who.phone }, vehicle: VEHICLE, quotes });
    expect(r.status, r.text).toBe(201);
  });

  it.each([6_066, 6_067, 6_068])(
    'accepts a total of %s (within KES 1 of 6,067.00), storing 6,067.00',
    async (total) => {
      const who = fresh();
      const r = await save({
        client: { name: who.name, phone: who.phone },
        vehicle: TPO,
        quotes: kilima({ basic: 6_000, taxes: 67, total }),
      });
      expect(r.status, r.text).toBe(201);
      // The server's figures are what is stored and shown: KES 6,000 basic, TL 12 + PHCF 15 + stamp duty 40.
      const stored = await t.db.tenant(org.id, (tx) =>
        tx.quoteOption.findMany({ where: { quote: { uuid: r.body.uuid }, insurerId: id('Kilima Insurance') } }),
      );
      expect(stored.map((x) => [x.basicMinor, x.taxesMinor, x.totalMinor])).toEqual([[600_000n, 6_700n, 606_700n]]);
      const shown = r.body.data.options.find((x: any) => x.insurer_id === id('Kilima Insurance'));
      expect([shown.total, shown.total_minor]).toEqual([6_067, 606_700]);
    },
  );

  it.each([
    ['total 6,069', { total: 6_069 }],
    ['total 6,065', { total: 6_065 }],
    ['basic 5,998', { basic: 5_998, total: 6_067 }],
    ['taxes 69', { taxes: 69, total: 6_067 }],
  ])('refuses %s with premium_mismatch and the server figures, storing nothing', async (_label, figures) => {
    const who = fresh();
    const before = await counts();
    const r = await save({ client: { name: who.name, phone: who.phone }, vehicle: TPO, quotes: kilima(figures) });
    expectProblem(r, 422, 'premium_mismatch');
    const server = r.body.server as any[];
    expect(server.map((s) => s.insurer_id).sort()).toEqual([...insurerIds.values()].sort());
    for (const s of server) {
      expect(Object.keys(s).sort()).toEqual([
        'basic_premium',
        'basic_premium_minor',
        'insurer_id',
        'taxes',
        'taxes_minor',
        'total',
        'total_minor',
      ]);
      expect(s.total_minor).toBe(s.basic_premium_minor + s.taxes_minor);
      expect(s.total).toBe(Math.round(s.total_minor / 100));
    }
    expect(server.find((s) => s.insurer_id === id('Kilima Insurance'))).toEqual({
      insurer_id: id('Kilima Insurance'),
      basic_premium: 6_000,
      basic_premium_minor: 600_000,
      taxes: 67,
      taxes_minor: 6_700,
      total: 6_067,
      total_minor: 606_700,
    });
    expect(await counts()).toEqual(before);
  });

  it('refuses a quotes[] entry for an insurer that does not rate the risk as validation_failed', async () => {
    const who = fresh();
    const r = await save({
      client: { name: who.name, phone: who.phone },
      vehicle: { ...TPO, class: 'Motorcycle', reg_no: 'KMDA 123A' },
      quotes: [{ insurer_id: id('Baobab General'), total: 3_000 }],
    });
    expectProblem(r, 422, 'validation_failed');
    expect(r.body.errors).toEqual([{ field: 'quotes.0.insurer_id', message: expect.any(String) }]);
  });
});

describe('POST /motor/save_quote: the client object', () => {
  it('reads `idno` and `pin`, normalising them', async () => {
    const who = fresh();
    const r = await save({
      client: {
        name: who.name,
        phone: who.phone,
        idno: `${who.idNo.slice(0, 4)} ${who.idNo.slice(4)}`,
        pin: who.kraPin.toLowerCase(),
      },
      vehicle: VEHICLE,
    });
    expect(r.status, r.text).toBe(201);
    expect(await clientRow(r.body.client_no)).toMatchObject({
      idNo: who.idNo,
      kraPin: who.kraPin,
      phone: who.normalisedPhone,
    });
  });

  it('reads `id_no` and `kra_pin`', async () => {
    const who = fresh();
    const r = await save({
      client: { name: who.name, phone: who.phone, id_no: who.idNo, kra_pin: who.kraPin },
      vehicle: VEHICLE,
    });
    expect(r.status, r.text).toBe(201);
    expect(await clientRow(r.body.client_no)).toMatchObject({ idNo: who.idNo, kraPin: who.kraPin });
  });

  it("`agentcode` makes that agent the new client's sales person; risk_manager_id is honoured", async () => {
    const who = fresh();
    const agent2 = org.agents.find((a) => a.userId === org.users.agent2.id)!;
    const r = await save({
      client: { name: who.name, phone: who.phone, agentcode: agent2.code, risk_manager_id: org.users.exec2.id },
      vehicle: VEHICLE,
    });
    expect(r.status, r.text).toBe(201);
    expect(await clientRow(r.body.client_no)).toMatchObject({
      salesPersonId: org.users.agent2.id,
      riskManagerId: org.users.exec2.id,
    });
  });

  it('an unknown agentcode is a validation failure on client.agentcode', async () => {
    const who = fresh();
    const r = await save({ client: { name: who.name, phone: who.phone, agentcode: 'AG-NOPE' }, vehicle: VEHICLE });
    expectProblem(r, 422, 'validation_failed');
    expect(r.body.errors.map((e: any) => e.field)).toEqual(['client.agentcode']);
  });
});

describe('POST /motor/save_quote: the matching rule', () => {
  it('reuses a visible client whose ID number matches and whose name agrees, without changing its people', async () => {
    const before = await clientRow(JOHN.clientNo);
    const n = await counts();
    const r = await save({
      client: {
        name: 'KARIUKI John',
        phone: '0700 111 222',
        idno: JOHN.idNo,
        sales_person_id: org.users.agent2.id,
        risk_manager_id: org.users.exec2.id,
      },
      vehicle: VEHICLE,
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.client_no).toBe(JOHN.clientNo);
    const [clients] = await counts();
    expect(clients).toBe(n[0]);
    const after = await clientRow(JOHN.clientNo);
    expect(after.salesPersonId).toBe(before.salesPersonId);
    expect(after.riskManagerId).toBe(before.riskManagerId);
    expect(after.salesPersonId).toBe(org.users.agent1.id);
    expect(after.phone).toBe(JOHN.phone);
  });

  it('reuses on a matching tax PIN too', async () => {
    const r = await save({
      client: { name: JOHN.name, phone: JOHN.phone, kra_pin: JOHN.kraPin, agentcode: org.agents[1].code },
      vehicle: VEHICLE,
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.client_no).toBe(JOHN.clientNo);
    expect((await clientRow(JOHN.clientNo)).salesPersonId).toBe(org.users.agent1.id);
  });

  it('a phone-only match is 409 duplicate_client listing the match', async () => {
    const n = await counts();
    const r = await save({ client: { name: 'Somebody Else Entirely', phone: '+254 722 000 101' }, vehicle: VEHICLE });
    expectProblem(r, 409, 'duplicate_client');
    expect(r.body.matches).toEqual([
      { client_no: JOHN.clientNo, name: JOHN.name, matched: ['phone'], redacted: false },
    ]);
    expect(await counts()).toEqual(n);
  });

  it('the same ID number under another name is 409', async () => {
    const r = await save({
      client: { name: 'Wholly Different Name', phone: fresh().phone, idno: JOHN.idNo },
      vehicle: VEHICLE,
    });
    expectProblem(r, 409, 'duplicate_client');
    expect(r.body.matches).toEqual([
      { client_no: JOHN.clientNo, name: JOHN.name, matched: ['id_no'], redacted: false },
    ]);
  });

  it('for an agent, a match on a client they cannot see hides its number (and name)', async () => {
    const r = await save({ client: { name: 'Another Person', phone: MARY.phone }, vehicle: VEHICLE }, { token: agent });
    expectProblem(r, 409, 'duplicate_client');
    expect(r.body.matches).toEqual([{ client_no: null, name: null, matched: ['phone'], redacted: true }]);
  });

  it("an agent is not matched onto someone else's client even with the right ID and name", async () => {
    const r = await save(
      { client: { name: MARY.name, phone: MARY.phone, idno: MARY.idNo }, vehicle: VEHICLE },
      { token: agent },
    );
    expectProblem(r, 409, 'duplicate_client');
    expect(r.body.matches).toEqual([{ client_no: null, name: null, matched: ['phone', 'id_no'], redacted: true }]);
  });

  it('for an agent, a match on their own client shows its number', async () => {
    const r = await save({ client: { name: 'Not John', phone: JOHN.phone }, vehicle: VEHICLE }, { token: agent });
    expectProblem(r, 409, 'duplicate_client');
    expect(r.body.matches).toEqual([
      { client_no: JOHN.clientNo, name: JOHN.name, matched: ['phone'], redacted: false },
    ]);
  });

  it('`client_no` links a visible client', async () => {
    const n = await counts();
    const r = await save({
      client: { name: 'Anything', phone: MARY.phone, client_no: PETER.clientNo },
      vehicle: VEHICLE,
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.client_no).toBe(PETER.clientNo);
    expect((await counts())[0]).toBe(n[0]);
  });

  it('`client_no` of a client the agent cannot see is refused', async () => {
    const r = await save(
      { client: { name: MARY.name, phone: MARY.phone, client_no: MARY.clientNo }, vehicle: VEHICLE },
      { token: agent },
    );
    expectProblem(r, 422, 'validation_failed');
    expect(r.body.errors.map((e: any) => e.field)).toEqual(['client.client_no']);
  });

  it('`force: true` adds a new client despite the match', async () => {
    const n = await counts();
    const r = await save({
      client: { name: 'Somebody Else Entirely', phone: JOHN.phone, force: true },
      vehicle: VEHICLE,
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.client_no).not.toBe(JOHN.clientNo);
    expect((await counts())[0]).toBe(n[0] + 1);
    expect(await clientRow(r.body.client_no)).toMatchObject({ name: 'Somebody Else Entirely', phone: JOHN.phone });
  });
});
