import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { selectionPlanStats } from '../src/db/selection-sql.ts';
import { planCacheStats } from '../src/graphql/plan-cache.ts';
import { INSTANT_RAIL, useKit, waitFor } from './kit.ts';

/**
 * Selection plans kept across requests (src/graphql/plan-cache.ts): a document seen before is not walked again, and a
 * kept plan never answers a request it does not fit — another organisation's, other values of the variables used
 * beneath the field (arguments, @include), a REST route and GraphQL alike.
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });

let mine: { uuid: string; policy_no: string; regno: string };
let theirs: { uuid: string; policy_no: string };
let preview: string; // a pending change_value preview on `mine`, beside one confirmed endorsement

beforeAll(async () => {
  const pol = await o.activePolicy();
  mine = pol;
  await o.endorse(pol.uuid, { operation: 'change_value', regno: pol.regno, value: 1_300_000 });
  const p = await o.api.post(`/policies/${pol.uuid}/endorse`, {
    token: o.tokens.staff,
    body: { operation: 'change_value', regno: pol.regno, value: 1_400_000 },
    idempotencyKey: randomUUID(),
  });
  expect(p.status, p.text).toBe(201);
  preview = p.body.data.uuid;
  theirs = await other.activePolicy();
  // The job workers run (a paid motor policy's certificate is issued in the background), and the first test compares
  // two reads of the record byte for byte: wait until its certificate is issued and none is still on its way (a CI
  // run on Node 24 read it `issuing`, then `issued`).
  await waitFor(
    "the policy's certificate issued, none still on its way",
    async () => {
      const r = await o.api.get(`/policies/${mine.uuid}/certificates`, { token: o.tokens.staff });
      expect(r.status, r.text).toBe(200);
      return r.body.data as { status: string }[];
    },
    (list) => list.some((c) => c.status === 'issued') && !list.some((c) => /pending|issuing/.test(c.status)),
    { ms: 30_000, every: 150 },
  );
});

const snapshot = () => ({ ...planCacheStats, kept: planCacheStats.kept });

describe('selection plans kept across requests', () => {
  it('a REST read seen before is not walked again, and answers each organisation its own record', async () => {
    const read = (org: typeof o, uuid: string) => org.api.get(`/policies/${uuid}`, { token: org.tokens.staff });
    const first = await read(o, mine.uuid);
    expect(first.status, first.text).toBe(200);
    const before = snapshot();
    const byMark = selectionPlanStats.byMark;
    const again = await read(o, mine.uuid);
    const theirsRead = await read(other, theirs.uuid);
    expect(planCacheStats.reused).toBeGreaterThanOrEqual(before.reused + 2);
    // The statement's plan found by the kept plan's mark (src/db/selection-sql.ts KEPT_SELECTION), checked against
    // the selection serialized afresh (NODE_ENV=test).
    expect(selectionPlanStats.byMark).toBeGreaterThanOrEqual(byMark + 2);
    expect(planCacheStats.walked).toBe(before.walked);
    expect(again.text).toBe(first.text);
    expect(theirsRead.status, theirsRead.text).toBe(200);
    expect(theirsRead.body.data.policy_no).toBe(theirs.policy_no);
    expect(theirsRead.body.data.endorsements).toEqual([]);
    // Across organisations through a kept plan: still 404, both ways.
    expect((await read(other, mine.uuid)).status).toBe(404);
    expect((await read(o, theirs.uuid)).status).toBe(404);
  });

  it('variables used beneath the field are part of the key: an argument and an @include', async () => {
    const doc = `query ($uuid: String!, $all: Boolean!, $notes: Boolean!) {
      policy(uuid: $uuid) { policyNo endorsements(all: $all) { uuid status } debitNotes @include(if: $notes) { number } }
    }`;
    const ask = async (all: boolean, notes: boolean) => {
      const r = await o.as('staff').gql(doc, { uuid: mine.uuid, all, notes });
      expect(r.body.errors, JSON.stringify(r.body)).toBeUndefined();
      return r.body.data.policy as { endorsements: { uuid: string; status: string }[]; debitNotes?: unknown[] };
    };
    for (let round = 0; round < 2; round++) {
      const confirmed = await ask(false, false);
      expect(confirmed.endorsements.map((e) => e.status)).toEqual(['confirmed']);
      expect(confirmed.debitNotes).toBeUndefined();
      const all = await ask(true, true);
      expect(all.endorsements.map((e) => e.uuid)).toContain(preview);
      expect(all.endorsements.map((e) => e.status).sort()).toEqual(['confirmed', 'pending']);
      expect(all.debitNotes!.length).toBeGreaterThan(0);
      const mixed = await ask(false, true);
      expect(mixed.endorsements.map((e) => e.status)).toEqual(['confirmed']);
      expect(mixed.debitNotes!.length).toBe(all.debitNotes!.length);
    }
    // The same document with the same values again is served from a kept plan.
    const before = snapshot();
    await ask(true, true);
    expect(planCacheStats.reused).toBeGreaterThan(before.reused);
    expect(planCacheStats.walked).toBe(before.walked);
  });

  it('a variable left out and one sent as null are two keys, each kept', async () => {
    const doc = `query ($uuid: String!, $all: Boolean) { policy(uuid: $uuid) { policyNo endorsements(all: $all) { status } } }`;
    const ask = async (vars: Record<string, unknown>) => {
      const r = await o.as('staff').gql(doc, { uuid: mine.uuid, ...vars });
      expect(r.body.errors, JSON.stringify(r.body)).toBeUndefined();
      // Left out, `all` takes its default (false); null reads as false too: confirmed ones only, either way.
      expect(r.body.data.policy.endorsements.map((e: { status: string }) => e.status)).toEqual(['confirmed']);
    };
    await ask({});
    let before = snapshot();
    await ask({});
    expect(planCacheStats.walked).toBe(before.walked); // left out: kept (the repeated walk sees it left out too)
    before = snapshot();
    await ask({ all: null });
    expect(planCacheStats.walked).toBe(before.walked + 1); // null: a key of its own
    expect(planCacheStats.kept).toBe(before.kept + 1); // counted against the process's bound
    expect(planCacheStats.kept).toBeLessThanOrEqual(2_000);
    before = snapshot();
    await ask({ all: null });
    await ask({});
    expect(planCacheStats.walked).toBe(before.walked);
    expect(planCacheStats.reused).toBeGreaterThanOrEqual(before.reused + 2);
  });

  it('another organisation asking the same document gets its own rows through the kept plan', async () => {
    const doc = `query ($uuid: String!) { policy(uuid: $uuid) { policyNo client { clientNo } vehicles { regNo } } }`;
    const mineRead = await o.as('staff').gql(doc, { uuid: mine.uuid });
    const before = snapshot();
    const theirsRead = await other.as('staff').gql(doc, { uuid: theirs.uuid });
    expect(planCacheStats.walked).toBe(before.walked);
    expect(mineRead.body.data.policy.policyNo).toBe(mine.policy_no);
    expect(theirsRead.body.data.policy.policyNo).toBe(theirs.policy_no);
    const crossed = await other.as('staff').gql(doc, { uuid: mine.uuid });
    expect(crossed.body.data?.policy ?? null).toBeNull();
  });
});
