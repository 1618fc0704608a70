import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ProspectStatus } from '../src/generated/prisma/enums.ts';
import { PROSPECT_TRANSITIONS } from '../src/modules/prospects/prospect-state.ts';
import { expectProblem, TODAY, useKit } from './kit.ts';
import { createProspect, newPerson, patchProspect, prospectIn } from './kit/prospects.ts';

const t = useKit();
const org = t.useOrg({ fast: true, tokens: ['staff', 'agent'] });
const staff = org.as('staff');
const agent = org.as('agent');
const in3Days = '2026-06-18';

const PROSPECT_FIELDS = [
  'id',
  'uuid',
  'prospect_no',
  'type',
  'name',
  'phone',
  'email',
  'id_no',
  'kra_pin',
  'source',
  'interests',
  'estimated_premium',
  'estimated_premium_minor',
  'status',
  'lost_reason',
  'assignee',
  'created_by',
  'next_follow_up_on',
  'client_no',
  'status_changed_at',
  'created_at',
  'updated_at',
  'timeline',
].sort();
const audits = (prospectNo: string) =>
  t.db.tenant(org.id, (tx) =>
    tx.auditLog.findMany({ where: { entityType: 'prospect', entityId: prospectNo }, orderBy: { id: 'asc' } }),
  );

