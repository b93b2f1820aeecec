// The widget's shell, in Chromium against the service under `wrangler dev` (`npm start`'s configuration: the demo
// server and the offline model, plus the view server of test/infra/view-server.ts): the start screen (the host's
// suggestions, else the servers' prompts), the themes (light, dark, auto following the system; MCP Apps views told
// through their host context), axe-core in both themes at 1280 and 360 px, and the thread list (newest first, New
// chat, rename, delete, `threads="off"`). The demo page at / is served with the attributes each test gives the
// element. Screenshots in test-results/screenshots/.
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_PORTS } from '../infra/ports';
import { axeViolations } from './axe';
import { startViewServer } from '../infra/view-server';
import { launchChromium, SCREENSHOTS, screenshot } from './chromium';
import { containsText, focused, hasCount, hidden, visible } from './see';
import { startService, type Service } from './service';
import { countTurns, turnsEnded } from './turn-count';

const WIDE = { width: 1280, height: 820 };
const PHONE = { width: 360, height: 800 };

let service: Service;
let views: Awaited<ReturnType<typeof startViewServer>>;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext | undefined;
let page: Page;
let pageErrors: string[];
let viewLog: string[];

beforeAll(async () => {
  views = await startViewServer(BROWSER_PORTS.shellViews);
  [service, chromium] = await Promise.all([
    startService(BROWSER_PORTS.shellService, {
      AUTH_DISABLED: 'true',
      ALLOW_PRIVATE_MCP_URLS: 'true',
      MCP_SERVERS: JSON.stringify([
        { id: 'demo', url: '/demo/mcp', trustAnnotations: true },
        { id: 'views', url: views.url, transport: 'streamable-http', autoApprove: ['show_probe', 'show_official'] },
      ]),
    }),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await chromium?.close();
  await service?.stop();
  await views?.close();
});
afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail')
    await screenshot(page, `failed-shell-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
  expect(pageErrors).toEqual([]);
  await context?.close();
  context = undefined;
});

/** The demo page with `attrs` on the element (its own headers, CSP included), in a fresh context. */
async function open(
  viewport: { width: number; height: number },
  attrs: Record<string, string> = {},
  colorScheme: 'light' | 'dark' = 'light',
): Promise<void> {
  context = await chromium.browser.newContext({ viewport, colorScheme, isMobile: viewport.width < 500 });
  page = await context.newPage();
  pageErrors = [];
  viewLog = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.text().startsWith('[mcp-app ')) viewLog.push(message.text());
  });
  await page.route(`${service.url}/`, async (route) => {
    const response = await route.fetch();
    const extra = Object.entries(attrs)
      .map(([name, value]) => ` ${name}="${value.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}"`)
      .join('');
    const body = (await response.text()).replace('<mcp-ondemand-chat ', `<mcp-ondemand-chat${extra} `);
    await route.fulfill({ response, body });
  });
  await page.goto(`${service.url}/`);
  await countTurns(page);
}

const chat = () => page.locator('mcp-ondemand-chat');
const input = () => chat().getByRole('textbox', { name: 'Message' });
const start = () => chat().locator('[part="start"]');
const threadsButton = () => chat().getByRole('button', { name: 'Conversations', exact: true });
const threadsPanel = () => chat().getByRole('dialog', { name: 'Conversations' });
const threadRows = () => threadsPanel().locator('li.thread');

async function ask(text: string): Promise<void> {
  const before = await turnsEnded(page);
  await input().fill(text);
  await input().press('Enter');
  await expect.poll(() => turnsEnded(page), { timeout: 20_000 }).toBeGreaterThan(before);
}

/** A view's log line containing `text` (the probe and the official view report what they get). */
async function logged(text: string): Promise<string> {
  await expect.poll(() => viewLog.find((line) => line.includes(text)) ?? '', { timeout: 15_000 }).toContain(text);
  return viewLog.find((line) => line.includes(text))!;
}

/** A computed style of an element in the widget's shadow root. */
const styleOf = (selector: string, property: string) =>
  chat().evaluate(
    (host, [sel, prop]) => getComputedStyle(host.shadowRoot!.querySelector(sel!)!).getPropertyValue(prop!),
    [selector, property],
  );

/** The caller's conversations, as the API lists them (AUTH_DISABLED: every page here is the same person). */
async function listed(): Promise<Array<{ id: string; title: string }>> {
  const response = await fetch(`${service.url}/v1/conversations?limit=100`);
  return ((await response.json()) as { conversations: Array<{ id: string; title: string }> }).conversations;
}

describe('the start screen', () => {
  for (const viewport of [WIDE, PHONE]) {
    it(`shows the host's suggestions (strings and {label, prompt}); clicking one sends its prompt — ${viewport.width} px`, async () => {
      await open(viewport, {
        suggestions: JSON.stringify([
          'What do the team guidelines say about estimates?',
          { label: 'Open tasks', prompt: 'Which tasks are still open?' },
        ]),
      });
      await visible(start());
      await containsText(start(), 'How can I help?');
      const list = start().getByRole('list', { name: 'Suggestions' });
      await hasCount(list.getByRole('button'), 2);
      // The servers' prompts are not offered in their place.
      expect(await start().getByRole('button', { name: 'Plan my day' }).count()).toBe(0);
      await screenshot(page, `shell-start-suggestions-${viewport.width}`);

      const before = await turnsEnded(page);
      await list.getByRole('button', { name: 'Open tasks' }).click();
      // Its prompt, not its label, is what was sent: the person's message says it, and the start screen is gone.
      await containsText(chat().locator('article.user').first(), 'Which tasks are still open?');
      await expect.poll(() => turnsEnded(page), { timeout: 20_000 }).toBeGreaterThan(before);
      await hidden(start());
      await visible(chat().locator('article.assistant').first());
    });
  }

  it('without suggestions offers the servers’ prompts once the person comes to the chat; one opens its argument form', async () => {
    const before = (await listed()).length;
    await open(WIDE);
    await containsText(start(), 'How can I help?');
    // The help about / and @ is on the start screen.
    await containsText(start(), 'Type / for every prompt and skill, @ to attach a resource');
    // A page view where nobody comes to the chat creates no conversation.
    await page.waitForTimeout(500);
    expect((await listed()).length).toBe(before);

    await chat().hover();
    const prompts = start().getByRole('list', { name: 'Prompts from the servers' });
    await visible(prompts.getByRole('button', { name: 'Plan my day' }));
    await visible(prompts.getByRole('button', { name: 'Review the guidelines' }));
    await screenshot(page, 'shell-start-prompts-1280');
    await prompts.getByRole('button', { name: 'Plan my day' }).click();
    const form = chat().getByRole('form', { name: '/plan_day — Plan my day' });
    await visible(form);
    await focused(form.getByRole('combobox', { name: /hours/ }));
    await form.getByRole('combobox', { name: /hours/ }).fill('2');
    const turns = await turnsEnded(page);
    await form.getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => turnsEnded(page), { timeout: 20_000 }).toBeGreaterThan(turns);
    await containsText(chat().locator('article.user').first(), 'Plan my day: I have 2 hours');
  });
});

