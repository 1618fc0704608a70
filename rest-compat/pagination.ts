import { parsePrismaCursor } from '@pothos/plugin-prisma';
import type { ParameterObject } from 'openapi3-ts/oas31';
import { isUuid } from '../src/lib/identifiers.ts';
import { cursorProblem } from '../src/graphql/request-shape.plugin.ts';
import { ValidationError } from '../src/lib/problem.ts';
import { intParam, type RestInput, type RestOutput } from './route.ts';
import { arr, bool, int, nullable, obj, str, type Schema } from './schemas/builders.ts';

/**
 * The highest `page`: its offset ((page − 1) × 100 at most) stays a GraphQL Int, so a huge page is refused on `page`
 * rather than on an `offset` the caller never sent.
 */
export const MAX_PAGE = 1_000_000;

/**
 * The spec's list pagination (`limit` default 25, max 100, `cursor` from `links.next`; `page`/`per_page` also
 * accepted) as GraphQL connection arguments. `pages: false` for connections without an `offset` argument.
 * A cursor is checked here, as `cursor`, because this facade runs its operations without Yoga's request checks; every
 * REST list pages on an Int id but the event history (`cursor: 'uuid'`).
 */
export function pageArgs(
  q: URLSearchParams,
  opts: { pages: false; cursor?: PageCursor },
): { first: number; after?: string };
export function pageArgs(
  q: URLSearchParams,
  opts?: { pages?: boolean; cursor?: PageCursor },
): { first: number; after?: string; offset?: number };
export function pageArgs(
  q: URLSearchParams,
  opts: { pages?: boolean; cursor?: PageCursor } = {},
): { first: number; after?: string; offset?: number } {
  const pages = opts.pages ?? true;
  const errors: { field: string; code: string; message: string }[] = [];
  // Not a whole number at all, or one beyond the bounds: the field codes of docs/api-conventions.md.
  const kind = (v: number) => (Number.isInteger(v) ? 'out_of_range' : 'not_a_whole_number');
  const size = (name: string) => {
    const v = intParam(q.get(name));
    if (v === undefined) return undefined;
    if (!Number.isInteger(v) || v < 1 || v > 100)
      errors.push({ field: name, code: kind(v), message: 'an integer from 1 to 100' });
    return v;
  };
  const limit = size('limit') ?? (pages ? size('per_page') : undefined) ?? 25;
  const page = pages ? intParam(q.get('page')) : undefined;
  if (page !== undefined && (!Number.isInteger(page) || page < 1 || page > MAX_PAGE))
    errors.push({ field: 'page', code: kind(page), message: `an integer from 1 to ${MAX_PAGE}` });
  const cursor = q.get('cursor');
  const bad = cursor ? pageCursorProblem(cursor, opts.cursor ?? 'int') : null;
  if (bad) errors.push({ field: 'cursor', code: 'invalid_value', message: bad });
  if (errors.length) throw new ValidationError(errors);
  if (cursor) return { first: limit, after: cursor };
  return { first: limit, ...(page && page > 1 ? { offset: (page - 1) * limit } : {}) };
}

/** What a list pages on: an Int id (every list but one), or a UUID (the event history). */
export type PageCursor = 'int' | 'uuid';

function pageCursorProblem(cursor: string, kind: PageCursor): string | null {
  if (kind === 'int') return cursorProblem(cursor, 'Int');
  const bad = cursorProblem(cursor, 'String');
  if (bad) return bad;
  return isUuid(parsePrismaCursor(cursor))
    ? null
    : 'not a cursor of this list; use links.next or pageInfo.endCursor as given';
}

/** A GraphQL connection as `{data, meta: {limit, has_more, count}, links: {next}}`; `next` keeps the filters. */
export function connectionPage<N, T>(
  conn: { edges: { node: N }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } },
  input: RestInput,
  map: (node: N) => T,
  opts: { pages?: boolean; cursor?: PageCursor } = {},
): RestOutput<{
  data: T[];
  meta: { limit: number; has_more: boolean; count: number };
  links: { next: string | null };
}> {
  const items = conn.edges.map((e) => map(e.node));
  const { first } = pageArgs(input.query, opts);
  let next: string | null = null;
  if (conn.pageInfo.hasNextPage && conn.pageInfo.endCursor) {
    const u = new URL(input.url);
    for (const k of ['page', 'per_page']) u.searchParams.delete(k);
    u.searchParams.set('limit', String(first));
    u.searchParams.set('cursor', conn.pageInfo.endCursor);
    next = `${u.pathname}${u.search}`;
  }
  return {
    status: 200,
    body: {
      data: items,
      meta: { limit: first, has_more: conn.pageInfo.hasNextPage, count: items.length },
      links: { next },
    },
  };
}

export function pageSchema<S extends Schema>(item: S) {
  return obj({
    data: arr(item),
    meta: obj({ limit: int(), has_more: bool(), count: int('Items in this page') }),
    links: obj({ next: nullable(str('Path of the next page; null at the end')) }),
  });
}

export function pageParams(opts: { pages?: boolean } = {}): ParameterObject[] {
  return [
    { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } },
    { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'From links.next' },
    ...((opts.pages ?? true)
      ? ([
          {
            name: 'page',
            in: 'query',
            schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE },
            description: 'Alternative to cursor',
          },
          {
            name: 'per_page',
            in: 'query',
            schema: { type: 'integer', minimum: 1, maximum: 100 },
            description: 'Alias of limit',
          },
        ] as ParameterObject[])
      : []),
  ];
}
