import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { motorNotice } from './kit/approved-claim.ts';
import { INSTANT_RAIL, TODAY, useKit, withClock, type Active } from './kit.ts';

/**
 * GET /claims filters (docs/claims.md "Claims: read"), each asserted on a non-empty answer that names the expected
 * claim and leaves the other out. Two claims that differ on every filter:
 *
 *   A: Simba policy of client A, loss 15 June, reported 15 June 08:00 Nairobi, assigned to the executive,
 *      documents_pending, within its service level;
 *   B: Pwani policy of client B, loss 18 June, reported 19 June 08:00 Nairobi, assigned to agent two, registered,
 *      past its service level.
 *
 * The file's database holds no other claim, so every answer is exactly A, B, both or neither.
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const o = t.useOrg({ fast: true });

const post = (path: string, body: unknown) =>
  o.api.post(path, { token: o.tokens.staff, body, idempotencyKey: randomUUID() });
const list = async (query: string): Promise<string[]> => {
  const r = await o.api.get(`/claims?${query}&limit=100`, { token: o.tokens.staff });
  expect(r.status, `${query}: ${r.text}`).toBe(200);
  return r.body.data.map((c: { uuid: string }) => c.uuid);
};

let polA: Active;
let polB: Active;
let a: string;
let b: string;
let simba: number;
let pwani: number;

beforeAll(async () => {
  [polA, polB] = await Promise.all([o.activePolicy(), o.activePolicy({ insurer: 'Pwani Mutual' })]);
  [simba, pwani] = await Promise.all([o.insurerId('Simba General'), o.insurerId('Pwani Mutual')]);
  const regA = await post(
    '/claims',
    motorNotice(polA, { loss_time: '07:30', reported_at: `${TODAY}T08:00:00+03:00`, assignee_id: o.users.exec.id }),
  );
  expect(regA.status, regA.text).toBe(201);
  a = regA.body.data.uuid;
  expect((await post(`/claims/${a}/transitions`, { to: 'documents_pending' })).status).toBe(200);
  // B is reported on 19 June: the service clock is moved there, so neither date is in its future.
  const regB = await withClock('2026-06-19T09:00:00+03:00', () =>
    post(
      '/claims',
      motorNotice(polB, {
        loss_date: '2026-06-18',
        loss_time: '18:00',
        reported_at: '2026-06-19T08:00:00+03:00',
        assignee_id: o.users.agent2.id,
      }),
    ),
  );
  expect(regB.status, regB.text).toBe(201);
  b = regB.body.data.uuid;
  // B's service level ran out long ago (the SLA run and its times are tested in claims.test.ts).
  await t.db.tenant(o.id, (tx) =>
    tx.claim.update({ where: { uuid: b }, data: { slaDueAt: new Date('2026-01-05T06:00:00Z') } }),
  );
}, 120_000);

describe('GET /claims filters', () => {
  it('lists both claims, newest first, without a filter', async () => {
    expect(await list('')).toEqual([b, a]);
  });

  it('status: each state names its claim; a state no claim is in answers nothing', async () => {
    expect(await list('status=documents_pending')).toEqual([a]);
    expect(await list('status=registered')).toEqual([b]);
    expect(await list('status=registered,documents_pending')).toEqual([b, a]);
    expect(await list('status=withdrawn,closed')).toEqual([]);
  });

  it('sla_breached: true lists the claim past its service level, false the other', async () => {
    expect(await list('sla_breached=true')).toEqual([b]);
    expect(await list('sla_breached=false')).toEqual([a]);
  });

  it("client_no: the client's claims only", async () => {
    expect(await list(`client_no=${polA.client_no}`)).toEqual([a]);
    expect(await list(`client_no=${polB.client_no}`)).toEqual([b]);
    expect(await list('client_no=C-999999')).toEqual([]);
  });

  it("insurer_id: the insurer's claims only", async () => {
    expect(await list(`insurer_id=${simba}`)).toEqual([a]);
    expect(await list(`insurer_id=${pwani}`)).toEqual([b]);
  });

  it("assignee_id: the handler's claims only", async () => {
    expect(await list(`assignee_id=${o.users.exec.id}`)).toEqual([a]);
    expect(await list(`assignee_id=${o.users.agent2.id}`)).toEqual([b]);
  });

  it('loss_from / loss_to: Y-m-d, both ends inclusive', async () => {
    expect(await list('loss_from=2026-06-16')).toEqual([b]);
    expect(await list('loss_from=2026-06-18')).toEqual([b]);
    expect(await list('loss_to=2026-06-17')).toEqual([a]);
    expect(await list(`loss_to=${TODAY}`)).toEqual([a]);
    expect(await list(`loss_from=${TODAY}&loss_to=2026-06-18`)).toEqual([b, a]);
    expect(await list('loss_from=2026-06-16&loss_to=2026-06-17')).toEqual([]);
  });

  it('reported_from / reported_to: instants, both ends inclusive', async () => {
    // A was reported at 05:00Z on 15 June, B at 05:00Z on 19 June.
    expect(await list('reported_from=2026-06-16T00:00:00Z')).toEqual([b]);
    expect(await list('reported_from=2026-06-19T05:00:00Z')).toEqual([b]);
    expect(await list('reported_to=2026-06-16T00:00:00Z')).toEqual([a]);
    expect(await list('reported_to=2026-06-15T05:00:00Z')).toEqual([a]);
    expect(await list('reported_from=2026-06-15T00:00:00Z&reported_to=2026-06-20T00:00:00Z')).toEqual([b, a]);
    expect(await list('reported_from=2026-06-16T00:00:00Z&reported_to=2026-06-18T00:00:00Z')).toEqual([]);
  });

  it('combines filters (AND)', async () => {
    expect(await list(`client_no=${polA.client_no}&status=documents_pending&insurer_id=${simba}`)).toEqual([a]);
    expect(await list(`client_no=${polA.client_no}&sla_breached=true`)).toEqual([]);
    expect(await list(`insurer_id=${pwani}&sla_breached=true&loss_from=2026-06-18`)).toEqual([b]);
  });
});
