/**
 * `npm run admin -- webhooks listen --forward-to <url>` (issue 29), modelled on `stripe listen`: the organisation's
 * events from the moment it is ready, each POSTed to a local URL with the envelope and headers a delivery sends,
 * signed with the session's secret; another organisation's events never. The CLI runs as the operator runs it (a
 * child process on the test server's database), and the receiver checks the signature with the test's own verifier.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childClockEnv } from './helpers/clock.ts';
import { parseSignature, verifySignature, WebhookReceiver } from './helpers/webhook-receiver.ts';
import { useKit, waitFor } from './kit.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const t = useKit();
const a = t.useOrg({ tokens: ['staff'] });
const b = t.useOrg({ tokens: ['staff'] });
const receiver = new WebhookReceiver();
beforeAll(() => receiver.start());
afterAll(() => receiver.stop());

/** The CLI as a child process, its output collected as it comes. */
function startCli(args: string[]): { child: ChildProcess; out: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['scripts/admin.mjs', ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/root',
      NODE_ENV: 'test',
      DATABASE_URL: t.databaseUrl,
      USER: 'listen.test',
      BIMA_ADMIN_IN_PROCESS: '1',
      ...childClockEnv(),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, exited };
}

/** Sends a test event (`ping`) of an organisation through its own endpoint: an event in its log. */
async function ping(token: string, message: string): Promise<string> {
  const e = await t.api.post('/webhooks/endpoints', {
    token,
    idempotencyKey: randomUUID(),
    body: { url: 'https://93.184.215.14/hook', events: ['*'] },
  });
  expect(e.status, e.text).toBe(201);
  const r = await t.api.post(`/webhooks/endpoints/${e.body.data.id}/test`, {
    token,
    idempotencyKey: randomUUID(),
    body: { message },
  });
  expect(r.status, r.text).toBe(202);
  return r.body.data.event_id;
}

describe('webhooks listen --forward-to', () => {
  it("forwards the organisation's next event signed as a delivery, with status and latency printed; not another's", async () => {
    const secret = 'whsec_listen_test_secret_0123456789';
    const cli = startCli(['webhooks', 'listen', '--org', a.code, '--forward-to', receiver.url, '--secret', secret]);
    try {
      await waitFor(
        'the ready line',
        async () => cli.out(),
        (o) => o.includes('Ready!'),
        { ms: 60_000 },
      );
      expect(cli.out()).toContain(`Your webhook signing secret is ${secret}`);
      await ping(b.tokens.staff, 'not for this session');
      const eventId = await ping(a.tokens.staff, 'hello from listen');
      await waitFor(
        'the forwarded event',
        async () => receiver.received.length,
        (n) => n >= 1,
        { ms: 20_000 },
      );
      await waitFor(
        'the printed answer',
        async () => cli.out(),
        (o) => o.includes('<-- [200]'),
        { ms: 10_000 },
      );

      expect(receiver.received).toHaveLength(1);
      const got = receiver.received[0];
      const body = got.body as { id: string; event: string; tenant: { code: string }; data: { message: string } };
      expect(body).toMatchObject({ id: eventId, event: 'ping', tenant: { code: a.code } });
      expect(body.data.message).toBe('hello from listen');
      expect(got.headers['service-event']).toBe('ping');
      expect(got.headers['service-delivery']).toBe(eventId);
      expect(got.headers['user-agent']).toBe('Service-Webhooks/1.0');
      const sig = got.headers['service-signature'] as string;
      expect(parseSignature(sig).v1).toHaveLength(1);
      expect(verifySignature(secret, sig, got.raw)).toBe(true);
      expect(verifySignature('whsec_another', sig, got.raw)).toBe(false);
      expect(cli.out()).toContain(`--> ping [${eventId}]`);
      expect(cli.out()).toMatch(new RegExp(`<-- \\[200\\] POST ${receiver.url.replace(/[.]/g, '\\.')} \\(\\d+ ms\\)`));
    } finally {
      cli.child.kill('SIGINT');
    }
    // Ctrl-C ends it cleanly, saying how many it forwarded.
    expect(await cli.exited).toBe(0);
    expect(cli.out()).toContain('1 event forwarded');
  }, 120_000);

  it('refuses a bad --forward-to or an event outside the catalogue, before listening', async () => {
    for (const [args, message] of [
      [['--forward-to', 'not a url'], '--forward-to: an absolute http:// or https:// URL'],
      [['--forward-to', 'ftp://127.0.0.1/x'], '--forward-to: an absolute http:// or https:// URL'],
      [['--forward-to', receiver.url, '--events', 'policy.activated,no.such'], 'not in the catalogue: no.such'],
    ] as const) {
      const cli = startCli(['webhooks', 'listen', '--org', a.code, ...args]);
      expect(await cli.exited).toBe(2);
      expect(cli.out()).toContain(message);
    }
  }, 120_000);
});
