/**
 * `npm run admin -- trigger <event> --org <code>` (like `stripe trigger`): on a sandbox organisation, the real flow
 * that emits the event is driven through the services (quote, bind, STK push on the simulated rail, its callback, the
 * registry's certificate, a claim, a cancellation …), and the command waits until the event is recorded. The CLI runs
 * as the operator runs it (a child process on the test server's database); the server runs the job workers that
 * resolve the rail's prompts and call the registry, as `npm start` does. A live organisation beside it is refused and
 * sees nothing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRIGGERS } from '../src/admin/trigger.ts';
import { runAdmin } from './helpers/admin-cli.ts';
import { childClockEnv } from './helpers/clock.ts';
import { verifySignature, WebhookReceiver } from './helpers/webhook-receiver.ts';
import { INSTANT_RAIL, useKit, waitFor } from './kit.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const t = useKit(INSTANT_RAIL, { jobs: true });
const sandbox = t.useOrg({ sandbox: true, tokens: [] });
const live = t.useOrg({ tokens: [] });

interface Triggered {
  organisation: string;
  event: string;
  policy_no: string;
  client_no: string;
  events: { id: string; type: string; created_at: string }[];
}

/** What an organisation has written: policies and events. */
async function counts(tenantId: number) {
  return t.db.system(async (tx) => ({
    policies: await tx.policy.count({ where: { tenantId } }),
    events: await tx.event.count({ where: { tenantId } }),
  }));
}

async function trigger(event: string, org: string): Promise<Triggered> {
  const r = await runAdmin(t.databaseUrl, ['trigger', event, '--org', org, '--json']);
  expect(r.code, `trigger ${event}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout) as Triggered;
}

describe('admin trigger', () => {
  let liveBefore: { policies: number; events: number };
  beforeAll(async () => {
    liveBefore = await counts(live.id);
  });

  it('drives each supported event on the sandbox organisation until it is recorded; the live one sees none of it', async () => {
    // Three at a time: each run is a CLI process of its own, with fresh particulars (no two collide).
    const queue = [...TRIGGERS];
    const done: Triggered[] = [];
    await Promise.all(
      [0, 1, 2].map(async () => {
        for (let next = queue.shift(); next; next = queue.shift()) done.push(await trigger(next.event, sandbox.code));
      }),
    );
    expect(done.map((d) => d.event).sort()).toEqual(TRIGGERS.map((x) => x.event).sort());
    for (const d of done) {
      expect(d.organisation).toBe(sandbox.code);
      const named = d.events.filter((e) => e.type === d.event);
      expect(named.length, `${d.event}: ${JSON.stringify(d.events)}`).toBeGreaterThanOrEqual(1);
      // Recorded for the sandbox organisation, as printed.
      const rows = await t.db.system((tx) =>
        tx.event.findMany({ where: { id: { in: d.events.map((e) => e.id) } }, select: { tenantId: true, name: true } }),
      );
      expect(rows).toHaveLength(d.events.length);
      expect(rows.every((r) => r.tenantId === sandbox.id)).toBe(true);
      expect(rows.some((r) => r.name === d.event)).toBe(true);
    }
    // Each run bound a policy of its own.
    expect(new Set(done.map((d) => d.policy_no)).size).toBe(done.length);
    // The paid flows emit the payment, the activation and the certificate in that order.
    const paid = done.find((d) => d.event === 'certificate.issued')!;
    expect(paid.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['payment.received', 'policy.activated', 'certificate.issued']),
    );
    expect(await counts(live.id)).toEqual(liveBefore);
    // Nine CLI processes: about a minute and a half on two idle cores, more on busy ones.
  }, 300_000);

  it('refuses a live organisation (exit 1) and writes nothing', async () => {
    const before = await counts(live.id);
    const r = await runAdmin(t.databaseUrl, ['trigger', 'payment.received', '--org', live.code]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      `error: ${live.code} is not a sandbox organisation: trigger runs real flows (policies, payments) on sandbox organisations only`,
    ]);
    expect(await counts(live.id)).toEqual(before);
  }, 60_000);

  it('an unknown event is a usage error (exit 2) naming the supported events; --help lists them', async () => {
    const r = await runAdmin(t.databaseUrl, ['trigger', 'policy.teleported', '--org', sandbox.code]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown event policy.teleported: trigger supports payment.received, policy.activated');
    const help = await runAdmin(t.databaseUrl, ['trigger', '--help']);
    expect(help.code).toBe(0);
    for (const x of TRIGGERS) expect(help.stdout).toContain(`  ${x.event}`);
    expect(help.stdout).toContain('Not triggered:');
  }, 60_000);

  describe('with webhooks listen', () => {
    const receiver = new WebhookReceiver();
    beforeAll(() => receiver.start());
    afterAll(() => receiver.stop());

    function listen(args: string[]): { child: ChildProcess; out: () => string; exited: Promise<number | null> } {
      const child = spawn(process.execPath, ['scripts/admin.mjs', ...args], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: process.env.HOME ?? '/root',
          NODE_ENV: 'test',
          DATABASE_URL: t.databaseUrl,
          USER: 'trigger.test',
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

    it('forwards the triggered event to a local receiver, signed with the session secret', async () => {
      const secret = 'whsec_trigger_test_secret_0123456789';
      const cli = listen([
        'webhooks',
        'listen',
        '--org',
        sandbox.code,
        '--forward-to',
        receiver.url,
        '--secret',
        secret,
        '--events',
        'payment.received',
        '--max',
        '1',
      ]);
      try {
        await waitFor(
          'the ready line',
          async () => cli.out(),
          (o) => o.includes('Ready!'),
          { ms: 60_000 },
        );
        const done = await trigger('payment.received', sandbox.code);
        const id = done.events.find((e) => e.type === 'payment.received')!.id;
        await waitFor(
          'the forwarded event',
          async () => receiver.received.length,
          (n) => n >= 1,
          { ms: 20_000 },
        );
        const got = receiver.received[0];
        expect(got.body).toMatchObject({ id, event: 'payment.received', tenant: { code: sandbox.code } });
        expect(verifySignature(secret, got.headers['service-signature'] as string, got.raw)).toBe(true);
        expect(await cli.exited).toBe(0);
      } finally {
        cli.child.kill('SIGINT');
      }
    }, 120_000);
  });
});
