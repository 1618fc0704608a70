import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Webhook URLs are fetched by the server, so a URL pointing inside the network would let a tenant probe it (SSRF).
 * Every address the host resolves to must be public, checked at create/update and again before each attempt; the
 * attempt then connects to the address it checked (see egress.ts), so DNS cannot answer differently in between
 * (rebinding). WEBHOOKS_ALLOW_PRIVATE lifts the address check (and allows http) for tests and the demo. A sandbox
 * organisation outside production may also use its own machine (`loopback`): http or https to a host whose every
 * address is loopback (localhost, 127.0.0.0/8, ::1), as a developer's receiver or `admin listen` is; nothing else
 * private.
 */

/** What a URL may reach besides public addresses. */
export type Reach = 'public' | 'loopback' | 'private';

/**
 * The reach of one organisation's webhook URLs: `private` where WEBHOOKS_ALLOW_PRIVATE is set, `loopback` for a
 * sandbox organisation when NODE_ENV is not production, else `public`.
 */
export function webhookReach(config: { webhooksAllowPrivate: boolean; nodeEnv: string }, sandbox: boolean): Reach {
  if (config.webhooksAllowPrivate) return 'private';
  return sandbox && config.nodeEnv !== 'production' ? 'loopback' : 'public';
}

/** One DNS answer, as `dns.lookup` gives it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}
/** The resolver is a port so tests can play a rebinding DNS server. */
export type Resolve = (host: string) => Promise<ResolvedAddress[]>;
export const systemResolve: Resolve = (host) => lookup(host, { all: true, verbatim: true });

// Outside 2000::/3 nothing is allocated as global unicast; ipaddr.js calls some of that space (e.g. the deprecated
// IPv4-compatible ::a.b.c.d) 'unicast' only because no special range names it.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/** An IP address in standard notation, an IPv4-mapped IPv6 address as the IPv4 address it carries; else null. */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!isIP(address)) return null;
  try {
    const ip = ipaddr.parse(address);
    return ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress() ? (ip as ipaddr.IPv6).toIPv4Address() : ip;
  } catch {
    return null;
  }
}

/**
 * The address to connect to when `address` is public, else null. Public means ipaddr.js's range `unicast`; every
 * other range (loopback, private, link-local, CGNAT, multicast, reserved, benchmarking, TEST-NETs, NAT64, 6to4,
 * Teredo, discard, ...) is refused. Addresses embedding an IPv4 address through a translator (NAT64, 6to4, Teredo)
 * are refused outright: where they lead depends on a gateway we cannot see. An IPv4-mapped IPv6 address is the IPv4
 * address itself, judged and connected to as IPv4.
 */
export function publicAddress(address: string): ResolvedAddress | null {
  const ip = parseAddress(address);
  if (!ip) return null;
  if (ip.kind() === 'ipv6' && !(ip as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return null;
  if (ip.range() !== 'unicast') return null;
  return { address: ip.toString(), family: ip.kind() === 'ipv4' ? 4 : 6 };
}

export function isPrivateAddress(address: string): boolean {
  return publicAddress(address) === null;
}

/** A URL that passed the check, with the one address the request must connect to. */
export interface Target {
  url: URL;
  /** The host name without IPv6 brackets: what TLS verifies the certificate against and sends as SNI. */
  host: string;
  address: string;
  family: 4 | 6;
}
export type Checked =
  { ok: true; target: Target } | { ok: false; kind: 'refused' | 'dns'; reason: string; cause?: unknown };

const refused = (reason: string): Checked => ({ ok: false, kind: 'refused', reason });
const PRIVATE_REASON = 'resolves to a private or loopback address';

/** Whether `address` is a loopback address (127.0.0.0/8, ::1, or an IPv4-mapped loopback). */
function isLoopback(address: string): boolean {
  return parseAddress(address)?.range() === 'loopback';
}

function parseUrl(raw: string, allowHttp: boolean): URL | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) return 'must use https://';
  if (!url.hostname) return 'must be an absolute URL';
  return url;
}

/** Resolves once and picks the address to connect to; with reach `private` the address class goes unchecked. */
export async function resolveTarget(raw: string, reach: Reach, resolve: Resolve = systemResolve): Promise<Checked> {
  // http is for what never leaves the machine (or a network the operator vouched for): judged on the addresses below.
  const url = parseUrl(raw, reach !== 'public');
  if (typeof url === 'string') return refused(url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let answers: ResolvedAddress[];
  try {
    answers = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host);
  } catch (cause) {
    return { ok: false, kind: 'dns', reason: 'host does not resolve', cause };
  }
  if (!answers.length)
    return { ok: false, kind: 'dns', reason: 'host does not resolve', cause: new Error(`no address for ${host}`) };
  let pinned: ResolvedAddress;
  if (reach === 'private') pinned = answers[0]!;
  else if (reach === 'loopback' && answers.every((a) => isLoopback(a.address))) pinned = answers[0]!;
  else if (url.protocol !== 'https:') return refused('must use https://');
  else {
    // Every answer must be public: a client library may try any of them, and a mixed answer is itself suspicious.
    const checked = answers.map((a) => publicAddress(a.address));
    if (checked.some((a) => a === null)) return refused(PRIVATE_REASON);
    pinned = checked[0]!;
  }
  return { ok: true, target: { url, host, address: pinned.address, family: pinned.family === 6 ? 6 : 4 } };
}

/** Why this URL may not receive webhooks, or null when it may. */
export async function refuseUrl(raw: string, reach: Reach, resolve: Resolve = systemResolve): Promise<string | null> {
  if (reach === 'private') {
    const url = parseUrl(raw, true);
    return typeof url === 'string' ? url : null;
  }
  const checked = await resolveTarget(raw, reach, resolve);
  return checked.ok ? null : checked.reason;
}
