// Assertions on what a person sees, for playwright-core locators under
// vitest (Playwright's own `expect` matchers belong to @playwright/test).
// Each waits for the page to get there, up to TIMEOUT_MS, then fails saying
// what it saw.
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

const TIMEOUT_MS = 15_000;
const poll = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: TIMEOUT_MS, interval: 100 });

export const visible = (l: Locator) => l.first().waitFor({ state: 'visible', timeout: TIMEOUT_MS });
export const hidden = (l: Locator) => l.first().waitFor({ state: 'hidden', timeout: TIMEOUT_MS });
/** The first match's visible text, or '' while it is not there yet. */
const textOf = (l: Locator) =>
  l
    .first()
    .innerText()
    .catch(() => '');
export const containsText = (l: Locator, text: string) => poll(() => textOf(l)).toContain(text);
export const lacksText = async (l: Locator, text: string) => expect(await l.first().innerText()).not.toContain(text);
export const hasText = (l: Locator, pattern: RegExp) => poll(() => textOf(l)).toMatch(pattern);
export const hasValue = (l: Locator, value: string) => poll(() => l.inputValue()).toBe(value);
export const hasCount = (l: Locator, count: number) => poll(() => l.count()).toBe(count);
export const hasAttribute = (l: Locator, name: string, pattern: RegExp) =>
  poll(async () => (await l.getAttribute(name)) ?? '').toMatch(pattern);
export const focused = (l: Locator) =>
  poll(() => l.evaluate((el) => (el.getRootNode() as ShadowRoot | Document).activeElement === el)).toBe(true);

/** What sticks out sideways (px): the page itself scrolling, and the widget wider than the screen. */
export const sideways = (page: Page) =>
  page.evaluate(() => ({
    page: document.documentElement.scrollWidth - innerWidth,
    widget: document.querySelector('mcp-ondemand-chat')!.getBoundingClientRect().right - innerWidth,
  }));
