import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, useKit } from './kit.ts';
import { COVER_RISKS, type CoverLineName, newClient, RISK_KEY } from './kit/cover-bind.ts';

/**
 * The quote's insurer filter of the medical, travel and standard lines (docs/covers.md): `insurer_ids` limits the
 * options to those insurers, over REST (one id or a list; motor's spelling `insurer_id` as its alias) and GraphQL
 * (`insurerIds`); an id the organisation does not have — never one, or another organisation's — is 422
 * validation_failed on the field, and a save quote refused so stores nothing.
 */
const t = useKit({ bindRateLimit: 10_000, mpesaSimDelayMs: 0 });
const [o, other] = t.useOrgs(2, { fast: true });

let ids: Map<string, number>;
let foreign: number;
beforeAll(async () => {
  ids = await o.insurers();
  foreign = (await other.insurers()).get('Simba General')!;
});
const id = (name: string) => ids.get(name)!;
const LINES: CoverLineName[] = ['medical', 'travel', 'standard'];
const quote = (line: CoverLineName, extra: object) =>
  o.api.post(`/${line}/quote`, { token: o.tokens.staff, body: { ...COVER_RISKS[line], ...extra } });
const insurersOf = (r: { body: { options: { insurer_name: string }[] } }) =>
  r.body.options.map((x) => x.insurer_name).sort();

describe.each(LINES)('POST /%s/quote: insurer_ids', (line) => {
  it('a list limits the options to those insurers; one id is accepted; insurer_id is its alias', async () => {
    const all = await quote(line, {});
    expect(all.status, all.text).toBe(200);
    expect(all.body.options.length).toBeGreaterThan(2);

    const two = await quote(line, { insurer_ids: [id('Simba General'), id('Twiga Assurance')] });
    expect(two.status, two.text).toBe(200);
    expect(insurersOf(two)).toEqual(['Simba General', 'Twiga Assurance']);

    const one = await quote(line, { insurer_ids: id('Twiga Assurance') });
    expect(insurersOf(one)).toEqual(['Twiga Assurance']);

    const alias = await quote(line, { insurer_id: [id('Simba General')] });
    expect(insurersOf(alias)).toEqual(['Simba General']);
  });

  it("an unknown id, or another organisation's, is 422 on insurer_ids; so is a malformed one", async () => {
    for (const bad of [[id('Simba General'), 987_654_321], [foreign]]) {
      const r = await quote(line, { insurer_ids: bad });
      expectProblem(r, 422, 'validation_failed', 'insurer_ids');
      expect(r.body.errors[0].message).toContain(String(bad.at(-1)));
    }
    const zero = await quote(line, { insurer_ids: [0] });
    expectProblem(zero, 422, 'validation_failed');
    expect(zero.body.errors[0].field).toMatch(/^insurer_ids(\.0)?$/);
  });

  it('a save quote naming an unknown insurer is 422 on <risk>.insurer_ids and stores no client', async () => {
    const client = newClient(`f${line}`);
    const r = await o.api.post(`/${line}/save_quote`, {
      token: o.tokens.staff,
      idempotencyKey: randomUUID(),
      body: { client, [RISK_KEY[line]]: { ...COVER_RISKS[line], insurer_ids: [foreign] } },
    });
    expectProblem(r, 422, 'validation_failed', `${RISK_KEY[line]}.insurer_ids`);
    const found = await o.api.get(`/clients?search=${encodeURIComponent(client.name)}`, { token: o.tokens.staff });
    expect(found.status, found.text).toBe(200);
    expect(found.body.data).toEqual([]);
  });
});

describe('GraphQL: insurerIds', () => {
  const Q = `query ($input: StandardCoverInput!) { standardQuote(input: $input) { __typename
    ... on CoverQuote { options { insurerName } } ... on ValidationProblem { code fieldErrors { field } } } }`;
  const input = (insurerIds: number[]) => ({
    product: 'DOMESTIC',
    items: [{ description: 'Household contents', sumInsured: 1_500_000 }],
    insurerIds,
  });

  it('limits the options, and refuses an id the organisation does not have on input.insurerIds', async () => {
    const caller = o.as('staff');
    const ok = (await caller.gql(Q, { input: input([id('Kilima Insurance')]) })).body;
    expect(ok.data.standardQuote.options.map((x: { insurerName: string }) => x.insurerName)).toEqual([
      'Kilima Insurance',
    ]);
    const bad = (await caller.gql(Q, { input: input([foreign]) })).body;
    expect(bad.data.standardQuote).toEqual({
      __typename: 'ValidationProblem',
      code: 'validation_failed',
      fieldErrors: [{ field: 'input.insurerIds' }],
    });
  });
});
