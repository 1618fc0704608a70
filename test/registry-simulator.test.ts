import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DbSimStore, RegistrySimulator, type SimMember } from '../jobs/rails/registry-simulator.ts';
import type { Database } from '../src/db/client.ts';
import { useDatabase } from './kit.ts';
import { certificateClass, coverCode } from '../src/modules/certificates/certificate-codes.ts';
import {
  formatRegistryDate,
  type IssueCertificateRequest,
  maxExpiringDate,
  parseRegistryDate,
  type RegistryResponse,
  registryDateNairobi,
} from '../src/ports/certificate-registry.ts';

// The registry is an outside system: these tests drive the simulator directly, first over the in-memory store, then
// over the PostgreSQL store the app uses. The HTTP-level tests are in certificates.test.ts.

const HOUR = 3600_000;
// 12:00 in Nairobi on 26/11/2026.
const T0 = new Date('2026-11-26T09:00:00Z');

function members(): SimMember[] {
  return [
    { id: 101, name: 'Jubilee Allianz', stock: { A: 5, B: 5, C: 10, D: 5 } },
    { id: 102, name: 'Britam General', stock: { C: 1 } },
    { id: 103, name: 'Empty Mutual', stock: { C: 0, D: 0 } },
  ];
}

function privateCar(over: Partial<IssueCertificateRequest> = {}): IssueCertificateRequest {
  return {
    memberCompanyId: 101,
    certificateClass: 'C',
    typeOfCover: 100,
    policyHolder: 'Wanjiku Kamau',
    policyNumber: 'P/101/2026/0001',
    commencingDate: '26/11/2026',
    expiringDate: '25/11/2027',
    registrationNumber: 'KDA 123A',
    chassisNumber: 'JTDBR32E720012345',
    engineNumber: '1NZ-1234567',
    phoneNumber: '254712345678',
    email: 'wanjiku@example.co.ke',
    bodyType: 'Saloon',
    sumInsured: 1_500_000,
    ...over,
  };
}

function expectFailure(r: RegistryResponse, code: string, text?: RegExp) {
  expect(r.success).toBe(false);
  expect(r.referenceNo).toMatch(/^REF\d{9}$/);
  expect(r.errors.length).toBeGreaterThan(0);
  for (const e of r.errors) expect(Object.keys(e).sort()).toEqual(['errorCode', 'errorText']);
  const hit = r.errors.find((e) => e.errorCode === code);
  expect(hit, `expected ${code} in ${JSON.stringify(r.errors)}`).toBeDefined();
  if (text) expect(hit!.errorText).toMatch(text);
}

let now: Date;
let reg: RegistrySimulator;
beforeEach(() => {
  now = T0;
  reg = new RegistrySimulator({ members: members(), now: () => now });
});

describe('wire vocabulary', () => {
  it('maps vehicle class and kind to certificate classes A–D', () => {
    expect(certificateClass('psv')).toBe('A');
    expect(certificateClass('commercial')).toBe('B');
    expect(certificateClass('private')).toBe('C');
    expect(certificateClass('motorcycle')).toBe('D');
    expect(certificateClass('motorcycle', 'motorcycle')).toBe('D');
    // A tuktuk rates as PSV or commercial but is a three-wheeler at the registry.
    expect(certificateClass('psv', 'tuktuk')).toBe('D');
    expect(certificateClass('commercial', 'tuktuk')).toBe('D');
    expect(certificateClass('psv', 'motor')).toBe('A');
  });

  it('uses cover codes 100 COMP, 200 TPO, 300 TPFT', () => {
    expect(coverCode('comprehensive')).toBe(100);
    expect(coverCode('tpo')).toBe(200);
    expect(coverCode('tpft')).toBe(300);
  });

  it('formats and parses dd/MM/yyyy strictly', () => {
    expect(formatRegistryDate(new Date(Date.UTC(2027, 0, 5)))).toBe('05/01/2027');
    expect(parseRegistryDate('05/01/2027')?.toISOString()).toBe('2027-01-05T00:00:00.000Z');
    for (const bad of ['2027-01-05', '5/1/2027', '31/02/2027', '00/01/2027', '05/13/2027', 20270105]) {
      expect(parseRegistryDate(bad), String(bad)).toBeNull();
    }
    // 22:30 UTC is already the next day in Nairobi.
    expect(registryDateNairobi(new Date('2026-11-26T22:30:00Z'))).toBe('27/11/2026');
  });

  it('caps the period at one year less a day', () => {
    expect(formatRegistryDate(maxExpiringDate(parseRegistryDate('26/11/2026')!))).toBe('25/11/2027');
    expect(formatRegistryDate(maxExpiringDate(parseRegistryDate('01/01/2027')!))).toBe('31/12/2027');
  });
});

