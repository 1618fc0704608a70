/**
 * Webhooks tried locally (issue 29): a sandbox organisation outside production may point an endpoint at its own
 * machine (http or https to loopback: a developer's receiver, `npm run admin -- … listen`) and gets deliveries
 * there; a live organisation on the same service still may not, and nothing else private opens up for either.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookReach } from '../src/modules/webhooks/url-guard.ts';
import { verifySignature, WebhookReceiver } from './helpers/webhook-receiver.ts';
import { useKit, waitFor } from './kit.ts';

// WEBHOOKS_ALLOW_PRIVATE off, as in production; NODE_ENV is test (not production).
const t = useKit({ webhooksAllowPrivate: false, webhookTimeoutMs: 2_000 }, { jobs: true });
const sandbox = t.useOrg({ tokens: ['staff'], sandbox: true });
const live = t.useOrg({ tokens: ['staff'] });
const receiver = new WebhookReceiver();
beforeAll(() => receiver.start());
afterAll(() => receiver.stop());

const create = (token: string, url: string) =>
  t.api.post('/webhooks/endpoints', { token, idempotencyKey: randomUUID(), body: { url, events: ['*'] } });

describe('a sandbox organisation outside production', () => {
  it('may use http to its own machine, and a test event arrives there signed', async () => {
    const token = sandbox.tokens.staff;
    const c = await create(token, receiver.url);
    expect(c.status, c.text).toBe(201);
    for (const url of ['http://localhost:4999/hook', 'http://[::1]:4999/hook', 'https://127.0.0.1:4999/hook']) {
      expect((await create(token, url)).status, url).toBe(201);
    }
    const sent = await t.api.post(`/webhooks/endpoints/${c.body.data.id}/test`, {
      token,
      idempotencyKey: randomUUID(),
      body: { message: 'hello from the sandbox' },
    });
    expect(sent.status, sent.text).toBe(202);
    await waitFor(
      'the test event at the loopback receiver',
      async () => receiver.received.length,
      (n) => n > 0,
      {
        ms: 15_000,
      },
    );
    const got = receiver.received[0];
    expect((got.body as { event: string }).event).toBe('ping');
    expect(verifySignature(c.body.data.secret, got.headers['service-signature'] as string, got.raw)).toBe(true);
  });

  it('may not reach anything else private, by http or https', async () => {
    const token = sandbox.tokens.staff;
    for (const [url, message] of [
      ['http://169.254.169.254/latest/meta-data', 'must use https://'],
      ['http://10.0.0.1/hook', 'must use https://'],
      ['http://93.184.215.14/hook', 'must use https://'],
      ['https://10.0.0.1/hook', 'resolves to a private or loopback address'],
      ['https://169.254.169.254/latest', 'resolves to a private or loopback address'],
    ]) {
      const r = await create(token, url);
      expect(r.status, url).toBe(422);
      expect(r.body.errors).toEqual([{ field: 'url', message }]);
    }
  });
});

describe('a live organisation on the same service', () => {
  it('still may not use its machine', async () => {
    for (const [url, message] of [
      [receiver.url, 'must use https://'],
      ['https://127.0.0.1:4999/hook', 'resolves to a private or loopback address'],
    ]) {
      const r = await create(live.tokens.staff, url);
      expect(r.status, url).toBe(422);
      expect(r.body.errors).toEqual([{ field: 'url', message }]);
    }
  });
});

describe('webhookReach', () => {
  it('is loopback for a sandbox outside production only; WEBHOOKS_ALLOW_PRIVATE opens everything', () => {
    expect(webhookReach({ webhooksAllowPrivate: false, nodeEnv: 'development' }, true)).toBe('loopback');
    expect(webhookReach({ webhooksAllowPrivate: false, nodeEnv: 'test' }, true)).toBe('loopback');
    expect(webhookReach({ webhooksAllowPrivate: false, nodeEnv: 'production' }, true)).toBe('public');
    expect(webhookReach({ webhooksAllowPrivate: false, nodeEnv: 'development' }, false)).toBe('public');
    expect(webhookReach({ webhooksAllowPrivate: true, nodeEnv: 'production' }, false)).toBe('private');
  });
});
