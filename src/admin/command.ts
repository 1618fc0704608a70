import type { Runtime } from './runtime.ts';
import { CliError } from './database.ts';

/** One option of a command, as node:util parseArgs takes it, with what --help says about it. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  /** What --help shows after the flag, e.g. `<code>`. */
  arg?: string;
  description: string;
  required?: boolean;
}

export type Values = Record<string, string | boolean | string[] | undefined>;

/** What a command answers: the value --json prints, and the lines a person reads. */
export interface Output {
  json: unknown;
  text: string;
}

export interface Command {
  name: string;
  summary: string;
  /** Longer help: what it does, what it prints, what it changes. */
  details?: string;
  options: Record<string, OptionSpec>;
  /**
   * Why this command runs in the CLI's own process, never in a started service (src/admin/socket.ts): it runs until
   * Ctrl-C, or it re-wires the runtime's services for its flow (rails, limits, a callback server of its own).
   */
  ownProcess?: string;
  run(rt: Runtime, values: Values): Promise<Output>;
}

export interface CommandGroup {
  name: string;
  summary: string;
  commands: Command[];
  /** A paragraph the group's help ends with. */
  footer?: string;
  /** The usage error for a command the group does not have (default: `unknown command <group> <name>`). */
  unknownCommand?: (name: string) => string;
}

/** `--org <code>`: the organisation a command acts on. */
export const ORG: OptionSpec = { type: 'string', arg: '<code>', description: 'the organisation code', required: true };

/** The options every command takes. */
export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  json: { type: 'boolean', description: 'print the result as JSON on stdout (errors as JSON on stderr)' },
  operator: {
    type: 'string',
    arg: '<name>',
    description:
      'who is at the console, recorded in the audit log (default: $USER, else the OS user, else the host name)',
  },
  help: { type: 'boolean', description: 'show this help' },
};

/** A usage mistake: exit code 2, with the command's help named. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
  }
}

export function str(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

export function required(values: Values, name: string): string {
  const v = str(values, name);
  if (v === undefined || v.trim() === '') throw new UsageError(`--${name} is required`);
  return v.trim();
}

/** A whole number option (units, ids, hours), or a usage error naming it. */
export function int(values: Values, name: string, opts: { required?: boolean } = {}): number | undefined {
  const v = opts.required ? required(values, name) : str(values, name);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v.trim())) throw new UsageError(`--${name} must be a whole number, got ${JSON.stringify(v)}`);
  return Number(v);
}

export function oneOf<T extends string>(values: Values, name: string, allowed: readonly T[], fallback?: T): T {
  const v = str(values, name) ?? fallback;
  if (v === undefined) throw new UsageError(`--${name} is required (one of ${allowed.join(', ')})`);
  if (!allowed.includes(v as T)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}, got ${v}`);
  return v as T;
}

/** Comma- or space-separated lists, possibly given as repeated flags. */
export function list(values: Values, name: string): string[] {
  const v = values[name];
  const parts = Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
  return parts.flatMap((p) => p.split(/[\s,]+/)).filter(Boolean);
}

/** One value as a person reads it: `-` for none, lists comma-separated, objects as JSON. */
function cell(v: unknown): string {
  if (v == null) return '-';
  if (Array.isArray(v)) return v.map(cell).join(', ');
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** `key: value` lines, aligned, for a person to read. */
export function lines(rows: Record<string, unknown>): string {
  const width = Math.max(...Object.keys(rows).map((k) => k.length));
  return Object.entries(rows)
    .map(([k, v]) => `${`${k}:`.padEnd(width + 2)}${cell(v)}`)
    .join('\n');
}

/** A plain table for list commands. */
export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (!rows.length) return '(none)';
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const row = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [row(columns), ...rows.map((r) => row(columns.map((c) => cell(r[c]))))].join('\n');
}

/** A one-time secret's warning, the same words wherever one is printed. */
export const SHOWN_ONCE = 'shown once: store it now, it cannot be shown again';