describe('issue → get → validate', () => {
  it('issues a certificate numbered C<class><7 digits> that get and validate return', async () => {
    const issued = await reg.issue(privateCar());
    expect(issued).toMatchObject({ success: true, errors: [] });
    expect(issued.referenceNo).toMatch(/^REF\d{9}$/);
    expect(issued.certificateNo).toMatch(/^CC\d{7}$/);

    const got = await reg.get(issued.certificateNo!);
    expect(got.success).toBe(true);
    expect(got.certificate).toMatchObject({
      certificateNo: issued.certificateNo,
      certificateClass: 'C',
      typeOfCover: 100,
      memberCompanyId: 101,
      insurer: 'Jubilee Allianz',
      policyNumber: 'P/101/2026/0001',
      commencingDate: '26/11/2026',
      expiringDate: '25/11/2027',
      registrationNumber: 'KDA123A',
      status: 'Active',
      issuedAt: T0.toISOString(),
    });

    // Registration and chassis match regardless of spacing and case.
    const ok = await reg.validate({
      certificateNo: issued.certificateNo!,
      registration: 'kda123a',
      chassis: 'jtdbr32e720012345',
    });
    expect(ok).toMatchObject({ success: true, errors: [], certificate: { certificateNo: issued.certificateNo } });
    expect(ok.referenceNo).not.toBe(got.referenceNo);
  });

  it('numbers by class: A for PSV, B for commercial, D for motorcycles', async () => {
    const a = await reg.issue(
      privateCar({ certificateClass: 'A', licensedToCarry: 14, registrationNumber: 'KCX 1A', chassisNumber: 'A1' }),
    );
    const b = await reg.issue(
      privateCar({ certificateClass: 'B', tonnage: 7, registrationNumber: 'KCX 1B', chassisNumber: 'B1' }),
    );
    const d = await reg.issue(
      privateCar({
        certificateClass: 'D',
        typeOfCover: 200,
        sumInsured: undefined,
        registrationNumber: 'KMDA 1D',
        chassisNumber: 'D1',
      }),
    );
    expect([a.certificateNo, b.certificateNo, d.certificateNo].map((n) => n?.slice(0, 2))).toEqual(['CA', 'CB', 'CD']);
    for (const n of [a, b, d]) expect(n.certificateNo).toMatch(/^C[ABD]\d{7}$/);
  });

  it('refuses validation when registration or chassis do not match (ER0016)', async () => {
    const { certificateNo } = await reg.issue(privateCar());
    expectFailure(
      await reg.validate({ certificateNo: certificateNo!, registration: 'KDA 999Z', chassis: 'JTDBR32E720012345' }),
      'ER0016',
    );
    expectFailure(
      await reg.validate({ certificateNo: certificateNo!, registration: 'KDA 123A', chassis: 'OTHER' }),
      'ER0016',
    );
  });

  it('answers ER009 for a malformed number and ER0016 for an unknown one', async () => {
    for (const bad of ['X123', 'CE1234567', 'CC123456']) expectFailure(await reg.get(bad), 'ER009');
    expectFailure(await reg.get('CC9999999'), 'ER0016', /No records found/);
    expectFailure(await reg.validate({ certificateNo: 'CC9999999', registration: 'KDA123A', chassis: 'X' }), 'ER0016');
    expectFailure(await reg.cancel({ certificateNo: 'nope', reasonId: 8 }), 'ER009');
  });
});

