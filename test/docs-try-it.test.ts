/**
 * Issue 27: the reference's "Test request" (/docs) authenticates with the OAuth 2.0 client-credentials flow and sends
 * a fresh Idempotency-Key with every write, never the empty one Scalar sends for a required header without a value.
 * The page's start script is run as served, with Scalar's createApiReference recorded, and its request hook is given
 * real Requests; with a browser at hand, a "Test request" is also sent from the page itself.
 */
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_KEY_EXAMPLE } from '../rest-compat/examples/apply.ts';
import { browserSkipReason, launchChromium } from './helpers/chromium.ts';
import { useKit } from './kit.ts';

const t = useKit();

interface ScalarConfig {
  url: string;
  authentication?: { preferredSecurityScheme?: string };
  onBeforeRequest?: (ctx: { request: Request }) => unknown;
}

/** The served start script, run with a Scalar that records its configuration. */
async function startConfig(): Promise<ScalarConfig> {
  const html = await (await fetch(`${t.origin}/docs`)).text();
  const start = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1])[1];
  const js = await (await fetch(`${t.origin}${start}`)).text();
  let config: ScalarConfig | undefined;
  runInNewContext(js, {
    Scalar: { createApiReference: (_at: string, c: ScalarConfig) => (config = c) },
    crypto: globalThis.crypto,
    Uint8Array,
  });
  expect(config).toBeDefined();
  return config!;
}

const keyAfterHook = async (c: ScalarConfig, method: string, key?: string) => {
  const request = new Request(`${t.base}/webhooks/endpoints`, {
    method,
    headers: key === undefined ? {} : { 'Idempotency-Key': key },
  });
  await c.onBeforeRequest!({ request });
  return request.headers.get('Idempotency-Key');
};

describe('/docs "Test request"', () => {
  it('prefers the OAuth 2.0 client-credentials scheme, whose token URL is the service’s', async () => {
    const c = await startConfig();
    expect(c.authentication?.preferredSecurityScheme).toBe('oauth2');
    const doc = await (await fetch(`${t.base}/openapi.json`)).json();
    expect(doc.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe('/api/v1/oauth/token');
  });

  it('sends a fresh Idempotency-Key with each write in place of an empty one or the document’s example', async () => {
    const c = await startConfig();
    const keys = [
      await keyAfterHook(c, 'POST', ''),
      await keyAfterHook(c, 'POST', IDEMPOTENCY_KEY_EXAMPLE),
      await keyAfterHook(c, 'PATCH'),
      await keyAfterHook(c, 'POST', ''),
    ];
    for (const k of keys) expect(k).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys).size).toBe(keys.length);
    // A key typed in by hand is kept (to try a replay); a read gets none.
    expect(await keyAfterHook(c, 'POST', 'my-own-key-1')).toBe('my-own-key-1');
    expect(await keyAfterHook(c, 'GET')).toBeNull();
  });

  it.skipIf(browserSkipReason !== undefined)(
    `opens "Test request" on a write with the client-credentials form and a key filled in${browserSkipReason ? ` (skipped: ${browserSkipReason})` : ''}`,
    async () => {
      const browser = await launchChromium();
      try {
        const page = await browser.context.newPage();
        await page.goto(`${t.origin}/docs`, { waitUntil: 'load' });
        const section = page.locator('[id$="/POST/webhooks/endpoints"]').first();
        await section.waitFor({ timeout: 150_000 });
        await section.evaluate((e) => e.scrollIntoView({ block: 'start' }));
        await section
          .getByRole('button', { name: /test request/i })
          .first()
          .click();
        await expect
          .poll(async () => (await page.textContent('body')) ?? '', { timeout: 30_000 })
          .toContain('Token URL');
        await page.screenshot({ path: 'test-results/screenshots/docs-try-it.png' });
        const text = (await page.textContent('body')) ?? '';
        expect(text).toContain('/api/v1/oauth/token');
        expect(text).toContain('Client Secret');
        // The header row shows the document's example key, which the request hook replaces with a fresh one on send.
        const values = await page.evaluate(() =>
          [...document.querySelectorAll('.cm-content')].map((e) => (e.textContent ?? '').trim()),
        );
        expect(values).toContain(IDEMPOTENCY_KEY_EXAMPLE);
      } finally {
        await browser.close();
      }
    },
    300_000,
  );
});
