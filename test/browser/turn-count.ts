// How the browser tests know a turn ended: they count the widget's events on the page — `mcp-ondemand-message`
// (one per finished answer) and `mcp-ondemand-waiting` for an approval (the turn ended there; the answer goes on
// once it is answered) — and wait for the count to pass what it was when they acted, never for a fixed time.
import type { Page } from 'playwright-core';

type Counted = { turnsEnded?: number; answerEvents?: string[] };

/** Starts counting finished turns of the page's `<mcp-ondemand-chat>` (call after each navigation). */
export async function countTurns(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as Counted;
    w.turnsEnded = 0;
    w.answerEvents = [];
    const chat = document.querySelector('mcp-ondemand-chat')!;
    chat.addEventListener('mcp-ondemand-message', () => {
      w.turnsEnded = (w.turnsEnded ?? 0) + 1;
      w.answerEvents!.push('message');
    });
    chat.addEventListener('mcp-ondemand-waiting', (event) => {
      const { waitingFor } = (event as CustomEvent<{ waitingFor: string }>).detail;
      if (waitingFor === 'approval') w.turnsEnded = (w.turnsEnded ?? 0) + 1;
      w.answerEvents!.push(`waiting for ${waitingFor}`);
    });
  });
}

/** Turns ended since `countTurns` (0 before it): answers finished, and answers stopped for an approval. */
export const turnsEnded = (page: Page): Promise<number> =>
  page.evaluate(() => (window as unknown as Counted).turnsEnded ?? 0);

/** The events the host page heard since `countTurns`, in order: `message`, `waiting for approval|question`. */
export const answerEvents = (page: Page): Promise<string[]> =>
  page.evaluate(() => (window as unknown as Counted).answerEvents ?? []);
