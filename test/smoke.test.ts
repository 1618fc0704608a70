import { describe, expect, it } from 'vitest';
import { useKit } from './kit.ts';

const t = useKit();
const api = t.api;
const org = t.useOrg({ tokens: [] }); // the test fetches its own

describe('smoke', () => {
  it('gets a token and reads /me', async () => {
    const token = await api.token(org.clients.staff.clientId, org.clients.staff.secret);
    const r = await api.get('/me', { token });
    expect(r.status).toBe(200);
    expect(r.body.data.tenant.code).toBe(org.code);
  });
});
