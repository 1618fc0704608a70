import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { now as serviceClock } from '../src/lib/clock.ts';
import { approvedClaim, motorNotice, payClaim } from './kit/approved-claim.ts';
import { type Active, expectProblem, INSTANT_RAIL, type Org, TODAY, useKit, waitFor } from './kit.ts';

/**
 * A claim's times on the organisation's business clock (docs/claims.md "Claims: registration" and "service levels"):
 * a loss later today than now is as future as a loss tomorrow, and in a sandbox organisation the record's service
 * level (sla.status_since, due_at, breached) and the ?sla_breached= filter read the same clock, the sandbox's own.
 *
 * The service clock stands at 09:00 Nairobi on TODAY (15 June 2026) when the file starts, running on.
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const [live, sb] = t.useOrgs([{ fast: true }, { fast: true, sandbox: true }]);

const register = (o: Org, body: unknown) => o.as('staff').post('/claims', { body, idempotencyKey: randomUUID() });

const gqlRegister = (o: Org, pol: Active, lossDate: string, lossTime: string) =>
  o.as('staff').gql(
    `mutation($i: RegisterClaimInput!) {
       registerClaim(input: $i) {
         __typename ... on Claim { uuid } ... on Problem { code fieldErrors { field } }
       }
     }`,
    {
      i: {
        policyId: pol.uuid,
        registration: pol.regno,
        cause: 'accident',
        lossDate,
        lossTime,
        lossPlace: 'Thika Road',
        description: 'Rear-ended',
      },
    },
  );

async function advanceDays(o: Org, days: number) {
  const r = await o.as('admin').post('/sandbox/clock/advance', { body: { days }, idempotencyKey: randomUUID() });
  expect(r.status, r.text).toBe(202);
  const ready = await waitFor(
    'the sandbox clock to be ready',
    () => o.as('staff').get('/sandbox/clock'),
    (c) => c.status === 200 && c.body.data.status === 'ready',
    { ms: 60_000, every: 100 },
  );
  return ready.body.data as { now: string; today: string };
}

describe('a loss later today than now', () => {
  it('is refused on REST and GraphQL with 422 naming loss_time, and nothing is registered', async () => {
    const pol = await live.activePolicy();
    const before = await t.db.tenant(live.id, (tx) => tx.claim.count());
    // 11:30 Nairobi on TODAY: two and a half hours after the clock's 09:00.
    expectProblem(
      await register(live, motorNotice(pol, { loss_date: TODAY, loss_time: '11:30' })),
      422,
      'validation_failed',
      'loss_time',
    );
    const g = await gqlRegister(live, pol, TODAY, '11:30');
    expect(g.body.data.registerClaim).toEqual({
      __typename: 'ValidationProblem',
      code: 'validation_failed',
      fieldErrors: [{ field: 'input.lossTime' }],
    });
    expect(await t.db.tenant(live.id, (tx) => tx.claim.count())).toBe(before);
    // Earlier today is a loss like any other.
    const ok = await register(live, motorNotice(pol, { loss_date: TODAY, loss_time: '08:15' }));
    expect(ok.status, ok.text).toBe(201);
  });
});

describe("a sandbox organisation's claims", () => {
  it('judge the loss time on the sandbox clock: its today at 08:00 is past, at 23:00 is future', async () => {
    const pol = await sb.activePolicy();
    const clock = await advanceDays(sb, 3);
    expect(clock.today).toBe('2026-06-18');
    // The live organisation's today is still the 15th: the 18th is in its future.
    const livePol = await live.activePolicy();
    expectProblem(
      await register(live, motorNotice(livePol, { loss_date: '2026-06-18', loss_time: '08:00' })),
      422,
      'validation_failed',
      'loss_date',
    );
    expectProblem(
      await register(sb, motorNotice(pol, { loss_date: '2026-06-18', loss_time: '23:00' })),
      422,
      'validation_failed',
      'loss_time',
    );
    const ok = await register(sb, motorNotice(pol, { loss_date: '2026-06-18', loss_time: '08:00' }));
    expect(ok.status, ok.text).toBe(201);
  });

  it('show the service level the ?sla_breached= filter judges, before and after the clock passes it', async () => {
    const pol = await sb.activePolicy();
    const clock = (await sb.as('staff').get('/sandbox/clock')).body.data as { now: string; today: string };
    const r = await register(sb, motorNotice(pol, { loss_date: clock.today, loss_time: '07:00' }));
    expect(r.status, r.text).toBe(201);
    const uuid: string = r.body.data.uuid;
    // Registered on the sandbox clock, days ahead of the real one: status_since is the sandbox's now, not today's.
    const since = Date.parse(r.body.data.sla.status_since);
    expect(Math.abs(since - Date.parse(clock.now))).toBeLessThan(60_000);
    expect(r.body.data.sla.breached).toBe(false);
    await expectAgreement(uuid, false);

    // Registered: 2 working days. Ten calendar days on, it is past them on any calendar.
    const later = await advanceDays(sb, 10);
    expect(Date.parse(r.body.data.sla.due_at)).toBeLessThan(Date.parse(later.now));
    await expectAgreement(uuid, true);
  }, 120_000);
});

describe("a sandbox organisation's settlement", () => {
  it('is stamped on the sandbox clock, after the approval, not on the real clock behind it', async () => {
    const pol = await sb.activePolicy();
    const clock = (await sb.as('staff').get('/sandbox/clock')).body.data as { now: string };
    // 13 days ahead of the service clock by now (the advances above).
    expect(Date.parse(clock.now) - serviceClock().getTime()).toBeGreaterThan(12 * 86_400_000);
    const c = await approvedClaim(sb, pol.uuid, { net: 1_000_000n });
    const r = await payClaim(sb, c.uuid, {
      method: 'bank_transfer',
      payee_type: 'garage',
      payee_name: 'Kilimani Auto Repairs',
      bank_name: 'KCB',
      bank_account: '1100223344',
      bank_reference: `FT${randomUUID().slice(0, 8).toUpperCase()}`,
      amount: 10_000,
    });
    expect(r.status, r.text).toBe(201);
    const rec = await sb.as('staff').get(`/claims/${c.uuid}`);
    expect(rec.body.data.status).toBe('settled');
    const since = Date.parse(rec.body.data.sla.status_since);
    expect(Math.abs(since - Date.parse(clock.now))).toBeLessThan(120_000);
    const last = rec.body.data.history.at(-1);
    expect(last.to).toBe('settled');
    expect(Date.parse(last.at)).toBe(since);
  });
});

/** The record (REST and GraphQL) and both filters agree on whether claim `uuid` is past its service level. */
async function expectAgreement(uuid: string, breached: boolean) {
  const rec = await sb.as('staff').get(`/claims/${uuid}`);
  expect(rec.status, rec.text).toBe(200);
  expect(rec.body.data.sla.breached).toBe(breached);
  const g = await sb.as('staff').gql(`query($u: String!) { claim(uuid: $u) { slaBreached } }`, { u: uuid });
  expect(g.body.data.claim.slaBreached).toBe(breached);
  const listed = async (q: string) =>
    ((await sb.as('staff').get(`/claims?sla_breached=${q}&limit=100`)).body.data as { uuid: string }[]).some(
      (c) => c.uuid === uuid,
    );
  expect(await listed(String(breached))).toBe(true);
  expect(await listed(String(!breached))).toBe(false);
}
