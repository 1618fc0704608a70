import { describe, expect, it } from 'vitest';
import { endorseFromRest, endorsementToRest } from '../../rest-compat/mappers/endorsement.ts';
import { addVehicle, m } from './fixtures.ts';

describe('endorsement mapper: the request', () => {
  it('add_vehicle: legacy `regno` (or `reg_no`), snake_case fields to the input names', () => {
    const body = {
      operation: 'add_vehicle',
      effective_date: '2025-03-01',
      vehicle: { regno: 'KDB 456B', chassis_no: 'JTD2', make: 'Toyota', model: 'Axio', yom: 2019, value: 2_000_000 },
      note: 'second car',
    };
    expect(endorseFromRest(body)).toEqual({
      operation: 'add_vehicle',
      effectiveDate: '2025-03-01',
      regNo: undefined,
      vehicle: {
        regNo: 'KDB 456B',
        chassisNo: 'JTD2',
        engineNo: undefined,
        make: 'Toyota',
        model: 'Axio',
        yom: 2019,
        value: 2_000_000,
        bodyType: undefined,
        tonnage: undefined,
        pll: undefined,
        coverage: undefined,
      },
      value: undefined,
      details: undefined,
      note: 'second car',
    });
    expect(endorseFromRest({ operation: 'add_vehicle', vehicle: { reg_no: 'KDB456B' } })).toMatchObject({
      vehicle: { regNo: 'KDB456B' },
    });
  });

  it('change_value and remove_vehicle name the vehicle by `regno` or `reg_no`', () => {
    expect(endorseFromRest({ operation: 'change_value', regno: 'KDA123A', value: 900_000 })).toMatchObject({
      regNo: 'KDA123A',
      value: 900_000,
    });
    expect(endorseFromRest({ operation: 'remove_vehicle', reg_no: 'KDA123A' })).toMatchObject({ regNo: 'KDA123A' });
  });

  it('add_member, remove_member and change_sum_insured: the member in snake_case, the insured by insured_id', () => {
    expect(
      endorseFromRest({
        operation: 'add_member',
        effective_date: '2026-07-01',
        member: { name: 'Baraka', relationship: 'child', date_of_birth: '2020-02-29', in_school: false, id_no: null },
      }),
    ).toMatchObject({
      operation: 'add_member',
      effectiveDate: '2026-07-01',
      member: { name: 'Baraka', relationship: 'child', dateOfBirth: '2020-02-29', inSchool: false, idNo: null },
    });
    expect(endorseFromRest({ operation: 'remove_member', insured_id: 41 })).toMatchObject({ insuredId: 41 });
    expect(endorseFromRest({ operation: 'change_sum_insured', insured_id: 7, sum_insured: 2_500_000 })).toMatchObject({
      insuredId: 7,
      sumInsured: 2_500_000,
    });
  });

  it('change_details: details, and limits of liability given beside them or alone', () => {
    const limits = { third_party_property: 5_000_000 };
    expect(
      endorseFromRest({ operation: 'change_details', regno: 'KDA123A', details: { model: 'Fielder' } }),
    ).toMatchObject({
      details: { model: 'Fielder', chassisNo: undefined, limitsOfLiability: undefined },
    });
    expect(
      endorseFromRest({ operation: 'change_details', details: { make: 'Mazda' }, limits_of_liability: limits }).details,
    ).toMatchObject({ make: 'Mazda', limitsOfLiability: limits });
    expect(endorseFromRest({ operation: 'change_details', limits_of_liability: limits }).details).toEqual({
      limitsOfLiability: limits,
    });
  });

  it('no operation is "" (the definition has refused junk where an object belongs, and read a non-object body as {})', () => {
    expect(endorseFromRest({})).toMatchObject({ operation: '', vehicle: undefined, details: undefined });
  });
});

describe('endorsement mapper: the record', () => {
  it('a pending add_vehicle: changes as the core gives them without vehicle ids, money pairs, no note', () => {
    expect(endorsementToRest(addVehicle)).toEqual({
      uuid: 'end-1',
      number: 'END-MTR-2025-000001-1',
      operation: 'add_vehicle',
      status: 'pending',
      effective_date: '2025-03-01',
      policy: { uuid: 'pol-1', policy_no: 'MTR-2025-000001' },
      changes: {
        vehicle: { regno: 'KDB456B', chassis_no: 'JTD2', value: 2_000_000, value_minor: 200_000_000, pll: null },
        remark: 'second car',
      },
      premium_effect: {
        basic_premium: 41_096,
        basic_premium_minor: 4_109_589,
        taxes: 103,
        taxes_minor: 10_274,
        total: 41_199,
        total_minor: 4_119_863,
        levies: [{ code: 'TL', name: 'Training levy', amount: 82, amount_minor: 8_219 }],
      },
      days: { in_period: 365, remaining: 306 },
      items: [
        {
          regno: 'KDB456B',
          insured: null,
          annual_basic_before: null,
          annual_basic_before_minor: null,
          annual_basic_after: 49_000,
          annual_basic_after_minor: 4_900_000,
        },
      ],
      note: null,
      remark: 'second car',
      based_on_revision: 3,
      expires_at: '2025-03-04T06:00:00.000Z',
      created_at: '2025-03-01T06:00:00.000Z',
      confirmed_at: null,
      discarded_at: null,
    });
  });

  it('drops vehicle_id at every depth but keeps the limits of liability exactly as given', () => {
    const changes = {
      regno: 'KDA123A',
      vehicle_id: 11,
      value: 900_000,
      value_minor: 90_000_000,
      previous_value: null,
      previous_value_minor: null,
      details: { vehicle_id: 11, model: 'Fielder' },
      limits_of_liability: { vehicle_id: 'kept', x_minor: 5 },
      previous_limits_of_liability: null,
    };
    expect(endorsementToRest({ ...addVehicle, changesWithShillings: changes }).changes).toEqual({
      regno: 'KDA123A',
      value: 900_000,
      value_minor: 90_000_000,
      previous_value: null,
      previous_value_minor: null,
      details: { model: 'Fielder' },
      limits_of_liability: { vehicle_id: 'kept', x_minor: 5 },
      previous_limits_of_liability: null,
    });
  });

  it('a confirmed increase shows its debit note; a decrease its credit note with applications', () => {
    const debit = endorsementToRest({
      ...addVehicle,
      endorsementStatus: 'confirmed',
      debitNote: {
        number: 'DN-MTR-2025-000001-E1',
        kind: 'endorsement',
        dueOn: '2025-03-31',
        amount: m(41_199, 4_119_863),
      },
    });
    expect(debit.note).toEqual({
      kind: 'debit',
      number: 'DN-MTR-2025-000001-E1',
      amount: 41_199,
      amount_minor: 4_119_863,
      due_on: '2025-03-31',
    });
    const credit = endorsementToRest({
      ...addVehicle,
      creditNote: {
        number: 'CN-MTR-2025-000001-1',
        kind: 'endorsement',
        amount: m(-1, -50),
        applied: m(0, -30),
        refunded: m(0, -20),
        applications: [{ debitNoteNo: 'DN-MTR-2025-000001-2/2', amount: m(0, -30) }],
      },
    });
    expect(credit.note).toEqual({
      kind: 'credit',
      number: 'CN-MTR-2025-000001-1',
      amount: -1,
      amount_minor: -50,
      applied: 0,
      applied_minor: -30,
      refunded: 0,
      refunded_minor: -20,
      applications: [{ debit_note_no: 'DN-MTR-2025-000001-2/2', amount: 0, amount_minor: -30 }],
    });
  });
});
