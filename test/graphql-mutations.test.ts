import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { schema } from '../src/graphql/schema.ts';
import { THIS_YEAR, TODAY } from './helpers/clock.ts';
import { useKit } from './kit.ts';

/**
 * The mutations (and the clientBalance query) that only the REST facade used to reach, called over GraphQL; and a
 * guard that fails when a Mutation field of the built schema is named by no GraphQL mutation document in the tests,
 * so a new mutation cannot land without a GraphQL test.
 */

const t = useKit({ bindRateLimit: 10_000, mpesaSimDelayMs: 0, mpesaReconcileAfterMs: 3_600_000 }, { jobs: true });
const o = t.useOrg({ fast: true });

let seq = 0;
// Never 000nnn: the demo seed's clients have the phones 07xx 000nnn, and a number equal to one is a duplicate client
// (a process whose pid ended in 00 drew 0711 000202, a seeded client's).
const unique = () => `${(process.pid % 90) + 10}${String((seq += 1)).padStart(3, '0')}`;
/** The data of a GraphQL answer, asserted free of errors. */
async function data(r: Promise<{ body: { data?: any; errors?: any[] } }>): Promise<any> {
  const { body } = await r;
  expect(body.errors, JSON.stringify(body)).toBeUndefined();
  return body.data;
}
const staff = (query: string, variables: Record<string, unknown> = {}) => data(o.as('staff').gql(query, variables));
const admin = (query: string, variables: Record<string, unknown> = {}) => data(o.as('admin').gql(query, variables));

describe('saveMotorQuote', () => {
  const SAVE = `mutation($c: InsuredInput!, $v: SaveQuoteVehicleInput!, $q: [QuotedFiguresInput!]) {
    saveMotorQuote(client: $c, vehicle: $v, quotes: $q) {
      __typename
      ... on SavedQuote { uuid quoteNo clientNo status validUntil options { insurerId total { amountMinor } } }
      ... on PremiumMismatchProblem { code http: status server { insurerId total { amountMinor } } }
    }
  }`;
  const vehicle = {
    class: 'Motor',
    coverage: 'Private',
    scope: 'Comprehensive',
    year: THIS_YEAR - 3,
    value: 1_500_000,
  };

  it('stores the quote at the server price (a figure within KES 1 is accepted, not stored)', async () => {
    const option = await o.quote();
    const n = unique();
    const client = {
      name: `Graph Quote ${n} Achieng`,
      phone: `0733 ${n.padStart(6, '0')}`,
      idNo: `71${n.padStart(6, '0')}`,
    };
    const { saveMotorQuote: saved } = await staff(SAVE, {
      c: client,
      v: { ...vehicle, regNo: `KDQ ${n.slice(-3)}Q` },
      q: [{ insurerId: option.insurer_id, total: option.total + 1 }],
    });
    expect(saved).toMatchObject({ __typename: 'SavedQuote', status: 'presented', validUntil: '2026-06-29' });
    expect(TODAY).toBe('2026-06-15'); // validUntil above: 14 days after the test clock's day
    expect(saved.quoteNo).toMatch(/^Q-2026-\d{6}$/);
    const simba = saved.options.find((x: any) => x.insurerId === option.insurer_id);
    expect(simba.total.amountMinor).toBe(option.total_minor);
    const row = await t.db.tenant(o.id, (tx) =>
      tx.quote.findUniqueOrThrow({ where: { uuid: saved.uuid }, include: { options: true, client: true } }),
    );
    expect(row.client.clientNo).toBe(saved.clientNo);
    expect(row.options.find((x) => x.insurerId === option.insurer_id)?.totalMinor).toBe(BigInt(option.total_minor));
  });

  it('a figure more than KES 1 off is a PremiumMismatchProblem with the server figures; nothing stored', async () => {
    const option = await o.quote();
    const before = await t.db.tenant(o.id, (tx) => tx.quote.count());
    const n = unique();
    const { saveMotorQuote: refused } = await staff(SAVE, {
      c: { name: `Graph Quote ${n} Otieno`, phone: `0733 ${n.padStart(6, '0')}` },
      v: vehicle,
      q: [{ insurerId: option.insurer_id, total: option.total + 2 }],
    });
    expect(refused).toMatchObject({ __typename: 'PremiumMismatchProblem', code: 'premium_mismatch', http: 422 });
    expect(refused.server).toContainEqual({ insurerId: option.insurer_id, total: { amountMinor: option.total_minor } });
    expect(await t.db.tenant(o.id, (tx) => tx.quote.count())).toBe(before);
  });
});