describe('themes', () => {
  it('theme="dark" and "light" change the colours and the color-scheme; the property sets the attribute', async () => {
    await open(WIDE, { theme: 'dark' });
    await visible(start());
    expect(await styleOf('.chat', 'background-color')).toBe('rgb(22, 24, 29)');
    expect(await styleOf('.chat', 'color-scheme')).toBe('dark');
    expect(await styleOf('textarea', 'background-color')).toBe('rgb(22, 24, 29)');
    await screenshot(page, 'shell-theme-dark-1280');

    await chat().evaluate((el) => ((el as HTMLElement & { theme: string }).theme = 'light'));
    expect(await chat().getAttribute('theme')).toBe('light');
    expect(await styleOf('.chat', 'background-color')).toBe('rgb(255, 255, 255)');
    expect(await styleOf('.chat', 'color-scheme')).toBe('light');
    await screenshot(page, 'shell-theme-light-1280');
  });

  it('theme="auto" follows the system live, and a view gets the theme at start and each time it flips', async () => {
    await open(WIDE, { theme: 'auto' }, 'dark');
    await visible(start());
    expect(await styleOf('.chat', 'background-color')).toBe('rgb(22, 24, 29)');

    await ask('show_probe label=themed');
    expect(await logged('initialized')).toContain('"theme":"dark"');
    if (views.official) {
      await ask('show_official');
      await logged('official connected inline dark');
    }
    await screenshot(page, 'shell-theme-auto-dark-view');

    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(() => styleOf('.chat', 'background-color')).toBe('rgb(255, 255, 255)');
    await logged('context {"theme":"light"}');
    if (views.official) await logged('official context {"theme":"light"} now light');

    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => styleOf('.chat', 'background-color')).toBe('rgb(22, 24, 29)');
    await logged('context {"theme":"dark"}');
  });

  for (const theme of ['light', 'dark'] as const) {
    for (const viewport of [WIDE, PHONE]) {
      it(`axe-core finds no violation — ${theme}, ${viewport.width} px: start screen, an answer with steps, the thread list`, async () => {
        await open(viewport, { theme });
        await chat().hover();
        await visible(start().getByRole('button', { name: 'Plan my day' }));
        expect(await axeViolations(page)).toEqual([]);

        await ask('What do the team guidelines say about estimates?');
        await visible(chat().locator('details.step').first());
        await chat().locator('details.step summary').first().click();
        expect(await axeViolations(page)).toEqual([]);
        await screenshot(page, `shell-axe-${theme}-${viewport.width}`);
        // The widget alone, for docs/FRONTENDS.md (docs/images/widget-light.png and -dark.png are copies).
        if (viewport === WIDE) await chat().screenshot({ path: join(SCREENSHOTS, `widget-${theme}.png`) });

        await threadsButton().click();
        await visible(threadRows().first());
        expect(await axeViolations(page)).toEqual([]);
      });
    }
  }
});

