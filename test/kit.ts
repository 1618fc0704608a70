/**
 * The test kit: what a test file imports to get a running app, organisations with tokens, policies in the state it
 * needs, and the shared assertions (docs/testing.md "How to write a test").
 *
 *   const t = useKit(INSTANT_RAIL, { jobs: true }); // the app for this file (or describe), on its own database
 *   const o = t.useOrg({ fast: true });              // an organisation with four bearer tokens
 *   it('…', async () => {
 *     const pol = await o.activePolicy();             // quote, bind, pay by M-Pesa, wait until active
 *     const r = await o.as('readonly').post(`/policies/${pol.uuid}/cancellation`, { body: {}, idempotencyKey: 'k' });
 *     expectProblem(r, 403, 'insufficient_scope');          // the readonly key has no scope bind
 *   });
 *
 * - kit/app.ts: useKit() (a real server over its own database), useDatabase() (a database, no server).
 * - kit/org.ts: Org (tenant, tokens, calls bound to a token, the simulated M-Pesa rail).
 * - kit/policies.ts: the state builders (quote, pendingPolicy, activePolicy, cancel, endorse, certifiedPolicy, …).
 * - kit/wait.ts: waitFor(), polling with a deadline that fails saying what it waited for.
 * - kit/cover-policy.ts: non-motor policies (medical, travel, standard) pending payment or active.
 * - kit/live.ts: graphql-ws clients and recorded subscriptions.
 */
export { INSTANT_RAIL, Kit, KitDatabase, useDatabase, useKit, type KitOptions } from './kit/app.ts';
export { Caller, Org, ROLES, type OrgHost, type OrgOptions, type Role } from './kit/org.ts';
export {
  policyInStatus,
  type Active,
  type ActiveOptions,
  type AsOptions,
  type BindOptions,
  type Bound,
  type PayOptions,
  type RiskOptions,
} from './kit/policies.ts';
export { waitFor, type WaitOptions } from './kit/wait.ts';
export {
  activeCoverPolicy,
  coverPolicy,
  coverProduct,
  noteTotals,
  oracleLevies,
  type CoverLine,
  type CoverPolicy,
  type CoverPolicyOptions,
} from './kit/cover-policy.ts';
export {
  clientHeaders,
  lastCode,
  msisdn,
  nextIp,
  pastCoolDown,
  requestCode,
  signIn,
  signInByClientNo,
} from './kit/client-area.ts';
export { codeOnHandset, handsetMessages } from './kit/handset.ts';
export { Api, expectProblem, type CallOptions, type HttpResult } from './helpers/http.ts';
export { setClock, TEST_NOW, THIS_YEAR, TODAY, withClock } from './helpers/clock.ts';
export { Live, PHONES, wsClient } from './kit/live.ts';
export { clonePolicies, countStatements } from './helpers/policies.ts';
export type { TestTenant } from './factories/tenant.ts';
/** A one-off server inside a single test (stop it in `finally`); a file's or describe's server is useKit(). */
export { startTestApp } from './helpers/app.ts';
/** A one-off database inside a single test (drop it in `finally`); a file's or describe's is useDatabase(). */
export { createTestDatabase, dbServer } from './helpers/db.ts';
