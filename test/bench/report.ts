import type { CpuSeconds, TreeMemory } from './cpu.ts';
import type { LoadResult } from './load.ts';

export interface Stats {
  requests: number;
  rps: number;
  /** Milliseconds. */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  errors: number;
  /** e.g. "429×12, ECONNRESET×1" */
  errorDetail: string;
  /** CPU milliseconds per request: the target with its child processes, and the node process alone; null where unmeasurable. */
  cpuMsPerRequest: number | null;
  nodeCpuMsPerRequest: number | null;
  /** Peak resident memory (VmRSS sampled) of the target's process tree during the measurement; null where unmeasurable. */
  peakRss: TreeMemory | null;
}

/** What a scenario is measured beside: the replay of the service's bytes, or the hand-written quote service. */
export type BaselineKind = 'replay' | 'quote' | 'hand';

export interface Row {
  scenario: string;
  service: Stats;
  baseline: Stats;
  baselineKind: BaselineKind;
}

/** Nearest-rank percentile over sorted nanoseconds, in milliseconds. */
function percentile(sorted: BigUint64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return Number(sorted[rank - 1]) / 1e6;
}

export function summarize(r: LoadResult, cpu: CpuSeconds | null = null, peakRss: TreeMemory | null = null): Stats {
  const perRequest = (seconds: number | undefined) =>
    seconds === undefined || r.completed === 0 ? null : (seconds * 1000) / r.completed;
  const sorted = r.latenciesNs.slice().sort();
  const detail = [...r.failures, ...r.transportErrors].map(([k, n]) => `${k}×${n}`).join(', ');
  const errors = [...r.failures.values(), ...r.transportErrors.values()].reduce((a, b) => a + b, 0);
  return {
    requests: r.completed,
    rps: r.completed / (Number(r.elapsedNs) / 1e9),
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length ? Number(sorted[sorted.length - 1]) / 1e6 : Number.NaN,
    errors,
    errorDetail: detail,
    cpuMsPerRequest: perRequest(cpu?.tree),
    nodeCpuMsPerRequest: perRequest(cpu?.node),
    peakRss,
  };
}

const ms = (v: number) => (Number.isNaN(v) ? '-' : v < 10 ? v.toFixed(2) : v.toFixed(1));
const cpu = (v: number | null) => (v === null ? '-' : v.toFixed(v < 1 ? 3 : 2));
/** Node's share and PostgreSQL's (the rest of the tree's CPU) per request. */
const cpuSplit = (s: Stats) =>
  s.cpuMsPerRequest === null || s.nodeCpuMsPerRequest === null
    ? '-'
    : `${cpu(s.nodeCpuMsPerRequest)} + ${cpu(s.cpuMsPerRequest - s.nodeCpuMsPerRequest)}`;
const mb = (kb: number) => (kb / 1024).toFixed(0);
/** One process: its peak; a tree: its node process(es)' and the sum over every process. */
const rss = (m: TreeMemory | null) =>
  !m ? '-' : m.nodeKb === m.sumKb ? mb(m.nodeKb) : `${mb(m.nodeKb)} / ${mb(m.sumKb)}`;
const TARGET: Record<'service' | BaselineKind, string> = {
  service: 'service',
  replay: 'baseline: replay',
  quote: 'baseline: hand-written',
  hand: 'baseline: hand-written',
};

function table(header: string[], rows: string[][], rightAlignFrom: number): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i >= rightAlignFrom ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function formatResults(rows: Row[]): string {
  const measured = table(
    [
      'scenario',
      'target',
      'requests',
      'req/s',
      'p50 ms',
      'p90 ms',
      'p99 ms',
      'max ms',
      'cpu ms/req',
      '(node)',
      'peak RSS MB',
      'errors',
    ],
    rows.flatMap((r) =>
      (['service', 'baseline'] as const).map((target) => {
        const s = r[target];
        return [
          target === 'service' ? r.scenario : '',
          TARGET[target === 'service' ? 'service' : r.baselineKind],
          String(s.requests),
          s.rps.toFixed(0),
          ms(s.p50),
          ms(s.p90),
          ms(s.p99),
          ms(s.max),
          cpu(s.cpuMsPerRequest),
          cpu(s.nodeCpuMsPerRequest),
          rss(s.peakRss),
          String(s.errors),
        ];
      }),
    ),
    2,
  );
  const ratio = (a: number | null, b: number | null, digits: number) =>
    a === null || b === null ? '-' : `${(a / b).toFixed(digits)}×`;
  const ratios = table(
    [
      'scenario',
      'baseline',
      'throughput service/baseline',
      'p50 latency service/baseline',
      'p99 ms service / baseline',
      'cpu ms/req (node + PostgreSQL) service / baseline',
    ],
    rows.map((r) => [
      r.scenario,
      TARGET[r.baselineKind].replace('baseline: ', ''),
      ratio(r.service.rps, r.baseline.rps, 3),
      ratio(r.service.p50, r.baseline.p50, 1),
      `${ms(r.service.p99)} / ${ms(r.baseline.p99)}`,
      `${cpuSplit(r.service)} / ${cpuSplit(r.baseline)}`,
    ]),
    2,
  );
  return `${measured}\n\n${ratios}`;
}

/** The REST facade's cost: REST and GraphQL rows of the same operation, both measured on the service. */
export function formatFacadeOverhead(what: string, restRow: Row, graphqlRow: Row): string {
  const r = restRow.service;
  const g = graphqlRow.service;
  const diff = (a: number | null, b: number | null) =>
    a === null || b === null ? '-' : `${a - b >= 0 ? '+' : ''}${(a - b).toFixed(3)} ms`;
  return (
    `REST facade overhead over the same GraphQL operation (${what}): throughput REST/GraphQL ` +
    `${(r.rps / g.rps).toFixed(3)}× (${r.rps.toFixed(0)} vs ${g.rps.toFixed(0)} req/s), CPU per request ` +
    `${diff(r.cpuMsPerRequest, g.cpuMsPerRequest)} (service and PostgreSQL), ${diff(r.nodeCpuMsPerRequest, g.nodeCpuMsPerRequest)} (node)`
  );
}

/** Empty when every request succeeded; otherwise a banner nobody can scroll past. */
export function formatErrors(rows: Row[]): string {
  const bad = rows.flatMap((r) =>
    (['service', 'baseline'] as const)
      .filter((t) => r[t].errors > 0)
      .map((t) => `  ${r.scenario} [${t}]: ${r[t].errors} errors (${r[t].errorDetail})`),
  );
  if (!bad.length) return '';
  const bar = '!'.repeat(72);
  return [bar, '!!! THIS RUN HAD ERRORS: its numbers measure failures, not the service', ...bad, bar].join('\n');
}
