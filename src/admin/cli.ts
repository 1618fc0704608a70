import os from 'node:os';
import { parseArgs } from 'node:util';
import { setTestClock } from '../lib/clock.ts';
import { type Config, loadConfig } from '../lib/config.ts';
import { isAppError } from '../lib/problem.ts';
import { apiClients } from './api-clients.ts';
import {
  type Command,
  type CommandGroup,
  GLOBAL_OPTIONS,
  type OptionSpec,
  UsageError,
  type Values,
} from './command.ts';
import { CliError } from './database.ts';
import { lifecycle } from './lifecycle.ts';
import { organisations } from './organisations.ts';
import { payments } from './payments.ts';
import { openRuntime, type Runtime } from './runtime.ts';
import { sandbox } from './sandbox.ts';
import { sms } from './sms.ts';
import { trigger } from './trigger.ts';
import { agents, users } from './users.ts';
import { webhooks } from './webhooks.ts';

/**
 * `npm run admin -- <group> <command> [options]` (scripts/admin.ts): the operator's tool. Each command calls the
 * services the API calls, on the organisation it names, as the `system` actor with the operator's name in the audit
 * log (runtime.ts). Exit codes: 0 done, 1 refused (the service's or the database's reason), 2 a usage mistake.
 */
export const GROUPS: CommandGroup[] = [
  organisations,
  users,
  agents,
  apiClients,
  sms,
  webhooks,
  payments,
  lifecycle,
  sandbox,
  trigger,
];

const PROG = 'npm run admin --';

function flag(name: string, o: OptionSpec): string {
  return `--${name}${o.arg ? ` ${o.arg}` : ''}`;
}

function optionLines(options: Record<string, OptionSpec>): string[] {
  const entries = Object.entries(options);
  const width = Math.max(0, ...entries.map(([n, o]) => flag(n, o).length));
  return entries.map(([n, o]) => `  ${flag(n, o).padEnd(width)}  ${o.description}${o.required ? ' (required)' : ''}`);
}

function topHelp(): string {
  const width = Math.max(...GROUPS.flatMap((g) => g.commands.map((c) => `${g.name} ${c.name}`.length)));
  return [
    `Usage: ${PROG} <group> <command> [options]`,
    '',
    'Administers the service on its database (DATABASE_URL, else the embedded PostgreSQL of a running `npm start`).',
    '',
    'Commands:',
    ...GROUPS.flatMap((g) => g.commands.map((c) => `  ${`${g.name} ${c.name}`.padEnd(width)}  ${c.summary}`)),
    '',
    'Every command takes:',
    ...optionLines(GLOBAL_OPTIONS),
    '',
    `Help on one: ${PROG} <group> <command> --help`,
  ].join('\n');
}

function groupHelp(g: CommandGroup): string {
  const width = Math.max(...g.commands.map((c) => c.name.length));
  return [
    `Usage: ${PROG} ${g.name} <command> [options]`,
    '',
    `${g.summary}:`,
    ...g.commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    ...(g.footer ? [g.footer, ''] : []),
    `Help on one: ${PROG} ${g.name} <command> --help`,
  ].join('\n');
}

function commandHelp(g: CommandGroup, c: Command): string {
  return [
    `Usage: ${PROG} ${g.name} ${c.name} [options]`,
    '',
    c.summary,
    ...(c.details ? ['', c.details] : []),
    '',
    'Options:',
    ...optionLines({ ...c.options, ...GLOBAL_OPTIONS }),
  ].join('\n');
}

/** Parses a command's options (strict: an unknown or malformed option is a usage error) and checks required ones. */
function parseOptions(c: Command, args: string[]): Values {
  const all = { ...c.options, ...GLOBAL_OPTIONS };
  const options = Object.fromEntries(
    Object.entries(all).map(([n, o]) => [n, { type: o.type, ...(o.multiple ? { multiple: true } : {}) }]),
  );
  let values: Values;
  try {
    values = parseArgs({ args, options, strict: true, allowPositionals: false }).values as Values;
  } catch (e) {
    throw new UsageError((e as Error).message.split('\n')[0]);
  }
  if (values.help) return values;
  const missing = Object.entries(c.options).filter(([n, o]) => o.required && values[n] === undefined);
  if (missing.length) throw new UsageError(`missing ${missing.map(([n, o]) => flag(n, o)).join(', ')}`);
  return values;
}

/**
 * Who is at the console, for the audit: --operator, else $USER, else the OS account running the CLI, else the host
 * (a container or CI job has no $USER, and may run as a uid with no account name).
 */
function operatorName(values: Values, host: CliHost): string {
  const name = (typeof values.operator === 'string' ? values.operator : host.defaultOperator())?.trim();
  if (!name) throw new UsageError('say who you are: --operator <name>');
  if (name.length > 100 || /[\p{Cc}]/u.test(name)) throw new UsageError('--operator: at most 100 printable characters');
  return name;
}

/** Who runs the console, as the OS tells it: what the default operator is chosen from. */
export interface ConsoleIdentity {
  /** $USER */
  user?: string;
  /** The OS account's name (none for a uid without one). */
  account?: string;
  host: string;
}

