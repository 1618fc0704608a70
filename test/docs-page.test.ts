/**
 * The API reference page (/docs, issue 17): the HTML with its Content-Security-Policy, Scalar's bundle served from
 * node_modules with a long cache, problem documents for anything else under /docs/, and a real browser with every
 * request to another host aborted that renders every operation and webhook of the served document. Screenshots go
 * to test-results/screenshots/ for a person to look at.
 */
import { createHash } from 'node:crypto';
import { readFile, mkdir } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSkipReason, launchChromium } from './helpers/chromium.ts';
import { useKit } from './kit.ts';

const t = useKit();
const SHOTS = path.join(process.cwd(), 'test-results', 'screenshots');
const BUNDLE = createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js');
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A request with the path exactly as written (fetch would normalise dots and percent-escapes). */
function rawGet(rawPath: string, method = 'GET'): Promise<{ status: number; type: string; body: string }> {
  const { hostname, port } = new URL(t.origin);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, path: rawPath, method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The page's script paths, in order. */
const scriptPaths = (html: string) => [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]);

describe('/docs over HTTP', () => {
  it('serves the page with a Content-Security-Policy that allows only the service’s own scripts', async () => {
    const r = await fetch(`${t.origin}/docs`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = r.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-eval|https?:|\*/);
    expect(/script-src[^;]*unsafe-inline/.test(csp)).toBe(false);
    const html = await r.text();
    expect(html).not.toMatch(/<script\b(?![^>]*\bsrc=)[^>]*>\s*\S/); // no inline script
    expect(html).not.toMatch(/https?:\/\//);
    const scripts = scriptPaths(html);
    expect(scripts).toHaveLength(2);
    for (const s of scripts) expect(s).toMatch(/^\/docs\/assets\/[a-z]+\.[0-9a-f]{12}\.js$/);
    expect((await fetch(`${t.origin}/docs/`)).status).toBe(200);
  });

  it('serves Scalar’s bundle from node_modules and the start script, cached for a year under content-hashed names', async () => {
    const [scalar, start] = scriptPaths(await (await fetch(`${t.origin}/docs`)).text());
    const a = await fetch(`${t.origin}${scalar}`);
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(a.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const bytes = new Uint8Array(await a.arrayBuffer());
    expect(sha(bytes)).toBe(sha(await readFile(BUNDLE)));
    expect(scalar).toContain(`.${sha(bytes).slice(0, 12)}.js`);
    const b = await fetch(`${t.origin}${start}`);
    expect(b.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const js = await b.text();
    expect(js).toContain("url: '/api/v1/openapi.json'");
    expect(js).toContain('withDefaultFonts: false');
    const head = await rawGet(scalar, 'HEAD');
    expect(head).toMatchObject({ status: 200, body: '' });
  });

  it('answers a wrong method with 405 and any other path under /docs/ with a 404 problem, never a 500', async () => {
    const post = await rawGet('/docs', 'POST');
    expect(post.status).toBe(405);
    expect(JSON.parse(post.body).code).toBe('method_not_allowed');
    const odd = [
      '/docs/nope',
      '/docs/assets/',
      '/docs/assets/scalar.js',
      '/docs/assets/scalar.000000000000.js',
      '/docs//assets',
      '/docs/assets/..%2f..%2fpackage.json',
      '/docs/%2e%2e/%2e%2e/package.json',
      '/docs/../../package.json',
      '/docs/%00',
      '/docs/%ff%fe',
      '/docs/assets/start.js/',
      `/docs/${'a/'.repeat(500)}`,
    ];
    for (const p of odd) {
      const r = await rawGet(p);
      expect(r.status, p).toBeLessThan(500);
      if (r.status !== 400) {
        expect(r.status, p).toBe(404);
        expect(r.type, p).toMatch(/^application\/problem\+json/);
      }
    }
    const query = await rawGet('/docs?<script>=1');
    expect(query.status).toBe(200);
    expect(query.body).not.toContain('<script>=');
  });
});

async function shot(page: Page, name: string, selector?: string): Promise<void> {
  if (selector) {
    await page
      .locator(selector)
      .first()
      .evaluate((e) => e.scrollIntoView({ block: 'start' }));
    await page.waitForTimeout(300); // let lazily drawn sections paint before the picture (not an assertion)
  }
  await page.screenshot({ path: path.join(SHOTS, `docs-${name}.png`) });
}

describe('/docs in a browser', () => {
  it.skipIf(browserSkipReason !== undefined)(
    `renders every operation and webhook of the document with no request to another host${browserSkipReason ? ` (skipped: ${browserSkipReason})` : ''}`,
    async () => {
      const doc = await (await fetch(`${t.base}/openapi.json`)).json();
      const operations = Object.entries<Record<string, any>>(doc.paths).flatMap(([p, item]) =>
        Object.entries<any>(item).map(([m, op]) => ({ anchor: `/${m.toUpperCase()}${p}`, id: op.operationId })),
      );
      // Scalar's anchor of a webhook drops the dots of its name (policy.activated → …/webhook/POST/policyactivated).
      const events = Object.entries<any>(doc.webhooks).map(([name, item]) => ({
        anchor: `/webhook/POST/${name.replace(/\./g, '')}`,
        id: item.post.operationId,
        name,
      }));
      expect(operations.length).toBeGreaterThan(100);
      expect(events.length).toBeGreaterThan(10);

      await mkdir(SHOTS, { recursive: true });
      const browser = await launchChromium();
      try {
        const page = await browser.context.newPage();
        const origin = new URL(t.origin).origin;
        const foreign: string[] = [];
        const problems: string[] = [];
        await page.route('**/*', (route) => {
          const u = route.request().url();
          if (u.startsWith(`${origin}/`) || /^(data|blob):/.test(u)) return route.continue();
          foreign.push(u);
          return route.abort();
        });
        page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
        page.on('console', (m) => {
          if (/Content.Security.Policy|Refused to/i.test(m.text())) problems.push(m.text());
        });

        const res = await page.goto(`${t.origin}/docs`, { waitUntil: 'load' });
        expect(res?.status()).toBe(200);
        await page.waitForSelector('[id$="/tag/webhook-events"]', { timeout: 150_000 });
        // Scalar draws the sections as it goes: wait until every operation's section and operationId, and every
        // webhook event, are on the page (or the deadline passes and the assertion lists what is missing).
        const missing = () =>
          page.evaluate(
            (ops) => {
              const ids = [...document.querySelectorAll('[id]')].map((e) => e.id);
              const text = document.body.textContent ?? '';
              return ops.filter((o) => !ids.some((i) => i.endsWith(o.anchor)) || !text.includes(o.id)).map((o) => o.id);
            },
            [...operations, ...events],
          );
        let left = await missing();
        for (const deadline = Date.now() + 150_000; left.length && Date.now() < deadline; left = await missing()) {
          await page.waitForTimeout(1000);
        }
        expect(left).toEqual([]);
        const text = (await page.textContent('body')) ?? '';
        for (const code of ['validation_failed', 'rate_limited', 'idempotency_key_reused'])
          expect(text).toContain(code);
        expect(text).toContain('timingSafeEqual');
        expect(text).toContain('Service-Signature');

        await shot(page, '1-introduction');
        await shot(page, '2-problem-catalogue', '[id$="/description/problem-documents"]');
        await shot(page, '3-signature-verification', '[id$="/description/verifying-webhook-signatures"]');
        await shot(page, '4-operation-with-examples', '[id$="/POST/webhooks/endpoints"]');
        await shot(page, '5-webhook-events', '[id$="/tag/webhook-events"]');
        await shot(page, '6-webhook-payload', '[id$="/webhook/POST/policyactivated"]');
        expect(foreign).toEqual([]);
        expect(problems).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    360_000,
  );
});
