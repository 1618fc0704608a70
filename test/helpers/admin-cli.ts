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
 * The admin CLI as an operator runs it (`npm run admin --` is `tsx scripts/admin.ts`), as a child process on a test
 * server's database, with an environment built from scratch so nothing of the runner leaks in.
 */
export function runAdmin(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/admin.ts', ...args],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: process.env.HOME ?? '/root',
          NODE_ENV: 'test',
          DATABASE_URL: databaseUrl,
          USER: 'wanjiru.ops',
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
