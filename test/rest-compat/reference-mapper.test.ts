import { describe, expect, it } from 'vitest';
import {
  branchToRest,
  insurerToRest,
  levyToRest,
  motorBenefitToRest,
  productsToRest,
  staffToRest,
} from '../../rest-compat/mappers/reference.ts';
import { m } from './fixtures.ts';

describe('reference-data mappers', () => {
  it('insurer and branch: databaseId is the legacy id', () => {
    expect(
      insurerToRest({
        databaseId: 3,
        name: 'Jubilee',
        legalName: 'Jubilee Allianz General Insurance (K) Ltd',
        registryMemberId: 12,
        commissionRateBps: 1000,
        status: 'active',
        monogram: 'JB',
      }),
    ).toEqual({
      id: 3,
      name: 'Jubilee',
      legal_name: 'Jubilee Allianz General Insurance (K) Ltd',
      registry_member_id: 12,
      commission_rate_bps: 1000,
      status: 'active',
      monogram: 'JB',
    });
    expect(branchToRest({ databaseId: 1, code: 'NBO', name: 'Nairobi', city: 'Nairobi' })).toEqual({
      id: 1,
      code: 'NBO',
      name: 'Nairobi',
      city: 'Nairobi',
    });
  });

  it('staff: an account executive has no agent code and may have no branch', () => {
    expect(
      staffToRest({
        databaseId: 9,
        name: 'Otieno',
        email: 'o@example.test',
        phone: '254700000001',
        role: 'account_exec',
        code: null,
        branchId: null,
      }),
    ).toEqual({
      id: 9,
      name: 'Otieno',
      email: 'o@example.test',
      phone: '254700000001',
      role: 'account_exec',
      code: null,
      branch_id: null,
    });
  });

  it('levies: a percent levy has no amount (nulls), a flat duty has its money pair', () => {
    const base = { databaseId: 1, code: 'TL', name: 'Training levy', basis: 'percent' };
    expect(levyToRest({ ...base, rateBps: 20, ratePercent: 0.2, amount: null })).toEqual({
      id: 1,
      code: 'TL',
      name: 'Training levy',
      basis: 'percent',
      rate_bps: 20,
      rate_percent: 0.2,
      amount: null,
      amount_minor: null,
    });
    expect(
      levyToRest({ ...base, code: 'SD', basis: 'flat', rateBps: null, ratePercent: null, amount: m(40, 4_000) }),
    ).toMatchObject({ rate_bps: null, rate_percent: null, amount: 40, amount_minor: 4_000 });
  });

  it('motor benefits and products', () => {
    expect(motorBenefitToRest({ id: 'b1', name: 'Windscreen' })).toEqual({ id: 'b1', name: 'Windscreen' });
    expect(
      productsToRest({
        lines: [{ code: 'motor', name: 'Motor', quoteEndpoint: '/motor/quote' }],
        standardProducts: [
          {
            databaseId: 2,
            code: 'PVT',
            name: 'Private car',
            description: 'Cover for private cars',
            brochureUrl: null,
            productLine: 'motor',
          },
        ],
      }),
    ).toEqual({
      lines: [{ code: 'motor', name: 'Motor', quote_endpoint: '/motor/quote' }],
      standard_products: [
        {
          id: 2,
          code: 'PVT',
          name: 'Private car',
          description: 'Cover for private cars',
          brochure_url: null,
          product_line: 'motor',
        },
      ],
    });
  });
});
