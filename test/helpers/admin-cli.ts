import { execFile } from 'node:child_process';
import path from 'node:path';
import { expect } from 'vitest';
import { childClockEnv } from './clock.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The admin CLI as an operator runs it (`npm run admin --` is `node scripts/admin.mjs`: the compiled CLI, rebuilt
 * first if any source is newer), as a child process on a test server's database, with an environment built from
 * scratch so nothing of the runner leaks in. It runs the command in its own process (BIMA_ADMIN_IN_PROCESS=1), as it
 * does with no service beside it; the admin socket's way is admin-socket.test.ts's. Loading the compiled CLI rather
 * than the sources under tsx took this file from 152 s to 95 s.
 */
export function runAdmin(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['scripts/admin.mjs', ...args],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: process.env.HOME ?? '/root',
          NODE_ENV: 'test',
          DATABASE_URL: databaseUrl,
          USER: 'wanjiru.ops',
          BIMA_ADMIN_IN_PROCESS: '1',
          ...childClockEnv(),
          ...env,
        },
        timeout: 60_000,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs a command with --json and returns its parsed answer; fails with its output otherwise. */
export async function runAdminJson<T = any>(databaseUrl: string, ...args: string[]): Promise<T> {
  const r = await runAdmin(databaseUrl, [...args, '--json']);
  expect(r.code, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout) as T;
}
