import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { motorNotice } from './kit/approved-claim.ts';
import { INSTANT_RAIL, useKit } from './kit.ts';

/**
 * Search text is literal (docs/api-conventions.md "Search"): `%`, `_` and `\` are characters like any other on
 * /clients, /policies, /claims and /prospects and their GraphQL lists, never LIKE wildcards (a `%` used to list every
 * record, `C-%` every client, a lone `\` failed the statement with a 500). The file's organisation holds one record
 * of each list whose name literally holds `%` or `_` where it has a name, and ordinary ones besides.
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const o = t.useOrg({ fast: true });
const staff = () => o.as('staff');

let policyNo: string;
let claimNo: string;
let percentClient: string;
let underscoreClient: string;
let percentProspect: string;

beforeAll(async () => {
  const pol = await o.activePolicy();
  policyNo = pol.policy_no;
  const claim = await staff().post('/claims', { body: motorNotice(pol), idempotencyKey: randomUUID() });
  expect(claim.status, claim.text).toBe(201);
  claimNo = claim.body.data.claim_no;
  const client = async (name: string, phone: string) => {
    const r = await staff().post('/clients', { body: { name, phone }, idempotencyKey: randomUUID() });
    expect(r.status, r.text).toBe(201);
    return r.body.data.client_no as string;
  };
  percentClient = await client('Asilimia 100% Motors', '0722 900 101');
  underscoreClient = await client('Twiga_Logistics', '0722 900 102');
  await client('Plain Wanjiku Kamau', '0722 900 103');
  const prospect = async (name: string) => {
    const r = await staff().post('/prospects', { body: { name }, idempotencyKey: randomUUID() });
    expect(r.status, r.text).toBe(201);
    return r.body.data.prospect_no as string;
  };
  percentProspect = await prospect('Punguzo 50% Traders');
  await prospect('Ordinary Prospect Otieno');
}, 120_000);

const numbers = async (path: string, key: string, search: string): Promise<string[]> => {
  const r = await staff().get(`${path}?search=${encodeURIComponent(search)}&limit=100`);
  expect(r.status, `${path}?search=${search}: ${r.text}`).toBe(200);
  return r.body.data.map((x: Record<string, string>) => x[key]);
};

describe('REST search is literal', () => {
  it('/clients: % and _ find only the names holding them; C-% and \\ find nothing', async () => {
    expect(await numbers('/clients', 'client_no', '%')).toEqual([percentClient]);
    expect(await numbers('/clients', 'client_no', '_')).toEqual([underscoreClient]);
    expect(await numbers('/clients', 'client_no', 'C-%')).toEqual([]);
    expect(await numbers('/clients', 'client_no', '\\')).toEqual([]);
    expect(await numbers('/clients', 'client_no', percentClient.toLowerCase())).toEqual([percentClient]);
  });

  it('/policies: %, P% and \\ find nothing; the number in part still finds the policy', async () => {
    expect(await numbers('/policies', 'policy_no', '%')).toEqual([]);
    expect(await numbers('/policies', 'policy_no', `${policyNo.slice(0, 2)}%`)).toEqual([]);
    expect(await numbers('/policies', 'policy_no', '_')).toEqual([]);
    expect(await numbers('/policies', 'policy_no', '\\')).toEqual([]);
    expect(await numbers('/policies', 'policy_no', policyNo.slice(0, -1))).toEqual([policyNo]);
  });

  it('/claims: %, CLM-%, _ and \\ find nothing (\\ was a 500); the claim number still finds the claim', async () => {
    for (const s of ['%', 'CLM-%', '_', `${claimNo.slice(0, -1)}_`, '\\'])
      expect(await numbers('/claims', 'claim_no', s), s).toEqual([]);
    expect(await numbers('/claims', 'claim_no', claimNo.toLowerCase())).toEqual([claimNo]);
  });

  it('/prospects: % finds only the name holding it; P-% and \\ find nothing', async () => {
    expect(await numbers('/prospects', 'prospect_no', '%')).toEqual([percentProspect]);
    expect(await numbers('/prospects', 'prospect_no', `${percentProspect.slice(0, 2)}%`)).toEqual([]);
    expect(await numbers('/prospects', 'prospect_no', '\\')).toEqual([]);
  });
});

describe('GraphQL search arguments are literal', () => {
  const list = async (field: string, key: string, search: string): Promise<string[]> => {
    const r = await staff().gql(
      `query($s: String) { ${field}(first: 100, search: $s) { edges { node { ${key} } } } }`,
      {
        s: search,
      },
    );
    expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
    return r.body.data[field].edges.map((e: { node: Record<string, string> }) => e.node[key]);
  };

  it('clients, policies, claims and prospects: % matches only a literal %', async () => {
    expect(await list('clients', 'clientNo', '%')).toEqual([percentClient]);
    expect(await list('policies', 'policyNo', '%')).toEqual([]);
    expect(await list('claims', 'claimNo', '%')).toEqual([]);
    expect(await list('claims', 'claimNo', '\\')).toEqual([]);
    expect(await list('prospects', 'prospectNo', '%')).toEqual([percentProspect]);
  });
});