function consoleIdentity(): ConsoleIdentity {
  let account: string | undefined;
  try {
    account = os.userInfo().username;
  } catch {
    /* a uid with no account name */
  }
  return { user: process.env.USER, account, host: os.hostname() };
}

/** $USER, else the OS account, else the host. */
export function defaultOperator(who: ConsoleIdentity = consoleIdentity()): string {
  return [who.user, who.account].find((n) => n?.trim()) ?? who.host;
}

function readConfig(): Config {
  try {
    const config = loadConfig();
    // Test mode only (loadConfig refuses TEST_CLOCK elsewhere), as src/main.ts does.
    if (config.testClock) setTestClock(config.testClock.at, { frozen: config.testClock.frozen });
    return config;
  } catch (e) {
    throw new CliError(`bad setting: ${(e as Error).message}`);
  }
}

/** How a refusal reads: the service's problem (code, detail, field errors) or the CLI's own sentence. */
function describe(e: unknown): { code: string; message: string; errors?: { field: string; message: string }[] } {
  if (isAppError(e)) {
    const errors = e.errors?.map((f) => ({ field: f.field, message: f.message }));
    return { code: e.code, message: e.detail, ...(errors?.length ? { errors } : {}) };
  }
  if (e instanceof UsageError) return { code: 'usage', message: e.message };
  if (e instanceof CliError) return { code: 'refused', message: e.message };
  const text = e instanceof Error ? e.message : String(e);
  // Prisma's messages open with a blank line and a code excerpt: the last non-empty line is the reason.
  const reason =
    text
      .split('\n')
      .filter((l) => l.trim())
      .at(-1) ??
    (e as Error)?.name ??
    'unknown error';
  return { code: 'failed', message: reason.trim() };
}

function fail(host: CliHost, e: unknown, json: boolean, hint?: string): number {
  const d = describe(e);
  if (json) host.stderr(`${JSON.stringify({ error: d })}\n`);
  else {
    const fields = (d.errors ?? []).map((f) => `\n  ${f.field}: ${f.message}`).join('');
    host.stderr(`error: ${d.message}${fields}\n${hint ? `${hint}\n` : ''}`);
  }
  if (!(e instanceof CliError) && !isAppError(e)) host.unexpected(e);
  return e instanceof CliError ? e.exitCode : 1;
}

/**
 * Where one invocation's answer goes and what it runs on. The console's (below) writes to this process's streams and
 * opens a runtime over a pool of its own; the running service's admin socket (socket.ts) brings its own services and
 * hands the answer back to the CLI that asked.
 */
export interface CliHost {
  stdout(text: string): void;
  stderr(text: string): void;
  /** The operator when --operator is not given: the console's user (defaultOperator). */
  defaultOperator(): string;
  openRuntime(operator: string): Promise<Runtime>;
  /** A failure that is neither a refusal nor a usage mistake (a bug, a lost connection): its stack, somewhere. */
  unexpected(e: unknown): void;
}

export const consoleHost: CliHost = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  defaultOperator: () => defaultOperator(),
  openRuntime: (operator) => openRuntime(readConfig(), operator),
  unexpected: (e) => void (process.env.DEBUG && console.error(e)),
};

/** The group and command an argv names (`<group> <command> …`), each undefined when there is none of that name. */
export function commandOf([groupName, commandName]: string[]): { group?: CommandGroup; command?: Command } {
  const group = GROUPS.find((g) => g.name === groupName);
  return { group, command: group?.commands.find((c) => c.name === commandName) };
}

/** Runs one invocation; resolves with the exit code. */
export async function main(argv: string[], host: CliHost = consoleHost): Promise<number> {
  const json = argv.includes('--json');
  const [groupName, commandName] = argv;
  if (!groupName || groupName === '--help' || groupName === '-h' || groupName === 'help') {
    host.stdout(`${topHelp()}\n`);
    return groupName ? 0 : 2;
  }
  const { group, command } = commandOf(argv);
  if (!group) return fail(host, new UsageError(`unknown command group ${groupName}`), json, `see: ${PROG} --help`);
  if (!commandName || commandName.startsWith('-')) {
    host.stdout(`${groupHelp(group)}\n`);
    return commandName === '--help' || commandName === '-h' ? 0 : 2;
  }
  const hint = `see: ${PROG} ${group.name}${command ? ` ${command.name}` : ''} --help`;
  if (!command) {
    const message = group.unknownCommand?.(commandName) ?? `unknown command ${group.name} ${commandName}`;
    return fail(host, new UsageError(message), json, hint);
  }
  try {
    const values = parseOptions(command, argv.slice(2));
    if (values.help) {
      host.stdout(`${commandHelp(group, command)}\n`);
      return 0;
    }
    const operator = operatorName(values, host);
    const rt = await host.openRuntime(operator);
    try {
      const out = await command.run(rt, values);
      host.stdout(json ? `${JSON.stringify(out.json, null, 2)}\n` : `${out.text}\n`);
      return 0;
    } finally {
      await rt.close();
    }
  } catch (e) {
    return fail(host, e, json, e instanceof UsageError ? hint : undefined);
  }
}
