import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { refuseUrl } from '../src/modules/webhooks/url-guard.ts';
import { expectEndpointUrlRefused } from './helpers/http.ts';
import { useKit } from './kit.ts';

// Production behaviour: WEBHOOKS_ALLOW_PRIVATE off (test mode turns it on by default).
const t = useKit({ webhooksAllowPrivate: false });
const api = t.api;
const org = t.useOrg({ tokens: ['staff'] });
let token: string;
beforeAll(() => (token = org.tokens.staff));

describe('webhook URLs with private addresses refused', () => {
  it.each([
    ['https://127.0.0.1/hook', 'resolves to a private or loopback address'],
    ['https://localhost:8443/hook', 'resolves to a private or loopback address'],
    ['https://10.0.0.5/hook', 'resolves to a private or loopback address'],
    ['https://172.20.1.1/hook', 'resolves to a private or loopback address'],
    ['https://192.168.0.10/hook', 'resolves to a private or loopback address'],
    ['https://169.254.169.254/latest/meta-data', 'resolves to a private or loopback address'],
    ['https://[::1]/hook', 'resolves to a private or loopback address'],
    ['https://[fd12::1]/hook', 'resolves to a private or loopback address'],
    ['https://0.0.0.0/hook', 'resolves to a private or loopback address'],
    ['http://127.0.0.1/hook', 'must use https://'],
  ])('refuses %s at creation', (url, message) => expectEndpointUrlRefused(api, token, url, message));

  it('refuses a private address on update too, and accepts a public literal address', async () => {
    const c = await api.post('/webhooks/endpoints', {
      token,
      idempotencyKey: randomUUID(),
      body: { url: 'https://93.184.215.14/hook', events: ['*'] },
    });
    expect(c.status, c.text).toBe(201);
    const r = await api.patch(`/webhooks/endpoints/${c.body.data.id}`, {
      token,
      idempotencyKey: randomUUID(),
      body: { url: 'https://192.168.1.1/x' },
    });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('validation_failed');
    expect(r.body.errors).toEqual([{ field: 'url', message: 'resolves to a private or loopback address' }]);
    expect((await api.get(`/webhooks/endpoints/${c.body.data.id}`, { token })).body.data.url).toBe(
      'https://93.184.215.14/hook',
    );
  });

  it('allows loopback and http only when the setting is on', async () => {
    expect(await refuseUrl('http://127.0.0.1:1234/x', 'private')).toBeNull();
    expect(await refuseUrl('http://127.0.0.1:1234/x', 'public')).toBe('must use https://');
    expect(await refuseUrl('https://no-such-host.invalid/x', 'public')).toBe('host does not resolve');
  });
});
