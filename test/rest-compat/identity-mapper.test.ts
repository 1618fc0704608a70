import { describe, expect, it } from 'vitest';
import type { MeQuery } from '../../rest-compat/generated/operations.ts';
import { meToRest } from '../../rest-compat/mappers/identity.ts';

const service: MeQuery['me'] = {
  scopes: ['read', 'bind'],
  requestId: 'req-1',
  client: { id: 'ck_live_1', name: 'Portal', rateLimitPerMinute: 60 },
  tenant: { code: 'ACME', name: 'Acme Brokers', type: 'brokerage', paybill: '400200' },
  actor: null,
  token: { expiresAt: '2025-01-02T00:00:00.000Z', expiresIn: 86_400 },
};

describe('identity mapper', () => {
  it('a key with no acting user: actor null', () => {
    expect(meToRest(service)).toEqual({
      client: { id: 'ck_live_1', name: 'Portal', rate_limit_per_minute: 60 },
      tenant: { code: 'ACME', name: 'Acme Brokers', type: 'brokerage', paybill: '400200' },
      scopes: ['read', 'bind'],
      actor: null,
      token: { expires_at: '2025-01-02T00:00:00.000Z', expires_in: 86_400 },
      request_id: 'req-1',
    });
  });

  it('an agent: code and own_records_only', () => {
    const actor = { id: 5, name: 'Wanjiru', role: 'agent', code: 'AG01', ownRecordsOnly: true };
    expect(meToRest({ ...service, actor }).actor).toEqual({
      id: 5,
      name: 'Wanjiru',
      role: 'agent',
      code: 'AG01',
      own_records_only: true,
    });
  });
});
