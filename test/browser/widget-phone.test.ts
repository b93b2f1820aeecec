// The chat widget on a phone: the demo page (`npm start`'s service: the demo
// MCP server, the offline model) in headless Chromium at 360 × 800, with an
// MCP Apps view, an approval card and a task card on screen at once. Nothing
// may be wider than the screen: no horizontal scroll of the page, no part of
// a message, a card or the composer cut off at the right. The width comes
// from the host's layout (here a one-column grid whose track would grow to
// fit its content); the widget must fit it whatever it is. Screenshots in
// test-results/screenshots/.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BROWSER_PORTS } from '../infra/ports';
import { launchChromium, screenshot } from './chromium';
import { containsText, visible } from './see';
import { startService, type Service } from './service';
import { countTurns, turnsEnded } from './turn-count';

let service: Service;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];

beforeAll(async () => {
  [service, chromium] = await Promise.all([
    startService(BROWSER_PORTS.demoService, { AUTH_DISABLED: 'true' }),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await chromium?.close();
  await service?.stop();
});
beforeEach(async () => {
  context = await chromium.browser.newContext({ viewport: { width: 360, height: 800 }, isMobile: true });
  page = await context.newPage();
  pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${service.url}/`);
  await countTurns(page);
});
afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail')
    await screenshot(page, `failed-phone-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
  expect(pageErrors).toEqual([]);
  await context.close();
});

const chat = () => page.locator('mcp-ondemand-chat');
const input = () => chat().getByRole('textbox', { name: 'Message' });

async function ask(text: string): Promise<void> {
  const before = await turnsEnded(page);
  await input().fill(text);
  await input().press('Enter');
  await expect.poll(() => turnsEnded(page), { timeout: 20_000 }).toBeGreaterThan(before);
}

/**
 * Everything that sticks out to the right, as `what: px`: the page itself (horizontal scroll), the widget past the
 * screen, and any element of the widget past the widget's own right edge (the chat clips it: cut off for the user).
 * Scrolling boxes of their own (a step's pre, a code block) may hold wider content; they are not counted inside.
 */
function overflow(): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const screen = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > screen)
      found.push(`page: ${document.documentElement.scrollWidth} > ${screen}`);
    const host = document.querySelector('mcp-ondemand-chat')!;
    const box = host.getBoundingClientRect();
    if (box.right > screen + 0.5) found.push(`widget: ${Math.round(box.right)} > ${screen}`);
    const inScroller = (el: Element) => {
      for (let p = el.parentElement; p; p = p.parentElement) {
        const style = getComputedStyle(p);
        if (p.classList.contains('log')) return false;
        if (/(auto|scroll)/.test(style.overflowX)) return true;
      }
      return false;
    };
    for (const el of host.shadowRoot!.querySelectorAll('*')) {
      const rect = el.getBoundingClientRect();
      if (rect.width === 0 || inScroller(el)) continue;
      if (rect.right > box.right + 0.5)
        found.push(
          `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}: ${Math.round(rect.right)} > ${Math.round(box.right)}`,
        );
    }
    const log = host.shadowRoot!.querySelector('.log')!;
    if (log.scrollWidth > log.clientWidth) found.push(`log scrolls sideways: ${log.scrollWidth} > ${log.clientWidth}`);
    return found;
  });
}

describe('the widget on a phone (360 px)', () => {
  it('a view, an approval card and a task card fit the screen, and so does the composer', async () => {
    await ask('build_report topic=phone seconds=2');
    const card = chat().getByRole('group', { name: 'build_report on demo' });
    await visible(card);
    await containsText(chat().locator('article.assistant').last(), 'Report: phone');
    await ask('show_task_board');
    const view = chat().locator('iframe.view-frame').last();
    await visible(view);
    await expect.poll(async () => (await view.boundingBox())?.height ?? 0, { timeout: 15_000 }).toBeGreaterThan(100);
    await input().fill('create_task title="Phone check"');
    await input().press('Enter');
    const approval = chat().getByRole('group', { name: 'Tool approval' });
    await visible(approval);

    for (const [what, locator] of [
      ['the task card', card],
      ['the view', view],
      ['the approval card', approval],
    ] as const) {
      await locator.scrollIntoViewIfNeeded();
      expect(await overflow(), `with ${what} on screen`).toEqual([]);
    }
    // The composer's controls are on screen, whole; its placeholder fits its one line (the hint below says the rest).
    const clipped = await input().evaluate((el) => el.scrollHeight > el.clientHeight + 1);
    expect(clipped).toBe(false);
    const hint = await chat().locator('.hint').innerText();
    expect(hint).not.toContain(await input().getAttribute('placeholder'));
    const send = chat().getByRole('button', { name: 'Send' });
    const sendBox = (await send.boundingBox())!;
    expect(sendBox.x + sendBox.width).toBeLessThanOrEqual(360);
    await screenshot(page, 'phone-01-view-approval-task');
    await approval.scrollIntoViewIfNeeded();
    await screenshot(page, 'phone-02-approval');
  });

  it('a view that loads below the fold is scrolled into sight (the person was reading the end of the chat)', async () => {
    await ask('What do the team guidelines say about estimates?');
    await ask('show_task_board');
    const view = chat().locator('iframe.view-frame').last();
    await visible(view);
    // Once the view has said how tall it is, the whole of it is in the transcript's visible part.
    await expect
      .poll(
        async () => {
          const frame = (await view.boundingBox())!;
          const log = (await chat().locator('.log').boundingBox())!;
          return frame.height > 0 && frame.y >= log.y - 1 && frame.y + frame.height <= log.y + log.height + 1;
        },
        { timeout: 10_000 },
      )
      .toBe(true);
    await screenshot(page, 'phone-03-view-in-sight');
  });
});