describe('updateClient', () => {
  const UPDATE = `mutation($i: UpdateClientInput!) {
    updateClient(input: $i) {
      __typename
      ... on Client { clientNo name email phone }
      ... on ValidationProblem { code fieldErrors { field } }
    }
  }`;

  it('changes only the fields sent, audited; a bad phone is a ValidationProblem changing nothing', async () => {
    const n = unique();
    const created = await o.as('staff').post('/clients', {
      idempotencyKey: `c-${n}-${process.pid}`,
      body: { name: `Graph Client ${n} Kamau`, phone: `0734 ${n.padStart(6, '0')}` },
    });
    expect(created.status, created.text).toBe(201);
    const clientNo = created.body.data.client_no;
    const { updateClient: updated } = await staff(UPDATE, {
      i: { clientNo, name: `Graph Client ${n} Wanjiru`, email: `client${n}@example.co.ke` },
    });
    expect(updated).toEqual({
      __typename: 'Client',
      clientNo,
      name: `Graph Client ${n} Wanjiru`,
      email: `client${n}@example.co.ke`,
      phone: `254734${n.padStart(6, '0')}`,
    });
    const audit = await t.db.tenant(o.id, (tx) =>
      tx.auditLog.findMany({ where: { entityId: clientNo, action: 'client.updated' } }),
    );
    expect(audit).toHaveLength(1);
    expect(audit[0].changes).toMatchObject({
      name: { from: `Graph Client ${n} Kamau`, to: `Graph Client ${n} Wanjiru` },
      email: { from: null, to: `client${n}@example.co.ke` },
    });

    const { updateClient: bad } = await staff(UPDATE, { i: { clientNo, phone: '12' } });
    expect(bad).toMatchObject({ __typename: 'ValidationProblem', code: 'validation_failed' });
    expect(bad.fieldErrors.map((e: any) => e.field)).toContain('input.phone');
    const read = await o.as('staff').get(`/clients/${clientNo}`);
    expect(read.body.data).toMatchObject({ name: `Graph Client ${n} Wanjiru`, phone: `254734${n.padStart(6, '0')}` });
  });
});

describe('clientBalance', () => {
  const BALANCE = `query($c: String!) {
    clientBalance(clientNo: $c) {
      clientNo
      outstanding { amountMinor }
      credit { amountMinor }
      openDebitNotes { number instalmentNo amount { amountMinor } paid { amountMinor } outstanding { amountMinor } }
    }
  }`;

  it('what the client owes and holds, note by note, before and after paying the first instalment', async () => {
    const pol = await o.bind(2);
    const [dn1, dn2] = pol.debit_note.instalments;
    const { clientBalance: before } = await staff(BALANCE, { c: pol.client_no });
    expect(before).toEqual({
      clientNo: pol.client_no,
      outstanding: { amountMinor: dn1.amount_minor + dn2.amount_minor },
      credit: { amountMinor: 0 },
      openDebitNotes: [dn1, dn2].map((d, i) => ({
        number: d.number,
        instalmentNo: i + 1,
        amount: { amountMinor: d.amount_minor },
        paid: { amountMinor: 0 },
        outstanding: { amountMinor: d.amount_minor },
      })),
    });
    // Paid to the first note's own number, in whole shillings: the rounding up is the client's credit.
    await o.pay(dn1.number, dn1.amount_minor);
    const { clientBalance: after } = await staff(BALANCE, { c: pol.client_no });
    expect(after).toMatchObject({
      outstanding: { amountMinor: dn2.amount_minor },
      credit: { amountMinor: Math.ceil(dn1.amount_minor / 100) * 100 - dn1.amount_minor },
    });
    expect(after.openDebitNotes.map((d: any) => d.number)).toEqual([dn2.number]);
    // The REST balance says the same.
    const rest = await o.as('staff').get(`/clients/${pol.client_no}/balance`);
    expect(rest.body.data).toMatchObject({
      outstanding: { amount_minor: dn2.amount_minor },
      credit: { amount_minor: after.credit.amountMinor },
    });
  });
});