describe('issuance validation', () => {
  it('refuses a class the member is not authorised for, or an unknown member (ER001)', async () => {
    expectFailure(
      await reg.issue(privateCar({ memberCompanyId: 102, certificateClass: 'A', licensedToCarry: 14 })),
      'ER001',
    );
    expectFailure(await reg.issue(privateCar({ memberCompanyId: 999 })), 'ER001');
  });

  it('refuses a commencing date more than a day in the past (ER003) but accepts yesterday', async () => {
    expectFailure(await reg.issue(privateCar({ commencingDate: '24/11/2026', expiringDate: '23/11/2027' })), 'ER003');
    expectFailure(await reg.issue(privateCar({ commencingDate: '2026-11-26' })), 'ER003');
    const y = await reg.issue(privateCar({ commencingDate: '25/11/2026', expiringDate: '24/11/2027' }));
    expect(y.success).toBe(true);
  });

  it('refuses an expiring date past one year less a day, or before commencing (ER004)', async () => {
    expectFailure(await reg.issue(privateCar({ expiringDate: '26/11/2027' })), 'ER004', /one year less a day/);
    expectFailure(await reg.issue(privateCar({ expiringDate: '20/11/2026' })), 'ER004');
    expectFailure(await reg.issue(privateCar({ expiringDate: '31/11/2027' })), 'ER004');
    // A short period is fine.
    expect((await reg.issue(privateCar({ expiringDate: '25/12/2026' }))).success).toBe(true);
  });

  it('requires sum insured for COMP and TPFT, tonnage for B, licensed to carry 1–200 for A', async () => {
    expectFailure(await reg.issue(privateCar({ sumInsured: undefined })), 'ER002', /sumInsured/);
    expectFailure(await reg.issue(privateCar({ typeOfCover: 300, sumInsured: 0 })), 'ER002', /sumInsured/);
    expect((await reg.issue(privateCar({ typeOfCover: 200, sumInsured: undefined }))).success).toBe(true);
    expectFailure(
      await reg.issue(privateCar({ certificateClass: 'B', registrationNumber: 'KCB 2B' })),
      'ER002',
      /tonnage/,
    );
    expectFailure(
      await reg.issue(privateCar({ certificateClass: 'A', registrationNumber: 'KCA 2A' })),
      'ER002',
      /licensedToCarry/,
    );
    expectFailure(
      await reg.issue(privateCar({ certificateClass: 'A', licensedToCarry: 201, registrationNumber: 'KCA 2A' })),
      'ER002',
      /licensedToCarry/,
    );
    expectFailure(
      await reg.issue(privateCar({ certificateClass: 'A', licensedToCarry: 0, registrationNumber: 'KCA 2A' })),
      'ER002',
      /licensedToCarry/,
    );
    expect(
      (
        await reg.issue(
          privateCar({
            certificateClass: 'A',
            licensedToCarry: 200,
            registrationNumber: 'KCA 2A',
            chassisNumber: 'A2',
          }),
        )
      ).success,
    ).toBe(true);
  });

  it('rejects a bad cover code, phone or email and lists every problem', async () => {
    const r = await reg.issue(
      privateCar({ typeOfCover: 400 as never, phoneNumber: '0712345678', email: 'not-an-email', policyHolder: ' ' }),
    );
    expectFailure(r, 'ER002');
    expect(r.errors.map((e) => e.errorText).join('\n')).toMatch(
      /typeOfCover[\s\S]*policyHolder[\s\S]*phoneNumber[\s\S]*email/,
    );
    expect(r).not.toHaveProperty('certificateNo');
  });
});