describe('POST /prospects', () => {
  it('creates a numbered prospect, normalised like a client, with its timeline opened; audited', async () => {
    const who = newPerson();
    const count = await t.db.tenant(org.id, (tx) => tx.prospect.count());
    const p = await createProspect(staff, {
      type: 'business',
      name: `  ${who.name} `,
      phone: who.phone,
      email: 'Lead@Example.CO.KE',
      id_no: ` ${who.id_no} `,
      kra_pin: who.kra_pin,
      source: 'referral',
      interests: ['motor', 'medical', 'motor'],
      estimated_premium: 45_250,
      assignee_id: org.users.exec2.id,
      next_follow_up_on: in3Days,
      note: 'Met at the Nakuru show',
    });
    expect(Object.keys(p).sort()).toEqual(PROSPECT_FIELDS);
    expect(p).toMatchObject({
      prospect_no: `P-${String(count + 1).padStart(6, '0')}`,
      type: 'business',
      name: who.name,
      phone: who.storedPhone,
      email: 'lead@example.co.ke',
      id_no: who.id_no,
      kra_pin: who.storedPin,
      source: 'referral',
      interests: ['motor', 'medical'],
      estimated_premium: 45_250,
      estimated_premium_minor: 4_525_000,
      status: 'new',
      lost_reason: null,
      assignee: { id: org.users.exec2.id, name: org.users.exec2.name, role: 'account_exec' },
      created_by: { id: org.users.exec.id },
      next_follow_up_on: in3Days,
      client_no: null,
    });
    expect(p.timeline.map((e: any) => [e.kind, e.from_status, e.to_status, e.body, e.actor_id])).toEqual([
      ['created', null, 'new', null, org.users.exec.id],
      ['note', null, null, 'Met at the Nakuru show', org.users.exec.id],
    ]);
    const [audit] = await audits(p.prospect_no);
    expect(audit).toMatchObject({ action: 'prospect.created', actorUserId: org.users.exec.id });
    expect(audit.changes).toMatchObject({ estimated_premium: 45_250, source: 'referral' });
  });

  it('an agent becomes the assignee of what they add; staff leave it unassigned', async () => {
    const mine = await createProspect(agent, { name: newPerson().name });
    expect(mine.assignee).toMatchObject({ id: org.users.agent1.id, role: 'agent' });
    const staffs = await createProspect(staff, { name: newPerson().name });
    expect(staffs.assignee).toBeNull();
  });

  it.each([
    [{ phone: '0123' }, 'phone'],
    [{ kra_pin: 'X1' }, 'kra_pin'],
    [{ source: 'billboard' }, 'source'],
    [{ interests: ['pets'] }, 'interests.0'],
    [{ estimated_premium: 10.5 }, 'estimated_premium'],
    [{ next_follow_up_on: '2026-06-14' }, 'next_follow_up_on'],
    [{ next_follow_up_on: '2026-02-30' }, 'next_follow_up_on'],
    [{ assignee_id: 999_999 }, 'assignee_id'],
  ])('%j is 422 validation_failed on %s; nothing saved', async (extra, field) => {
    const before = await t.db.tenant(org.id, (tx) => tx.prospect.count());
    const r = await staff.post('/prospects', { body: { name: 'Valid Name', ...extra }, idempotencyKey: randomUUID() });
    expectProblem(r, 422, 'validation_failed', field);
    expect(await t.db.tenant(org.id, (tx) => tx.prospect.count())).toBe(before);
  });

  it('a viewer cannot be the assignee: only users who may work prospects', async () => {
    const r = await staff.post('/prospects', {
      body: { name: 'Valid Name', assignee_id: org.users.viewer.id },
      idempotencyKey: randomUUID(),
    });
    expectProblem(r, 422, 'validation_failed', 'assignee_id');
  });

  it('Idempotency-Key: required; a replay answers the first body and adds nothing', async () => {
    expectProblem(await staff.post('/prospects', { body: { name: 'No Key' } }), 400, 'idempotency_key_required');
    const key = randomUUID();
    const body = { name: newPerson().name };
    const first = await staff.post('/prospects', { body, idempotencyKey: key });
    expect(first.status, first.text).toBe(201);
    const count = await t.db.tenant(org.id, (tx) => tx.prospect.count());
    const again = await staff.post('/prospects', { body, idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await t.db.tenant(org.id, (tx) => tx.prospect.count())).toBe(count);
  });
});

describe('the state machine', () => {
  const STATES = Object.keys(PROSPECT_TRANSITIONS) as ProspectStatus[];
  const pairs = STATES.flatMap((from) => STATES.filter((to) => to !== from).map((to) => [from, to] as const));

  it.each(pairs)('%s → %s by hand: allowed exactly when the table says so', async (from, to) => {
    const p = await prospectIn(staff, from);
    const r = await patchProspect(staff, p.uuid, {
      status: to,
      note: 'called',
      ...(to === 'lost' ? { lost_reason: 'competitor' } : {}),
    });
    if (PROSPECT_TRANSITIONS[from].includes(to)) {
      expect(r.status, r.text).toBe(200);
      expect(r.body.data.status).toBe(to);
      expect(r.body.data.timeline.at(-1)).toMatchObject({
        kind: 'status_changed',
        from_status: from,
        to_status: to,
        actor_id: org.users.exec.id,
        body: to === 'lost' ? 'competitor: called' : 'called',
      });
      expect(Date.parse(r.body.data.status_changed_at)).toBeGreaterThan(Date.parse(p.status_changed_at) - 1);
    } else {
      expectProblem(r, 409, 'invalid_state');
      const row = await t.db.tenant(org.id, (tx) => tx.prospect.findUniqueOrThrow({ where: { uuid: p.uuid } }));
      expect(row.status).toBe(from);
    }
  });

  it('lost needs a reason from the list; a reason needs a move to lost; revived, the reason is cleared', async () => {
    const p = await prospectIn(staff, 'contacted');
    expectProblem(await patchProspect(staff, p.uuid, { status: 'lost' }), 422, 'validation_failed', 'lost_reason');
    expectProblem(
      await patchProspect(staff, p.uuid, { status: 'lost', lost_reason: 'bored' }),
      422,
      'validation_failed',
      'lost_reason',
    );
    expectProblem(
      await patchProspect(staff, p.uuid, { status: 'qualified', lost_reason: 'price' }),
      422,
      'validation_failed',
      'lost_reason',
    );
    const lost = await patchProspect(staff, p.uuid, { status: 'lost', lost_reason: 'unreachable' });
    expect(lost.body.data).toMatchObject({ status: 'lost', lost_reason: 'unreachable' });
    const revived = await patchProspect(staff, p.uuid, { status: 'contacted', note: 'called back' });
    expect(revived.body.data).toMatchObject({ status: 'contacted', lost_reason: null });
    const moves = revived.body.data.timeline.filter((e: any) => e.kind === 'status_changed');
    expect(moves.map((e: any) => `${e.from_status}→${e.to_status}`)).toEqual([
      'new→contacted',
      'contacted→lost',
      'lost→contacted',
    ]);
    expect((await audits(p.prospect_no)).at(-1)?.changes).toMatchObject({
      status: { from: 'lost', to: 'contacted' },
      note: 'called back',
    });
  });

  it('PATCH changes only what was sent; null clears a follow-up date; a note alone joins the timeline', async () => {
    const p = await createProspect(staff, { name: newPerson().name, source: 'website', next_follow_up_on: TODAY });
    const r = await patchProspect(staff, p.uuid, {
      estimated_premium: 12_000,
      next_follow_up_on: null,
      note: 'sent brochure',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({
      source: 'website',
      estimated_premium_minor: 1_200_000,
      next_follow_up_on: null,
    });
    expect(r.body.data.timeline.at(-1)).toMatchObject({ kind: 'note', body: 'sent brochure' });
    const note = await staff.post(`/prospects/${p.uuid}/notes`, {
      body: { body: 'left a voicemail' },
      idempotencyKey: randomUUID(),
    });
    expect(note.status, note.text).toBe(201);
    expect(note.body.data.timeline.at(-1)).toMatchObject({ kind: 'note', body: 'left a voicemail' });
    expect((await audits(p.prospect_no)).map((a) => a.action)).toEqual([
      'prospect.created',
      'prospect.updated',
      'prospect.noted',
    ]);
  });
});

describe('duplicates: clients and prospects, by phone, ID number and PIN', () => {
  const post = (c: typeof staff, body: Record<string, unknown>) =>
    c.post('/prospects', { body, idempotencyKey: randomUUID() });

  it("a client's phone is 409 duplicate_client naming the client; force saves it anyway (audited)", async () => {
    const body = { name: 'Peter Rotich', phone: '0733 000 303' };
    const r = await post(staff, body);
    expectProblem(r, 409, 'duplicate_client');
    expect(r.body.matches).toEqual([
      {
        kind: 'client',
        client_no: 'C-000003',
        prospect_no: null,
        name: 'Peter Kiprono Rotich',
        matched: ['phone'],
        redacted: false,
      },
    ]);
    const forced = await post(staff, { ...body, force: true });
    expect(forced.status, forced.text).toBe(201);
    const [audit] = await audits(forced.body.data.prospect_no);
    expect(audit.changes).toMatchObject({ forced_despite_matches: true });
  });

  it("another prospect's ID number and PIN: that prospect is named", async () => {
    const who = newPerson();
    const first = await createProspect(staff, { name: who.name, id_no: who.id_no, kra_pin: who.kra_pin });
    const r = await post(staff, { name: 'Someone Else', id_no: who.id_no, kra_pin: who.storedPin });
    expectProblem(r, 409, 'duplicate_client');
    expect(r.body.matches).toEqual([
      {
        kind: 'prospect',
        client_no: null,
        prospect_no: first.prospect_no,
        name: who.name,
        matched: ['id_no', 'kra_pin'],
        redacted: false,
      },
    ]);
  });

  it('an agent is told only which identifier collided for records out of their reach', async () => {
    const who = newPerson();
    await createProspect(staff, { name: who.name, phone: who.phone });
    // Mary (C-000002) is agent2's client; John (C-000001) is agent1's own.
    const hidden = await post(agent, { name: 'Agent Lead', phone: who.phone, id_no: '28765432' });
    expectProblem(hidden, 409, 'duplicate_client');
    expect(hidden.body.matches).toEqual([
      { kind: 'client', client_no: null, prospect_no: null, name: null, matched: ['id_no'], redacted: true },
      { kind: 'prospect', client_no: null, prospect_no: null, name: null, matched: ['phone'], redacted: true },
    ]);
    const own = await post(agent, { name: 'Agent Lead', kra_pin: 'A004416331M' });
    expectProblem(own, 409, 'duplicate_client');
    expect(own.body.matches).toEqual([
      expect.objectContaining({ kind: 'client', client_no: 'C-000001', name: 'John Kariuki Mwangi', redacted: false }),
    ]);
  });

  it('PATCH checks an identifier that changes, not one sent unchanged', async () => {
    const [a, b] = [newPerson(), newPerson()];
    await createProspect(staff, { name: a.name, phone: a.phone });
    const p = await createProspect(staff, { name: b.name, phone: b.phone });
    const r = await patchProspect(staff, p.uuid, { phone: a.phone });
    expectProblem(r, 409, 'duplicate_client');
    expect(r.body.matches).toMatchObject([{ kind: 'prospect', matched: ['phone'] }]);
    expect((await patchProspect(staff, p.uuid, { phone: b.storedPhone, name: `${b.name} Jr` })).status).toBe(200);
    const forced = await patchProspect(staff, p.uuid, { phone: a.phone, force: true });
    expect(forced.status, forced.text).toBe(200);
    expect(forced.body.data.phone).toBe(a.storedPhone);
  });
});
