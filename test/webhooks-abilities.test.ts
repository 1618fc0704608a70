import { expect, it } from 'vitest';
import { useKit } from './kit.ts';

const t = useKit();
const api = t.api;
const org = t.useOrg({ tokens: [] }); // the test fetches its own

it('managing webhook endpoints needs a user who may: a viewer acting through a webhooks key is actor_forbidden', async () => {
  const admin = await api.token(org.clients.admin.clientId, org.clients.admin.secret);
  const created = await api.post('/api-clients', {
    token: admin,
    idempotencyKey: 'viewer-webhooks-key',
    body: { name: 'viewer with webhooks', scopes: ['read', 'webhooks'], actor_user_id: org.users.viewer.id },
  });
  expect(created.status, created.text).toBe(201);
  const viewer = await api.token(created.body.data.client_id, created.body.data.client_secret);
  const r = await api.post('/webhooks/endpoints', {
    token: viewer,
    idempotencyKey: 'viewer-endpoint',
    body: { url: 'https://hooks.example.com/bima', events: ['*'] },
  });
  expect(r.status, r.text).toBe(403);
  expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
  expect(r.body.code).toBe('actor_forbidden');
  const count = await t.db.tenant(org.id, (tx) => tx.webhookEndpoint.count());
  expect(count).toBe(0);
  // Reading stays a matter of scope: the viewer may list (nothing).
  const list = await api.get('/webhooks/endpoints', { token: viewer });
  expect(list.status, list.text).toBe(200);
});
