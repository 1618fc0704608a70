import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestTenant, type TestTenant } from './factories/tenant.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { Api } from './helpers/http.ts';

let t: TestApp;
let api: Api;
let org: TestTenant;
beforeAll(async () => {
  t = await startTestApp();
  api = new Api(t.origin);
  org = await createTestTenant(t.db);
});
afterAll(() => t?.stop());

describe('smoke', () => {
  it('gets a token and reads /me', async () => {
    const token = await api.token(org.clients.staff.clientId, org.clients.staff.secret);
    const r = await api.get('/me', { token });
    expect(r.status).toBe(200);
    expect(r.body.data.tenant.code).toBe(org.code);
  });
});
