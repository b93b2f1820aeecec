// Markdown as models write it, in the chat widget: headless Chromium, the demo page of the service under `wrangler
// dev`, and the fake model (fake-model.ts) streaming a markdown answer word by word (markdown-answer.ts) — a wide
// table, nested and hard-wrapped lists, a task list, a Python code block and a bare link. At a desktop's width and
// a phone's: the table is a table that scrolls sideways inside the message (never the page), the code is coloured
// once the highlighting chunk has loaded (and not loaded before an answer has code), Copy puts the code on the
// clipboard, and the page's CSP (no 'unsafe-inline') is never violated. Screenshots in test-results/screenshots/.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_PORTS } from '../infra/ports';
import { launchChromium, screenshot } from './chromium';
import { startFakeModel, type FakeModel } from './fake-model';
import { SAMPLE_CODE } from './markdown-answer';
import { containsText, hasCount, sideways, visible } from './see';
import { startService, type Service } from './service';
import { countTurns, turnsEnded } from './turn-count';

let service: Service;
let model: FakeModel;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let page: Page;
let problems: string[];
/** The URLs the page requested: the highlighting chunk must be among them only once code has shown. */
let requested: string[];

beforeAll(async () => {
  model = await startFakeModel(BROWSER_PORTS.markdownModel);
  [service, chromium] = await Promise.all([
    startService(BROWSER_PORTS.markdownService, {
      AUTH_DISABLED: 'true',
      MODEL: 'openai-compatible:fake',
      OPENAI_COMPATIBLE_BASE_URL: model.baseUrl,
    }),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await chromium?.close();
  await service?.stop();
  await model?.close();
});
afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail')
    await screenshot(page, `failed-markdown-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
  // Page errors, and any CSP violation (the demo page allows no inline script or style, and only its own origin).
  expect(problems).toEqual([]);
  await context.close();
});

async function open(viewport: { width: number; height: number }, isMobile = false): Promise<void> {
  context = await chromium.browser.newContext({ viewport, isMobile });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.url });
  page = await context.newPage();
  problems = [];
  requested = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (/content security policy/i.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  page.on('request', (request) => requested.push(request.url()));
  await page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (event) =>
      console.error(`Content Security Policy violation: ${event.violatedDirective} ${event.blockedURI}`),
    ),
  );
  await page.goto(`${service.url}/`);
  await countTurns(page);
}

const chat = () => page.locator('mcp-ondemand-chat');
const input = () => chat().getByRole('textbox', { name: 'Message' });
const lastAnswer = () => chat().locator('article.assistant').last();
const chunkRequests = () =>
  requested.filter((url) => /\/widget\/v[^/]+\/mcp-ondemand-highlight\.[0-9a-f]{16}\.js$/.test(url));

async function askForMarkdown(): Promise<void> {
  const before = await turnsEnded(page);
  await input().fill('Please write a markdown sample');
  await input().press('Enter');
  await expect.poll(() => turnsEnded(page), { timeout: 30_000 }).toBeGreaterThan(before);
}

describe('markdown answers in the widget', () => {
  for (const [name, viewport, isMobile] of [
    ['desktop', { width: 1280, height: 900 }, false],
    ['phone', { width: 360, height: 800 }, true],
  ] as const) {
    it(`at ${viewport.width} px (${name}): a table, nested lists, tasks, highlighted code with Copy, a safe link`, async () => {
      await open(viewport, isMobile);
      expect(chunkRequests()).toEqual([]);
      await askForMarkdown();
      const answer = lastAnswer();

      // The table: a real <table> with its header, in a focusable region that scrolls sideways when it must.
      const region = answer.getByRole('region', { name: 'Table' });
      await visible(region);
      const table = region.locator('table');
      await hasCount(table, 1);
      expect(await table.locator('thead th').allInnerTexts()).toEqual(['Task', 'Owner', 'Hours', 'Status']);
      await hasCount(table.locator('tbody tr'), 3);
      expect(await table.locator('tbody tr').first().locator('td').first().innerHTML()).toBe(
        'Write the <strong>migration</strong> for the new <code>tasks_archive</code> table',
      );
      // Alignment from the delimiter row: "Hours" is right-aligned.
      expect(
        await table
          .locator('tbody td')
          .nth(2)
          .evaluate((td) => getComputedStyle(td).textAlign),
      ).toBe('end');
      const widths = await region.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
      if (name === 'phone') {
        expect(widths.scroll).toBeGreaterThan(widths.client);
        // The keyboard scrolls it: the region takes focus, and the arrow keys move it.
        await region.focus();
        await page.keyboard.press('ArrowRight');
        await expect.poll(() => region.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
      } else expect(widths.scroll).toBe(widths.client);
      await region.scrollIntoViewIfNeeded();
      await screenshot(page, `markdown-${name}-table`);
      const [regionBox, widgetBox] = [await region.boundingBox(), await chat().boundingBox()];
      expect(regionBox!.x + regionBox!.width).toBeLessThanOrEqual(widgetBox!.x + widgetBox!.width);
      const over = await sideways(page);
      expect(over.page, 'the page scrolls sideways').toBeLessThanOrEqual(0);
      expect(over.widget, 'the widget is wider than the screen').toBeLessThanOrEqual(0.5);

      // Nested lists: an ordered list whose items hold a bulleted and a numbered list; a hard-wrapped item stays one.
      const steps = answer.locator('ol').first();
      await hasCount(steps.locator(':scope > li'), 2);
      await hasCount(steps.locator(':scope > li').first().locator('ul > li'), 2);
      const deploy = steps.locator(':scope > li').nth(1).locator('ol > li');
      await hasCount(deploy, 2);
      expect((await deploy.nth(1).innerText()).replace(/\s+/g, ' ')).toBe('restart the workers, one region at a time');

      // Task lists: disabled checkboxes, named by their task, checked as written.
      const done = answer.getByRole('checkbox', { name: 'tests pass' });
      const todo = answer.getByRole('checkbox', { name: 'changelog written' });
      expect([await done.isChecked(), await done.isDisabled()]).toEqual([true, true]);
      expect([await todo.isChecked(), await todo.isDisabled()]).toEqual([false, true]);

      // The code: coloured once the chunk has loaded (one request, with its integrity), its text unchanged.
      const code = answer.locator('.code-block code');
      await visible(code.locator('span.hl-keyword').first());
      expect(await code.locator('span.hl-keyword').allInnerTexts()).toEqual(
        expect.arrayContaining(['import', 'def', 'return']),
      );
      expect(await code.locator('span.hl-string').first().innerText()).toBe('"""Hours for the parts, rounded up."""');
      expect(await code.evaluate((el) => el.textContent)).toBe(SAMPLE_CODE);
      expect(chunkRequests()).toHaveLength(1);
      expect(await answer.locator('.code-lang').innerText()).toBe('python');

      // Copy: the code exactly, on the clipboard; the button says so.
      const copy = answer.getByRole('button', { name: 'Copy code' });
      await copy.click();
      await containsText(answer.getByRole('button', { name: 'Code copied' }), 'Copied');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(SAMPLE_CODE);

      // The bare address is a link that opens in a new tab, without opener or referrer.
      const link = answer.getByRole('link', { name: 'https://example.com/runbook' });
      expect(await link.getAttribute('target')).toBe('_blank');
      expect(await link.getAttribute('rel')).toBe('noopener noreferrer nofollow');
      await screenshot(page, `markdown-${name}`);
    });
  }

  it('the highlighting chunk is served beside the widget as the manifest says: immutable, pinned by its hash', async () => {
    await open({ width: 1280, height: 900 });
    const manifest = (await (await fetch(`${service.url}/widget/manifest.json`)).json()) as {
      gzipSize: number;
      highlight: { path: string; integrity: string; size: number; gzipSize: number };
    };
    const response = await fetch(`${service.url}${manifest.highlight.path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.length).toBe(manifest.highlight.size);
    const { createHash } = await import('node:crypto');
    expect(`sha384-${createHash('sha384').update(bytes).digest('base64')}`).toBe(manifest.highlight.integrity);
    // The widget itself carries the chunk's path and hash, so a widget pinned with SRI pins its chunk too.
    const widget = await (await fetch(`${service.url}/widget/mcp-ondemand-chat.js`)).text();
    expect(widget).toContain(manifest.highlight.path);
    expect(widget).toContain(manifest.highlight.integrity);
  });
});
