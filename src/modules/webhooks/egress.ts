import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { type Reach, resolveTarget, type Resolve, type Target } from './url-guard.ts';

const EXCERPT_BYTES = 1024;

export interface WebhookPost {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** What the URL may reach besides public addresses (url-guard.ts webhookReach). */
  reach: Reach;
}

/** Seams for tests: a scripted DNS (rebinding) and an extra trust anchor (a local TLS receiver). */
export interface EgressPorts {
  resolve?: Resolve;
  ca?: string;
}

export interface EgressResult {
  statusCode: number | null;
  excerpt: string | null;
  /** Safe for the tenant to read: one of the documented messages, never an address, port or internal host name. */
  error: string | null;
  /** The underlying failure, for the server log only. */
  detail?: unknown;
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'ENODATA', 'ESERVFAIL', 'EREFUSED']);
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|EPROTO$)/;

/**
 * Node's messages name the address and port (`connect ECONNREFUSED 10.1.2.3:8080`) or the host; a tenant reading its
 * delivery log must learn only what kind of failure it was, not what sits behind our network.
 */
export function safeError(e: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout after ${timeoutMs} ms`;
  const code = String((e as NodeJS.ErrnoException | undefined)?.code ?? '');
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED') return 'connection reset';
  if (code === 'ETIMEDOUT') return `timeout after ${timeoutMs} ms`;
  if (DNS_CODES.has(code)) return 'DNS lookup failed';
  if (TLS_CODE.test(code)) return 'TLS error';
  if (code.startsWith('HPE_')) return 'invalid HTTP response';
  return 'connection failed';
}

function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Connects to `target.address` and nowhere else: the lookup hook answers with the checked address, so the socket
 * cannot follow a second DNS answer. Host header, SNI and certificate check still use the URL's host name. No agent:
 * a pooled keep-alive socket would outlive the check it was opened under.
 */
function send(
  target: Target,
  post: WebhookPost,
  signal: AbortSignal,
  ca?: string,
): Promise<{ statusCode: number; excerpt: string }> {
  const pin: LookupFunction = (_host, options, cb) => {
    if (options.all) cb(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  };
  const tls = target.url.protocol === 'https:';
  const literal = isIP(target.host) !== 0;
  const options: https.RequestOptions = {
    method: 'POST',
    host: literal ? target.address : target.host,
    port: target.url.port || (tls ? 443 : 80),
    path: `${target.url.pathname}${target.url.search}`,
    headers: { ...post.headers, host: target.url.host, 'content-length': Buffer.byteLength(post.body) },
    lookup: pin,
    agent: false,
    signal,
    ...(tls ? { servername: literal ? '' : target.host, ...(ca ? { ca } : {}) } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = (tls ? https : http).request(options, (res) => {
      // At most 1 kB of the answer: the rest is dropped unread, so a huge or endless body costs nothing.
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        res.destroy();
        const excerpt = Buffer.concat(chunks)
          .subarray(0, EXCERPT_BYTES)
          .toString('utf8')
          .replace(/\uFFFD$/, '');
        resolve({ statusCode: res.statusCode ?? 0, excerpt });
      };
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        size += c.length;
        if (size >= EXCERPT_BYTES) finish();
      });
      res.on('end', finish);
      res.on('error', (e) => done || reject(e));
    });
    req.on('error', reject);
    req.end(post.body);
  });
}

/**
 * One webhook POST: resolve once, check, connect to what was checked. Redirects are not followed (a 3xx is a failed
 * attempt): the target was checked, a Location header was not. The deadline covers DNS, connect, answer and excerpt.
 */
export async function postWebhook(post: WebhookPost, ports: EgressPorts = {}): Promise<EgressResult> {
  const signal = AbortSignal.timeout(post.timeoutMs);
  try {
    const checked = await untilAborted(resolveTarget(post.url, post.reach, ports.resolve), signal);
    if (!checked.ok) {
      if (checked.kind === 'dns')
        return { statusCode: null, excerpt: null, error: 'DNS lookup failed', detail: checked.cause };
      return { statusCode: null, excerpt: null, error: `URL refused: ${checked.reason}` };
    }
    const { statusCode, excerpt } = await send(checked.target, post, signal, ports.ca);
    return { statusCode, excerpt, error: statusCode >= 200 && statusCode <= 299 ? null : `HTTP ${statusCode}` };
  } catch (e) {
    return { statusCode: null, excerpt: null, error: safeError(e, signal.aborted, post.timeoutMs), detail: e };
  }
}
