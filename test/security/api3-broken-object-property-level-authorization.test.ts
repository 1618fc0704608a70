/**
 * OWASP API3:2023 Broken Object Property Level Authorization.
 *
 * The attacks: learn properties of records you may not see through the side doors that describe them — a
 * duplicate_client refusal that names the other client, a double-cover refusal that names another agent's policy, a
 * read of a key or an endpoint that carries its secret — or set properties you may not set (mass assignment). The
 * defences: refusals redact what the caller may not see (src/modules/clients/client.service.ts describeMatches,
 * src/modules/prospects/prospect/identity.ts, src/modules/policies/policy.service.ts findCoverClash), secrets exist only as hashes or ciphertext and no type
 * exposes them, and inputs are parsed against explicit schemas that do not know ownership fields.
 */
import { randomUUID } from 'node:crypto';
import { GraphQLObjectType } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.ts';
import { useKit } from '../kit.ts';

const FAST = { rateLimitPerMinute: 1_000_000 };
const t = useKit();
const api = t.api;
const org = t.useOrg({
  clientOverrides: { staff: FAST, agent: FAST, admin: FAST },
  tokens: ['staff', 'agent', 'admin'],
});
let staff: string;
let agent: string;
let admin: string;
beforeAll(() => ({ staff, agent, admin } = org.tokens));

let n = 0;
const phone = () => `0733 ${String(100_000 + (n += 1) * 7 + (process.pid % 1000)).slice(-6)}`;

/** A bind of `regno` for a new client `name` (no id number), answered as it is: the attack reads the answer. */
async function save(token: string, regno: string, name: string) {
  const { body } = await org.bindBody({ token, regno, client: { name, phone: phone(), idno: undefined } });
  return api.post('/motor/save', { token, idempotencyKey: randomUUID(), body });
}

