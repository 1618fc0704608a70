/**
 * The live operations dashboard (/dashboard, issue 17): the aggregates it reads over GraphQL, the page and its
 * bundle, and a real browser that signs in, sees the figures, watches a payment made through the API land in the
 * live feed without a reload, and an agent key that sees only its own. Screenshots go to test-results/screenshots/.
 */
import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { browserSkipReason, launchChromium } from './helpers/chromium.ts';
import { expectProblem, INSTANT_RAIL, type Org, useKit } from './kit.ts';

const t = useKit(INSTANT_RAIL, { jobs: true });
const o = t.useOrg({ fast: true });

const FIGURES = `query($date: String) {
  collectionsSummary(date: $date) { date count amount { amount amountMinor } successRate byHour { hour count } prompts { status resultCode count } }
  policyCounts { status count }
  claimCounts { status count slaBreached }
}`;
/** The Nairobi day of the rail's payment times (the simulator stamps them on the system clock). */
const railDay = () => new Date(Date.now() + 3 * 3_600_000).toISOString().slice(0, 10);

async function figures(org: Org, role: 'staff' | 'agent') {
  const r = await org.as(role).gql(FIGURES, { date: railDay() });
  expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
  return r.body.data;
}

describe('the dashboard aggregates', () => {
  it('count what the caller may see: staff everything, an agent only its reach', async () => {
    const staffPol = await o.activePolicy();
    const agentPol = await o.activePolicy({ token: o.tokens.agent });
    const staff = await figures(o, 'staff');
    const agent = await figures(o, 'agent');
    const paid = (p: typeof staffPol) => BigInt(p.debit_note.instalments[0].amount_minor);

    expect(staff.collectionsSummary.count).toBeGreaterThanOrEqual(2);
    expect(agent.collectionsSummary.count).toBeGreaterThanOrEqual(1);
    expect(agent.collectionsSummary.count).toBeLessThan(staff.collectionsSummary.count);
    expect(BigInt(staff.collectionsSummary.amount.amountMinor)).toBeGreaterThanOrEqual(paid(staffPol) + paid(agentPol));
    expect(staff.collectionsSummary.byHour).toHaveLength(24);
    expect(staff.collectionsSummary.byHour.reduce((s: number, h: any) => s + h.count, 0)).toBe(
      staff.collectionsSummary.count,
    );
    expect(staff.collectionsSummary.prompts).toContainEqual({ status: 'succeeded', resultCode: 0, count: 2 });
    expect(staff.collectionsSummary.successRate).toBe(1);
    const active = (f: any) => f.policyCounts.find((c: any) => c.status === 'active')?.count;
    expect(active(staff)).toBe(2);
    expect(active(agent)).toBe(1);
    expect(staff.claimCounts).toEqual([]);
  });

  it('refuse a malformed date as validation_failed', async () => {
    const r = await o.as('staff').gql(`{ collectionsSummary(date: "2026-02-30") { count } }`);
    expect(r.body.errors?.[0]?.extensions?.code).toBe('validation_failed');
  });
});

describe('the page', () => {
  beforeAll(() => {
    // The bundle is built by npm ci and npm start; a checkout edited since is rebuilt here the same way.
    execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
  });

  it('serves a shell and its bundle from this origin, nothing else', async () => {
    const page = await fetch(`${t.origin}/dashboard`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    const html = await page.text();
    for (const m of html.matchAll(/\b(?:src|href)="([^"]*)"/g)) {
      expect(m[1]).toMatch(/^(\/dashboard\/app\.(js|css)|\/favicon\.svg)$/);
    }
    for (const f of ['app.js', 'app.css']) {
      const r = await fetch(`${t.origin}/dashboard/${f}`);
      expect(r.status, f).toBe(200);
      const again = await fetch(`${t.origin}/dashboard/${f}`, { headers: { 'if-none-match': r.headers.get('etag')! } });
      expect(again.status, f).toBe(304);
    }
    expectProblem(await t.api.call('GET', '/../dashboard/nope.js'), 404, 'not_found');
    const post = await fetch(`${t.origin}/dashboard`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});

const SHOTS = path.join(process.cwd(), 'test-results', 'screenshots');

/** A fresh headless Chromium that may reach this test's server and nothing else. */
async function browser(): Promise<{ context: BrowserContext; foreign: string[]; close: () => Promise<void> }> {
  const chromium = await launchChromium({ width: 1360, height: 900 });
  const context = chromium.context;
  const origin = new URL(t.origin).origin;
  const foreign: string[] = [];
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith(origin) || /^(data|blob|about):/.test(u)) return route.continue();
    foreign.push(u);
    return route.abort('blockedbyclient');
  });
  return { context, foreign, close: () => chromium.close() };
}

