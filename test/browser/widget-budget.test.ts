// A used-up budget in the widget, in Chromium against the service under `wrangler dev` (`npm start`'s configuration:
// the demo server and the offline model) with a deployment-wide budget of 1 token a day: the first answer crosses it
// in its first step, ends after that step with the notice, and the next message is refused with the service's own
// sentence, plainly. Screenshots in test-results/screenshots/.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_PORTS } from '../infra/ports';
import { launchChromium, screenshot } from './chromium';
import { containsText, hasText, visible } from './see';
import { startService, type Service } from './service';

let service: Service;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  [service, chromium] = await Promise.all([
    startService(BROWSER_PORTS.budgetService, { AUTH_DISABLED: 'true', BUDGET_TOKENS_PER_DAY: '1' }),
    launchChromium(),
  ]);
  context = await chromium.browser.newContext({ viewport: { width: 1100, height: 820 } });
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${service.url}/`);
});
afterAll(async () => {
  await context?.close();
  await chromium?.close();
  await service?.stop();
});

const chat = () => page.locator('mcp-ondemand-chat');
const input = () => chat().getByRole('textbox', { name: 'Message' });

async function send(text: string) {
  await input().fill(text);
  await input().press('Enter');
}

describe('a used-up budget in the widget', () => {
  it('the answer that crosses it ends with the notice; the next message is refused in the service’s words', async () => {
    await send('What do the guidelines say?');
    const answer = chat().locator('article.assistant').last();
    await hasText(
      answer.locator('p.notice'),
      /budget of 1 token a day is used up \(\d[\d,]* tokens spent\); it resets on \d{4}-\d{2}-\d{2} 00:00 UTC\./,
    );
    await screenshot(page, 'budget-notice');

    // The ledger has the first answer's tokens once the outbox has sent them: the next message is refused.
    await expect
      .poll(
        async () =>
          (await fetch(`${service.url}/v1/usage`))
            .json()
            .then((r) => (r as { total: { requests: number } }).total.requests),
        {
          timeout: 15_000,
        },
      )
      .toBeGreaterThan(0);
    await send('And the deadlines?');
    const alert = chat().getByRole('alert');
    await visible(alert);
    await containsText(alert, 'The usage budget is used up.');
    await hasText(alert, /This workspace's budget of 1 token a day is used up/);
    // Nothing to retry: the same message would be refused again.
    expect(await alert.getByRole('button', { name: /try again/i }).count()).toBe(0);
    await screenshot(page, 'budget-refused');
    expect(pageErrors).toEqual([]);
  });
});