describe('discardEndorsement and discardCancellation', () => {
  const ENDORSE = `mutation($p: String!, $i: EndorsePolicyInput!) {
    endorsePolicy(policyUuid: $p, input: $i) { __typename ... on Endorsement { uuid status } ... on Problem { code } }
  }`;
  const DISCARD_ENDORSEMENT = `mutation($p: String, $u: String!) {
    discardEndorsement(policyUuid: $p, uuid: $u) {
      __typename ... on Endorsement { uuid status discardedAt } ... on Problem { code http: status }
    }
  }`;
  const CONFIRM_ENDORSEMENT = `mutation($u: String!) {
    confirmEndorsement(uuid: $u) { __typename ... on Problem { code } }
  }`;
  const PREVIEW = `mutation($p: String!, $i: CancellationInput!) {
    previewCancellation(policyUuid: $p, input: $i) { __typename ... on Cancellation { uuid status } ... on Problem { code } }
  }`;
  const DISCARD_CANCELLATION = `mutation($p: String, $u: String!) {
    discardCancellation(policyUuid: $p, uuid: $u) {
      __typename ... on Cancellation { uuid status } ... on Problem { code http: status }
    }
  }`;
  const CONFIRM_CANCELLATION = `mutation($u: String!) {
    confirmCancellation(uuid: $u) { __typename ... on Problem { code } }
  }`;

  it('a discarded endorsement changes nothing and can be neither confirmed nor discarded again', async () => {
    const pol = await o.activePolicy();
    const revision = () =>
      t.db.tenant(o.id, async (tx) => (await tx.policy.findFirstOrThrow({ where: { uuid: pol.uuid } })).revision);
    const before = await revision();
    const { endorsePolicy: pending } = await staff(ENDORSE, {
      p: pol.uuid,
      i: { operation: 'change_details', regNo: pol.regno, details: { make: 'Subaru' } },
    });
    expect(pending).toMatchObject({ __typename: 'Endorsement', status: 'pending' });
    const { discardEndorsement: discarded } = await staff(DISCARD_ENDORSEMENT, { p: pol.uuid, u: pending.uuid });
    expect(discarded).toMatchObject({ __typename: 'Endorsement', uuid: pending.uuid, status: 'discarded' });
    expect(discarded.discardedAt).toEqual(expect.any(String));
    const again = await staff(DISCARD_ENDORSEMENT, { p: pol.uuid, u: pending.uuid });
    expect(again.discardEndorsement).toMatchObject({ __typename: 'InvalidStateProblem', http: 409 });
    const confirm = await staff(CONFIRM_ENDORSEMENT, { u: pending.uuid });
    expect(confirm.confirmEndorsement).toMatchObject({ __typename: 'InvalidStateProblem', code: 'invalid_state' });
    // Another policy's path does not reach it.
    const other = await o.activePolicy();
    const elsewhere = await o.as('staff').gql(DISCARD_ENDORSEMENT, { p: other.uuid, u: pending.uuid });
    expect(elsewhere.body.errors?.[0]?.extensions?.code, JSON.stringify(elsewhere.body)).toBe('not_found');
    const rec = await o.policy(pol.uuid);
    expect(rec.vehicles[0].make).toBe('Toyota');
    expect(await revision()).toBe(before);
  });

  it('a discarded cancellation leaves the policy active and cannot be confirmed', async () => {
    const pol = await o.activePolicy();
    const { previewCancellation: quoted } = await staff(PREVIEW, {
      p: pol.uuid,
      i: { reason: 'insured_request', requestedBy: 'insured' },
    });
    expect(quoted).toMatchObject({ __typename: 'Cancellation', status: 'quoted' });
    const { discardCancellation: discarded } = await staff(DISCARD_CANCELLATION, { p: pol.uuid, u: quoted.uuid });
    expect(discarded).toEqual({ __typename: 'Cancellation', uuid: quoted.uuid, status: 'discarded' });
    const again = await staff(DISCARD_CANCELLATION, { p: pol.uuid, u: quoted.uuid });
    expect(again.discardCancellation).toMatchObject({ __typename: 'InvalidStateProblem', http: 409 });
    const confirm = await staff(CONFIRM_CANCELLATION, { u: quoted.uuid });
    expect(confirm.confirmCancellation).toMatchObject({ __typename: 'InvalidStateProblem', code: 'invalid_state' });
    const rec = await o.policy(pol.uuid);
    expect(rec.status).toBe('active');
    expect(rec.credit_notes).toEqual([]);
  });
});