/** Opens the dashboard and signs in with one of the organisation's API clients; resolves once the feed is live. */
async function signIn(context: BrowserContext, role: 'staff' | 'agent', errors: string[]): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  expect((await page.goto(`${t.origin}/dashboard`))?.status()).toBe(200);
  await page.fill('input[name=client_id]', o.clients[role].clientId);
  await page.fill('input[name=client_secret]', o.clients[role].secret);
  await page.click('button[type=submit]');
  await page
    .getByTestId('live-status')
    .filter({ hasText: /^live$/ })
    .waitFor({ timeout: 20_000 });
  await page.getByTestId('collections-count').waitFor();
  return page;
}

const feedLine = (page: Page, kind: string, text: string) =>
  page.locator(`[data-testid=feed] li[data-kind=${kind}]`, { hasText: text });

describe.skipIf(browserSkipReason !== undefined)(
  `in Chromium${browserSkipReason ? ` (skipped: ${browserSkipReason})` : ''}`,
  () => {
    it('signs in, shows the figures, and a payment made through the API lands live without a reload', async () => {
      await mkdir(SHOTS, { recursive: true });
      const b = await browser();
      const errors: string[] = [];
      try {
        const page = await signIn(b.context, 'staff', errors);
        // The aggregates test's payments were made before the page opened: the feed shows them from the history.
        await page.locator('[data-testid=feed] li[data-kind=payment]').first().waitFor({ timeout: 20_000 });
        const before = Number(await page.getByTestId('collections-count').textContent());
        expect(before).toBeGreaterThanOrEqual(2); // the aggregates test's two payments
        expect(await page.getByTestId('success-rate').textContent()).toBe('100%');
        await page.getByTestId('policy-counts').locator('tr[data-status=active]').waitFor();
        await page.screenshot({ path: path.join(SHOTS, 'dashboard-signed-in.png'), fullPage: true });
        await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

        const pol = await o.pendingPolicy();
        await o.pay(pol.policy_no, pol.debit_note.instalments[0].amount_minor);
        await feedLine(page, 'payment', pol.policy_no).waitFor({ timeout: 20_000 });
        await feedLine(page, 'activation', pol.policy_no).waitFor({ timeout: 20_000 });
        await page
          .getByTestId('collections-count')
          .filter({ hasText: String(before + 1) })
          .waitFor({ timeout: 20_000 });
        expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
        await page.screenshot({ path: path.join(SHOTS, 'dashboard-payment-live.png'), fullPage: true });
        expect(b.foreign).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await b.close();
      }
    }, 120_000);

    it('shows the day so far on load, opens the record behind a line or a tile, and fits 390 px', async () => {
      // A payment made through the API before the page opens: the feed must show it from the history read.
      const pol = await o.pendingPolicy();
      await o.pay(pol.policy_no, pol.debit_note.instalments[0].amount_minor);
      const receipts = await o.as('staff').get(`/receipts?policy_no=${encodeURIComponent(pol.policy_no)}`);
      expect(receipts.status, receipts.text).toBe(200);
      const receiptNo: string = receipts.body.data[0].receipt_no;

      const b = await browser();
      const errors: string[] = [];
      try {
        const page = await signIn(b.context, 'staff', errors);
        await page.setViewportSize({ width: 1400, height: 900 });
        const line = feedLine(page, 'payment', pol.policy_no);
        await line.waitFor({ timeout: 20_000 });
        await feedLine(page, 'activation', pol.policy_no).waitFor();
        await page.locator('[data-testid=feed][data-loaded=yes]').waitFor();
        // Each event once, whether read from the history, heard live, or both; newest first.
        const ids = await page
          .locator('[data-testid=feed] li[data-event-id]')
          .evaluateAll((lis) => lis.map((li) => li.getAttribute('data-event-id')));
        expect(new Set(ids).size).toBe(ids.length);
        const times = await page
          .locator('[data-testid=feed] li[data-event-id] time')
          .evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime')!));
        expect(times.map((x) => Date.parse(x))).toEqual(times.map((x) => Date.parse(x)).sort((x, y) => y - x));

        // A feed line opens its receipt with the allocations; Escape closes it and gives focus back.
        await line.locator('button').click();
        const detail = page.getByTestId('detail');
        await detail.getByTestId('detail-receipt-no').filter({ hasText: receiptNo }).waitFor();
        await detail.getByText(/^DN-/).first().waitFor();
        await page.screenshot({ path: path.join(SHOTS, 'dashboard-receipt.png') });
        await page.keyboard.press('Escape');
        await detail.waitFor({ state: 'detached' });
        expect(await line.locator('button').evaluate((el) => el === document.activeElement)).toBe(true);

        // A tile: the active policies, then one of them with its receipt.
        await page.getByTestId('policy-counts').locator('tr[data-status=active] button').click();
        await detail.getByRole('button', { name: pol.policy_no }).click();
        await detail.getByTestId('detail-policy-no').filter({ hasText: pol.policy_no }).waitFor();
        await detail.getByRole('button', { name: receiptNo }).waitFor();
        await detail.getByRole('button', { name: 'Close' }).click();
        await detail.waitFor({ state: 'detached' });
        await page.getByTestId('collections-count').click();
        await detail.getByRole('button', { name: receiptNo }).waitFor();
        await page.keyboard.press('Escape');
        await detail.waitFor({ state: 'detached' });
        await page.screenshot({ path: '/tmp/dashboard-wide.png', fullPage: true });

        // 390 px: no horizontal scroll, the header wraps and Sign out stays on screen.
        await page.setViewportSize({ width: 390, height: 844 });
        await page.waitForTimeout(200);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        const signOut = page.getByRole('button', { name: 'Sign out' });
        expect(await signOut.isVisible()).toBe(true);
        const box = (await signOut.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(390);
        await page.screenshot({ path: '/tmp/dashboard-narrow.png', fullPage: true });
        await line.locator('button').click();
        await detail.getByTestId('detail-receipt-no').filter({ hasText: receiptNo }).waitFor();
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        await page.screenshot({ path: path.join(SHOTS, 'dashboard-narrow-receipt.png') });
        await page.keyboard.press('Escape');
        await detail.waitFor({ state: 'detached' });
        expect(b.foreign).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await b.close();
      }
    }, 120_000);

    it("an agent key sees its own payments and not a staff policy's", async () => {
      const b = await browser();
      const errors: string[] = [];
      try {
        const staffPage = await signIn(b.context, 'staff', errors);
        const agentPage = await signIn(b.context, 'agent', errors);
        await agentPage.getByTestId('webhooks-unavailable').waitFor();
        const staffPol = await o.pendingPolicy();
        const agentPol = await o.pendingPolicy({ token: o.tokens.agent });
        await o.pay(staffPol.policy_no, staffPol.debit_note.instalments[0].amount_minor);
        await o.pay(agentPol.policy_no, agentPol.debit_note.instalments[0].amount_minor, { token: o.tokens.agent });

        // The staff page hears both (the positive control); events reach a subscriber in commit order, so once the
        // agent's page shows its own later payment, the staff policy's earlier one would have arrived before it.
        await feedLine(staffPage, 'payment', staffPol.policy_no).waitFor({ timeout: 20_000 });
        await feedLine(staffPage, 'payment', agentPol.policy_no).waitFor({ timeout: 20_000 });
        await feedLine(agentPage, 'payment', agentPol.policy_no).waitFor({ timeout: 20_000 });
        expect(await agentPage.getByTestId('feed').textContent()).not.toContain(staffPol.policy_no);

        const staffCount = Number(await staffPage.getByTestId('collections-count').textContent());
        const agentCount = Number(await agentPage.getByTestId('collections-count').textContent());
        expect(agentCount).toBeGreaterThan(0);
        expect(agentCount).toBeLessThan(staffCount);
        await agentPage.screenshot({ path: path.join(SHOTS, 'dashboard-agent.png'), fullPage: true });
        expect(b.foreign).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await b.close();
      }
    }, 120_000);
  },
);
