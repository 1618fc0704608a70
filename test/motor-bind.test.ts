import { createHash, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  expectProblem,
  THIS_YEAR,
  TODAY,
  useKit,
  type HttpResult,
  type Kit,
  type Org,
  type OrgOptions,
} from './kit.ts';
import { bindVars } from './kit/policies.ts';

const JOHN = { clientNo: 'C-000001', name: 'John Kariuki Mwangi', phone: '254722000101' };

/** Independent calendar arithmetic (not src/lib/dates.ts). */
const plusDays = (s: string, n: number) =>
  new Date(Date.parse(`${s}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
function plusMonths(s: string, n: number): string {
  const [y, m, d] = s.split('-').map(Number) as [number, number, number];
  const last = new Date(Date.UTC(y, m - 1 + n + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m - 1 + n, Math.min(d, last))).toISOString().slice(0, 10);
}
const annualEndOf = (s: string) => plusDays(plusMonths(s, 12), -1);
const whole = (minor: number) => Math.round(minor / 100);

let seq = 0;
const freshClient = () => {
  seq += 1;
  const n = String(seq).padStart(4, '0');
  return { name: `Bind Person ${n} Wafula`, phone: `0746 00${n.slice(0, 2)} ${n.slice(2)}`, idno: `4200${n}` };
};
const freshReg = () => `KDC ${String(100 + (seq += 1)).slice(-3)}${'ABCDEFGHJK'[seq % 10]}`;

/** A kit organisation (staff and agent keys) with helpers to build a bind body, price and bind it: the bind's tests. */
class Binder {
  insurers = new Map<string, number>();
  constructor(readonly kit: Org) {}

  static readonly ORG: OrgOptions = { fast: true, tokens: ['staff', 'agent'] };

  /** One made before the tests of the calling scope. */
  static use(t: Kit): Binder {
    const b = new Binder(t.useOrg(Binder.ORG));
    beforeAll(() => b.ready());
    return b;
  }

  /** One made now. */
  static async create(t: Kit, opts: OrgOptions = {}): Promise<Binder> {
    return new Binder(await t.newOrg({ ...Binder.ORG, ...opts })).ready();
  }

  async ready(): Promise<this> {
    this.insurers = await this.kit.insurers();
    return this;
  }

  get t() {
    return this.kit.t;
  }
  get api() {
    return this.kit.api;
  }
  get org() {
    return this.kit.org;
  }
  get tokens() {
    return this.kit.tokens;
  }

  id(name: string) {
    return this.insurers.get(name)!;
  }

  /** The insurer's quote option for a risk (null when it does not rate it). */
  async price(risk: Record<string, unknown>, insurer: string): Promise<any> {
    const r = await this.api.post('/motor/quote', {
      token: this.tokens.staff,
      body: { ...risk, insurer_id: this.id(insurer) },
    });
    return r.status === 200 ? r.body.options[0] : null;
  }

  /** A valid bind body for a new client, priced by the server; every part can be overridden. */
  async body(
    s: {
      insurer?: string;
      scope?: string;
      cls?: string;
      coverage?: string;
      value?: number;
      yom?: number;
      client?: object;
      policy?: object;
      vehicle?: object;
    } = {},
  ) {
    const insurer = s.insurer ?? 'Simba General';
    const scope = s.scope ?? 'Comprehensive';
    const yom = s.yom ?? THIS_YEAR - 3;
    const value = scope === 'TPO' ? undefined : (s.value ?? 1_500_000);
    const cls = s.cls ?? 'Motor';
    const coverage = s.coverage ?? 'Private';
    const option = await this.price({ class: cls, coverage, scope, year: yom, value }, insurer);
    return {
      option,
      body: {
        client: { ...freshClient(), ...s.client },
        policy: {
          start_date: TODAY,
          insurer_id: this.id(insurer),
          class: cls,
          coverage,
          scope,
          cover_period: 'annual',
          premium: option?.total ?? 1,
          ...s.policy,
        },
        taxes: [{ tax_id: 1, rate: 0.2, amount: 1 }],
        vehicles: [
          {
            regno: freshReg(),
            chassis_no: `jtd${randomUUID().slice(0, 8)}`,
            make: 'Toyota',
            model: 'Fielder',
            yom,
            value,
            coverage,
            ...s.vehicle,
          },
        ],
      } as any,
    };
  }

  bind(body: unknown, o: { token?: string; key?: string; headers?: Record<string, string> } = {}) {
    return this.api.post('/motor/save', {
      token: o.token ?? this.tokens.staff,
      body,
      idempotencyKey: o.key ?? randomUUID(),
      headers: o.headers,
    });
  }

  counts() {
    return this.t.db.tenant(this.org.id, (tx) =>
      Promise.all([tx.policy.count(), tx.client.count(), tx.debitNote.count(), tx.policyVehicle.count()]),
    );
  }
}

// The bind limit (3 per 15 s) has its own test below on an app with the default; here it would only get in the way.
const t = useKit({ bindRateLimit: 10_000 });
const o = Binder.use(t);

describe('POST /motor/save: a bind', () => {
  let first: HttpResult;
  let sent: any;
  let option: any;
  const limits = [
    { benefit_id: 'mb_0000000000000001', item: 'Windscreen', limit: 50_000 },
    { benefit_id: 'mb_0000000000000002', item: 'Third party bodily injury', limit: null },
  ];

  beforeAll(async () => {
    const b = await o.body({
      policy: { premium_instalments: 4, total_basic: 52_500, taxes: 276, limits_of_liability: limits },
    });
    sent = b.body;
    option = b.option;
    first = await o.bind(sent);
  });

  it('answers 201 with the saved-policy shape', () => {
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    const b = first.body;
    expect(b).toMatchObject({
      message: expect.any(String),
      id: expect.any(Number),
      uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      risknote: expect.stringMatching(new RegExp(`^RN-${TODAY.slice(0, 4)}-\\d{6}$`)),
      policy_no: expect.stringMatching(new RegExp(`^MTR-${TODAY.slice(0, 4)}-\\d{6}$`)),
      client_no: expect.stringMatching(/^C-\d{6}$/),
      client_key: expect.stringMatching(/^bck_/),
      status: 'pending_payment',
      product_line: 'motor',
      start_date: TODAY,
      end_date: annualEndOf(TODAY),
      payment_mode: 'full',
      instalments: 4,
    });
    expect(b.replay_note).toBeUndefined();
    // Simba, private comprehensive KES 1.5M: 3.5 % = 52,500 + TL 105.00 + PHCF 131.25 + SD 40 = 52,776.25.
    expect(b.premium).toEqual({
      basic_premium: 52_500,
      basic_premium_minor: 5_250_000,
      taxes: 276,
      taxes_minor: 27_625,
      total: 52_776,
      total_minor: 5_277_625,
    });
    expect(b.portal).toEqual({ client_no: b.client_no, client_key: b.client_key });
    expect(new URL(b.links.policy).pathname).toContain(b.uuid);
  });

  it('raises one debit note per instalment, a month apart, summing exactly to the premium', () => {
    const dn = first.body.debit_note;
    expect(dn).toMatchObject({ number: expect.any(String), due_on: TODAY, amount: 52_776, amount_minor: 5_277_625 });
    expect(dn.instalments).toHaveLength(4);
    dn.instalments.forEach((x: any, i: number) => {
      expect(x).toEqual({
        number: `DN-${first.body.policy_no}-${i + 1}/4`,
        instalment_no: i + 1,
        due_on: plusMonths(TODAY, i),
        amount: whole(x.amount_minor),
        amount_minor: expect.any(Number),
      });
    });
    expect(dn.instalments.reduce((s: number, x: any) => s + x.amount_minor, 0)).toBe(5_277_625);
    // The same split the quote showed for four parts.
    expect(dn.instalments.map((x: any) => x.amount_minor)).toEqual(
      option.instalments.find((p: any) => p.parts === 4).amounts_minor,
    );
  });

  it('stores the policy, its debit notes, vehicle and levies in cents, the limits of liability and an audit row', async () => {
    const p = await t.db.tenant(o.org.id, (tx) =>
      tx.policy.findUniqueOrThrow({
        where: { uuid: first.body.uuid },
        include: { vehicles: true, taxes: true, debitNotes: { orderBy: { instalmentNo: 'asc' } }, client: true },
      }),
    );
    expect(p).toMatchObject({
      id: first.body.id,
      policyNo: first.body.policy_no,
      riskNote: first.body.risknote,
      status: 'pending_payment',
      paymentMode: 'full',
      instalmentCount: 4,
      insurerId: o.id('Simba General'),
      vehicleClass: 'private',
      coverType: 'comprehensive',
      coverPeriod: 'annual',
      rateBps: 350,
      basicMinor: 5_250_000n,
      taxesMinor: 27_625n,
      totalMinor: 5_277_625n,
      createdByUserId: o.org.users.exec.id,
      productVersion: option.product_version,
    });
    expect(p.limitsOfLiability).toEqual(limits);
    expect(p.client.clientNo).toBe(first.body.client_no);
    expect(p.taxes.map((x) => [x.code, x.amountMinor]).sort()).toEqual([
      ['PHCF', 13_125n],
      ['SD', 4_000n],
      ['TL', 10_500n],
    ]);
    expect(p.debitNotes.map((d) => [d.number, d.amountMinor])).toEqual(
      first.body.debit_note.instalments.map((x: any) => [x.number, BigInt(x.amount_minor)]),
    );
    expect(p.vehicles).toHaveLength(1);
    const v = sent.vehicles[0];
    expect(p.vehicles[0]).toMatchObject({
      regNo: v.regno.replace(/\s/g, ''),
      chassisNo: v.chassis_no.toUpperCase(),
      make: 'Toyota',
      model: 'Fielder',
      yearOfManufacture: v.yom,
      valueMinor: 150_000_000n,
    });
    const audit = await t.db.tenant(o.org.id, (tx) =>
      tx.auditLog.findFirst({ where: { action: 'policy.bound', entityId: first.body.uuid } }),
    );
    expect(audit).toMatchObject({ entityType: 'policy', apiClientId: o.org.clients.staff.id });
    // The client-area key is stored hashed, never in the clear.
    const keys = await t.db.tenant(o.org.id, (tx) => tx.clientKey.findMany({ where: { clientId: p.clientId } }));
    expect(keys.map((k) => k.keyHash)).toEqual([createHash('sha256').update(first.body.client_key).digest('hex')]);
  });

  it('replays a retry with the same key: same policy, no key, a replay note', async () => {
    const key = randomUUID();
    const b = (await o.body()).body;
    const one = await o.bind(b, { key });
    expect(one.status, one.text).toBe(201);
    const before = await o.counts();
    const two = await o.bind(b, { key });
    expect(two.status, two.text).toBe(201);
    expect(two.headers.get('idempotent-replayed')).toBe('true');
    expect(two.body.client_key).toBeNull();
    expect(two.body.portal.client_key).toBeNull();
    expect(two.body.replay_note).toEqual(expect.any(String));
    const { client_key: _a, portal: _b, replay_note: _c, ...rest } = two.body;
    const { client_key: _d, portal: _e, ...orig } = one.body;
    expect(rest).toEqual(orig);
    expect(await o.counts()).toEqual(before);
  });

  it('issues no new client key to a client that has one, and says why', async () => {
    const who = freshClient();
    const a = await o.bind((await o.body({ client: who })).body);
    expect(a.status, a.text).toBe(201);
    expect(a.body.client_key).toMatch(/^bck_/);
    const b = await o.bind((await o.body({ client: who })).body);
    expect(b.status, b.text).toBe(201);
    expect(b.body.client_no).toBe(a.body.client_no);
    expect(b.body.client_key).toBeNull();
    expect(b.body.portal).toEqual({ client_no: a.body.client_no, client_key: null, note: expect.any(String) });
    const client = await t.db.tenant(o.org.id, (tx) =>
      tx.client.findFirstOrThrow({ where: { clientNo: a.body.client_no }, include: { keys: true, policies: true } }),
    );
    expect(client.keys).toHaveLength(1);
    expect(client.policies).toHaveLength(2);
  });

  it('accepts `reg_no` as well as `regno`', async () => {
    const { body } = await o.body();
    const { regno: _regno, ...v } = body.vehicles[0];
    body.vehicles = [{ ...v, reg_no: 'kdd 777z' }];
    const r = await o.bind(body);
    expect(r.status, r.text).toBe(201);
    const vehicles = await t.db.tenant(o.org.id, (tx) =>
      tx.policyVehicle.findMany({ where: { policy: { uuid: r.body.uuid } } }),
    );
    expect(vehicles.map((x) => x.regNo)).toEqual(['KDD777Z']);
  });

  it('binds premium finance (ipf) as one instalment', async () => {
    const r = await o.bind((await o.body({ policy: { payment_mode: 'ipf' } })).body);
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ payment_mode: 'ipf', instalments: 1 });
    expect(r.body.debit_note.instalments).toHaveLength(1);
  });
});

describe('POST /motor/save: cover dates', () => {
  const dates = (r: HttpResult) => [r.body.start_date, r.body.end_date];

  it('starts a past start date today, annual cover ending a year less a day later', async () => {
    const r = await o.bind((await o.body({ policy: { start_date: '2021-06-01' } })).body);
    expect(r.status, r.text).toBe(201);
    expect(dates(r)).toEqual([TODAY, annualEndOf(TODAY)]);
    expect(r.body.debit_note.instalments[0].due_on).toBe(TODAY);
  });

  it('ignores end_date for annual cover', async () => {
    const r = await o.bind((await o.body({ policy: { end_date: plusDays(TODAY, 40) } })).body);
    expect(r.status, r.text).toBe(201);
    expect(dates(r)).toEqual([TODAY, annualEndOf(TODAY)]);
  });

  it('time on risk: `days` sets the end, or end_date sets the days; the premium is the annual one', async () => {
    const start = plusDays(TODAY, 10);
    const withDays = await o.bind(
      (await o.body({ policy: { start_date: start, cover_period: 'tor', days: 45 } })).body,
    );
    expect(withDays.status, withDays.text).toBe(201);
    expect(dates(withDays)).toEqual([start, plusDays(start, 45)]);
    expect(withDays.body.premium.total_minor).toBe(5_277_625);
    const withEnd = await o.bind(
      (await o.body({ policy: { start_date: start, cover_period: 'tor', end_date: plusDays(start, 60) } })).body,
    );
    expect(withEnd.status, withEnd.text).toBe(201);
    expect(dates(withEnd)).toEqual([start, plusDays(start, 60)]);
    const days = await t.db.tenant(o.org.id, (tx) =>
      tx.policy.findMany({
        where: { uuid: { in: [withDays.body.uuid, withEnd.body.uuid] } },
        select: { uuid: true, days: true },
      }),
    );
    expect(Object.fromEntries(days.map((d) => [d.uuid, d.days]))).toEqual({
      [withDays.body.uuid]: 45,
      [withEnd.body.uuid]: 60,
    });
  });
});

describe('POST /motor/save: instalments', () => {
  // KES 1,234,567 at 3.5 % is 43,209.845, rounded to 43,209.85: totals with odd cents exercise the split.
  it.each([1, 2, 3, 4])('%s part(s) sum to the premium to the cent', async (parts) => {
    const r = await o.bind((await o.body({ value: 1_234_567, policy: { premium_instalments: parts } })).body);
    expect(r.status, r.text).toBe(201);
    const notes = r.body.debit_note.instalments;
    expect(r.body.instalments).toBe(parts);
    expect(notes).toHaveLength(parts);
    expect(r.body.premium.basic_premium_minor).toBe(4_320_985);
    expect(notes.reduce((s: number, x: any) => s + x.amount_minor, 0)).toBe(r.body.premium.total_minor);
    expect(notes.reduce((s: number, x: any) => s + x.amount, 0)).toBe(r.body.premium.total);
    notes.forEach((x: any, i: number) => {
      expect(x.number).toBe(`DN-${r.body.policy_no}-${i + 1}/${parts}`);
      expect(x.due_on).toBe(plusMonths(TODAY, i));
      if (i > 0) expect(x.amount_minor % 100).toBe(0);
    });
  });
});

describe('POST /motor/save: the premium check', () => {
  // Server total 52,776.25; basic 52,500.00; taxes 276.25.
  it.each([
    ['premium 52,777', { premium: 52_777 }],
    ['premium 52,776', { premium: 52_776 }],
    ['total_basic 52,501 and taxes 277', { total_basic: 52_501, taxes: 277 }],
  ])('accepts %s (within KES 1), and stores the server figures, not the ones sent', async (_label, policy) => {
    const r = await o.bind((await o.body({ policy })).body);
    expect(r.status, r.text).toBe(201);
    const server = { basic_premium_minor: 5_250_000, taxes_minor: 27_625, total_minor: 5_277_625 };
    expect(r.body.premium).toMatchObject(server);
    const stored = await o.t.db.tenant(o.org.id, (tx) =>
      tx.policy.findFirstOrThrow({ where: { uuid: r.body.uuid }, include: { debitNotes: true } }),
    );
    expect([stored.basicMinor, stored.taxesMinor, stored.totalMinor]).toEqual([5_250_000n, 27_625n, 5_277_625n]);
    expect(stored.debitNotes.map((d) => d.amountMinor)).toEqual([5_277_625n]);
  });

  it.each([
    ['premium 52,778', { premium: 52_778 }],
    ['premium 52,775', { premium: 52_775 }],
    ['total_basic 52,502', { total_basic: 52_502 }],
    ['taxes 274', { taxes: 274 }],
  ])('refuses %s with premium_mismatch and the server figures', async (_label, policy) => {
    const before = await o.counts();
    const r = await o.bind((await o.body({ policy })).body);
    expectProblem(r, 422, 'premium_mismatch');
    expect(r.body.server).toEqual([
      {
        insurer_id: o.id('Simba General'),
        basic_premium: 52_500,
        basic_premium_minor: 5_250_000,
        taxes: 276,
        taxes_minor: 27_625,
        total: 52_776,
        total_minor: 5_277_625,
      },
    ]);
    expect(await o.counts()).toEqual(before);
  });
});

describe('POST /motor/save: refusals', () => {
  it('403 actor_forbidden for a bind-scoped key acting as a viewer', async () => {
    const admin = await o.api.token(o.org.clients.admin.clientId, o.org.clients.admin.secret);
    const created = await o.api.post('/api-clients', {
      token: admin,
      idempotencyKey: randomUUID(),
      body: { name: 'viewer with bind', scopes: ['read', 'quote', 'bind'], actor_user_id: o.org.users.viewer.id },
    });
    expect(created.status, created.text).toBe(201);
    const token = await o.api.token(created.body.data.client_id, created.body.data.client_secret);
    const before = await o.counts();
    expectProblem(await o.bind((await o.body()).body, { token }), 403, 'actor_forbidden');
    expect(await o.counts()).toEqual(before);
  });

  it('403 ipf_not_offered for premium finance on a SACCO organisation', async () => {
    const sacco = await Binder.create(t, { type: 'sacco' });
    const r = await sacco.bind((await sacco.body({ policy: { payment_mode: 'ipf' } })).body);
    expectProblem(r, 403, 'ipf_not_offered');
    // The same bind paid in full goes through.
    expect((await sacco.bind((await sacco.body()).body)).status).toBe(201);
  });

  it('409 price_changed when the caller priced on an older rating version', async () => {
    const { body, option } = await o.body();
    body.policy.product_version = option.product_version - 1;
    expectProblem(await o.bind(body), 409, 'price_changed');
  });

  it('409 price_changed when a rate band changes between the quote and the bind', async () => {
    // Baobab's commercial comprehensive product is used by no other test here.
    const { body, option } = await o.body({ insurer: 'Baobab General', coverage: 'own goods' });
    body.policy.product_version = option.product_version;
    await t.db.tenant(o.org.id, (tx) =>
      tx.motorRateBand.updateMany({
        where: { motorProductId: option.motor_product_id },
        data: { rateBps: { increment: 25 } },
      }),
    );
    // Not waiting for the server to hear of it: a bind checks the rating version inside its own transaction.
    const before = await o.counts();
    expectProblem(await o.bind(body), 409, 'price_changed');
    await t.heard();
    expect(await o.counts()).toEqual(before);
    // Quoted afresh, the new version binds.
    const again = await o.body({ insurer: 'Baobab General', coverage: 'own goods' });
    expect(again.option.product_version).toBeGreaterThan(option.product_version);
    again.body.policy.product_version = again.option.product_version;
    const r = await o.bind(again.body);
    expect(r.status, r.text).toBe(201);
  });

  it('409 duplicate_client on a phone-only match, with the matches', async () => {
    const before = await o.counts();
    const r = await o.bind(
      (await o.body({ client: { name: 'Quite Another Person', phone: '0722 000 101', idno: undefined } })).body,
    );
    expectProblem(r, 409, 'duplicate_client');
    expect(r.body.matches).toEqual([
      { client_no: JOHN.clientNo, name: JOHN.name, matched: ['phone'], redacted: false },
    ]);
    expect(await o.counts()).toEqual(before);
  });

  it('422 no_quote for a motorcycle with Baobab General', async () => {
    const { body } = await o.body({
      cls: 'Motorcycle',
      scope: 'TPO',
      insurer: 'Baobab General',
      policy: { premium: 3_000 },
    });
    expectProblem(await o.bind(body), 422, 'no_quote');
  });

  it.each([
    ['cover starting 120 days ahead', {}, { policy: { start_date: plusDays(TODAY, 120) } }],
    [
      'a 25-year-old vehicle comprehensive with Pwani Mutual (limit 10 years)',
      { insurer: 'Pwani Mutual', yom: THIS_YEAR - 25 },
      { policy: { premium: 45_000 } },
    ],
    [
      'an 11-year-old vehicle comprehensive with Pwani Mutual',
      { insurer: 'Pwani Mutual', yom: THIS_YEAR - 11 },
      { policy: { premium: 45_000 } },
    ],
    [
      '4 instalments with Kilima Insurance (at most 2)',
      { insurer: 'Kilima Insurance' },
      { policy: { premium_instalments: 4 } },
    ],
    ['premium finance with Pwani Mutual', { insurer: 'Pwani Mutual' }, { policy: { payment_mode: 'ipf' } }],
  ])('422 domain_rule: %s', async (_label, spec, patch: any) => {
    const { body } = await o.body(spec);
    Object.assign(body.policy, patch.policy);
    const before = await o.counts();
    const r = await o.bind(body);
    expectProblem(r, 422, 'domain_rule');
    expect(r.body.detail).toEqual(expect.any(String));
    expect(await o.counts()).toEqual(before);
  });

  it("a vehicle at Pwani Mutual's age limit (10 years) binds", async () => {
    const r = await o.bind((await o.body({ insurer: 'Pwani Mutual', yom: THIS_YEAR - 10 })).body);
    expect(r.status, r.text).toBe(201);
  });

  it('422 domain_rule for a second bind of a registration with overlapping cover', async () => {
    const reg = freshReg();
    const one = await o.bind((await o.body({ vehicle: { regno: reg } })).body);
    expect(one.status, one.text).toBe(201);
    const two = await o.bind((await o.body({ vehicle: { regno: reg.toLowerCase().replace(' ', '') } })).body);
    expectProblem(two, 422, 'domain_rule');
    expect(two.body.detail).toContain(one.body.policy_no);
  });

  it.each([
    ['no vehicle', (b: any) => (b.vehicles = []), 'vehicles'],
    ['two vehicles', (b: any) => b.vehicles.push({ ...b.vehicles[0], regno: freshReg() }), 'vehicles'],
    ['a missing premium', (b: any) => delete b.policy.premium, 'policy.premium'],
    ['premium_instalments 5', (b: any) => (b.policy.premium_instalments = 5), 'policy.premium_instalments'],
    [
      'premium finance in 2 instalments',
      (b: any) => Object.assign(b.policy, { payment_mode: 'ipf', premium_instalments: 2 }),
      'policy.premium_instalments',
    ],
  ])('422 validation_failed for %s', async (_label, mutate, field) => {
    const { body } = await o.body();
    mutate(body);
    const before = await o.counts();
    const r = await o.bind(body);
    expectProblem(r, 422, 'validation_failed');
    expect(r.body.errors.map((e: any) => e.field)).toContain(field);
    expect(await o.counts()).toEqual(before);
  });
});

describe('POST /motor/save: the bind limit (default 3 per 15 s per API client)', () => {
  const t2 = useKit();
  const o2 = Binder.use(t2);

  it('refuses the fourth save with 429 rate_limited and Retry-After', async () => {
    const bodies = await Promise.all([1, 2, 3, 4].map(() => o2.body().then((b) => b.body)));
    for (const b of bodies.slice(0, 3)) {
      const r = await o2.bind(b);
      expect(r.status, r.text).toBe(201);
    }
    const before = await o2.counts();
    const fourth = await o2.bind(bodies[3]);
    expectProblem(fourth, 429, 'rate_limited');
    // The limiter is an exact sliding log (src/lib/rate-limit.ts): the wait ends when the first of the three saves leaves
    // the 15-second window, so it is never longer than the window.
    const retryAfter = Number(fourth.headers.get('retry-after'));
    expect(
      Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 15,
      `Retry-After: ${fourth.headers.get('retry-after')}`,
    ).toBe(true);
    expect(await o2.counts()).toEqual(before);
    // The limit is per API client: the agent key of the same organisation still binds.
    expect((await o2.bind(bodies[3], { token: o2.tokens.agent })).status).toBe(201);
  });
});

const GQL_BIND = `mutation B($client: InsuredInput!, $policy: BindPolicyInput!, $vehicles: [BindVehicleInput!]!) {
  bindMotorPolicy(client: $client, policy: $policy, vehicles: $vehicles) {
    __typename
    ... on Problem { code status detail }
    ... on PremiumMismatchProblem { server { insurerId basicPremium { amount amountMinor } taxes { amount amountMinor } total { amount amountMinor } } }
    ... on BoundPolicy {
      clientNo clientKey portalNote
      policy { id uuid policyNo status paymentMode instalments total { amount amountMinor } debitNotes { number instalmentNo dueOn amount { amountMinor } } }
    }
  }
}`;

describe('bindMotorPolicy (GraphQL)', () => {
  it('binds like POST /motor/save', async () => {
    const { body } = await o.body({ policy: { premium_instalments: 3 } });
    const g = await o.api.gql(GQL_BIND, bindVars(body), { token: o.tokens.staff });
    expect(g.body.errors).toBeUndefined();
    const res = g.body.data.bindMotorPolicy;
    expect(res.__typename).toBe('BoundPolicy');
    expect(res.clientKey).toMatch(/^bck_/);
    expect(res.portalNote).toBeNull();
    expect(res.policy).toMatchObject({
      status: 'pending_payment',
      paymentMode: 'full',
      instalments: 3,
      total: { amount: 52_776, amountMinor: 5_277_625 },
    });
    expect(res.policy.debitNotes.map((d: any) => d.number)).toEqual(
      [1, 2, 3].map((n) => `DN-${res.policy.policyNo}-${n}/3`),
    );
    expect(res.policy.debitNotes.reduce((s: number, d: any) => s + d.amount.amountMinor, 0)).toBe(5_277_625);
    // The same request through REST splits the premium the same way.
    const rest = await o.bind((await o.body({ policy: { premium_instalments: 3 } })).body);
    expect(rest.body.debit_note.instalments.map((x: any) => x.amount_minor)).toEqual(
      res.policy.debitNotes.map((d: any) => d.amount.amountMinor),
    );
  });

  it('answers a premium mismatch as PremiumMismatchProblem with the server figures', async () => {
    const { body } = await o.body({ policy: { premium: 50_000 } });
    const g = await o.api.gql(GQL_BIND, bindVars(body), { token: o.tokens.staff });
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.bindMotorPolicy).toEqual({
      __typename: 'PremiumMismatchProblem',
      code: 'premium_mismatch',
      status: 422,
      detail: expect.any(String),
      server: [
        {
          insurerId: o.id('Simba General'),
          basicPremium: { amount: 52_500, amountMinor: 5_250_000 },
          taxes: { amount: 276, amountMinor: 27_625 },
          total: { amount: 52_776, amountMinor: 5_277_625 },
        },
      ],
    });
  });
});

describe('visibility of a bound policy', () => {
  it('a policy bound by agent1 is visible to agent1 and staff, not to agent2', async () => {
    const { body } = await o.body();
    const g = await o.api.gql(GQL_BIND, bindVars(body), { token: o.tokens.agent });
    const bound = g.body.data.bindMotorPolicy;
    expect(bound.__typename, JSON.stringify(g.body)).toBe('BoundPolicy');
    const node = `query N($id: ID!) { node(id: $id) { __typename ... on Policy { policyNo } } }`;
    const agent2 = o.org.agents.find((a) => a.userId === o.org.users.agent2.id)!;
    const as = (token: string, headers?: Record<string, string>) =>
      o.api.gql(node, { id: bound.policy.id }, { token, headers });
    expect((await as(o.tokens.agent)).body.data.node).toEqual({
      __typename: 'Policy',
      policyNo: bound.policy.policyNo,
    });
    expect((await as(o.tokens.staff)).body.data.node).toEqual({
      __typename: 'Policy',
      policyNo: bound.policy.policyNo,
    });
    const hidden = await as(o.tokens.staff, { 'x-agent-code': agent2.code, 'x-agent-key': agent2.key });
    // Outside reach looks exactly like absent: null, nothing said (Relay).
    const absent = await o.api.gql(
      node,
      { id: Buffer.from('Policy:999999').toString('base64') },
      { token: o.tokens.staff },
    );
    for (const r of [hidden, absent]) expect(r.body).toEqual({ data: { node: null } });
    // Why agent1 sees it: they created the client and sell the policy.
    const p = await t.db.tenant(o.org.id, (tx) =>
      tx.policy.findUniqueOrThrow({ where: { uuid: bound.policy.uuid }, include: { client: true } }),
    );
    expect(p.salesPersonId).toBe(o.org.users.agent1.id);
    expect(p.client.createdByUserId).toBe(o.org.users.agent1.id);
  });
});

/**
 * Refusals of a bind's shape, as the docs promise them (api-conventions.md "Field refusals are data" and "How big an
 * amount may be"; motor-and-clients.md "Binding"): each names the field in the caller's spelling with its code, the
 * detail names it as the field does, and nothing is created. (Found by an outside check from the docs alone.)
 */
describe('a bind refused for its shape', () => {
  const MAX_SHILLINGS = 90_071_992_547_409; // the documented Money bound in whole shillings, written out
  const fieldErrors = (r: HttpResult) => r.body.errors.map((e: any) => [e.field, e.code]);

  it.each([
    ['premium above the Money bound', { premium: 1e300 }, 'policy.premium', 'too_large'],
    ['premium one shilling above it', { premium: MAX_SHILLINGS + 1 }, 'policy.premium', 'too_large'],
    ['a negative premium', { premium: -52_776 }, 'policy.premium', 'too_small'],
    ['taxes above the bound', { taxes: 1e20 }, 'policy.taxes', 'too_large'],
    ['a negative total_basic', { total_basic: -5 }, 'policy.total_basic', 'too_small'],
    ['a start date that is no calendar date', { start_date: '2026-02-30' }, 'policy.start_date', 'invalid_value'],
    ['a start date in words', { start_date: 'yesterday' }, 'policy.start_date', 'invalid_value'],
  ])('REST: %s is validation_failed naming the field with its code', async (_label, policy, field, code) => {
    const before = await o.counts();
    const r = await o.bind((await o.body({ policy })).body);
    expectProblem(r, 422, 'validation_failed', field);
    expect(fieldErrors(r)).toEqual([[field, code]]);
    expect(await o.counts()).toEqual(before);
  });

  it.each([
    ['a negative premium', { premium: -5 }, 'too_small'],
    ['a premium above the Money bound', { premium: 1e300 }, 'too_large'],
  ])('GraphQL: %s is a ValidationProblem on policy.premium with its code', async (_label, policy, code) => {
    const before = await o.counts();
    const { body } = await o.body({ policy });
    const g = await o.api.gql(
      `mutation B($client: InsuredInput!, $policy: BindPolicyInput!, $vehicles: [BindVehicleInput!]!) {
        bindMotorPolicy(client: $client, policy: $policy, vehicles: $vehicles) {
          __typename ... on ValidationProblem { code fieldErrors { field code } }
        }
      }`,
      bindVars(body),
      { token: o.tokens.staff },
    );
    expect(g.body.errors, JSON.stringify(g.body)).toBeUndefined();
    expect(g.body.data.bindMotorPolicy).toEqual({
      __typename: 'ValidationProblem',
      code: 'validation_failed',
      fieldErrors: [{ field: 'policy.premium', code }],
    });
    expect(await o.counts()).toEqual(before);
  });

  it("names a client's refused field in its REST spelling in the detail too, not the GraphQL one", async () => {
    const before = await o.counts();
    const r = await o.bind((await o.body({ client: { idno: 'x'.repeat(300) } })).body);
    expectProblem(r, 422, 'validation_failed', 'client.idno');
    expect(r.body.detail).toMatch(/^client\.idno: /);
    const missing = await o.body();
    delete missing.body.client.name;
    const r2 = await o.bind(missing.body);
    expectProblem(r2, 422, 'validation_failed', 'client.name');
    expect(r2.body.detail).toMatch(/^client\.name: /);
    expect(await o.counts()).toEqual(before);
  });

  it('names a refused sales person or risk manager client.sales_person_id / client.risk_manager_id (it said client.input.…)', async () => {
    const before = await o.counts();
    for (const [field, id] of [
      ['sales_person_id', o.org.users.exec2.id],
      ['risk_manager_id', o.org.users.agent1.id],
    ] as const) {
      const r = await o.bind((await o.body({ client: { [field]: id } })).body);
      expectProblem(r, 422, 'validation_failed', `client.${field}`);
      expect(r.body.errors.map((e: { field: string }) => e.field)).toEqual([`client.${field}`]);
      expect(r.body.detail).not.toContain('input');
    }
    expect(await o.counts()).toEqual(before);
  });

  it.each(['make', 'model', 'chassis_no', 'engine_no', 'body_type'])(
    "refuses a vehicle's %s longer than 200 characters (200 are kept)",
    async (name) => {
      const before = await o.counts();
      const r = await o.bind((await o.body({ vehicle: { [name]: 'A'.repeat(201) } })).body);
      expectProblem(r, 422, 'validation_failed', `vehicles.0.${name}`);
      expect(fieldErrors(r)).toEqual([[`vehicles.0.${name}`, 'too_large']]);
      expect(await o.counts()).toEqual(before);
      expect((await o.bind((await o.body({ vehicle: { [name]: 'A'.repeat(200) } })).body)).status).toBe(201);
    },
  );
});
