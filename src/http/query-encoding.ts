import { AppError } from '../lib/problem.ts';

/**
 * A query string's percent-encoding, held to the path's rule (400 invalid_request, as the OpenAPI document says;
 * REST's queries and GET /graphql's alike):
 * URLSearchParams would read a malformed escape (`%FF`, `%zz`, a lone `%`) as U+FFFD or as written, and the request
 * would run on text the caller never sent.
 */
export function checkQueryEncoding(search: string, where = 'the query'): void {
  if (!search.includes('%')) return;
  for (const part of search.slice(1).split('&')) {
    const [name = '', value = ''] = part.split(/=(.*)/s);
    const decoded = (raw: string) => {
      try {
        return decodeURIComponent(raw.replace(/\+/g, ' '));
      } catch {
        return undefined;
      }
    };
    const key = decoded(name);
    if (key !== undefined && decoded(value) !== undefined) continue;
    const which = key === undefined ? 'a parameter name' : `the value of ${JSON.stringify(key.slice(0, 64))}`;
    throw new AppError('invalid_request', { detail: `Malformed percent-encoding in ${where}: ${which}` });
  }
}
