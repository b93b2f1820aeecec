// How the browser tests know a turn ended: they count the widget's
// `mcp-ondemand-message` events (one per finished answer) on the page, and
// wait for the count to pass what it was when they acted — never for a fixed time.
import type { Page } from 'playwright-core';

type Counted = { turnsEnded?: number };

/** Starts counting finished answers of the page's `<mcp-ondemand-chat>` (call after each navigation). */
export async function countTurns(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as Counted;
    w.turnsEnded = 0;
    document.querySelector('mcp-ondemand-chat')!.addEventListener('mcp-ondemand-message', () => {
      w.turnsEnded = (w.turnsEnded ?? 0) + 1;
    });
  });
}

/** Answers finished since `countTurns` (0 before it). */
export const turnsEnded = (page: Page): Promise<number> =>
  page.evaluate(() => (window as unknown as Counted).turnsEnded ?? 0);
