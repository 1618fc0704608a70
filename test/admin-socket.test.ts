import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultOperator } from '../src/admin/cli.ts';
import { type AdminAnswer, type AdminSocket, serveAdminSocket } from '../src/admin/socket.ts';
import { createTestDatabase } from './helpers/db.ts';
import { type Spawned, spawnServer, stopWith, waitHealthy } from './helpers/spawn.ts';
import { useKit } from './kit.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(os.tmpdir(), 'bima-sock-'));
  dirs.push(d);
  return d;
}
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** One request on the socket, as scripts/admin.mjs sends it; the raw answer line parsed. */
function ask(socketPath: string, line: string): Promise<AdminAnswer> {
  return new Promise((resolve, reject) => {
    const s = net.connect(socketPath);
    let answer = '';
    s.setEncoding('utf8');
    s.on('connect', () => s.write(line));
    s.on('data', (c: string) => (answer += c));
    s.on('error', reject);
    s.on('close', () => {
      try {
        resolve(JSON.parse(answer) as AdminAnswer);
      } catch {
        reject(new Error(`no answer: ${JSON.stringify(answer)}`));
      }
    });
  });
}

describe("the service's admin socket (src/admin/socket.ts)", () => {
  const t = useKit();
  const BUILD = 1_700_000_000_000.5;
  let sock: AdminSocket;
  let socketPath: string;
  const DATABASE = 'c0ffee'.repeat(10);
  const run = (argv: string[], user = 'kamau.ops', build: number | null = BUILD, database: string | null = DATABASE) =>
    ask(
      socketPath,
      `${JSON.stringify({ argv, who: { user, account: 'root', host: 'ops-laptop' }, build, database })}\n`,
    );

  it("runs the CLI's commands in the service, for the operator the CLI names, and is its owner's alone (0600)", async () => {
    socketPath = path.join(await tempDir(), 'admin.sock');
    sock = await serveAdminSocket({
      app: t.app.services,
      databaseUrl: t.databaseUrl,
      socketPath,
      build: BUILD,
      database: DATABASE,
      log: t.app.services.log,
    });
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);

    // Two organisations made through the socket, side by side; one is suspended without --operator.
    for (const [code, paybill] of [
      ['sock-one', '600901'],
      ['sock-two', '600902'],
    ]) {
      const made = await run([
        'organisations',
        'create',
        '--code',
        code,
        '--name',
        `${code} Ltd`,
        '--type',
        'agency',
        '--paybill',
        paybill,
      ]);
      expect(made, JSON.stringify(made)).toMatchObject({ exitCode: 0, stderr: '' });
    }
    const suspended = await run(['organisations', 'suspend', '--org', 'sock-two']);
    expect(suspended).toMatchObject({ exitCode: 0, stderr: '' });
    const listed = await run(['organisations', 'list', '--json']);
    expect(listed).toMatchObject({ exitCode: 0, stderr: '' });
    const rows = JSON.parse((listed as { stdout: string }).stdout) as { code: string; status: string }[];
    expect(rows.filter((r) => r.code.startsWith('sock-')).map((r) => [r.code, r.status])).toEqual([
      ['sock-one', 'active'],
      ['sock-two', 'suspended'],
    ]);
    const audit = await t.db.system((tx) =>
      tx.auditLog.findMany({
        where: { action: 'organisation.suspended', tenant: { code: { in: ['sock-one', 'sock-two'] } } },
        select: { actorType: true, actorLabel: true, tenant: { select: { code: true } } },
      }),
    );
    expect(audit).toEqual([
      { actorType: 'system', actorLabel: 'system (operator kamau.ops)', tenant: { code: 'sock-two' } },
    ]);
    // The CLI's $USER, else its OS account, else its host: chosen from what the CLI sends, never the service's own.
    expect(defaultOperator({ user: 'kamau.ops', account: 'root', host: 'h' })).toBe('kamau.ops');
    expect(defaultOperator({ user: ' ', account: 'deploy', host: 'h' })).toBe('deploy');
    expect(defaultOperator({ user: undefined, account: '', host: 'ops-laptop' })).toBe('ops-laptop');
    // --operator still wins over the CLI's default.
    const reactivated = await run(['organisations', 'reactivate', '--org', 'sock-two', '--operator', 'Njeri Ops']);
    expect(reactivated).toMatchObject({ exitCode: 0 });
    const again = await t.db.system((tx) =>
      tx.auditLog.findFirst({ where: { action: 'organisation.reactivated', tenant: { code: 'sock-two' } } }),
    );
    expect(again?.actorLabel).toBe('system (operator Njeri Ops)');
  });

  it('answers usage mistakes and refusals as the CLI does, with their exit codes', async () => {
    const usage = await run(['organisations', 'suspend']);
    expect(usage).toMatchObject({ exitCode: 2, stdout: '' });
    expect((usage as { stderr: string }).stderr).toContain('--org');
    const refused = await run(['organisations', 'suspend', '--org', 'no-such-org', '--json']);
    expect(refused).toMatchObject({ exitCode: 1, stdout: '' });
    expect(JSON.parse((refused as { stderr: string }).stderr)).toEqual({
      error: { code: 'refused', message: 'no organisation with code "no-such-org"' },
    });
    // A pasted 10,000-character code is echoed cut short, not back in full.
    const long = await run(['organisations', 'suspend', '--org', 'x'.repeat(10_000)]);
    expect(long).toMatchObject({ exitCode: 1, stdout: '' });
    expect((long as { stderr: string }).stderr.length).toBeLessThan(200);
    const help = await run(['--help']);
    expect(help).toMatchObject({ exitCode: 0 });
    expect((help as { stdout: string }).stdout).toContain('Usage: npm run admin --');
  });

  it('sends the CLI home for another build, for webhooks listen and trigger, and for a malformed request', async () => {
    expect(await run(['organisations', 'list'], 'x', BUILD + 1)).toEqual({ local: 'build' });
    expect(await run(['organisations', 'list'], 'x', null)).toEqual({ local: 'build' });
    // Another database (the CLI's DATABASE_URL, by its hash, or none where the service has one).
    expect(await run(['organisations', 'list'], 'x', BUILD, 'ab'.repeat(32))).toEqual({ local: 'database' });
    expect(await run(['organisations', 'list'], 'x', BUILD, null)).toEqual({ local: 'database' });
    // Commands that run until Ctrl-C or re-wire the services' rails never run inside the service.
    expect(await run(['webhooks', 'listen', '--org', 'sock-one', '--forward-to', 'http://127.0.0.1:9/'])).toEqual({
      local: 'own-process',
    });
    for (const event of ['payment.received', 'claim.registered', 'certificate.issued'])
      expect(await run(['trigger', event, '--org', 'sock-one'])).toEqual({ local: 'own-process' });
    expect(await ask(socketPath, 'not json\n')).toEqual({ local: 'bad-request' });
    expect(
      await ask(socketPath, `${JSON.stringify({ argv: [1, 2], who: { host: 'h' }, build: BUILD, database: null })}\n`),
    ).toEqual({
      local: 'bad-request',
    });
    // Nothing but a request line's worth: refused without waiting for a newline that never comes.
    expect(await ask(socketPath, 'x'.repeat(70 * 1024))).toEqual({ local: 'bad-request' });
  });

  it('closes: the socket file is gone and nobody answers', async () => {
    await sock.close(5_000);
    expect(existsSync(socketPath)).toBe(false);
    await expect(run(['organisations', 'list'])).rejects.toThrow();
  });
});

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run admin -- …` as an operator types it beside `npm start`: scripts/admin.mjs, with DATA_DIR and no DATABASE_URL. */
function admin(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['scripts/admin.mjs', ...args],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: process.env.HOME ?? '/root',
          DATA_DIR: dataDir,
          USER: 'wanjiru.ops',
          ...env,
        },
        timeout: 60_000,
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

const commandLines = (s: Spawned) =>
  s
    .output()
    .split('\n')
    .filter((l) => l.includes('"msg":"admin command"'));

/** The service's log lines of the commands it ran, once there are `n` (its log reaches the pipe after the answer). */
async function commandsRun(s: Spawned, n: number): Promise<string[]> {
  for (let i = 0; i < 40 && commandLines(s).length < n; i++) await new Promise((r) => setTimeout(r, 50));
  return commandLines(s);
}

describe('npm run admin beside npm start', () => {
  it('hands its command to the started service, runs it itself when asked to or when nobody answers, and the two agree', async () => {
    const dataDir = path.join(await tempDir(), '.data');
    const s = spawnServer({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info' }, { bundle: true });
    try {
      await waitHealthy(s, 120_000);
      const socketPath = path.join(dataDir, 'admin.sock');
      expect(statSync(socketPath).mode & 0o777).toBe(0o600);

      const viaService = await admin(dataDir, ['organisations', 'list', '--json']);
      expect(viaService.code, viaService.stderr).toBe(0);
      const ran = await commandsRun(s, 1);
      expect(ran).toHaveLength(1);
      expect(JSON.parse(ran[0])).toMatchObject({ argv: ['organisations', 'list'], exit_code: 0 });

      const inProcess = await admin(dataDir, ['organisations', 'list', '--json'], { BIMA_ADMIN_IN_PROCESS: '1' });
      expect(inProcess.code, inProcess.stderr).toBe(0);
      expect(await commandsRun(s, 2)).toHaveLength(1);
      expect(inProcess.stdout).toBe(viaService.stdout);
      expect(JSON.parse(viaService.stdout).map((o: { code: string }) => o.code)).toEqual(
        expect.arrayContaining(['savannah-brokers']),
      );

      // A usage mistake through the service: exit 2 and the hint, as in-process.
      const usage = await admin(dataDir, ['organisations', 'suspend']);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain('see: npm run admin -- organisations suspend --help');
    } finally {
      expect(await stopWith(s, 'SIGTERM', 60_000)).toEqual({ code: 0, signal: null });
    }
    // A clean stop takes its socket with it.
    expect(existsSync(path.join(dataDir, 'admin.sock'))).toBe(false);
  }, 240_000);

  it('with DATABASE_URL: a CLI naming the same database goes through the service, one naming another runs itself', async () => {
    const database = await createTestDatabase('sock');
    const dataDir = path.join(await tempDir(), '.data');
    const s = spawnServer(
      { PORT: '0', DATA_DIR: dataDir, DATABASE_URL: database.url, LOG_LEVEL: 'info' },
      { bundle: true },
    );
    try {
      await waitHealthy(s, 120_000);
      const same = await admin(dataDir, ['organisations', 'list', '--json'], { DATABASE_URL: database.url });
      expect(same.code, same.stderr).toBe(0);
      expect(await commandsRun(s, 1)).toHaveLength(1);
      // The same server by another URL is another database as far as the CLI can tell: it runs the command itself.
      const other = await admin(dataDir, ['organisations', 'list', '--json'], {
        DATABASE_URL: `${database.url}${database.url.includes('?') ? '&' : '?'}application_name=ops`,
      });
      expect(other.code, other.stderr).toBe(0);
      expect(await commandsRun(s, 2)).toHaveLength(1);
      expect(other.stdout).toBe(same.stdout);
    } finally {
      expect(await stopWith(s, 'SIGTERM', 60_000)).toEqual({ code: 0, signal: null });
      await database.drop().catch(() => undefined);
    }
  }, 240_000);

  it('with a socket file nobody answers on (a killed service), runs the command itself', async () => {
    const dataDir = await tempDir();
    await writeFile(path.join(dataDir, 'admin.sock'), '');
    const r = await admin(dataDir, ['organisations', 'list']);
    // Run here: this DATA_DIR has no database, which is what the in-process CLI says.
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no database is running');
  }, 60_000);
});
