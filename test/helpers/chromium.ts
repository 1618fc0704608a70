import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext } from 'playwright-core';

/** Debian's chromium driven by playwright-core (`npx playwright install` cannot download browsers here). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

const playwright: typeof import('playwright-core') | undefined = await import('playwright-core').catch(() => undefined);

/** Why browser tests cannot run here, or undefined when they can: pass to `it.skipIf`. */
export const browserSkipReason: string | undefined = !existsSync(CHROMIUM_PATH)
  ? `${CHROMIUM_PATH} is not installed`
  : !playwright
    ? 'playwright-core is not installed'
    : undefined;

/** A headless chromium with a fresh profile; `close()` also removes the profile. */
export async function launchChromium(
  viewport = { width: 1400, height: 900 },
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const userDataDir = await mkdtemp(path.join(os.tmpdir(), 'bima-chromium-'));
  const context = await playwright!.chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
