// A program's step in the chat widget (`run_code`, issue 46): headless Chromium, the demo page of the service under
// `wrangler dev` with RUN_CODE on (the Worker Loader and the converter Worker, as `npm start` runs them), and the fake
// model (fake-model.ts), which runs the program the person typed. At a desktop's width and a phone's, the person
// opens the step and sees the program (a JavaScript code block, coloured), each read it made, what it returned and
// its console line; a program stopped by a limit says which in its one line and shows the error; the operator's page
// (/admin) counts the runs. Screenshots in test-results/screenshots/.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_PORTS } from '../infra/ports';
import { axeViolations } from './axe';
import { launchChromium, screenshot } from './chromium';
import { type FakeModel, startFakeModel } from './fake-model';
import { containsText, hasCount, hasText, sideways, visible } from './see';
import { type Service, startService } from './service';
import { countTurns, turnsEnded } from './turn-count';

let service: Service;
let model: FakeModel;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let page: Page;
let problems: string[];

beforeAll(async () => {
  model = await startFakeModel(BROWSER_PORTS.programModel);
  [service, chromium] = await Promise.all([
    startService(BROWSER_PORTS.programService, {
      AUTH_DISABLED: 'true',
      MODEL: 'openai-compatible:fake',
      OPENAI_COMPATIBLE_BASE_URL: model.baseUrl,
      RUN_CODE: 'on',
      // Small enough that an endless loop ends within a second.
      RUN_CODE_MAX_STEPS: '200000',
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
    await screenshot(page, `failed-program-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
  expect(problems).toEqual([]);
  await context.close();
});

async function open(viewport: { width: number; height: number }, isMobile = false): Promise<void> {
  context = await chromium.browser.newContext({ viewport, isMobile });
  page = await context.newPage();
  problems = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (/content security policy/i.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  await page.goto(`${service.url}/`);
  await countTurns(page);
}

const chat = () => page.locator('mcp-ondemand-chat');
const input = () => chat().getByRole('textbox', { name: 'Message' });
const lastAnswer = () => chat().locator('article.assistant').last();

async function ask(text: string): Promise<void> {
  const before = await turnsEnded(page);
  await input().fill(text);
  await input().press('Enter');
  await expect.poll(() => turnsEnded(page), { timeout: 30_000 }).toBeGreaterThan(before);
}

/** The guidelines' lines, as the service's own read gives them: what the program must count. */
async function guidelineLines(): Promise<number> {
  const created = await fetch(`${service.url}/v1/conversations`, { method: 'POST' });
  const { id } = (await created.json()) as { id: string };
  const read = await fetch(`${service.url}/v1/conversations/${id}/resources/read`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ server: 'demo', uri: 'task://guidelines' }),
  });
  const body = (await read.json()) as { contents: Array<{ text?: string }> };
  return body.contents[0]!.text!.split('\n').length;
}

// The program finds the resource in the catalog: named in the message, the service would read it before the model
// answered (a predicted read), and the fake model would answer that read instead of running the program.
const PROGRAM =
  "const [first] = await resources.list({}); const text = await resources.read({ uri: first.uri }); console.log('read', text.length, 'characters'); return { count: text.split('\\n').length };";

describe('a program’s step in the widget', () => {
  for (const [name, viewport, isMobile] of [
    ['desktop', { width: 1280, height: 900 }, false],
    ['phone', { width: 360, height: 800 }, true],
  ] as const) {
    it(`at ${viewport.width} px (${name}): the program, what it read and what it returned`, async () => {
      await open(viewport, isMobile);
      await ask(`Run a program: ${PROGRAM}`);
      const step = lastAnswer().locator('details.step[data-tool="run_code"]');
      await hasCount(step, 1);
      // One line: its calls, and what they gave it (the catalog and the guidelines, in the widget's sizes).
      await hasText(step.locator('summary'), /^ran a program: 2 calls, \d+(\.\d)? (B|KB) read$/);
      await step.locator('summary').click();

      // The program as the model wrote it: a JavaScript code block, its text unchanged, coloured once the chunk loads.
      const code = step.locator('.code-block code');
      await visible(code);
      expect(await code.evaluate((el) => el.textContent)).toBe(PROGRAM);
      expect(await step.locator('.code-lang').innerText()).toBe('js');
      await visible(code.locator('span.hl-keyword').first());

      // What it read: each call, by the name the program used, with its server and size.
      const calls = step.locator('.program-calls li');
      await hasCount(calls, 2);
      expect(await calls.nth(0).innerText()).toMatch(/^resources\.list · \d+(\.\d)? (B|KB)$/);
      expect(await calls.nth(1).innerText()).toMatch(
        /^resources\.read task:\/\/guidelines · demo · \d+(\.\d)? (B|KB)$/,
      );

      // What it returned, and its console line.
      const lines = await guidelineLines();
      const sections = await step.locator('h4').allInnerTexts();
      expect(sections).toEqual(['Program', 'What it read', 'What it returned', 'Console']);
      const [returned, console] = [step.locator('pre[tabindex="0"]').nth(0), step.locator('pre[tabindex="0"]').nth(1)];
      expect(JSON.parse(await returned.innerText())).toEqual({ count: lines });
      await containsText(console, 'read ');
      expect(await console.innerText()).toMatch(/^read \d+ characters$/);

      await step.scrollIntoViewIfNeeded();
      await screenshot(page, `program-${name}`);
      const over = await sideways(page);
      expect(over.page, 'the page scrolls sideways').toBeLessThanOrEqual(0);
      expect(over.widget, 'the widget is wider than the screen').toBeLessThanOrEqual(0.5);
      const [stepBox, widgetBox] = [await step.boundingBox(), await chat().boundingBox()];
      expect(stepBox!.x + stepBox!.width).toBeLessThanOrEqual(widgetBox!.x + widgetBox!.width);
      expect(await axeViolations(page)).toEqual([]);
    });
  }

  it('a program a limit stopped says which, and shows the error', async () => {
    await open({ width: 1280, height: 900 });
    await ask('Run a program: let n = 0; while (true) { n++; }');
    const step = lastAnswer().locator('details.step[data-tool="run_code"]');
    await hasText(step.locator('summary'), /^the program was stopped: CPU limit$/);
    expect(await step.getAttribute('data-status')).toBe('error');
    await step.locator('summary').click();
    expect(await step.locator('h4').allInnerTexts()).toEqual(['Program', 'Error']);
    await containsText(step.locator('pre[tabindex="0"]'), 'The program was stopped by its cpu limit.');
    expect(await step.locator('pre[tabindex="0"]').innerText()).toContain('200000 loop iterations');
    await screenshot(page, 'program-stopped');
  });

  it('the operator’s page counts the runs, as the usage API does', async () => {
    await open({ width: 1280, height: 900 });
    const usage = (await (await fetch(`${service.url}/v1/usage`)).json()) as {
      total: { programRuns: number; programMs: number; programReadBytes: number };
    };
    // The runs of the tests above: two that read, one stopped.
    expect(usage.total.programRuns).toBeGreaterThanOrEqual(3);
    await page.goto(`${service.url}/admin/`);
    const row = page.locator('#programs tbody tr[data-tenant="default"]');
    await visible(row);
    const [tenant, runs, time, read] = await row.locator('td').allInnerTexts();
    expect([tenant, runs]).toEqual(['default', String(usage.total.programRuns)]);
    expect(time).toBe(`${(usage.total.programMs / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 })} s`);
    expect(read).toBe(`${(usage.total.programReadBytes / 1024).toFixed(1)} KB`);
    await screenshot(page, 'program-admin');
  });
});