describe('the thread list', () => {
  it('lists the conversations newest first; opens, renames and deletes one; New chat starts afresh — 1280 px', async () => {
    await open(WIDE);
    await ask('first thread alpha');
    await expect.poll(async () => (await listed())[0]?.title).toBe('first thread alpha');
    const alpha = (await listed())[0]!;

    await threadsButton().click();
    await visible(threadsPanel());
    await expect.poll(() => threadsButton().getAttribute('aria-expanded')).toBe('true');
    await threadsPanel().getByRole('button', { name: 'New chat' }).click();
    await hidden(threadsPanel());
    await visible(start());
    await focused(input());
    await ask('second thread beta');

    await threadsButton().click();
    await visible(threadRows().first());
    // Newest first, with their titles; the one shown is marked, and has the focus.
    await expect
      .poll(async () => (await threadRows().locator('.thread-title').allInnerTexts()).slice(0, 2))
      .toEqual(['second thread beta', 'first thread alpha']);
    await expect.poll(() => threadRows().first().locator('.thread-open').getAttribute('aria-current')).toBe('true');
    await focused(threadRows().first().locator('.thread-open'));
    await screenshot(page, 'shell-threads-1280');

    // Rename: Enter saves; the API has the new title.
    await threadsPanel().getByRole('button', { name: 'Rename “first thread alpha”' }).click();
    const title = threadsPanel().getByRole('textbox', { name: 'Title' });
    await focused(title);
    await title.fill('Estimates, renamed');
    await title.press('Enter');
    await containsText(threadRows().nth(1), 'Estimates, renamed');
    await focused(threadsPanel().getByRole('button', { name: 'Rename “Estimates, renamed”' }));
    await expect.poll(async () => (await listed()).find((t) => t.id === alpha.id)?.title).toBe('Estimates, renamed');

    // Opening one shows its messages.
    await threadRows().nth(1).locator('.thread-open').click();
    await hidden(threadsPanel());
    await containsText(chat().locator('article.user').first(), 'first thread alpha');
    expect(await chat().locator('article.user').count()).toBe(1);

    // Delete asks first (Cancel has the focus); deleted, it is gone from the list and from the API.
    await threadsButton().click();
    await threadsPanel().getByRole('button', { name: 'Delete “second thread beta”' }).click();
    await containsText(
      threadsPanel(),
      'Delete “second thread beta”? Its messages and files go; this cannot be undone.',
    );
    await focused(threadsPanel().getByRole('button', { name: 'Cancel' }));
    const beta = (await listed()).find((t) => t.title === 'second thread beta')!;
    await threadsPanel().getByRole('group').getByRole('button', { name: 'Delete', exact: true }).click();
    await containsText(threadsPanel().getByRole('status'), '“second thread beta” was deleted.');
    await expect
      .poll(async () => (await threadRows().locator('.thread-title').allInnerTexts()).includes('second thread beta'))
      .toBe(false);
    expect((await listed()).some((t) => t.id === beta.id)).toBe(false);
    expect((await fetch(`${service.url}/v1/conversations/${beta.id}`)).status).toBe(404);

    // Escape closes the list, and the focus goes back to its button.
    await page.keyboard.press('Escape');
    await hidden(threadsPanel());
    await focused(threadsButton());

    // threads="off": no button.
    await chat().evaluate((el) => el.setAttribute('threads', 'off'));
    await hidden(threadsButton());
    expect(await threadsButton().isVisible()).toBe(false);
  });

  it('is a full sheet on a phone; deleting the conversation shown starts a new chat — 360 px', async () => {
    await open(PHONE);
    await ask('phone thread gamma');
    await threadsButton().click();
    await visible(threadRows().first());
    const sheet = (await threadsPanel().boundingBox())!;
    const widget = (await chat().boundingBox())!;
    expect(sheet.width).toBeGreaterThanOrEqual(widget.width - 2);
    expect(sheet.height).toBeGreaterThanOrEqual(widget.height - 2);
    await screenshot(page, 'shell-threads-360');

    await threadsPanel().getByRole('button', { name: 'Delete “phone thread gamma”' }).click();
    await threadsPanel().getByRole('group').getByRole('button', { name: 'Delete', exact: true }).click();
    await containsText(threadsPanel().getByRole('status'), '“phone thread gamma” was deleted.');
    await page.keyboard.press('Escape');
    await visible(start());
    expect(await chat().locator('article').count()).toBe(0);
  });

  it('threads="off" from the start: no button, no list', async () => {
    await open(WIDE, { threads: 'off' });
    await visible(start());
    expect(await threadsButton().isVisible()).toBe(false);
    expect(await chat().evaluate((el) => (el as HTMLElement & { threads: string }).threads)).toBe('off');
  });
});