describe('double insurance', () => {
  it('reports an active certificate on the same registration with its number, insurer and end date', async () => {
    const { certificateNo } = await reg.issue(privateCar());
    const r = await reg.doubleInsuranceCheck({
      registration: 'KDA123A',
      chassis: 'SOMETHINGELSE',
      start: '01/12/2026',
      end: '30/11/2027',
    });
    expect(r).toMatchObject({ success: true, errors: [] });
    expect(r.conflicts).toEqual([
      {
        certificateNo,
        insurer: 'Jubilee Allianz',
        memberCompanyId: 101,
        coverEndDate: '25/11/2027',
        message: 'already covered under an active policy',
      },
    ]);
  });

  it('reports a later-starting certificate on the same chassis as an overlapping policy', async () => {
    await reg.issue(privateCar({ commencingDate: '01/12/2026', expiringDate: '30/11/2027' }));
    const r = await reg.doubleInsuranceCheck({
      registration: 'KZZ 999Z',
      chassis: 'jtdbr32e720012345',
      start: '26/11/2026',
      end: '10/12/2026',
    });
    expect(r.conflicts).toHaveLength(1);
    expect(r.conflicts[0].message).toBe('overlapping policy, leading to Double Insurance');
  });

  it('finds nothing for periods that do not overlap or other vehicles', async () => {
    await reg.issue(privateCar({ expiringDate: '31/12/2026' }));
    expect(
      (
        await reg.doubleInsuranceCheck({
          registration: 'KDA123A',
          chassis: 'X',
          start: '01/01/2027',
          end: '31/12/2027',
        })
      ).conflicts,
    ).toEqual([]);
    expect(
      (await reg.doubleInsuranceCheck({ registration: 'KDB 1B', chassis: 'Y', start: '26/11/2026', end: '25/11/2027' }))
        .conflicts,
    ).toEqual([]);
  });

  it('refuses to issue over an overlapping certificate (same registration or same chassis) and keeps the stock', async () => {
    const first = await reg.issue(privateCar());
    const sameReg = await reg.issue(
      privateCar({
        memberCompanyId: 102,
        chassisNumber: 'OTHERCHASSIS',
        commencingDate: '01/12/2026',
        expiringDate: '30/11/2027',
      }),
    );
    expectFailure(
      sameReg,
      'ER005',
      new RegExp(`already covered under an active policy.*${first.certificateNo}.*Jubilee Allianz.*25/11/2027`),
    );
    const sameChassis = await reg.issue(
      privateCar({ policyNumber: 'P/101/2026/0002', registrationNumber: 'KDZ 777Z' }),
    );
    expectFailure(sameChassis, 'ER005', /already covered/);
    // Britam's single class C certificate was not consumed by the refusal.
    expect((await reg.stock(102)).stock).toEqual([{ certificateClass: 'C', available: 1 }]);
  });

  it('never counts a policy\u2019s own certificate against its re-issue, but refuses any other policy on the vehicle', async () => {
    const first = await reg.issue(privateCar());
    // The same policy certifies the vehicle again (a reinstatement whose old certificate is not cancelled yet).
    const own = await reg.issue(privateCar({ commencingDate: '27/11/2026', expiringDate: '25/11/2027' }));
    expect(own).toMatchObject({ success: true, errors: [] });
    expect(own.certificateNo).not.toBe(first.certificateNo);
    // Another policy of the same member, the same policy number at another member, another member's policy: refused,
    // and each refusal names a certificate of the first policy.
    for (const other of [
      { policyNumber: 'P/101/2026/0002' },
      { memberCompanyId: 102 },
      { memberCompanyId: 102, policyNumber: 'B/9' },
    ]) {
      const r = await reg.issue(privateCar({ ...other, commencingDate: '01/12/2026', expiringDate: '30/11/2027' }));
      expectFailure(r, 'ER005', new RegExp(`${first.certificateNo}|${own.certificateNo}`));
    }
    // The check itself carries no policy: it lists every active certificate on the vehicle, the policy's own included.
    const check = await reg.doubleInsuranceCheck({
      registration: 'KDA123A',
      chassis: '',
      start: '01/12/2026',
      end: '30/11/2027',
    });
    expect(check.conflicts.map((c) => c.certificateNo)).toEqual([first.certificateNo, own.certificateNo]);
  });

  it('ignores cancelled certificates', async () => {
    const { certificateNo } = await reg.issue(privateCar());
    expect((await reg.cancel({ certificateNo: certificateNo!, reasonId: 15 })).success).toBe(true);
    expect(
      (
        await reg.doubleInsuranceCheck({
          registration: 'KDA123A',
          chassis: 'X',
          start: '26/11/2026',
          end: '25/11/2027',
        })
      ).conflicts,
    ).toEqual([]);
    expect((await reg.issue(privateCar({ memberCompanyId: 102 }))).success).toBe(true);
  });

  it('rejects malformed check dates', async () => {
    expectFailure(
      await reg.doubleInsuranceCheck({ registration: 'KDA123A', chassis: 'X', start: '2026-11-26', end: '25/11/2027' }),
      'ER003',
    );
    expectFailure(
      await reg.doubleInsuranceCheck({ registration: 'KDA123A', chassis: 'X', start: '26/11/2026', end: '25/11/2025' }),
      'ER004',
    );
  });
});

