import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * A process and all its descendants, from /proc: the service's tree holds its node process (or, with
 * WEB_CONCURRENCY, its primary and workers) and its embedded PostgreSQL (the postmaster and its backends, at any
 * depth). On a shared machine throughput swings with whatever else runs, but the CPU each request costs barely does,
 * so it is the steadier figure to compare runs by. Null where /proc is missing (not Linux).
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
  pid: number;
  ppid: number;
  comm: string;
  ticks: number;
}

function readStat(pid: string): Stat | null {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields that follow start after the last ')'.
    const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    const comm = raw.slice(raw.indexOf('(') + 1, raw.lastIndexOf(')'));
    // utime + stime, and cutime + cstime: what its exited children used once reaped (a PostgreSQL backend that ends
    // during a measurement moves into the postmaster's), so the sum over a tree never drops.
    const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    return { pid: Number(pid), ppid: Number(f[1]), comm, ticks };
  } catch {
    return null; // exited meanwhile
  }
}

export interface TreeProcess extends Stat {
  /** A PostgreSQL process (the postmaster, or anything below it). */
  postgres: boolean;
}

/** `pid` and every descendant, at any depth; empty when `pid` is gone or /proc is unreadable. */
export function processTree(pid: number | undefined): TreeProcess[] {
  if (pid === undefined) return [];
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  const stats = new Map<number, Stat>();
  for (const e of entries) {
    const s = readStat(e);
    if (s) stats.set(s.pid, s);
  }
  const root = stats.get(pid);
  if (!root) return [];
  const children = new Map<number, Stat[]>();
  for (const s of stats.values()) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  const out: TreeProcess[] = [];
  const todo: { s: Stat; underPostgres: boolean }[] = [{ s: root, underPostgres: false }];
  while (todo.length) {
    const { s, underPostgres } = todo.pop()!;
    const postgres = underPostgres || s.comm === 'postgres';
    out.push({ ...s, postgres });
    for (const c of children.get(s.pid) ?? []) todo.push({ s: c, underPostgres: postgres });
  }
  return out;
}

export interface CpuSeconds {
  /** The node processes: the target itself and its workers (every process of the tree but PostgreSQL's). */
  node: number;
  /** PostgreSQL's processes in the tree (the embedded server). */
  postgres: number;
  /** The process and all its descendants. */
  tree: number;
}

/** Seconds of CPU used so far by `pid` and its descendants, split into node and PostgreSQL. */
export function treeCpuSeconds(pid: number | undefined): CpuSeconds | null {
  const tree = processTree(pid);
  if (!tree.length) return null;
  const sum = (ps: TreeProcess[]) => ps.reduce((t, p) => t + p.ticks, 0) / clockTicks();
  const postgres = sum(tree.filter((p) => p.postgres));
  const all = sum(tree);
  return { node: all - postgres, postgres, tree: all };
}

/** A process's resident memory now (VmRSS of /proc/<pid>/status) in KiB; 0 when gone. */
function rssKb(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

export interface TreeMemory {
  /** KiB: the largest single process of the tree. */
  maxKb: number;
  /** KiB: summed over the tree (shared pages, such as PostgreSQL's shared buffers, count once per process). */
  sumKb: number;
  nodeKb: number;
  postgresKb: number;
}

/** Resident memory of a process tree now (VmRSS). Null when unmeasurable. */
export function treeMemory(
  pid: number | undefined,
  include: (p: TreeProcess) => boolean = () => true,
): TreeMemory | null {
  const tree = processTree(pid).filter(include);
  if (!tree.length) return null;
  const kb = tree.map((p) => ({ p, kb: rssKb(p.pid) }));
  const sum = (xs: typeof kb) => xs.reduce((t, x) => t + x.kb, 0);
  return {
    maxKb: Math.max(...kb.map((x) => x.kb)),
    sumKb: sum(kb),
    nodeKb: sum(kb.filter((x) => !x.p.postgres)),
    postgresKb: sum(kb.filter((x) => x.p.postgres)),
  };
}

/**
 * The highest resident memory of a process tree while something runs: VmRSS sampled every `everyMs` from start() to
 * stop(), each figure its own maximum (the node processes', PostgreSQL's, the largest process's, the sum). Unlike
 * VmHWM, which is the peak since the process began, this is the memory of what ran in between only (a service's
 * start and seed peak higher than its reads).
 */
export function sampleTreeMemory(pid: number | undefined, everyMs = 200): { stop(): TreeMemory | null } {
  let peak: TreeMemory | null = null;
  const take = () => {
    const m = treeMemory(pid);
    if (!m) return;
    peak = !peak
      ? m
      : {
          maxKb: Math.max(peak.maxKb, m.maxKb),
          sumKb: Math.max(peak.sumKb, m.sumKb),
          nodeKb: Math.max(peak.nodeKb, m.nodeKb),
          postgresKb: Math.max(peak.postgresKb, m.postgresKb),
        };
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return peak;
    },
  };
}
