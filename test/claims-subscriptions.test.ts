import { randomUUID } from 'node:crypto';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { motorNotice } from './kit/approved-claim.ts';
import { INSTANT_RAIL, Live, useKit, wsClient, type Active, type Org } from './kit.ts';

/**
 * Who hears a claim move (docs/claims.md, issue 13 "Events"): `claimMoved` and the generic `events` subscription are
 * visibility-scoped like payments. Staff of the organisation hear every move; agent one (the agent key's actor) only
 * the moves of claims within its reach (registered by it, assigned to it, or on a policy it may see); another
 * organisation nothing. `claimMoved(claimUuid:)` hears that claim alone.
 *
 * graphql-ws does not acknowledge a subscription, and events reach a socket in commit order: every subscription is
 * first proven live on something it may hear, then the hidden moves are made, then a later move each of them may hear.
 * Once that later move has arrived, anything of the hidden ones would have arrived before it (no timer waited out).
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const [o, other] = t.useOrgs(2, { fast: true });

const sockets: Client[] = [];
afterAll(async () => {
  await Promise.all(sockets.splice(0).map(async (c) => c.dispose()));
});
const socket = (token: string) => {
  const c = wsClient(t.origin, token);
  sockets.push(c);
  return c;
};

interface Moved {
  claimUuid: string;
  from: string;
  to: string;
}
interface Ev {
  id: string;
  name: string;
  data: Record<string, unknown>;
}
const MOVED = (args = '') => `subscription { claimMoved${args} { claimUuid from to } }`;
const EVENTS = 'subscription { events { id name data } }';

async function register(org: Org, pol: Active, token = org.tokens.staff): Promise<string> {
  const r = await org.api.post('/claims', { token, body: motorNotice(pol), idempotencyKey: randomUUID() });
  expect(r.status, r.text).toBe(201);
  return r.body.data.uuid;
}

/** A staff move (agents register claims but do not adjudicate them). */
async function move(org: Org, uuid: string, to: string) {
  const r = await org.api.post(`/claims/${uuid}/transitions`, {
    token: org.tokens.staff,
    body: { to, reason: 'subscription test' },
    idempotencyKey: randomUUID(),
  });
  expect(r.status, r.text).toBe(200);
}

/** Registers and moves a fresh claim on `pol` until every subscription in `lives` has heard something. */
async function prime(org: Org, pol: Active, lives: Live[], token?: string) {
  for (let i = 0; i < 20 && lives.some((l) => l.events.length === 0); i++) {
    await move(org, await register(org, pol, token), 'documents_pending');
    for (const l of lives) await l.until(() => l.events.length > 0, 500);
  }
  for (const l of lives) {
    expect(l.errors).toEqual([]);
    expect(l.events.length).toBeGreaterThan(0);
  }
}

let staffPol: Active;
let agentPol: Active;
let theirPol: Active;
beforeAll(async () => {
  // Sold through the staff key: outside agent one's reach. The agent's own policy: within it.
  [staffPol, agentPol, theirPol] = await Promise.all([
    o.activePolicy(),
    o.activePolicy({ token: o.tokens.agent }),
    other.activePolicy(),
  ]);
}, 120_000);

