import { describe, expect, it } from 'vitest';
import { expectProblem, THIS_YEAR, TODAY, useKit } from './kit.ts';

/**
 * The motor and cover bodies are parsed by their one definition (rest-compat/schemas/motor.ts, covers.ts) before the
 * operation runs: what the definition refuses is 422 naming the field, the legacy spellings it documents pass.
 */
const t = useKit();
const api = t.api;
const org = t.useOrg({ clientOverrides: { staff: { rateLimitPerMinute: 10_000 } }, tokens: ['staff'] });

const quote = (body: Record<string, unknown>) => api.post('/motor/quote', { token: org.tokens.staff, body });
const ok = { class: 'Motor', scope: 'Comprehensive', year: THIS_YEAR - 1, value: 1_000_000 };
const fields = (r: { body: { errors?: { field: string }[] } }) => (r.body.errors ?? []).map((e) => e.field);

describe('POST /motor/quote: the definition is enforced', () => {
  it.each([
    ['a class outside the vocabulary', { ...ok, class: 'Spaceship' }, 'class'],
    ['a scope outside the vocabulary', { ...ok, scope: 'moon' }, 'scope'],
    ['a cover period outside the vocabulary', { ...ok, cover_period: 'weekly' }, 'cover_period'],
    ['year before 1950', { ...ok, year: 1949 }, 'year'],
    ['year after next year', { ...ok, year: THIS_YEAR + 2 }, 'year'],
    ['a fractional year', { ...ok, year: 2019.5 }, 'year'],
    ['a missing year', { class: 'Motor', scope: 'TPO' }, 'year'],
    ['tonnage above 200', { ...ok, tonnage: 201 }, 'tonnage'],
    ['a negative value', { ...ok, value: -5 }, 'value'],
    ['a text insurer id', { ...ok, insurer_id: ['x'] }, 'insurer_id'],
  ])('%s is 422 validation_failed naming it', async (_label, body, field) => {
    const r = await quote(body);
    expectProblem(r, 422, 'validation_failed');
    expect(fields(r)).toContain(field);
  });

  it('reads numeric strings and the vocabulary in any case, echoing the spelling sent', async () => {
    const r = await quote({
      class: 'motor vehicle',
      scope: 'third party only',
      cover_period: 'ANNUAL',
      year: String(THIS_YEAR - 2),
      pll: '2',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.quote).toMatchObject({
      class: 'motor vehicle',
      scope: 'third party only',
      cover_type: 'tpo',
      year: THIS_YEAR - 2,
      pll: 2,
    });
  });

  it('a null optional field reads as absent, as GraphQL reads it', async () => {
    const r = await quote({ ...ok, coverage: null, days: null, tonnage: null, insurer_id: null });
    expect(r.status, r.text).toBe(200);
  });
});

describe('POST /motor/save_quote: the client spellings', () => {
  it('takes the current id_no / kra_pin spellings as well as idno / pin', async () => {
    const n = Date.now() % 1_000_000;
    const r = await api.post('/motor/save_quote', {
      token: org.tokens.staff,
      idempotencyKey: `contract-motor-${n}`,
      body: {
        client: {
          name: 'Wanjiru Contract',
          phone: `0722${String(n).padStart(6, '0')}`,
          id_no: `3${String(n).padStart(7, '0')}`,
          kra_pin: `A${String(n).padStart(9, '0')}Z`,
        },
        vehicle: { year: String(THIS_YEAR - 1), scope: 'TPO', reg_no: 'KDA 123A' },
      },
    });
    expect(r.status, r.text).toBe(201);
  });

  it('a missing vehicle year is 422 naming vehicle.year', async () => {
    const r = await api.post('/motor/save_quote', {
      token: org.tokens.staff,
      idempotencyKey: `contract-motor-noyear-${Date.now()}`,
      body: { client: { name: 'A B', phone: '0722000001' }, vehicle: { scope: 'TPO' } },
    });
    expectProblem(r, 422, 'validation_failed');
    expect(fields(r)).toContain('vehicle.year');
  });
});

describe('cover quotes: the definition is enforced', () => {
  const trip = {
    plan: 'BASIC',
    region: 'africa',
    departure_date: TODAY,
    return_date: TODAY,
    travellers: [{ age: 30 }],
  };
  it('a traveller needs no name, passport or both date of birth and age to be quoted', async () => {
    const r = await api.post('/travel/quote', { token: org.tokens.staff, body: trip });
    for (const f of ['name', 'passport_no', 'date_of_birth', 'age'])
      expect(fields(r)).not.toContain(`travellers.0.${f}`);
  });
  it('a traveller aged 121 is 422 naming travellers.0.age', async () => {
    const r = await api.post('/travel/quote', {
      token: org.tokens.staff,
      body: { ...trip, travellers: [{ age: 121 }] },
    });
    expectProblem(r, 422, 'validation_failed');
    expect(fields(r)).toContain('travellers.0.age');
  });
  it('a medical member relationship outside the vocabulary is 422 naming it', async () => {
    const r = await api.post('/medical/quote', {
      token: org.tokens.staff,
      body: { inpatient_limit: '500000', members: [{ relationship: 'cousin', age: 30 }] },
    });
    expectProblem(r, 422, 'validation_failed');
    expect(fields(r)).toContain('members.0.relationship');
  });
  it('a standard item with a description only is read (sum insured and id_no are optional)', async () => {
    const r = await api.post('/standard/quote', {
      token: org.tokens.staff,
      body: { product: 'PA', items: [{ name: 'Achieng' }] },
    });
    expect(fields(r)).not.toContain('items.0.id_no');
  });
});
