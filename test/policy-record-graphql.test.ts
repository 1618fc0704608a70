import { print } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { PolicyRecordFragmentDoc } from '../rest-compat/generated/operations.ts';
import { useKit } from './kit.ts';

/**
 * The REST facade runs its operations without GraphQL's depth and cost limits (they are fixed, reviewed documents);
 * an integrator asking GraphQL for the same record must fit inside them too.
 */
const fragments = print(PolicyRecordFragmentDoc);

const t = useKit({ bindRateLimit: 10_000, mpesaSimDelayMs: 0 });
const o = t.useOrg({ fast: true });
beforeAll(() => o.pendingPolicy({ instalments: 2 }), 60_000);

describe('the full policy record over GraphQL', () => {
  it('a page of 25 full records stays within the default depth and cost limits; a page of 100 does not', async () => {
    const r = await o.api.gql(
      `query { policies(first: 25) { edges { node { ...PolicyRecord } } } }\n${fragments}`,
      {},
      { token: o.tokens.staff },
    );
    expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
    expect(r.body.data.policies.edges.length).toBeGreaterThan(0);
    const p = r.body.data.policies.edges[0].node;
    for (const k of ['endorsements', 'cancellations', 'certificates', 'creditNotes', 'statusHistory', 'debitNotes'])
      expect(Array.isArray(p[k]), k).toBe(true);
    const big = await o.api.gql(
      `query { policies(first: 100) { edges { node { ...PolicyRecord } } } }\n${fragments}`,
      {},
      { token: o.tokens.staff },
    );
    expect(big.body.errors?.[0]?.extensions?.code).toBe('query_too_complex');
  });
});
