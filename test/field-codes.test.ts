import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectProblem, useKit } from './kit.ts';

// Found by an outside check against docs/api-conventions.md "Field refusals are data, not text": list bounds, paging
// cursors and calendar dates were refused without the field `code` the table gives them, and a JSON body that is not
// an object was read as an empty update (200, nothing changed) instead of refused.
const t = useKit();
const org = t.useOrg({ fast: true, tokens: ['staff'] });
const staff = org.as('staff');

const refusals = (r: { body: { errors?: { field: string; code?: string }[] } }) =>
  (r.body.errors ?? []).map(({ field, code }) => ({ field, code }));

describe('refused for its shape, a list parameter carries its code', () => {
  it.each([
    ['/policies?limit=0', 'limit', 'out_of_range'],
    ['/policies?limit=-1', 'limit', 'out_of_range'],
    ['/clients?limit=abc', 'limit', 'not_a_whole_number'],
    // A whole number as the API writes one: no surrounding space, leading zero or plus sign (an outside check found
    // `limit= 1` and `page=007` read as 1 and 7).
    ['/clients?limit=%201', 'limit', 'not_a_whole_number'],
    ['/clients?limit=5%20', 'limit', 'not_a_whole_number'],
    ['/clients?limit=05', 'limit', 'not_a_whole_number'],
    ['/clients?limit=%2B5', 'limit', 'not_a_whole_number'],
    ['/policies?page=007', 'page', 'not_a_whole_number'],
    ['/policies?page=-0', 'page', 'not_a_whole_number'],
    ['/claims?insurer_id=01', 'insurer_id', 'not_a_whole_number'],
    ['/clients?page=0', 'page', 'out_of_range'],
    ['/policies?page=1000001', 'page', 'out_of_range'],
    ['/clients?cursor=not-a-cursor', 'cursor', 'invalid_value'],
    ['/erp/policies?per_page=0', 'per_page', 'out_of_range'],
    ['/erp/policies?per_page=1001', 'per_page', 'out_of_range'],
    ['/claims?loss_from=2026-02-30', 'loss_from', 'invalid_value'],
    ['/sms/balance?ledger=0', 'ledger', 'out_of_range'],
    ['/policies/renewals-due?within_days=121', 'within_days', 'out_of_range'],
    ['/policies/renewals-due?within_days=-5', 'within_days', 'out_of_range'],
    ['/sms/balance?ledger=201', 'ledger', 'out_of_range'],
  ])('GET %s: %s is %s', async (path, field, code) => {
    const r = await staff.get(path);
    expectProblem(r, 422, 'validation_failed', field);
    expect(refusals(r)).toContainEqual({ field, code });
  });
});

describe('a JSON body that is not an object', () => {
  it.each(['null', '[]', '42', '"str"', 'true'])(
    '%s is 422 not_an_object naming body, and changes nothing',
    async (raw) => {
      const made = await staff.post('/clients', {
        body: { name: `Shape ${randomUUID().slice(0, 8)}`, phone: '0799 000 123', force: true },
        idempotencyKey: randomUUID(),
      });
      expect(made.status, made.text).toBe(201);
      const clientNo: string = made.body.data.client_no;
      const before = (await staff.get(`/clients/${clientNo}`)).text;
      const r = await staff.call('PATCH', `/clients/${clientNo}`, {
        rawBody: raw,
        headers: { 'content-type': 'application/json' },
        idempotencyKey: randomUUID(),
      });
      expectProblem(r, 422, 'validation_failed', 'body');
      expect(refusals(r)).toEqual([{ field: 'body', code: 'not_an_object' }]);
      expect((await staff.get(`/clients/${clientNo}`)).text).toBe(before);
      // The same through a POST.
      const post = await staff.post('/prospects', {
        rawBody: raw,
        headers: { 'content-type': 'application/json' },
        idempotencyKey: randomUUID(),
      });
      expectProblem(post, 422, 'validation_failed', 'body');
    },
  );

  it('no body at all where one is needed is `body` too, required (it was named "(body)")', async () => {
    const r = await staff.post('/motor/quote', {});
    expectProblem(r, 422, 'validation_failed', 'body');
    expect(refusals(r)).toContainEqual({ field: 'body', code: 'required' });
  });
});
