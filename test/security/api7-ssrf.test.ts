import { randomUUID } from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { attemptDelivery } from '../../src/modules/webhooks/deliver.service.ts';
import { postWebhook } from '../../src/modules/webhooks/egress.ts';
import { isPrivateAddress, publicAddress, refuseUrl, type Resolve } from '../../src/modules/webhooks/url-guard.ts';
import { expectEndpointUrlRefused } from '../helpers/http.ts';
import { useKit } from '../kit.ts';

// OWASP API7:2023 Server Side Request Forgery: webhook URLs are the one place where a tenant makes the server fetch
// a URL of its choosing.

// A throwaway self-signed certificate for hooks.example.test (valid to 2126), trusted only inside these tests.
const KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgdMKN30ZqqWUoCkR+
yvCA5xqQ7iroOsrWAiB0nti/J1WhRANCAAQd6AZY4e5juP27A5OWHuImbVgXbCfe
l34UrWZeEjC73P+aU9u8f0OS3nfVxTtjXPqS3WZilnaAs5DAl9A9mYnh
-----END PRIVATE KEY-----`;
const CERT = `-----BEGIN CERTIFICATE-----
MIIBsDCCAVagAwIBAgIUTRJo+oaO+8LPZZpL9SmPmPxKZr0wCgYIKoZIzj0EAwIw
HTEbMBkGA1UEAwwSaG9va3MuZXhhbXBsZS50ZXN0MCAXDTI2MTEyNjA2MDI1NloY
DzIxMjYxMTAyMDYwMjU2WjAdMRswGQYDVQQDDBJob29rcy5leGFtcGxlLnRlc3Qw
WTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQd6AZY4e5juP27A5OWHuImbVgXbCfe
l34UrWZeEjC73P+aU9u8f0OS3nfVxTtjXPqS3WZilnaAs5DAl9A9mYnho3IwcDAd
BgNVHQ4EFgQUWjMOyo6rd712ICx3SyDCjm4F+KcwHwYDVR0jBBgwFoAUWjMOyo6r
d712ICx3SyDCjm4F+KcwHQYDVR0RBBYwFIISaG9va3MuZXhhbXBsZS50ZXN0MA8G
A1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIhAMab4lyqbjXRe1Cm7Lb6
qEp52qOKKdhpv1KWI+FxlUu4AiB4gAI20PT0pPgF2Z4xca8+LmbhAUX/nfm3hJ+p
o0WHmQ==
-----END CERTIFICATE-----`;

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(closers.splice(0).map((c) => c()));
});
async function listen<S extends net.Server>(server: S, host = '127.0.0.1', port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  closers.push(() => new Promise((r) => server.close(r)));
  return (server.address() as AddressInfo).port;
}
/** A hostile DNS: each lookup of `host` gets the next scripted answer, through the guard's port and the OS-level lookup alike. */
function rebindingDns(host: string, answers: string[]) {
  const seen: string[] = [];
  const next = () => {
    const address = answers[Math.min(seen.length, answers.length - 1)];
    seen.push(address);
    return { address, family: net.isIP(address) };
  };
  const resolve: Resolve = async (h) => (h === host ? [next()] : Promise.reject(new Error('unexpected host')));
  // Any connection that looks the name up again (instead of using the checked answer) lands here.
  const original = dns.lookup;
  vi.spyOn(dns, 'lookup').mockImplementation(((h: string, opts: unknown, cb: unknown) => {
    if (h !== host) return (original as any)(h, opts, cb);
    const callback = (typeof opts === 'function' ? opts : cb) as (...a: unknown[]) => void;
    const a = next();
    const all = typeof opts === 'object' && (opts as { all?: boolean }).all;
    process.nextTick(() => (all ? callback(null, [a]) : callback(null, a.address, a.family)));
  }) as typeof dns.lookup);
  return { resolve, seen };
}
const post = (url: string, allowPrivate: boolean, timeoutMs = 2_000) => ({
  url,
  reach: allowPrivate ? ('private' as const) : ('public' as const),
  timeoutMs,
  body: '{"id":"evt"}',
  headers: { 'content-type': 'application/json' },
});

describe('OWASP API7:2023 Server Side Request Forgery', () => {
  describe('attack: a webhook aimed at a special-purpose address', () => {
    it.each([
      ['0.0.0.0', 'unspecified'],
      ['0.1.2.3', 'this network'],
      ['10.1.2.3', 'RFC 1918'],
      ['100.64.0.1', 'CGNAT'],
      ['127.0.0.1', 'loopback'],
      ['127.9.9.9', 'loopback'],
      ['169.254.169.254', 'link-local (cloud metadata)'],
      ['172.16.0.1', 'RFC 1918'],
      ['172.31.255.255', 'RFC 1918'],
      ['192.0.0.8', 'IETF protocol assignments'],
      ['192.0.2.1', 'TEST-NET-1'],
      ['192.88.99.1', '6to4 relay'],
      ['192.168.1.1', 'RFC 1918'],
      ['198.18.0.1', 'benchmarking'],
      ['198.19.255.254', 'benchmarking'],
      ['198.51.100.7', 'TEST-NET-2'],
      ['203.0.113.9', 'TEST-NET-3'],
      ['224.0.0.1', 'multicast'],
      ['239.255.255.250', 'multicast'],
      ['240.0.0.1', 'reserved'],
      ['255.255.255.255', 'broadcast'],
      ['::', 'unspecified'],
      ['::1', 'loopback'],
      ['::7f00:1', 'IPv4-compatible loopback'],
      ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
      ['::ffff:10.0.0.1', 'IPv4-mapped private'],
      ['::ffff:0:7f00:1', 'IPv4-translated'],
      ['64:ff9b::7f00:1', 'NAT64 of loopback'],
      ['64:ff9b::808:808', 'NAT64 (refused outright)'],
      ['64:ff9b:1::1', 'local-use NAT64'],
      ['100::1', 'discard-only'],
      ['2001::1', 'Teredo'],
      ['2001:2::1', 'benchmarking'],
      ['2001:db8::1', 'documentation'],
      ['2002:7f00:1::1', '6to4 of loopback'],
      ['2002:808:808::1', '6to4 (refused outright)'],
      ['3fff::1', 'documentation'],
      ['fc00::1', 'unique local'],
      ['fd12::1', 'unique local'],
      ['fe80::1', 'link-local'],
      ['fec0::1', 'site-local'],
      ['ff02::1', 'multicast'],
      ['ff05::2', 'multicast'],
      ['4000::1', 'unallocated'],
      ['5f00::1', 'segment routing'],
    ])('refuses %s (%s)', (address) => {
      expect(isPrivateAddress(address)).toBe(true);
      expect(publicAddress(address)).toBeNull();
    });

    it.each([
      ['8.8.8.8'],
      ['1.1.1.1'],
      ['93.184.215.14'],
      ['172.32.0.1'],
      ['2606:4700::1111'],
      ['2001:4860:4860::8888'],
    ])('allows the public address %s', (address) => {
      expect(isPrivateAddress(address)).toBe(false);
      expect(publicAddress(address)).toEqual({ address, family: net.isIP(address) });
    });

    it('judges an IPv4-mapped address as the IPv4 address it carries, and connects to that', () => {
      expect(publicAddress('::ffff:8.8.8.8')).toEqual({ address: '8.8.8.8', family: 4 });
      expect(publicAddress('::ffff:169.254.169.254')).toBeNull();
    });

    it('refuses a host name when any of its DNS answers is special-purpose', async () => {
      for (const answers of [['64:ff9b::a9fe:a9fe'], ['8.8.8.8', '10.0.0.1'], ['198.18.0.1']]) {
        const resolve: Resolve = async () => answers.map((address) => ({ address, family: net.isIP(address) }));
        expect(await refuseUrl('https://hooks.example.test/x', 'public', resolve), answers.join()).toBe(
          'resolves to a private or loopback address',
        );
      }
      expect(
        await refuseUrl('https://hooks.example.test/x', 'public', async () => [{ address: '8.8.8.8', family: 4 }]),
      ).toBeNull();
    });
  });

  describe('attack: DNS rebinding between the check and the connection', () => {
    it('asks DNS once, then never connects to what a second answer would say', async () => {
      // Loopback addresses only (this machine sends no traffic elsewhere): the first answer has no listener, the
      // second has one; a client that looked the name up again would reach it.
      let hits = 0;
      const port = await listen(
        net.createServer((s) => (hits++, s.destroy())),
        '127.0.0.1',
      );
      const { resolve, seen } = rebindingDns('rebind.example.test', ['127.0.0.3', '127.0.0.1']);
      const r = await postWebhook(post(`http://rebind.example.test:${port}/hook`, true, 2_000), { resolve });
      expect(r).toMatchObject({ statusCode: null, error: 'connection refused' });
      expect(seen).toEqual(['127.0.0.3']);
      expect(hits).toBe(0);
    });

    it('connects to the address it resolved and checked, not to what a second lookup answers', async () => {
      const arrivals: string[] = [];
      const server = (name: string) =>
        http.createServer((req, res) => (arrivals.push(`${name} ${req.headers.host}`), res.end('ok')));
      const port = await listen(server('checked'), '127.0.0.2');
      await listen(server('rebound'), '127.0.0.1', port);
      const { resolve, seen } = rebindingDns('rebind.example.test', ['127.0.0.2', '127.0.0.1']);
      const r = await postWebhook(post(`http://rebind.example.test:${port}/hook`, true), { resolve });
      expect(r).toMatchObject({ statusCode: 200, excerpt: 'ok', error: null });
      expect(arrivals).toEqual([`checked rebind.example.test:${port}`]);
      expect(seen).toEqual(['127.0.0.2']);
    });

    it('still verifies TLS against the host name (SNI and certificate), not the pinned address', async () => {
      const sni: unknown[] = [];
      const tls = https.createServer({ key: KEY, cert: CERT }, (req, res) => res.end('tls ok'));
      tls.on('secureConnection', (s) => sni.push(s.servername));
      const port = await listen(tls);
      const good = rebindingDns('hooks.example.test', ['127.0.0.1']);
      expect(
        await postWebhook(post(`https://hooks.example.test:${port}/hook`, true), { resolve: good.resolve, ca: CERT }),
      ).toMatchObject({ statusCode: 200, excerpt: 'tls ok' });
      expect(sni).toEqual(['hooks.example.test']);
      vi.restoreAllMocks();
      const other = rebindingDns('other.example.test', ['127.0.0.1']);
      const wrong = await postWebhook(post(`https://other.example.test:${port}/hook`, true), {
        resolve: other.resolve,
        ca: CERT,
      });
      expect(wrong).toMatchObject({ statusCode: null, error: 'TLS error' });
      expect((wrong.detail as NodeJS.ErrnoException).code).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    });
  });

  describe('with WEBHOOKS_ALLOW_PRIVATE off (production)', () => {
    const t = useKit({ webhooksAllowPrivate: false });
    const api = t.api;
    const org = t.useOrg({ tokens: ['staff'] });
    let token: string;
    beforeAll(() => (token = org.tokens.staff));
    const PRIVATE = 'resolves to a private or loopback address';

    it.each([
      ['https://127.0.0.1/hook', PRIVATE],
      ['https://[::1]/hook', PRIVATE],
      ['https://[64:ff9b::7f00:1]/hook', PRIVATE],
      ['https://[2002:7f00:1::1]/hook', PRIVATE],
      ['https://[::ffff:127.0.0.1]/hook', PRIVATE],
      ['https://0x7f000001/hook', PRIVATE],
      ['https://2130706433/hook', PRIVATE],
      ['https://0177.0.0.1/hook', PRIVATE],
      ['https://localhost/hook', PRIVATE],
      ['https://169.254.169.254/latest/meta-data', PRIVATE],
      ['https://198.18.0.1/hook', PRIVATE],
      ['https://[ff02::1]/hook', PRIVATE],
      ['http://127.0.0.1/hook', 'must use https://'],
      ['http://[::1]/hook', 'must use https://'],
      ['http://[64:ff9b::7f00:1]/hook', 'must use https://'],
      ['http://0x7f000001/hook', 'must use https://'],
      ['http://2130706433/hook', 'must use https://'],
      ['http://localhost/hook', 'must use https://'],
      ['http://169.254.169.254/latest/meta-data', 'must use https://'],
      ['https://user:pass@example.com/hook', 'must not carry credentials'],
      ['ftp://example.com/hook', 'must use https://'],
      ['file:///etc/passwd', 'must use https://'],
      ['gopher://127.0.0.1:6379/_INFO', 'must use https://'],
    ])('refuses %s when an endpoint is created', (url, message) => expectEndpointUrlRefused(api, token, url, message));

    it('refuses a NAT64 address of the metadata service when an endpoint is updated', async () => {
      const c = await api.post('/webhooks/endpoints', {
        token,
        idempotencyKey: randomUUID(),
        body: { url: 'https://93.184.215.14/hook', events: ['*'] },
      });
      expect(c.status, c.text).toBe(201);
      const r = await api.patch(`/webhooks/endpoints/${c.body.data.id}`, {
        token,
        idempotencyKey: randomUUID(),
        body: { url: 'https://[64:ff9b::a9fe:a9fe]/latest' },
      });
      expect(r.status).toBe(422);
      expect(r.body.errors).toEqual([{ field: 'url', message: PRIVATE }]);
      expect((await api.get(`/webhooks/endpoints/${c.body.data.id}`, { token })).body.data.url).toBe(
        'https://93.184.215.14/hook',
      );
    });
  });

  describe('attack: mapping the internal network through delivery errors', () => {
    const t = useKit({ webhookTimeoutMs: 3_000 }); // test mode: loopback receivers allowed
    const api = t.api;
    const org = t.useOrg({ tokens: ['staff'] });
    let token: string;
    beforeAll(() => (token = org.tokens.staff));

    /** Creates an endpoint, sends it a ping, makes the attempt and returns what the tenant reads in its delivery log. */
    async function attemptError(url: string): Promise<string> {
      const ep = await api.post('/webhooks/endpoints', {
        token,
        idempotencyKey: randomUUID(),
        body: { url, events: ['*'] },
      });
      expect(ep.status, ep.text).toBe(201);
      const d = await api.post(`/webhooks/endpoints/${ep.body.data.id}/test`, {
        token,
        idempotencyKey: randomUUID(),
        body: {},
      });
      expect(d.status, d.text).toBe(202);
      await attemptDelivery(t.app.services, d.body.data.id);
      const log = await api.get(`/webhooks/endpoints/${ep.body.data.id}/deliveries`, { token });
      const attempt = log.body.data.find((x: { id: string }) => x.id === d.body.data.id).attempts[0];
      expect(attempt.status_code).toBeNull();
      return attempt.error;
    }

    it('names a refused connection without its address or port', async () => {
      const free = net.createServer();
      const port = await listen(free, '127.0.0.3');
      await new Promise((r) => free.close(r));
      const error = await attemptError(`http://127.0.0.3:${port}/hook`);
      expect(error).toBe('connection refused');
      expect(error).not.toMatch(/127\.0\.0\.3|\d{4,5}/);
    });

    it('names an unresolvable internal host without its name', async () => {
      expect(await attemptError('http://billing-db.corp.invalid:5432/hook')).toBe('DNS lookup failed');
    });

    it('names a reset connection and a TLS failure without the peer', async () => {
      const reset = await listen(
        net.createServer((s) => s.resetAndDestroy()),
        '127.0.0.4',
      );
      expect(await attemptError(`http://127.0.0.4:${reset}/hook`)).toBe('connection reset');
      const plain = await listen(
        http.createServer((_q, s) => s.end('not tls')),
        '127.0.0.4',
      );
      expect(await attemptError(`https://127.0.0.4:${plain}/hook`)).toBe('TLS error');
    });
  });
});
