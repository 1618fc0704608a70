import { Prisma, type Tx } from '../../db/client.ts';
import { type FieldError, ValidationError } from '../../lib/problem.ts';
import { ERP_MAX_PAGE } from './vocabulary.ts';

/**
 * The window and position of one page of an ERP export (docs/erp-exports.md "ERP exports"). A sync reads the records changed in
 * (updatedSince, until] in the order (sync instant, id), page after page; each page continues strictly after the
 * last key of the one before (a keyset cursor), so a record updated while the sync runs cannot shift the pages (as
 * offsets would) and is never read twice: its new instant lies beyond `until`, and the next sync picks it up.
 *
 * `until` is fixed by the first page: the start of the oldest transaction still open on the database (or now),
 * less HORIZON_MARGIN_MS. Every write of an exported row stamps it with the database clock inside its transaction
 * (the erp_exports migration's trigger, or the insert's `now()`), so a transaction still in flight can only write
 * instants after `until`: nothing can appear behind the watermark once a page has been read.
 */
export const ERP_PAGE_SIZE = { default: 100, max: 1000 } as const;

/**
 * Subtracted from the horizon: covers the millisecond rounding of the timestamptz(3) columns and a small clock skew
 * between an application server and the database on instants the application stamps itself.
 */
export const HORIZON_MARGIN_MS = 2_000;

export interface ErpPageArgs {
  page?: number | null;
  perPage?: number | null;
  updatedSince?: Date | null;
  until?: Date | null;
  /** The keyset cursor of the previous page (meta.nextCursor). */
  after?: string | null;
}

export interface Keyset {
  at: Date;
  id: number;
}

export interface ErpWindow {
  since: Date | null;
  until: Date;
  after: Keyset | null;
  page: number;
  perPage: number;
}

export interface ErpPageMeta {
  page: number;
  perPage: number;
  count: number;
  hasMore: boolean;
  updatedSince: Date | null;
  until: Date;
  nextCursor: string | null;
}

const CURSOR_PROBLEM = 'not a cursor this API issued; use links.next (meta.next_cursor) as given';

export function encodeKeyset(k: Keyset): string {
  return Buffer.from(`erp:${k.at.getTime()}:${k.id}`).toString('base64url');
}

/**
 * The keyset a cursor spells, or null for anything but the spelling encodeKeyset writes: base64url decoding skips
 * junk, padding and whitespace, and the numbers read leading zeros, so `erp:…:007`, a cursor with a `.` or a space in
 * it was read as the cursor it resembles (an outside check, 2026-12-03; the other lists' cursors are held alike).
 */
export function decodeKeyset(cursor: string): Keyset | null {
  const m = /^erp:(0|[1-9]\d{0,14}):([1-9]\d{0,9})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!m) return null;
  const id = Number(m[2]);
  if (id > 2 ** 31 - 1) return null;
  const key = { at: new Date(Number(m[1])), id };
  return encodeKeyset(key) === cursor ? key : null;
}

/** The request's page arguments, checked (422 validation_failed naming the field); `until` is settled later. */
export function checkPageArgs(a: ErpPageArgs): Omit<ErpWindow, 'until'> & { until: Date | null } {
  const errors: FieldError[] = [];
  const kind = (v: number) => (Number.isInteger(v) ? 'out_of_range' : 'not_a_whole_number');
  const perPage = a.perPage ?? ERP_PAGE_SIZE.default;
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > ERP_PAGE_SIZE.max)
    errors.push({ field: 'perPage', code: kind(perPage), message: `an integer from 1 to ${ERP_PAGE_SIZE.max}` });
  const page = a.page ?? 1;
  if (!Number.isInteger(page) || page < 1 || page > ERP_MAX_PAGE)
    errors.push({ field: 'page', code: kind(page), message: `an integer from 1 to ${ERP_MAX_PAGE}` });
  const after = a.after ? decodeKeyset(a.after) : null;
  if (a.after && !after) errors.push({ field: 'after', code: 'invalid_value', message: CURSOR_PROBLEM });
  if (page > 1 && !a.after)
    errors.push({ field: 'page', message: 'pages after the first are read through links.next (it carries a cursor)' });
  if (a.after && !a.until)
    errors.push({ field: 'until', code: 'required', message: 'required with a cursor: the window it belongs to' });
  const since = a.updatedSince ?? null;
  if (since && a.until && a.until <= since) errors.push({ field: 'until', message: 'must be after updated_since' });
  if (errors.length) throw new ValidationError(errors);
  return { since, until: a.until ?? null, after, page, perPage };
}