describe('stock', () => {
  it('counts down per class and refuses issuance once exhausted (ER006)', async () => {
    expect(await reg.stock(102)).toMatchObject({
      success: true,
      errors: [],
      stock: [{ certificateClass: 'C', available: 1 }],
    });
    expect((await reg.issue(privateCar({ memberCompanyId: 102 }))).success).toBe(true);
    const out = await reg.stock(102);
    expectFailure(out, 'ER006');
    expect(out.stock).toEqual([{ certificateClass: 'C', available: 0 }]);
    expectFailure(
      await reg.issue(privateCar({ memberCompanyId: 102, registrationNumber: 'KDC 2C', chassisNumber: 'C2' })),
      'ER006',
    );
  });

  it('answers ER006 for a member with no stock and ER001 for an unknown member', async () => {
    expectFailure(await reg.stock(103), 'ER006');
    expectFailure(await reg.issue(privateCar({ memberCompanyId: 103 })), 'ER006');
    expectFailure(await reg.stock(999), 'ER001');
  });

  it('keeps each simulator\u2019s configuration separate from the caller\u2019s objects', async () => {
    const cfg = members();
    const sim = new RegistrySimulator({ members: cfg, now: () => T0 });
    await sim.issue(privateCar({ memberCompanyId: 102 }));
    expect(cfg[1].stock.C).toBe(1);
  });
});

describe('cancellation', () => {
  it('cancels within 24 hours of issuance and get shows it cancelled', async () => {
    const { certificateNo } = await reg.issue(privateCar());
    now = new Date(T0.getTime() + 24 * HOUR);
    const r = await reg.cancel({ certificateNo: certificateNo!, reasonId: 8 });
    expect(r).toMatchObject({ success: true, errors: [], certificateNo });
    expect((await reg.get(certificateNo!)).certificate).toMatchObject({ status: 'Cancelled', cancelReasonId: 8 });
    expectFailure(await reg.cancel({ certificateNo: certificateNo!, reasonId: 8 }), 'ER007', /already cancelled/);
  });

  it('refuses cancellation more than 24 hours after issuance', async () => {
    const { certificateNo } = await reg.issue(privateCar());
    now = new Date(T0.getTime() + 24 * HOUR + 1000);
    expectFailure(await reg.cancel({ certificateNo: certificateNo!, reasonId: 21 }), 'ER007', /24 hours/);
    expect((await reg.get(certificateNo!)).certificate?.status).toBe('Active');
  });

  it('accepts only the registry\u2019s reason ids', async () => {
    for (const reasonId of [8, 14, 15, 21, 29, 30]) {
      const { success, certificateNo } = await reg.issue(
        privateCar({ registrationNumber: `KDR ${reasonId}R`, chassisNumber: `CH${reasonId}` }),
      );
      expect(success).toBe(true);
      expect((await reg.cancel({ certificateNo: certificateNo!, reasonId })).success, String(reasonId)).toBe(true);
    }
    const { certificateNo } = await reg.issue(privateCar());
    for (const reasonId of [0, 1, 9, 31, 8.5]) {
      expectFailure(await reg.cancel({ certificateNo: certificateNo!, reasonId }), 'ER002', /reason/);
    }
    expect((await reg.get(certificateNo!)).certificate?.status).toBe('Active');
  });
});

