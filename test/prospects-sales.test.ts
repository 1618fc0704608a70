import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runProspectFollowUps } from '../src/modules/prospects/prospect.service.ts';
import { expectProblem, INSTANT_RAIL, THIS_YEAR, useKit, withClock } from './kit.ts';
import { createProspect, newPerson, patchProspect, prospectIn } from './kit/prospects.ts';

const t = useKit(INSTANT_RAIL);
const org = t.useOrg({ fast: true, tokens: ['staff', 'agent'] });
const staff = org.as('staff');
const agent = org.as('agent');
const convert = (c: typeof staff, uuid: string, body: Record<string, unknown> = {}) =>
  c.post(`/prospects/${uuid}/convert`, { body, idempotencyKey: randomUUID() });
const kinds = (p: any) => p.timeline.map((e: any) => `${e.kind}:${e.from_status ?? ''}→${e.to_status ?? ''}`);

describe('POST /prospects/{uuid}/convert', () => {
  it('creates a client from the prospect (onboarded_via prospect); the prospect keeps its history; twice is 409', async () => {
    const who = newPerson();
    const p = await prospectIn(staff, 'qualified', {
      type: 'business',
      name: who.name,
      phone: who.phone,
      kra_pin: who.kra_pin,
      assignee_id: org.users.agent2.id,
    });
    const r = await convert(staff, p.uuid, { email: 'Buyer@Example.co.ke' });
    expect(r.status, r.text).toBe(200);
    const converted = r.body.data;
    expect(converted).toMatchObject({ status: 'qualified', client_no: expect.stringMatching(/^C-\d{6}$/) });
    expect(kinds(converted)).toEqual(['created:→new', 'status_changed:new→qualified', 'converted:→']);
    expect(converted.timeline.at(-1).body).toBe('Converted to a new client');
    const client = (await staff.get(`/clients/${converted.client_no}`)).body.data;
    expect(client).toMatchObject({
      type: 'corporate',
      name: who.name,
      phone: who.storedPhone,
      kra_pin: who.storedPin,
      email: 'buyer@example.co.ke',
      onboarded_via: 'prospect',
      sales_person: { id: org.users.agent2.id },
    });
    expectProblem(await convert(staff, p.uuid), 409, 'invalid_state');
    expectProblem(await convert(staff, p.uuid, { client_no: converted.client_no }), 409, 'invalid_state');
  });

  it("an account-executive assignee becomes the client's risk manager, not its sales person; the body may name others", async () => {
    const kept = await prospectIn(staff, 'qualified', { name: newPerson().name, assignee_id: org.users.exec2.id });
    const r = await convert(staff, kept.uuid, { phone: newPerson().phone });
    expect(r.status, r.text).toBe(200);
    const client = (await staff.get(`/clients/${r.body.data.client_no}`)).body.data;
    expect(client.risk_manager).toMatchObject({ id: org.users.exec2.id });
    expect(client.sales_person?.id ?? null).not.toBe(org.users.exec2.id);

    const named = await prospectIn(staff, 'qualified', { name: newPerson().name, assignee_id: org.users.exec2.id });
    const n = await convert(staff, named.uuid, {
      phone: newPerson().phone,
      risk_manager_id: org.users.exec.id,
      sales_person_id: org.users.agent1.id,
    });
    expect(n.status, n.text).toBe(200);
    const other = (await staff.get(`/clients/${n.body.data.client_no}`)).body.data;
    expect(other).toMatchObject({ risk_manager: { id: org.users.exec.id }, sales_person: { id: org.users.agent1.id } });
    // An account executive named as sales person is refused, as a client's create refuses it; nothing is converted.
    const refused = await prospectIn(staff, 'qualified', { name: newPerson().name });
    const x = await convert(staff, refused.uuid, { phone: newPerson().phone, sales_person_id: org.users.exec2.id });
    expectProblem(x, 422, 'validation_failed', 'sales_person_id');
    expect((await staff.get(`/prospects/${refused.uuid}`)).body.data.client_no).toBeNull();
  });

  it('links an existing client the caller may see (client_no); one out of reach is 422', async () => {
    const mine = await createProspect(agent, { name: newPerson().name });
    expectProblem(await convert(agent, mine.uuid, { client_no: 'C-000002' }), 422, 'validation_failed', 'client_no');
    const r = await convert(agent, mine.uuid, { client_no: 'C-000001' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.client_no).toBe('C-000001');
    expect(r.body.data.timeline.at(-1)).toMatchObject({ kind: 'converted', body: 'Linked to an existing client' });
  });

  it('a prospect without a phone needs one; a duplicate client is 409 until linked or forced; lost is 409', async () => {
    const bare = await createProspect(staff, { name: newPerson().name });
    expectProblem(await convert(staff, bare.uuid), 422, 'validation_failed', 'phone');
    const clash = await convert(staff, bare.uuid, { phone: '0733000303' });
    expectProblem(clash, 409, 'duplicate_client');
    expect(clash.body.matches[0]).toMatchObject({ client_no: 'C-000003', matched: ['phone'] });
    const lost = await prospectIn(staff, 'lost', { phone: newPerson().phone });
    expectProblem(await convert(staff, lost.uuid), 409, 'invalid_state');
  });
});

describe('quotes and binds move the prospect behind them', () => {
  const VEHICLE = { value: 1_500_000, year: THIS_YEAR - 3, coverage: 'Private', scope: 'Comprehensive' };
  const saveQuote = (body: Record<string, unknown>, c = staff) =>
    c.post('/motor/save_quote', { body: { vehicle: VEHICLE, ...body }, idempotencyKey: randomUUID() });
  const bind = async (extra: Record<string, unknown>, client?: Record<string, unknown>) => {
    const { body } = await org.bindBody({ client });
    return staff.post('/motor/save', { body: { ...body, ...extra }, idempotencyKey: randomUUID() });
  };
  const read = async (uuid: string) => (await staff.get(`/prospects/${uuid}`)).body.data;

  it('save_quote with prospect_uuid: new → quoted, client linked; then a bind for that client: quoted → won', async () => {
    const who = newPerson();
    const p = await createProspect(staff, { name: who.name, phone: who.phone });
    const q = await saveQuote({ client: { name: who.name, phone: who.phone }, prospect_uuid: p.uuid });
    expect(q.status, q.text).toBe(201);
    let now = await read(p.uuid);
    expect(now).toMatchObject({ status: 'quoted', client_no: q.body.client_no });
    expect(now.timeline.at(-1)).toMatchObject({ kind: 'quote_saved', from_status: 'new', to_status: 'quoted' });
    expect(now.timeline.at(-1).body).toBe(`Quote ${q.body.quote_no}`);

    const b = await bind({}, { client_no: q.body.client_no });
    expect(b.status, b.text).toBe(201);
    now = await read(p.uuid);
    expect(now.status).toBe('won');
    expect(now.timeline.at(-1)).toMatchObject({ kind: 'policy_bound', from_status: 'quoted', to_status: 'won' });
    expect(now.timeline.at(-1).body).toBe(`Policy ${b.body.policy_no}`);
  });

  it('a bind with prospect_uuid walks a contacted prospect through quoted to won and links the client', async () => {
    const p = await prospectIn(staff, 'contacted');
    const b = await bind({ prospect_uuid: p.uuid });
    expect(b.status, b.text).toBe(201);
    const now = await read(p.uuid);
    expect(now).toMatchObject({ status: 'won', client_no: b.body.client_no });
    expect(kinds(now).slice(-2)).toEqual(['policy_bound:contacted→quoted', 'policy_bound:quoted→won']);
  });

  it('a lost prospect is not moved, but the quote is on its timeline', async () => {
    const p = await prospectIn(staff, 'lost');
    const who = newPerson();
    const q = await saveQuote({ client: { name: who.name, phone: who.phone }, prospect_uuid: p.uuid });
    expect(q.status, q.text).toBe(201);
    const now = await read(p.uuid);
    expect(now.status).toBe('lost');
    expect(now.timeline.at(-1)).toMatchObject({ kind: 'quote_saved', from_status: null, to_status: null });
  });

  it('an unknown or invisible prospect_uuid is 422 on prospect_uuid and nothing is saved', async () => {
    const others = await createProspect(staff, { name: newPerson().name });
    const count = () => t.db.tenant(org.id, (tx) => Promise.all([tx.quote.count(), tx.policy.count()]));
    const before = await count();
    const who = newPerson();
    for (const uuid of [randomUUID(), 'not-a-uuid'])
      expectProblem(
        await saveQuote({ client: { name: who.name, phone: who.phone }, prospect_uuid: uuid }),
        422,
        'validation_failed',
        'prospect_uuid',
      );
    const hidden = await saveQuote({ client: { name: who.name, phone: who.phone }, prospect_uuid: others.uuid }, agent);
    expectProblem(hidden, 422, 'validation_failed', 'prospect_uuid');
    expectProblem(await bind({ prospect_uuid: randomUUID() }), 422, 'validation_failed', 'prospect_uuid');
    expect(await count()).toEqual(before);
    expect((await read(others.uuid)).status).toBe('new');
  });
});

describe('the daily follow-up job', () => {
  const dueEvents = async (uuid: string) =>
    (await t.db.tenant(org.id, (tx) => tx.event.findMany({ where: { name: 'prospect.follow_up_due' } })))
      .map((e) => e.data as Record<string, unknown>)
      .filter((d) => d.prospect_uuid === uuid);

  it('emits prospect.follow_up_due once per prospect and date, for open prospects due by asOf', async () => {
    const due = await createProspect(staff, {
      name: newPerson().name,
      next_follow_up_on: '2026-06-17',
      assignee_id: org.users.agent1.id,
    });
    const later = await createProspect(staff, { name: newPerson().name, next_follow_up_on: '2026-06-20' });
    const lost = await prospectIn(staff, 'lost', { next_follow_up_on: '2026-06-16' });
    const services = t.app.services;
    await runProspectFollowUps(services, '2026-06-18');
    await runProspectFollowUps(services, '2026-06-19');
    expect(await dueEvents(due.uuid)).toEqual([
      {
        prospect_no: due.prospect_no,
        prospect_uuid: due.uuid,
        name: due.name,
        status: 'new',
        next_follow_up_on: '2026-06-17',
        assignee_id: org.users.agent1.id,
        assignee_name: org.users.agent1.name,
      },
    ]);
    expect(await dueEvents(later.uuid)).toEqual([]);
    expect(await dueEvents(lost.uuid)).toEqual([]);
    // A new date is a new notice.
    expect((await patchProspect(staff, due.uuid, { next_follow_up_on: '2026-06-25' })).status).toBe(200);
    await runProspectFollowUps(services, '2026-06-25');
    expect((await dueEvents(due.uuid)).map((d) => d.next_follow_up_on)).toEqual(['2026-06-17', '2026-06-25']);
    expect((await dueEvents(later.uuid)).map((d) => d.next_follow_up_on)).toEqual(['2026-06-20']);
  });

  it('GET /prospects/follow-ups lists open prospects due today (Nairobi), the oldest date first', async () => {
    const a = await createProspect(staff, { name: newPerson().name, next_follow_up_on: '2026-07-03' });
    const b = await createProspect(staff, { name: newPerson().name, next_follow_up_on: '2026-07-01' });
    const c = await createProspect(staff, { name: newPerson().name, next_follow_up_on: '2026-07-09' });
    const won = await prospectIn(staff, 'won', { next_follow_up_on: '2026-07-01' });
    await withClock('2026-07-05T06:00:00Z', async () => {
      const r = await staff.get('/prospects/follow-ups?limit=100');
      expect(r.status, r.text).toBe(200);
      const uuids = r.body.data.map((p: any) => p.uuid);
      expect(uuids.filter((u: string) => [a.uuid, b.uuid, c.uuid, won.uuid].includes(u))).toEqual([b.uuid, a.uuid]);
      const dates = r.body.data.map((p: any) => p.next_follow_up_on);
      expect(dates).toEqual([...dates].sort());
      const listed = await staff.get('/prospects?follow_up_due=true&limit=100');
      expect(listed.body.data.map((p: any) => p.uuid)).toEqual(expect.arrayContaining([a.uuid, b.uuid]));
      expect(listed.body.data.map((p: any) => p.uuid)).not.toContain(c.uuid);
    });
  });
});
