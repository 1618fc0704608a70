/**
 * The one-time-code templates (otp, ipf_sign) are the service's own (docs/sms.md "Templates"): staff cannot send one
 * (a convincing fake sign-in code from the organisation's sender ID, stored unmasked) over REST or GraphQL, nor save
 * one in place of the service's wording. Nothing is recorded or charged by a refusal.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectProblem, INSTANT_RAIL, useKit } from './kit.ts';

const t = useKit(INSTANT_RAIL, { jobs: true });
const o = t.useOrg({ fast: true });
const RESERVED = "is reserved for the service's one-time codes";
const PHONE = '254714000077';

const outbox = async () => (await o.as('staff').get('/sms?limit=100')).body.data.length;
const balance = async () => (await o.as('staff').get('/sms/balance')).body.data.balance_units;

describe('templates that carry one-time codes', () => {
  it('are refused on POST /sms and GraphQL sendSms, naming template; nothing is sent or charged', async () => {
    const [before, units] = [await outbox(), await balance()];
    for (const template of ['otp', 'ipf_sign']) {
      const r = await o.as('staff').post('/sms', {
        body: { to: [PHONE], template, variables: { code: '123456', ref: 'X' } },
        idempotencyKey: randomUUID(),
      });
      expectProblem(r, 422, 'validation_failed', 'template');
      expect(r.body.errors).toEqual([{ field: 'template', message: RESERVED }]);
      const g = await o.as('staff').gql(
        `mutation($i: SendSmsInput!) { sendSms(input: $i) { __typename
          ... on ValidationProblem { code fieldErrors { field message } } } }`,
        { i: { to: [PHONE], template, variables: { code: '123456' } } },
      );
      expect(g.body.data?.sendSms, JSON.stringify(g.body)).toEqual({
        __typename: 'ValidationProblem',
        code: 'validation_failed',
        fieldErrors: [{ field: 'input.template', message: RESERVED }],
      });
    }
    expect(await outbox()).toBe(before);
    expect(await balance()).toBe(units);
    // Another seeded template still sends.
    const ok = await o.as('staff').post('/sms', {
      body: {
        to: [PHONE],
        template: 'receipt',
        variables: { name: 'Otieno', amount: '1,000', account: 'P-1', receipt_no: 'R-1' },
      },
      idempotencyKey: randomUUID(),
    });
    expect(ok.status, ok.text).toBe(201);
  });

  it('cannot be saved over by POST /sms/templates (422 on code); the service wording stays', async () => {
    const before = (await o.as('staff').get('/sms/templates')).body.data;
    for (const code of ['otp', 'ipf_sign']) {
      const r = await o.as('admin').post('/sms/templates', {
        body: { code, body: 'Your code is {{code}}. Call 0700 000 000 to confirm it.' },
        idempotencyKey: randomUUID(),
      });
      expectProblem(r, 422, 'validation_failed', 'code');
      expect(r.body.errors).toEqual([{ field: 'code', message: RESERVED }]);
    }
    expect((await o.as('staff').get('/sms/templates')).body.data).toEqual(before);
  });
});