describe('the PostgreSQL store (what the app runs on)', () => {
  const data = useDatabase({ poolSize: 3 });
  data.useOrg(); // its insurers are the members (Simba General is 101)
  let db: Database;
  const clock = () => now;
  // Two instances over one database stand for two processes (or a restart).
  let a: RegistrySimulator;
  let b: RegistrySimulator;
  let store: DbSimStore;

  beforeAll(() => (db = data.db));
  beforeEach(() => {
    store = new DbSimStore(db, 10);
    a = new RegistrySimulator({ store, now: clock });
    b = new RegistrySimulator({ store: new DbSimStore(db, 10), now: clock });
  });

  it('seeds a member\u2019s stock lazily at the default for every class, and knows only insurers\u2019 member ids', async () => {
    expect(await a.stock(101)).toMatchObject({
      success: true,
      stock: ['A', 'B', 'C', 'D'].map((c) => ({ certificateClass: c, available: 10 })),
    });
    expectFailure(await a.stock(999), 'ER001');
    expectFailure(await a.issue(privateCar({ memberCompanyId: 999 })), 'ER001');
  });

  it('keeps certificates across instances: issue in one, get, validate and double-insurance in the other', async () => {
    const issued = await a.issue(
      privateCar({ policyHolder: 'Simba Holder', registrationNumber: 'KDB 100A', chassisNumber: 'DBCH100' }),
    );
    expect(issued.success, JSON.stringify(issued.errors)).toBe(true);
    expect(issued.referenceNo).toMatch(/^REF\d{9}$/);
    const got = await b.get(issued.certificateNo!);
    expect(got.certificate).toMatchObject({
      certificateNo: issued.certificateNo,
      insurer: 'Simba General Insurance Company Limited',
      registrationNumber: 'KDB100A',
      status: 'Active',
    });
    expect(
      (await b.validate({ certificateNo: issued.certificateNo!, registration: 'kdb 100a', chassis: 'dbch100' }))
        .success,
    ).toBe(true);
    const di = await b.doubleInsuranceCheck({
      registration: 'KDB100A',
      chassis: '',
      start: '01/12/2026',
      end: '31/12/2026',
    });
    expect(di.conflicts).toMatchObject([{ certificateNo: issued.certificateNo, memberCompanyId: 101 }]);
    expectFailure(
      await b.issue(privateCar({ memberCompanyId: 102, registrationNumber: 'KDB 100A', chassisNumber: 'OTHER' })),
      'ER005',
    );
    // Numbers continue across instances.
    const next = await b.issue(privateCar({ registrationNumber: 'KDB 101A', chassisNumber: 'DBCH101' }));
    expect(Number(next.certificateNo!.slice(2))).toBe(Number(issued.certificateNo!.slice(2)) + 1);
  });

  it('cancels through either instance within 24 hours, refuses after', async () => {
    const one = await a.issue(privateCar({ registrationNumber: 'KDB 200A', chassisNumber: 'DBCH200' }));
    const two = await a.issue(privateCar({ registrationNumber: 'KDB 201A', chassisNumber: 'DBCH201' }));
    now = new Date(T0.getTime() + 23 * HOUR);
    expect((await b.cancel({ certificateNo: one.certificateNo!, reasonId: 15 })).success).toBe(true);
    expect((await a.get(one.certificateNo!)).certificate).toMatchObject({ status: 'Cancelled', cancelReasonId: 15 });
    now = new Date(T0.getTime() + 25 * HOUR);
    expectFailure(await b.cancel({ certificateNo: two.certificateNo!, reasonId: 15 }), 'ER007', /24 hours/);
  });

  it('stock is settable and runs out (ER006), shared by every instance', async () => {
    await store.setStock(103, 'D', 1);
    const bike = (reg: string) =>
      privateCar({
        memberCompanyId: 103,
        certificateClass: 'D',
        typeOfCover: 200,
        sumInsured: undefined,
        registrationNumber: reg,
        chassisNumber: `CH${reg}`,
      });
    expect((await a.issue(bike('KMDB 1D'))).success).toBe(true);
    expectFailure(await b.issue(bike('KMDB 2D')), 'ER006');
    await store.setStock(103, 'D', -1); // not authorised for the class any more
    expectFailure(await b.issue(bike('KMDB 3D')), 'ER001');
  });
});
