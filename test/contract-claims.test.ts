import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { motorNotice } from './kit/approved-claim.ts';
import { expectProblem, INSTANT_RAIL, useKit, type Org } from './kit.ts';

/**
 * The claims payloads are defined once (rest-compat/schemas/claim*.ts): the facade parses each body with its
 * definition before the operation runs, so what the definition refuses is 422 naming the field, and the legacy
 * spellings it documents are read.
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const [o] = t.useOrgs(1, { fast: true });

const post = (path: string, body: unknown) =>
  o.api.post(path, { token: o.tokens.staff, body, idempotencyKey: randomUUID() });
const fieldError = (r: { body: { errors?: { field: string; code?: string }[] } }, field: string) =>
  r.body.errors?.find((e) => e.field === field);

let pol: Awaited<ReturnType<Org['activePolicy']>>;
beforeAll(async () => {
  pol = await o.activePolicy();
}, 120_000);

describe('the claims definitions are enforced', () => {
  it('refuses a wrong enum, an out-of-bounds number and a missing required field, naming each', async () => {
    const r = await post('/claims', {
      ...motorNotice(pol),
      channel: 'carrier_pigeon',
      estimated_loss: -5,
      description: undefined,
      loss_time: '25:00',
    });
    expectProblem(r, 422, 'validation_failed', 'channel');
    expect(fieldError(r, 'channel')?.code).toBe('not_one_of');
    expect(fieldError(r, 'estimated_loss')?.code).toBe('too_small');
    expect(fieldError(r, 'description')?.code).toBe('required');
    expect(fieldError(r, 'loss_time')).toMatchObject({ message: 'HH:MM, 24-hour, Nairobi time' });
    // A third party's fields, by their path in the list.
    const tp = await post('/claims', { ...motorNotice(pol), third_parties: [{ phone: '0722000111' }] });
    expectProblem(tp, 422, 'validation_failed', 'third_parties.0.name');
  });

  it('reads the legacy spellings: policy_id, regno / reg_no, a flat reporter, a third party idno', async () => {
    const { policy_uuid: _, regno, ...rest } = motorNotice(pol);
    const r = await post('/claims', {
      ...rest,
      policy_id: pol.uuid,
      reg_no: regno,
      reporter_name: 'Akinyi Otieno',
      reporter_relationship: 'driver',
      third_parties: [{ name: 'Jane Mwangi', idno: '12345678', regno: 'KCB 123X' }],
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.data.policy.uuid).toBe(pol.uuid);
    expect(r.body.data.reporter).toMatchObject({ name: 'Akinyi Otieno', relationship: 'driver' });
    expect(r.body.data.third_parties[0]).toMatchObject({ id_no: '12345678', registration: 'KCB 123X' });
    // The first history line comes from nowhere: `from` is null (a nullable enum the document allows).
    expect(r.body.data.history[0]).toMatchObject({ from: null, to: 'registered' });
  });

  it('refuses a command body its definition refuses before the claim is touched', async () => {
    const c = await post('/claims', motorNotice(pol));
    expect(c.status, c.text).toBe(201);
    const uuid = c.body.data.uuid;
    const move = await post(`/claims/${uuid}/transitions`, { to: 'lost' });
    expectProblem(move, 422, 'validation_failed', 'to');
    const reserve = await post(`/claims/${uuid}/reserve`, { amount: 1.5, reason: 'estimate' });
    expect(fieldError(reserve, 'amount')?.code).toBe('not_a_whole_number');
    const why = await post(`/claims/${uuid}/reserve`, { amount: 1000, reason: 'x' });
    expect(fieldError(why, 'reason')).toMatchObject({ message: 'say why' });
    const repudiate = await post(`/claims/${uuid}/repudiate`, { reason: 'bad_luck' });
    expectProblem(repudiate, 422, 'validation_failed', 'reason');
    const mark = await post(`/claims/${uuid}/documents/claim_form/mark`, { status: 'lost' });
    expectProblem(mark, 422, 'validation_failed', 'status');
    const pay = await post(`/claims/${uuid}/payments`, { method: 'cheque', payee_name: 'A', amount: 0 });
    expectProblem(pay, 422, 'validation_failed', 'method');
    expect(fieldError(pay, 'amount')?.code).toBe('too_small');
    // Still as registered: nothing was applied.
    const read = await o.api.get(`/claims/${uuid}`, { token: o.tokens.staff });
    expect(read.body.data.status).toBe('registered');
  });
});
