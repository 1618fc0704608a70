import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time a process and all its descendants have used (the service's includes its embedded PostgreSQL), from
 * /proc. On a shared machine throughput swings with whatever else runs, but the CPU each request costs barely
 * does, so it is the steadier figure to compare runs by. Null where /proc is missing (not Linux).
 */
let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

interface Stat {
  ppid: number;
  ticks: number;
}

function readStat(pid: string): Stat | null {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields that follow start after the last ')'.
    const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) };
  } catch {
    return null; // exited meanwhile
  }
}

export interface CpuSeconds {
  /** The process itself. */
  own: number;
  /** The process and all its descendants. */
  tree: number;
}

/** Seconds of CPU used so far by `pid`, alone and with its descendants. */
export function treeCpuSeconds(pid: number | undefined): CpuSeconds | null {
  if (pid === undefined) return null;
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return null;
  }
  const stats = new Map<number, Stat>();
  for (const e of entries) {
    const s = readStat(e);
    if (s) stats.set(Number(e), s);
  }
  if (!stats.has(pid)) return null;
  const children = new Map<number, number[]>();
  for (const [p, s] of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), p]);
  let ticks = 0;
  const todo = [pid];
  while (todo.length) {
    const p = todo.pop()!;
    ticks += stats.get(p)?.ticks ?? 0;
    todo.push(...(children.get(p) ?? []));
  }
  return { own: stats.get(pid)!.ticks / clockTicks(), tree: ticks / clockTicks() };
}
