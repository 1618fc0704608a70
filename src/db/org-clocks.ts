import { Prisma } from '../generated/prisma/client.ts';
import { todayNairobi } from '../lib/dates.ts';
import { withOrgClock } from '../lib/clock.ts';

/** An announced change of a clock, as the bus hands it over (channel bima_cache, kind `clock`). */
interface ClockMessage {
  kind: string;
  tenant: number;
  offset_ms?: unknown;
}

/** The part of the event bus (src/db/event-bus.ts) the clocks listen to. */
interface ClockFeed {
  onCacheMessage(fn: (m: ClockMessage) => void): void;
  onListening(fn: (listening: boolean) => void): void;
}

/**
 * The organisations whose clock is not the service clock: sandbox organisations whose clock has been advanced
 * (docs/operations.md "Sandbox clock"), with their offsets, held in memory by every process. The database announces
 * each change of an offset at commit, with the new offset (trigger bima_clock_changed on sandbox_clocks), and the
 * listener applies it as it arrives, in commit order; the whole set is read again whenever the LISTEN connection is
 * (re)established. A change is therefore in force in a process as soon as it has heard the commit, which
 * Caches.sync() awaits for every process.
 */
export class OrgClocks {
  readonly #offsets = new Map<number, number>();
  #reloading: Promise<void> | undefined;
  /** Bumped by every applied change: a reload that raced one reads again. */
  #changes = 0;

  constructor(private readonly load: () => Promise<{ tenantId: number; offsetMs: bigint }[]>) {}

  /** How far ahead of the service clock this organisation's clock runs (ms; 0 for every live organisation). */
  offsetFor(tenantId: number): number {
    return this.#offsets.get(tenantId) ?? 0;
  }

  /** The organisations with a clock of their own, and their offsets. */
  advanced(): ReadonlyMap<number, number> {
    return this.#offsets;
  }

  /** Applies one announced change (the listener calls this for every `clock` message). */
  apply(m: ClockMessage): void {
    if (m.kind !== 'clock' || !Number.isInteger(m.tenant)) return;
    const offset = Number(m.offset_ms ?? 0);
    this.#changes++;
    if (Number.isSafeInteger(offset) && offset > 0) this.#offsets.set(m.tenant, offset);
    else this.#offsets.delete(m.tenant);
  }

  /**
   * Keeps these clocks current from the bus: every announced change applied as heard, all read again whenever the
   * LISTEN connection is (re)established. Resolves once the first read is done.
   */
  async follow(bus: ClockFeed, onError: (err: unknown) => void): Promise<void> {
    bus.onCacheMessage((m) => this.apply(m));
    bus.onListening((up) => {
      if (up) this.reload().catch(onError);
    });
    await this.reload();
  }

  /** Reads every advanced clock again (at start, and when the LISTEN connection is back). */
  reload(): Promise<void> {
    this.#reloading ??= this.#readAll().finally(() => {
      this.#reloading = undefined;
    });
    return this.#reloading;
  }

  async #readAll(): Promise<void> {
    for (;;) {
      const before = this.#changes;
      const rows = await this.load();
      if (this.#changes !== before) continue; // a change was heard meanwhile: this read may predate it
      this.#offsets.clear();
      for (const r of rows) if (r.offsetMs > 0n) this.#offsets.set(r.tenantId, Number(r.offsetMs));
      return;
    }
  }
}

/** Which organisations a daily job's candidate lookup covers: all, one, or all but some. */
export interface TenantFilter {
  only?: number;
  except?: readonly number[];
}

export const ALL_TENANTS: TenantFilter = {};

/** The filter as SQL on a tenant id column (e.g. Prisma.sql`p.tenant_id`). */
export function tenantSql(f: TenantFilter, column: Prisma.Sql): Prisma.Sql {
  if (f.only !== undefined) return Prisma.sql`${column} = ${f.only}`;
  if (f.except?.length) return Prisma.sql`${column} <> ALL(${[...f.except]}::int[])`;
  return Prisma.sql`TRUE`;
}

/** The filter as a Prisma condition on `tenantId`. */
export function tenantWhere(f: TenantFilter): { tenantId?: number | { notIn: number[] } } {
  if (f.only !== undefined) return { tenantId: f.only };
  if (f.except?.length) return { tenantId: { notIn: [...f.except] } };
  return {};
}

/**
 * Runs a daily job for the right day of every organisation. With `asOf` (an operator's or a test's explicit day),
 * once for all organisations. Without, once for the organisations on the service clock, judged on today, and once
 * for each organisation with an advanced clock, judged on its own today and running on its clock, so their days
 * are judged neither early nor twice.
 */
export async function forEachClock<C extends object>(
  clocks: OrgClocks,
  asOf: string | undefined,
  run: (asOf: string, tenants: TenantFilter) => Promise<C>,
): Promise<C> {
  if (asOf) return run(asOf, ALL_TENANTS);
  const advanced = [...clocks.advanced()];
  const total = await run(todayNairobi(), advanced.length ? { except: advanced.map(([id]) => id) } : ALL_TENANTS);
  for (const [tenantId, offset] of advanced) {
    const counts = await withOrgClock(tenantId, offset, () => run(todayNairobi(), { only: tenantId }));
    addCounts(total, counts);
  }
  return total;
}

/** Adds one run's numeric counters into another's. */
export function addCounts<C extends object>(into: C, more: C): C {
  const target = into as Record<string, unknown>;
  for (const [k, v] of Object.entries(more)) if (typeof v === 'number') target[k] = ((target[k] as number) ?? 0) + v;
  return into;
}
