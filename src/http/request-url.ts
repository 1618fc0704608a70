import type { IncomingMessage } from 'node:http';
import { AppError } from '../lib/problem.ts';

/** A Host header as RFC 9110 allows it (reg-name or IP literal, optional port); URL parsing then checks the rest. */
const HOST = /^(?:[A-Za-z0-9._~!$&'()*+,;=-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The request as a URL, or 400 invalid_request. Node passes the request-target and Host through unchecked:
 * `//a:b/x` resolved against a base reads as a scheme-relative URL with a bad port, and Host can hold anything. Links
 * in responses (links.next, links.policy) use the public origin when configured, else the request's Host.
 */
export function requestUrl(req: IncomingMessage, publicBaseUrl: string | undefined): URL {
  const bad = (detail: string) => new AppError('invalid_request', { detail });
  const host = req.headers.host;
  // RFC 9112 §3.2: an HTTP/1.1 request without Host is answered 400; HTTP/1.0 clients may omit it.
  if (host === undefined && req.httpVersion !== '1.0') throw bad('HTTP/1.1 requests need a Host header');
  if (host !== undefined && !HOST.test(host)) throw bad('Malformed Host header');
  const target = req.url ?? '';
  let pathAndQuery: string;
  if (target.startsWith('/')) pathAndQuery = target;
  else if (/^https?:\/\//i.test(target)) {
    // Absolute-form (RFC 9112 §3.2.2), as proxies send it: routed by its path. GraphQL's adapter rebuilds the URL
    // from req.url and Host, so it gets the origin-form too.
    try {
      const abs = new URL(target);
      pathAndQuery = `${abs.pathname}${abs.search}`;
    } catch {
      throw bad('Malformed request target');
    }
    req.url = pathAndQuery;
  } else throw bad('The request target must be a path such as /api/v1/…');
  let url: URL;
  try {
    const origin = new URL(publicBaseUrl ?? `http://${host ?? 'localhost'}`).origin;
    // Concatenated, not resolved: resolving `//a:b/x` against a base would read it as another host.
    url = new URL(`${origin}${pathAndQuery}`);
  } catch {
    throw bad(host === undefined ? 'Malformed request target' : 'Malformed request target or Host header');
  }
  // Every path, not only a route's parameters: `/api/v1/clients%FF` and `/graphql%FF` were 404 (outside check).
  try {
    decodeURIComponent(url.pathname);
  } catch {
    throw bad('Malformed percent-encoding in the path');
  }
  return url;
}
