/**
 * Text PostgreSQL cannot store (U+0000, an unpaired surrogate) is refused as 422 validation_failed naming the field
 * in the REST spelling, code `invalid_text` (docs/api-conventions.md "Text PostgreSQL cannot store"): a 400 without
 * errors[].field left the caller guessing which of its values it was.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { motorNotice } from './kit/approved-claim.ts';
import { expectProblem, INSTANT_RAIL, useKit } from './kit.ts';

const t = useKit(INSTANT_RAIL, { jobs: true });
const o = t.useOrg({ fast: true });

const names = (field: string) => [
  {
    field,
    code: 'invalid_text',
    message: 'must not contain the NUL character (U+0000) or an unpaired UTF-16 surrogate',
  },
];

describe('unstorable text names its field', () => {
  it('in a query parameter, given once or twice', async () => {
    for (const [path, field] of [
      ['/policies?search=%00', 'search'],
      ['/erp/receipts?until=%00', 'until'],
      ['/erp/receipts?until=2026-01-01&until=a%00', 'until'],
    ]) {
      const r = await o.as('staff').get(path);
      expectProblem(r, 422, 'validation_failed', field);
      expect(r.body.errors, path).toEqual(names(field));
    }
  });

  it('in a JSON body, by its path; nothing is stored', async () => {
    const pol = await o.activePolicy();
    const claim = await o.as('staff').post('/claims', {
      body: { ...motorNotice(pol), loss_place: 'Nak\u0000uru' },
      idempotencyKey: randomUUID(),
    });
    expectProblem(claim, 422, 'validation_failed', 'loss_place');
    expect(claim.body.errors).toEqual(names('loss_place'));
    expect((await o.as('staff').get('/claims')).body.data).toEqual([]);
    const motor = await o.as('staff').post('/motor/quote', {
      body: { class: 'Motor\u0000', coverage: 'Private', scope: 'Comprehensive', year: 2023, value: 1_500_000 },
    });
    expect(motor.body.errors).toEqual(names('class'));
    const nested = await o.as('staff').post('/motor/quote', {
      body: { class: 'Motor', vehicles: [{ regno: 'KDA\ud800' }] },
    });
    expectProblem(nested, 422, 'validation_failed', 'vehicles.0.regno');
  });
});