describe('updateApiClient, rotateApiClientSecret and revokeApiClient', () => {
  const CREATE = `mutation($i: CreateApiClientInput!) {
    createApiClient(input: $i) { __typename ... on ApiClientSecretPayload { clientSecret apiClient { clientId } } }
  }`;
  const UPDATE = `mutation($i: UpdateApiClientInput!) {
    updateApiClient(input: $i) {
      __typename
      ... on ApiClient { clientId name scopes rateLimitPerMinute }
      ... on ValidationProblem { code fieldErrors { field } }
    }
  }`;
  const ROTATE = `mutation($c: String!, $g: Int) {
    rotateApiClientSecret(clientId: $c, graceHours: $g) {
      __typename ... on ApiClientSecretPayload { clientSecret apiClient { clientId secretRotatedAt } }
    }
  }`;
  const REVOKE = `mutation($c: String!) { revokeApiClient(clientId: $c) { clientId revokedAt } }`;
  const tokenStatus = async (clientId: string, secret: string) =>
    (await o.api.post('/oauth/token', { body: { client_id: clientId, client_secret: secret } })).status;

  it('an API client renamed and rescoped, its secret rotated (the old one refused at once), then revoked', async () => {
    const { createApiClient: made } = await admin(CREATE, {
      i: { name: 'Graph Managed', scopes: ['read'], rateLimitPerMinute: 30 },
    });
    const clientId = made.apiClient.clientId;
    const { updateApiClient: updated } = await admin(UPDATE, {
      i: { clientId, name: 'Graph Managed Two', scopes: ['read', 'quote'], rateLimitPerMinute: 45 },
    });
    expect(updated).toEqual({
      __typename: 'ApiClient',
      clientId,
      name: 'Graph Managed Two',
      scopes: ['quote', 'read'],
      rateLimitPerMinute: 45,
    });
    const { updateApiClient: bad } = await admin(UPDATE, { i: { clientId, scopes: ['nope'] } });
    expect(bad).toMatchObject({ __typename: 'ValidationProblem', code: 'validation_failed' });

    const { rotateApiClientSecret: rotated } = await admin(ROTATE, { c: clientId, g: 0 });
    expect(rotated.__typename).toBe('ApiClientSecretPayload');
    expect(rotated.clientSecret).not.toBe(made.clientSecret);
    expect(await tokenStatus(clientId, rotated.clientSecret)).toBe(200);
    expect(await tokenStatus(clientId, made.clientSecret)).toBe(401);

    const { revokeApiClient: revoked } = await admin(REVOKE, { c: clientId });
    expect(revoked.clientId).toBe(clientId);
    expect(revoked.revokedAt).toEqual(expect.any(String));
    expect(await tokenStatus(clientId, rotated.clientSecret)).toBe(401);
  });
});

// ---- the guard -------------------------------------------------------------------------------------------------

const TEST_ROOT = import.meta.dirname;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** String and template literals of a source file. */
const LITERAL = /`(?:\\[\s\S]|[^`\\])*`|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"/g;

/** The root fields (aliases resolved) a mutation document selects: the names at depth 1 of its selection set. */
export function mutationRootFields(doc: string): string[] {
  let depth = 0;
  let parens = 0;
  let top = '';
  for (const ch of doc.slice(doc.search(/\bmutation\b/))) {
    if (ch === '(') parens += 1;
    else if (ch === ')') parens -= 1;
    else if (parens === 0 && ch === '{' && (depth += 1) === 1) continue;
    else if (parens === 0 && ch === '}' && (depth -= 1) === 0) break;
    top += depth === 1 && parens === 0 ? ch : ' ';
  }
  return [...top.matchAll(/(?:[A-Za-z_]\w*\s*:\s*)?([A-Za-z_]\w*)/g)].map((m) => m[1]);
}

/** Every Mutation field named by a GraphQL mutation document written in a test source. */
function mutationsCalledInTests(): Set<string> {
  const called = new Set<string>();
  for (const file of sources(TEST_ROOT))
    for (const literal of readFileSync(file, 'utf8').match(LITERAL) ?? []) {
      const text = literal.slice(1, -1);
      if (/^\s*mutation\b/.test(text)) for (const f of mutationRootFields(text)) called.add(f);
    }
  return called;
}

describe('every GraphQL mutation is called over GraphQL by some test', () => {
  it('the scanner reads root fields, aliases and arguments as a GraphQL server would', () => {
    expect(mutationRootFields('mutation($i: X = {a: 1}) { a: one(i: $i) { x { y } } two { z } }')).toEqual([
      'one',
      'two',
    ]);
  });

  it('each Mutation field of the schema is named by a mutation document in test/', () => {
    const called = mutationsCalledInTests();
    const fields = Object.keys(schema.getMutationType()!.getFields());
    expect(fields.length).toBeGreaterThan(20);
    // Positive control: the scan does see the mutations this file calls.
    expect(called).toContain('discardEndorsement');
    expect(fields.filter((f) => !called.has(f)).sort(), 'mutations without a GraphQL test').toEqual([]);
  });
});
