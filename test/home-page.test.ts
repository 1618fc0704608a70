/**
 * Everything findable (issue 29): `GET /` is a small page leading to every place the service serves, the service has
 * a favicon (so no page of it logs a 404 for one in the browser's console), and each place the page names answers.
 * Screenshots go to test-results/screenshots/ for a person to look at.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserSkipReason, launchChromium } from './helpers/chromium.ts';
import { useKit } from './kit.ts';

const t = useKit();
const SHOTS = path.join(process.cwd(), 'test-results', 'screenshots');

describe('GET /', () => {
  it('is a small HTML page that names the REST base URL and links the reference, GraphQL, the dashboard, metrics and health, and names the WebSocket URL', async () => {
    const r = await fetch(`${t.origin}/`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await r.text();
    const links = [...html.matchAll(/<a href="([^"]+)">/g)].map((m) => m[1]);
    expect(links).toEqual(['/docs', '/api/v1/openapi.json', '/graphql', '/dashboard', '/metrics', '/healthz']);
    expect(html).toContain(`${t.origin}/api/v1`);
    expect(html).toContain(`${t.origin.replace(/^http/, 'ws')}/graphql`);
    expect(html).toContain('<link rel="icon" type="image/svg+xml" href="/favicon.svg">');
    // Each place it links answers something other than a 404 (metrics: 404 without METRICS_TOKEN, said on the page).
    for (const link of links.filter((l) => l !== '/metrics')) {
      const a = await fetch(`${t.origin}${link}`, { headers: { accept: 'text/html' } });
      expect(a.status, link).not.toBe(404);
    }
  });

  it('answers HEAD with the headers alone, and refuses other methods with a problem document', async () => {
    const head = await fetch(`${t.origin}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await fetch(`${t.origin}/`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await post.json()).code).toBe('method_not_allowed');
  });

  it('never echoes a malformed Host into the page', async () => {
    const { default: http } = await import('node:http');
    const { port } = new URL(t.origin);
    const body = await new Promise<string>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path: '/', headers: { host: 'a"b' } }, (res) => {
        let b = '';
        res.on('data', (c) => (b += c));
        res.on('end', () => resolve(`${res.statusCode} ${b}`));
      });
      req.on('error', reject);
      req.end();
    });
    expect(body).not.toContain('a"b');
  });
});

describe('the favicon', () => {
  it('is served as /favicon.svg and /favicon.ico, and every page of the service links it', async () => {
    for (const p of ['/favicon.svg', '/favicon.ico']) {
      const r = await fetch(`${t.origin}${p}`);
      expect(r.status, p).toBe(200);
      expect(r.headers.get('content-type')).toBe('image/svg+xml');
      expect(await r.text()).toMatch(/^<svg /);
    }
    for (const p of ['/docs', '/dashboard']) {
      const html = await (await fetch(`${t.origin}${p}`)).text();
      expect(html, p).toContain('<link rel="icon" type="image/svg+xml" href="/favicon.svg">');
    }
  });

  it.skipIf(browserSkipReason !== undefined)(
    `leaves no console error on /, /docs or /dashboard in a browser, at 1400 and at 390 px${browserSkipReason ? ` (skipped: ${browserSkipReason})` : ''}`,
    async () => {
      await mkdir(SHOTS, { recursive: true });
      for (const width of [1400, 390]) {
        const browser = await launchChromium({ width, height: 900 });
        try {
          const page = await browser.context.newPage();
          const errors: string[] = [];
          page.on('console', (m) => m.type() === 'error' && errors.push(`${page.url()}: ${m.text()}`));
          page.on('response', (r) => r.status() === 404 && errors.push(`404 ${r.url()}`));
          for (const p of ['/', '/docs', '/dashboard']) {
            await page.goto(`${t.origin}${p}`, { waitUntil: 'load' });
            await page.waitForTimeout(300);
          }
          await page.goto(`${t.origin}/`, { waitUntil: 'load' });
          await page.screenshot({ path: path.join(SHOTS, `home-${width}.png`), fullPage: true });
          // The landing page fits the screen: nothing wider than the viewport.
          expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
          expect(errors).toEqual([]);
        } finally {
          await browser.close();
        }
      }
    },
    120_000,
  );
});