describe('claim events over subscriptions', () => {
  it('reach staff (and claimMoved by claim only that claim), never an agent out of reach nor another organisation', async () => {
    const x = await register(o, staffPol);

    const staffWs = socket(o.tokens.staff);
    // The filtered subscription first: the socket's later subscriptions are primed, and it hears X's moves below.
    const onlyX = new Live<Moved>(staffWs, MOVED(`(claimUuid: "${x}")`), 'claimMoved');
    const staffMoved = new Live<Moved>(staffWs, MOVED(), 'claimMoved');
    const staffEvents = new Live<Ev>(staffWs, EVENTS, 'events');
    const agentWs = socket(o.tokens.agent);
    const agentMoved = new Live<Moved>(agentWs, MOVED(), 'claimMoved');
    const agentEvents = new Live<Ev>(agentWs, EVENTS, 'events');
    const theirWs = socket(other.tokens.staff);
    const theirMoved = new Live<Moved>(theirWs, MOVED(), 'claimMoved');
    const theirEvents = new Live<Ev>(theirWs, EVENTS, 'events');

    // Live: the agent's own claims (registered by the agent key) reach staff and the agent; theirs reach them.
    await prime(o, agentPol, [staffMoved, staffEvents, agentMoved, agentEvents], o.tokens.agent);
    await prime(other, theirPol, [theirMoved, theirEvents]);

    // Hidden from the agent and the other organisation: X and Y, staff claims on a staff policy.
    const y = await register(o, staffPol);
    const z = await register(o, agentPol, o.tokens.agent);
    await move(o, y, 'documents_pending');
    await move(o, x, 'documents_pending');
    await move(o, x, 'withdrawn');
    // Then one move each of them may hear.
    const theirs = await register(other, theirPol);
    await move(o, z, 'documents_pending');
    await move(other, theirs, 'documents_pending');

    const heard = (l: Live<Moved>, uuid: string, to: string) =>
      l.until(() => l.events.some((e) => e.claimUuid === uuid && e.to === to));
    const heardEvent = (l: Live<Ev>, uuid: string) =>
      l.until(() => l.events.some((e) => e.name === 'claim.moved' && e.data.claim_uuid === uuid));
    expect(await heard(agentMoved, z, 'documents_pending')).toBe(true);
    expect(await heardEvent(agentEvents, z)).toBe(true);
    expect(await heard(theirMoved, theirs, 'documents_pending')).toBe(true);
    expect(await heardEvent(theirEvents, theirs)).toBe(true);
    expect(await heard(staffMoved, z, 'documents_pending')).toBe(true);
    expect(await heard(onlyX, x, 'withdrawn')).toBe(true);
    expect(await heardEvent(staffEvents, z)).toBe(true);

    // Staff heard every move of X and Y, on both subscriptions.
    const moves = (l: Live<Moved>, uuid: string) => l.events.filter((e) => e.claimUuid === uuid).map((e) => e.to);
    expect(moves(staffMoved, x)).toEqual(['documents_pending', 'withdrawn']);
    expect(moves(staffMoved, y)).toEqual(['documents_pending']);
    const staffNamed = staffEvents.events.filter((e) => e.name === 'claim.moved').map((e) => e.data.claim_uuid);
    expect(staffNamed).toEqual(expect.arrayContaining([x, y, z]));
    // The filter: X's two moves and nothing else (Y's move came between the primed socket and X's).
    expect(onlyX.events.map((e) => [e.claimUuid, e.from, e.to])).toEqual([
      [x, 'registered', 'documents_pending'],
      [x, 'documents_pending', 'withdrawn'],
    ]);

    // The agent heard nothing of X or Y (Y's registration included), on either subscription.
    const agentClaims = new Set([...agentMoved.events.map((e) => e.claimUuid), ...agentEvents.events.map(named)]);
    expect(agentClaims.has(x) || agentClaims.has(y)).toBe(false);
    expect(agentClaims.has(z)).toBe(true);
    // The other organisation heard nothing of ours at all.
    const ours = new Set(staffNamed);
    const theirClaims = [...theirMoved.events.map((e) => e.claimUuid), ...theirEvents.events.map(named)];
    expect(theirClaims.filter((u) => ours.has(u as string))).toEqual([]);
    expect(theirClaims).toContain(theirs);
    for (const l of [onlyX, staffMoved, staffEvents, agentMoved, agentEvents, theirMoved, theirEvents])
      expect(l.errors).toEqual([]);
  }, 120_000);
});

/** The claim an event names, if any. */
const named = (e: Ev) => e.data.claim_uuid as string | undefined;