describe('OWASP API3:2023 Broken Object Property Level Authorization', () => {
  it('attack: an agent probes for a client by phone through duplicate_client — REST and GraphQL answer a redacted marker', async () => {
    const theirs = await api.post('/clients', {
      token: staff,
      idempotencyKey: randomUUID(),
      body: { name: 'Hidden Wanjiru Kamau', phone: phone(), kra_pin: 'A123456789Z' },
    });
    expect(theirs.status, theirs.text).toBe(201);
    const probe = { name: 'Probe Person', phone: theirs.body.data.phone };

    const rest = await api.post('/clients', { token: agent, idempotencyKey: randomUUID(), body: probe });
    expect(rest.status).toBe(409);
    expect(rest.body.code).toBe('duplicate_client');
    expect(rest.body.matches).toEqual([{ client_no: null, name: null, matched: ['phone'], redacted: true }]);
    expect(rest.text).not.toContain(theirs.body.data.client_no);
    expect(rest.text).not.toContain('Wanjiru');

    const g = await api.gql(
      'mutation($i: CreateClientInput!) { createClient(input: $i) { __typename ... on DuplicateClientProblem { matches { clientNo name matched redacted } } } }',
      { i: probe },
      { token: agent },
    );
    expect(g.body.data.createClient.matches).toEqual([
      { clientNo: null, name: null, matched: ['phone'], redacted: true },
    ]);

    // Staff may see every client: the same probe names it.
    const seen = await api.post('/clients', { token: staff, idempotencyKey: randomUUID(), body: probe });
    expect(seen.body.matches).toEqual([
      { client_no: theirs.body.data.client_no, name: 'Hidden Wanjiru Kamau', matched: ['phone'], redacted: false },
    ]);
  });

  it('attack: an agent probes for a prospect by phone through POST /prospects — REST and GraphQL answer a redacted marker', async () => {
    const theirs = await api.post('/prospects', {
      token: staff,
      idempotencyKey: randomUUID(),
      body: { name: 'Hidden Lead Atieno', phone: phone() },
    });
    expect(theirs.status, theirs.text).toBe(201);
    const probe = { name: 'Probe Lead', phone: theirs.body.data.phone };

    const rest = await api.post('/prospects', { token: agent, idempotencyKey: randomUUID(), body: probe });
    expect(rest.status, rest.text).toBe(409);
    expect(rest.body.code).toBe('duplicate_client');
    expect(rest.body.matches).toEqual([
      { kind: 'prospect', client_no: null, prospect_no: null, name: null, matched: ['phone'], redacted: true },
    ]);
    expect(rest.text).not.toContain(theirs.body.data.prospect_no);
    expect(rest.text).not.toContain('Atieno');

    const g = await api.gql(
      'mutation($i: CreateProspectInput!) { createProspect(input: $i) { __typename ... on DuplicateClientProblem { matches { kind prospectNo name matched redacted } } } }',
      { i: probe },
      { token: agent },
    );
    expect(g.body.data.createProspect.matches).toEqual([
      { kind: 'prospect', prospectNo: null, name: null, matched: ['phone'], redacted: true },
    ]);

    // Staff may see every prospect: the same probe names it.
    const seen = await api.post('/prospects', { token: staff, idempotencyKey: randomUUID(), body: probe });
    expect(seen.body.matches).toEqual([
      {
        kind: 'prospect',
        client_no: null,
        prospect_no: theirs.body.data.prospect_no,
        name: 'Hidden Lead Atieno',
        matched: ['phone'],
        redacted: false,
      },
    ]);
  });

  it('attack: an agent binds a registration covered by a policy out of reach — the refusal does not name that policy', async () => {
    const regno = `KDQ ${String(100 + (process.pid % 800))}${'ABCDEFGH'[n % 8]}`;
    const first = await save(staff, regno, 'Staff Client Njoroge');
    expect(first.status, first.text).toBe(201);

    const refused = await save(agent, regno, 'Agent Client Achieng');
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.code).toBe('domain_rule');
    expect(refused.text).not.toContain(first.body.policy_no);
    expect(refused.body.detail).toMatch(/another policy/);

    const named = await save(staff, regno, 'Staff Client Two');
    expect(named.status).toBe(422);
    expect(named.body.detail).toContain(first.body.policy_no);
  });

  it('no type of the schema can show a secret, a key or a hash, but the payloads that show a new one once', () => {
    // Shown once, by design, in the answer of the write that made them (each answer is Cache-Control: no-store).
    const ONCE = ['BoundPolicy.clientKey', 'ClientAreaSession.clientKey'];
    const leaky: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!(type instanceof GraphQLObjectType) || type.name.startsWith('__') || type === schema.getMutationType())
        continue;
      for (const f of Object.values(type.getFields())) {
        if (
          /secret|hash|passkey|key$/i.test(f.name) &&
          !/RotatedAt|ExpiresAt/.test(f.name) &&
          !/SecretPayload|KeyPayload/.test(type.name)
        ) {
          leaky.push(`${type.name}.${f.name}`);
        }
      }
    }
    expect(leaky).toEqual(ONCE);
  });

  it('attack: reading the keys and endpoints back after creation — no secret, hash or ciphertext in the answer', async () => {
    const ep = await api.post('/webhooks/endpoints', {
      token: staff,
      idempotencyKey: randomUUID(),
      body: { url: 'http://127.0.0.1:9/hook', events: ['*'] },
    });
    expect(ep.status, ep.text).toBe(201);
    const secret = JSON.stringify(ep.body).match(/whsec_[A-Za-z0-9_-]+/)?.[0];
    expect(secret).toBeTruthy();
    const list = await api.get('/webhooks/endpoints', { token: staff });
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(secret!);
    expect(list.text).not.toMatch(/secret_enc|secretEnc|secret_hash/);

    const keys = await api.get('/api-clients', { token: admin });
    expect(keys.status).toBe(200);
    expect(keys.text).not.toContain(org.clients.staff.secret);
    expect(keys.text).not.toMatch(/secret_hash|secretHash|scrypt/);
  });

  it('attack: mass assignment — ownership and state fields sent with a new client are not taken', async () => {
    const r = await api.post('/clients', {
      token: agent,
      idempotencyKey: randomUUID(),
      body: {
        name: 'Mass Assign Test',
        phone: phone(),
        created_by_user_id: org.users.admin.id,
        tenant_id: 1,
        kyc_status: 'verified',
        client_no: 'C-999999',
        id: 1,
      },
    });
    // Refused outright or the extras ignored: never taken.
    if (r.status === 201) {
      const row = await t.db.tenant(org.id, (tx) =>
        tx.client.findFirstOrThrow({ where: { clientNo: r.body.data.client_no } }),
      );
      expect(row.createdByUserId).toBe(org.users.agent1.id);
      expect(row.tenantId).toBe(org.id);
      expect(row.clientNo).not.toBe('C-999999');
      expect(row.kycStatus).not.toBe('verified');
    } else {
      expect(r.status).toBe(422);
    }
  });

  it('attack: mass assignment — ownership and state fields sent with a new prospect are not taken', async () => {
    const r = await api.post('/prospects', {
      token: agent,
      idempotencyKey: randomUUID(),
      body: {
        name: 'Mass Assign Lead',
        phone: phone(),
        created_by_user_id: org.users.admin.id,
        tenant_id: 1,
        status: 'won',
        prospect_no: 'P-999999',
        client_id: 1,
        id: 1,
      },
    });
    // Refused outright or the extras ignored: never taken.
    if (r.status === 201) {
      const row = await t.db.tenant(org.id, (tx) =>
        tx.prospect.findFirstOrThrow({ where: { prospectNo: r.body.data.prospect_no } }),
      );
      expect(row.createdByUserId).toBe(org.users.agent1.id);
      expect(row.tenantId).toBe(org.id);
      expect(row.prospectNo).not.toBe('P-999999');
      expect(row.status).toBe('new');
      expect(row.clientId).toBeNull();
    } else {
      expect(r.status).toBe(422);
    }
  });
});
