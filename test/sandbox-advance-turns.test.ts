import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ADVANCE_DAYS_PER_TURN } from '../jobs/sandbox.worker.ts';
import { INSTANT_RAIL, type Org, useKit, waitFor } from './kit.ts';

/**
 * Sandbox advances share one queue (jobs/sandbox.worker.ts): a long advance runs a month of days a turn and queues
 * the rest behind the other organisations' advances, so one organisation's long advance does not hold another's up
 * until it is done (found by an outside check: a 121-day advance waited two minutes behind another organisation's).
 */

const t = useKit(INSTANT_RAIL, { jobs: true });
const [long, short] = t.useOrgs([
  { fast: true, sandbox: true },
  { fast: true, sandbox: true },
]);

const clock = async (o: Org) => {
  const r = await o.as('staff').get('/sandbox/clock');
  expect(r.status, r.text).toBe(200);
  return r.body.data;
};
const advance = async (o: Org, days: number) => {
  const r = await o.as('admin').post('/sandbox/clock/advance', { body: { days }, idempotencyKey: randomUUID() });
  expect(r.status, r.text).toBe(202);
};
const ready = (o: Org) =>
  waitFor(
    'the sandbox clock to be ready',
    () => clock(o),
    (c) => c.status === 'ready',
    { ms: 150_000, every: 100 },
  );

describe('two organisations advancing at once', () => {
  it('a short advance asked just after a long one is done while the long one is still running; the long one finishes whole', async () => {
    const LONG = 4 * ADVANCE_DAYS_PER_TURN;
    await advance(long, LONG);
    await advance(short, 1);
    const shortDone = await ready(short);
    expect(shortDone.last_advance).toMatchObject({ status: 'ready', days_run: 2 });
    // Without turns the long advance ran all its days before the short one's job was taken.
    const longMeanwhile = await clock(long);
    expect(longMeanwhile.status).toBe('advancing');
    expect(longMeanwhile.last_advance.days_run).toBeLessThan(LONG);

    const longDone = await ready(long);
    expect(longDone.last_advance).toMatchObject({ status: 'ready', days_run: LONG + 1 });
    const events = await t.db.tenant(long.id, (tx) => tx.event.findMany({ where: { name: 'sandbox.clock_ready' } }));
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ days_run: LONG + 1 });
  }, 200_000);
});
