// The widget's progress card for a long tool call (MCP Tasks), end to end:
// headless Chromium, the service under `wrangler dev` with the demo MCP
// server and the offline model (what `npm start` runs). The offline model
// calls a tool the user names verbatim (`build_report seconds=4`); the demo
// server answers with a task, the conversation's Durable Object follows it,
// the widget reads the waiting answer again until the answer goes on.
// Then the same tool spoken in 2025-11-25, where it answers inline with
// progress notifications: the card from the stream's data-progress parts.
// Screenshots in test-results/screenshots/.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEverything } from '../infra/global-setup';
import { BROWSER_PORTS } from '../infra/ports';
import { launchChromium, screenshot } from './chromium';
import { containsText, hasText, visible } from './see';
import { startService, type Service } from './service';
import { countTurns, turnsEnded } from './turn-count';

let service: Service;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];

beforeAll(async () => {
  chromium = await launchChromium();
});
afterAll(async () => {
  await chromium?.close();
});

/**
 * The service for a describe block, with `vars` on top of `npm start`'s. On widget.test.ts's port: files run one after
 * the other, and so do these blocks (each stops its service before the next starts one).
 */
function withService(vars: Record<string, string> = {}): void {
  beforeAll(async () => {
    service = await startService(BROWSER_PORTS.demoService, { AUTH_DISABLED: 'true', ...vars });
  });
  afterAll(async () => {
    await service?.stop();
  });
}

beforeEach(async () => {
  context = await chromium.browser.newContext({ viewport: { width: 1100, height: 820 } });
  page = await context.newPage();
  pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${service.url}/`);
  await countTurns(page);
});
afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail')
    await screenshot(page, `failed-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
  expect(pageErrors).toEqual([]);
  await context.close();
});

const chat = () => page.locator('mcp-ondemand-chat');
const input = () => chat().getByRole('textbox', { name: 'Message' });
const card = () => chat().getByRole('group', { name: 'build_report on demo' });
const lastAnswer = () => chat().locator('article.assistant').last();

async function ask(text: string): Promise<void> {
  await input().fill(text);
  await input().press('Enter');
}

describe('a long tool call (MCP Tasks) in the widget', () => {
  withService();

  it('shows a progress card that ticks while the task runs, then the final state and the answer with the report', async () => {
    await ask('build_report topic="release 4.18" seconds=4');
    await visible(card());
    await containsText(card(), 'Working');
    await hasText(card().locator('.task-detail'), /\(\d\/4\)/); // "Collecting tasks (1/4)", then the next steps
    await expect.poll(() => chat().locator('.status').innerText(), { timeout: 15_000 }).toBe('A tool is working…');
    // The clock ticks on its own, once a second.
    const clock = card().locator('.elapsed');
    await hasText(clock, /^\d+ s$/);
    const first = await clock.innerText();
    await expect.poll(() => clock.innerText(), { timeout: 5_000 }).not.toBe(first);
    await visible(card().getByRole('button', { name: 'Stop build_report' }));
    // One Stop on screen: the card's (the composer shows Send, disabled, while the task runs).
    await expect.poll(() => chat().getByRole('button', { name: /^Stop/ }).filter({ visible: true }).count()).toBe(1);
    expect(await chat().getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    await screenshot(page, 'tasks-01-card-working');
    expect(await turnsEnded(page)).toBe(0); // the answer is not finished while its task runs

    // The task ends; the answer goes on as a new turn and streams in below the card.
    await containsText(lastAnswer(), 'Report: release 4.18');
    await containsText(lastAnswer(), 'Here is what build_report on demo returned');
    await containsText(card(), 'Completed');
    await containsText(card().locator('.task-detail'), 'Report ready');
    await expect.poll(() => turnsEnded(page), { timeout: 15_000 }).toBe(1);
    await expect(card().getByRole('button', { name: 'Stop build_report' }).count()).resolves.toBe(0);
    // Its clock stopped at the task's end.
    const final = await card().locator('.elapsed').innerText();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await card().locator('.elapsed').innerText()).toBe(final);
    await visible(chat().getByRole('button', { name: 'Send' }));
    await screenshot(page, 'tasks-02-card-completed');

    // After a reload the card is there, in its final state.
    await page.reload();
    await containsText(card(), 'Completed');
    await containsText(lastAnswer(), 'Report: release 4.18');
  });

  it('Stop on the card cancels the task: the card says cancelled, the answer stopped, and the chat is free', async () => {
    await ask('build_report seconds=60');
    await visible(card());
    await containsText(card(), 'Working');
    await card().getByRole('button', { name: 'Stop build_report' }).click();
    await containsText(card(), 'Cancelled');
    await containsText(lastAnswer(), 'Stopped.');
    await expect(card().getByRole('button', { name: 'Stop build_report' }).count()).resolves.toBe(0);
    await visible(chat().getByRole('button', { name: 'Send' }));
    await screenshot(page, 'tasks-03-card-cancelled');

    // The conversation goes on.
    await ask('What do the team guidelines say about estimates?');
    await containsText(lastAnswer(), 'never more than 8');
  });
});