/** The watermark as of now: see the module comment and the migration's bima_sync_horizon(). */
export async function syncHorizon(tx: Tx): Promise<Date> {
  const rows = await tx.$queryRaw<{ h: Date }[]>`SELECT bima_sync_horizon() AS h`;
  return new Date(Math.floor(rows[0].h.getTime()) - HORIZON_MARGIN_MS);
}

/**
 * The page's window: a requested `until` holds (it is the first page's) but never beyond the horizon as of now, so
 * a forged or future `until` cannot reach rows still being written. The horizon only moves forward, so an `until`
 * from an earlier page of the same sync is always within it.
 */
export async function settleWindow(tx: Tx, a: ErpPageArgs): Promise<ErpWindow> {
  const w = checkPageArgs(a);
  const horizon = await syncHorizon(tx);
  // A sync starts from the last one's meta.until, which the horizon never falls behind (give or take a clock's skew
  // between servers: the margin); an updated_since beyond it would have set meta.until beyond the horizon too (an
  // outside check, 2026-12-03), and a sync started from that would skip what is written until then.
  if (w.since && w.since.getTime() > horizon.getTime() + HORIZON_MARGIN_MS)
    throw new ValidationError([
      {
        field: 'updatedSince',
        code: 'out_of_range',
        message: `not after the current horizon (${horizon.toISOString()}): start from the last sync's meta.until`,
      },
    ]);
  const until = w.until && w.until < horizon ? w.until : horizon;
  return { ...w, until: w.since && until < w.since ? w.since : until };
}

/**
 * The keyset filter of a page on column `col` (`updatedAt`, or `createdAt` for immutable records), for Prisma: the
 * page's rows after the cursor, up to the watermark. The organisation is named too, though row-level security
 * already admits its rows only: the (tenant_id, column, id) index then serves the sort and LIMIT directly.
 */
export function keysetWhere(col: 'updatedAt' | 'createdAt', w: ErpWindow, tenantId: number): Record<string, unknown> {
  const and: Record<string, unknown>[] = [{ tenantId }, { [col]: { lte: w.until } }];
  if (w.since) and.push({ [col]: { gt: w.since } });
  if (w.after) and.push({ OR: [{ [col]: { gt: w.after.at } }, { [col]: w.after.at, id: { gt: w.after.id } }] });
  return { AND: and };
}

export const keysetOrder = (col: 'updatedAt' | 'createdAt') => [{ [col]: 'asc' as const }, { id: 'asc' as const }];

/** The page's meta from the rows read (one more than the page asked for tells whether there are more). */
export function pageMeta<R>(w: ErpWindow, rows: R[], keyOf: (r: R) => Keyset): { rows: R[]; meta: ErpPageMeta } {
  const hasMore = rows.length > w.perPage;
  const page = hasMore ? rows.slice(0, w.perPage) : rows;
  const last = page.at(-1);
  return {
    rows: page,
    meta: {
      page: w.page,
      perPage: w.perPage,
      count: page.length,
      hasMore,
      updatedSince: w.since,
      until: w.until,
      nextCursor: hasMore && last ? encodeKeyset(keyOf(last)) : null,
    },
  };
}

/** The columns an export syncs on, as the tables name them. */
const SYNC_COLUMN = { updatedAt: 'updated_at', createdAt: 'created_at' } as const;

/**
 * keysetWhere, keysetOrder and the page's size (`take`) as SQL over the rows aliased `alias`, for a page read by its
 * selection's plan (exports/source.ts), with the shape of its text: which of the window's bounds it names.
 * test/erp-exports.test.ts reads every export's pages both ways.
 */
export function keysetSql(
  alias: string,
  col: 'updatedAt' | 'createdAt',
  w: ErpWindow,
  tenantId: number,
  take: number,
): { shape: string; sql: Prisma.Sql } {
  if (!/^[a-z]+$/.test(alias)) throw new Error(`erp: ${alias} is not an alias`);
  const c = Prisma.raw(`${alias}.${SYNC_COLUMN[col]}`);
  const id = Prisma.raw(`${alias}.id`);
  const and = [Prisma.sql`${Prisma.raw(alias)}.tenant_id = ${tenantId}`, Prisma.sql`${c} <= ${w.until}`];
  if (w.since) and.push(Prisma.sql`${c} > ${w.since}`);
  if (w.after) and.push(Prisma.sql`(${c} > ${w.after.at} OR (${c} = ${w.after.at} AND ${id} > ${w.after.id}))`);
  return {
    shape: `${col}:${w.since ? 'since' : ''}:${w.after ? 'after' : ''}`,
    sql: Prisma.sql`WHERE ${Prisma.join(and, ' AND ')} ORDER BY ${c} ASC, ${id} ASC LIMIT ${take}`,
  };
}
