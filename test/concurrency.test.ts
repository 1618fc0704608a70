import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, THIS_YEAR, TODAY, useKit } from './kit.ts';

// Every bind here comes from one API client at once; the 3-per-15-seconds bind limit has its own tests.
const t = useKit({ bindRateLimit: 1000 });
const api = t.api;
const org = t.useOrg({ clientOverrides: { staff: { rateLimitPerMinute: 10_000 } }, tokens: ['staff'] });
let staff: string;
let simbaId: number;
beforeAll(async () => {
  staff = org.tokens.staff;
  simbaId = await org.insurerId('Simba General');
});

const postClient = (body: unknown, key = randomUUID()) =>
  api.post('/clients', { token: staff, body, idempotencyKey: key });
const clientNumber = (no: string) => Number(no.replace(/^C-/, ''));
const highestClientNumber = () =>
  t.db.tenant(org.id, async (tx) =>
    Math.max(0, ...(await tx.client.findMany({ select: { clientNo: true } })).map((c) => clientNumber(c.clientNo))),
  );
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

describe('parallel client creations', () => {
  it('20 distinct people at once get 20 distinct, gap-free numbers', async () => {
    const top = await highestClientNumber();
    const rs = await Promise.all(
      range(0, 20).map((i) =>
        postClient({ name: `Parallel Person ${i}`, phone: `07120000${String(i).padStart(2, '0')}` }),
      ),
    );
    for (const r of rs) expect(r.status, r.text).toBe(201);
    const nos = rs.map((r) => clientNumber(r.body.data.client_no)).sort((a, b) => a - b);
    expect(nos).toEqual(range(top + 1, 20));
    expect(await highestClientNumber()).toBe(top + 20);
  });

  it('20 creations of the same person at once: one 201, nineteen 409 duplicate_client, one row, no number lost', async () => {
    const person = { name: 'Same Person Racing', phone: '0713 555 000', id_no: '39990001' };
    const top = await highestClientNumber();
    const rs = await Promise.all(range(0, 20).map(() => postClient(person)));
    const won = rs.filter((r) => r.status === 201);
    expect(won).toHaveLength(1);
    const winner = won[0].body.data.client_no;
    expect(winner).toBe(`C-${String(top + 1).padStart(6, '0')}`);
    for (const r of rs.filter((x) => x.status !== 201)) {
      expectProblem(r, 409, 'duplicate_client');
      expect(r.body.matches).toEqual([
        { client_no: winner, name: person.name, matched: ['phone', 'id_no'], redacted: false },
      ]);
    }
    expect(
      await t.db.tenant(org.id, (tx) =>
        tx.client.count({ where: { OR: [{ phone: '254713555000' }, { idNo: '39990001' }] } }),
      ),
    ).toBe(1);
    // The refused creations took no number with them: the next client follows the winner directly.
    const next = await postClient({ name: 'After The Race', phone: '0713 555 001' });
    expect(next.body.data.client_no).toBe(`C-${String(top + 2).padStart(6, '0')}`);
  });
});

describe('parallel binds', () => {
  // Three years old on the test clock: inside every insurer's age limit for comprehensive cover, whatever the year.
  const YOM = THIS_YEAR - 3;
  let premium: number;
  beforeAll(async () => {
    const q = await api.post('/motor/quote', {
      token: staff,
      body: { class: 'Motor', scope: 'Comprehensive', year: YOM, value: 1_500_000, insurer_id: simbaId },
    });
    expect(q.status, q.text).toBe(200);
    premium = q.body.options[0].total;
  });
  const bindBody = (client: Record<string, unknown>, nn: string) => ({
    client,
    policy: { start_date: TODAY, insurer_id: simbaId, class: 'Motor', scope: 'Comprehensive', premium },
    vehicles: [
      { regno: `KDA 1${nn}A`, chassis_no: `CH${nn}`, make: 'Toyota', model: 'Axio', yom: YOM, value: 1_500_000 },
    ],
  });
  const bind = (body: unknown, key = randomUUID()) =>
    api.post('/motor/save', { token: staff, body, idempotencyKey: key });

  it('20 binds at once for the same new client and different vehicles create one client and 20 policies on it', async () => {
    const client = { name: 'Kamau Njoroge Concurrent', phone: '0714 600 700', idno: '37770001' };
    const rs = await Promise.all(range(10, 20).map((n) => bind(bindBody(client, String(n)))));
    for (const r of rs) expect(r.status, r.text).toBe(201);
    const clientNos = new Set(rs.map((r) => r.body.client_no));
    expect(clientNos.size).toBe(1);
    const [clientNo] = [...clientNos];
    // The client-area key goes to the save that created the client; the others find it already has one.
    expect(rs.filter((r) => r.body.client_key !== null)).toHaveLength(1);
    expect(new Set(rs.map((r) => r.body.policy_no)).size).toBe(20);

    const { clients, policies } = await t.db.tenant(org.id, async (tx) => {
      const clients = await tx.client.findMany({ where: { idNo: '37770001' } });
      const policies = await tx.policy.findMany({ where: { uuid: { in: rs.map((r) => r.body.uuid) } } });
      return { clients, policies };
    });
    expect(clients).toHaveLength(1);
    expect(clients[0].clientNo).toBe(clientNo);
    expect(policies).toHaveLength(20);
    expect(new Set(policies.map((p) => p.clientId))).toEqual(new Set([clients[0].id]));
  });

  it('25 identical binds with one Idempotency-Key create one policy; 24 are replays of the same body', async () => {
    const key = randomUUID();
    const body = bindBody({ name: 'Replay Racer', phone: '0714 600 800', idno: '37770002' }, '50');
    const rs = await Promise.all(range(0, 25).map(() => bind(body, key)));
    for (const r of rs) expect(r.status, r.text).toBe(201);
    const fresh = rs.filter((r) => r.headers.get('idempotent-replayed') !== 'true');
    expect(fresh).toHaveLength(1);
    const first = fresh[0].body;
    expect(first.client_key).toMatch(/^bck_/);
    expect(first.replay_note).toBeUndefined();
    const replays = rs.filter((r) => r.headers.get('idempotent-replayed') === 'true');
    expect(replays).toHaveLength(24);
    for (const r of replays) {
      expect(r.body).toEqual({
        ...first,
        client_key: null,
        portal: { ...first.portal, client_key: null },
        replay_note: expect.any(String),
      });
      expect(r.body.replay_note.length).toBeGreaterThan(0);
    }
    const policies = await t.db.tenant(org.id, (tx) => tx.policy.findMany({ where: { client: { idNo: '37770002' } } }));
    expect(policies.map((p) => p.uuid)).toEqual([first.uuid]);
  });
});