describe('a long tool call behind an approval (the demo not trusted for its annotations)', () => {
  withService({ MCP_SERVERS: JSON.stringify([{ id: 'demo', url: '/demo/mcp' }]) });

  it('approving it shows the task card, and the answer goes on with the report when the task ends', async () => {
    await ask('build_report topic="approved work" seconds=3');
    const approve = chat().getByRole('button', { name: 'Approve' });
    await visible(approve);
    await approve.click();
    await visible(card());
    await containsText(card(), 'Working');
    await containsText(lastAnswer(), 'Report: approved work');
    await containsText(card(), 'Completed');
    await expect.poll(() => turnsEnded(page), { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    expect(await lastAnswer().innerText()).not.toContain('Running as task');
    // One card for the one call (D12: the answer that went on showed it a second time, also after a reload).
    expect(await card().count()).toBe(1);
    await screenshot(page, 'tasks-05-approved-task');
    // After a reload: the same, not the placeholder.
    await page.reload();
    await containsText(lastAnswer(), 'Report: approved work');
    expect(await lastAnswer().innerText()).not.toContain('Running as task');
    expect(await card().count()).toBe(1);
  });
});

describe('a 2025 task that asks the user (server-everything)', () => {
  let everything: Awaited<ReturnType<typeof startEverything>> | undefined;
  beforeAll(async () => {
    everything = await startEverything('streamableHttp', BROWSER_PORTS.everything);
  });
  afterAll(async () => {
    await everything?.stop();
  });
  withService({
    MCP_SERVERS: JSON.stringify([
      {
        id: 'everything',
        url: `http://127.0.0.1:${BROWSER_PORTS.everything}/mcp`,
        transport: 'streamable-http',
        autoApprove: ['simulate-research-query'],
      },
    ]),
    ALLOW_PRIVATE_MCP_URLS: 'true',
  });

  it('its question, which comes on the task’s tasks/result stream, is a form in the step; the answer reaches the server', async () => {
    await ask('simulate-research-query topic=python ambiguous=true');
    const question = chat().getByRole('group', { name: 'everything asks' });
    await visible(question);
    await containsText(question, 'multiple interpretations');
    // The server's titled choices (oneOf const/title) as a list of their titles.
    const choice = question.getByRole('combobox');
    await choice.selectOption({ label: 'Python snake species' });
    await screenshot(page, 'tasks-06-2025-task-question');
    await question.getByRole('button', { name: 'Send answer' }).click();
    await containsText(lastAnswer(), 'python (snake)');
    await containsText(chat().getByRole('group', { name: 'everything asks' }), 'You answered: interpretation = snake');
  });
});

describe('a long tool call that reports progress (no task: the demo spoken in 2025-11-25)', () => {
  withService({
    MCP_SERVERS: JSON.stringify([{ id: 'demo', url: '/demo/mcp', trustAnnotations: true, protocol: '2025-11-25' }]),
  });

  it('shows the card from the stream’s progress while the call runs, then only the step and the answer', async () => {
    await ask('build_report topic=weekly seconds=5');
    await visible(card());
    await containsText(card(), 'Working');
    await hasText(card().locator('.task-detail'), /\(\d\/4\)|Report ready/);
    await visible(card().locator('progress'));
    await hasText(card().locator('.elapsed'), /^\d+ s$/);
    await screenshot(page, 'tasks-04-card-progress');
    await containsText(lastAnswer(), 'Report: weekly');
    await expect.poll(() => card().count(), { timeout: 15_000 }).toBe(0); // progress is transient: no card once it ended
    await visible(chat().locator('details.step summary', { hasText: 'ran build_report on demo' }));
  });
});
