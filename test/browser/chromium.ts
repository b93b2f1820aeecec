// Headless Chromium from Debian (`apt-get install chromium`), driven by
// playwright-core. Playwright never downloads a browser here.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ensureChromium } from '../../scripts/ensure-chromium.mjs';

export const SCREENSHOTS = 'test-results/screenshots';

export async function launchChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
  const browser = await chromium.launch({
    executablePath: ensureChromium(),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    // playwright-core gives every launch a fresh, temporary profile.
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    browser,
    close: () => browser.close(),
  };
}

/** A screenshot of the page as a test artifact (test-results/screenshots/<name>.png). */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}
