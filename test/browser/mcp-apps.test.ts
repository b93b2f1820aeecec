// MCP Apps in the widget, end to end: headless Chromium, the service under
// `wrangler dev` with the offline model (it calls a tool the question names,
// with `name=value` arguments), the demo server (its task board view) and
// the test server of views (test/infra/view-server.ts: a probe view that
// reports what the host sends it, and a hostile view). The widget's host
// bridge (widget/src/app-view/) writes each view's `notifications/message`
// to the console (`[mcp-app <server>/<tool>] <level> <data>`): that is how
// the tests hear what a view saw.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BROWSER_PORTS } from '../infra/ports';
import { startViewServer } from '../infra/view-server';
import { launchChromium, screenshot } from './chromium';
import { containsText, hasAttribute, hasCount, visible } from './see';
import { startService, type Service } from './service';
import { countTurns, turnsEnded as endedTurns } from './turn-count';

let service: Service;
let views: Awaited<ReturnType<typeof startViewServer>>;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];
let viewLog: string[];
/** What the browser's console said as an error (a failed request shows there as "Failed to load resource: …"). */
let consoleErrors: string[];

beforeAll(async () => {
  views = await startViewServer(BROWSER_PORTS.viewServer);
  [service, chromium] = await Promise.all([
    startService(BROWSER_PORTS.appsService, {
      AUTH_DISABLED: 'true',
      ALLOW_PRIVATE_MCP_URLS: 'true',
      MCP_SERVERS: JSON.stringify([
        // As `npm start` has it, with complete_task allowed without asking (create_task still asks).
        { id: 'demo', url: '/demo/mcp', trustAnnotations: true, autoApprove: ['complete_task'] },
        // show_probe and show_hostile run without asking the user; probe_write always asks.
        {
          id: 'views',
          url: views.url,
          transport: 'streamable-http',
          autoApprove: ['show_probe', 'show_hostile', 'show_missing', 'show_official'],
        },
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
beforeEach(async () => {
  context = await chromium.browser.newContext({ viewport: { width: 1100, height: 900 } });
  page = await context.newPage();
  pageErrors = [];
  viewLog = [];
  consoleErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.text().startsWith('[mcp-app ')) viewLog.push(message.text());
    if (message.type() === 'error') consoleErrors.push(`${message.text()} (${message.location().url})`);
  });
  await page.goto(`${service.url}/`);
  await countTurns(page);
});
afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail')
    await screenshot(page, `failed-apps-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
  expect(pageErrors).toEqual([]);
  await context.close();
});

const chat = () => page.locator('mcp-ondemand-chat');
const input = () => chat().getByRole('textbox', { name: 'Message' });
const viewFrames = () => chat().locator('.app-view iframe');
const view = (index = 0) => viewFrames().nth(index).contentFrame();
const viewApproval = () => chat().getByRole('group', { name: 'Approval for the view' });
const turnsEnded = () => endedTurns(page);

/** Sends `text` and waits for its turn to end. */
async function ask(text: string): Promise<void> {
  const before = await turnsEnded();
  await input().fill(text);
  await input().press('Enter');
  await expect.poll(turnsEnded, { timeout: 20_000 }).toBeGreaterThan(before);
}

/** Waits for a view's log line containing `text`, and returns it. */
async function logged(text: string): Promise<string> {
  await expect.poll(() => viewLog.find((line) => line.includes(text)) ?? '', { timeout: 15_000 }).toContain(text);
  return viewLog.find((line) => line.includes(text))!;
}

const calls = async () =>
  (await (await fetch(views.url.replace('/mcp', '/__calls'))).json()) as Array<{ name: string }>;

describe('a tool with a view (MCP Apps) in the widget', () => {
  it('renders the demo task board in the step of show_task_board, with its input and result; the text result stays in the step', async () => {
    // A task to show: created by the model, with the user's approval.
    await input().fill('create_task title="Draft the launch plan"');
    await input().press('Enter');
    const approve = chat().getByRole('group', { name: 'Tool approval' }).getByRole('button', { name: 'Approve' });
    await expect.poll(() => approve.isEnabled(), { timeout: 20_000 }).toBe(true);
    const before = await turnsEnded();
    await approve.click();
    await expect.poll(turnsEnded, { timeout: 20_000 }).toBeGreaterThan(before);

    await ask('show_task_board please');
    await visible(chat().locator('details.step summary', { hasText: 'ran show_task_board on demo' }));
    await hasCount(viewFrames(), 1);
    const frame = viewFrames().first();
    expect(await frame.getAttribute('sandbox')).toBe('allow-scripts allow-forms');
    expect(await frame.getAttribute('referrerpolicy')).toBe('no-referrer');
    expect(await frame.getAttribute('allow')).toBe('');
    await containsText(view().locator('#tasks'), 'Draft the launch plan');
    // The step above the view still expands to what the model received.
    await chat().locator('details.step summary', { hasText: 'ran show_task_board on demo' }).click();
    await containsText(chat().locator('details.step[open]'), 'The board shows');
    await screenshot(page, 'mcp-apps-task-board');
  });

  it("calls tools through the host: a read-only one at once, one that changes data after the user's Allow in the chat (outside the view)", async () => {
    await ask('show_task_board');
    await containsText(view().locator('#tasks'), '#');
    await view().getByPlaceholder('New task').fill('Book the venue');
    await view().getByRole('button', { name: 'Add task' }).click();
    // create_task changes data: the widget asks, in its own DOM.
    await visible(viewApproval());
    await containsText(viewApproval(), 'The view wants to run create_task on demo');
    await containsText(view().locator('#status'), 'Working');
    await screenshot(page, 'mcp-apps-view-approval');
    await viewApproval().getByRole('button', { name: 'Approve' }).click();
    await hasCount(viewApproval(), 0);
    await containsText(view().locator('#tasks'), 'Book the venue');
    // A call that waits for the person is no failed request: the console has no error for it (it had a 409).
    expect(consoleErrors).toEqual([]);

    // complete_task is allowed without asking (autoApprove): no card, the board refreshes (board_tasks, app-only).
    const item = view().locator('li', { hasText: 'Book the venue' });
    await item.getByRole('button', { name: 'Mark done' }).click();
    await expect.poll(() => item.count(), { timeout: 15_000 }).toBe(0);
    expect(await viewApproval().count()).toBe(0);
  });

  it('answers a denied call with an error the view shows, and does not ask again; the tool never ran', async () => {
    await ask('show_probe');
    await logged('initialized');
    await view().getByRole('button', { name: 'Write' }).click();
    await visible(viewApproval());
    await viewApproval().getByRole('button', { name: 'Deny' }).click();
    await containsText(view().locator('#out'), 'refused: Denied by the user');
    // Asking again is refused without a new card: the person said no to this view.
    await view()
      .locator('#out')
      .evaluate((el) => (el.textContent = ''));
    await view().getByRole('button', { name: 'Write' }).click();
    await containsText(view().locator('#out'), 'refused: Denied by the user');
    expect(await viewApproval().count()).toBe(0);
    expect((await calls()).some((c) => c.name === 'probe_write')).toBe(false);
  });

  it('initializes the view as the spec says, delivers input then result, sizes the iframe as the view asks (within bounds), and answers ping, display mode, links and unknown methods', async () => {
    await ask('show_probe label=hello');
    const init = await logged('initialized');
    expect(init).toContain('"host":"mcp-ondemand"');
    expect(init).toContain('"serverTools":{}');
    expect(init).toContain('"mode":"inline"');
    await logged('input {"label":"hello"}');
    await logged('result {"shown":true}');
    expect(viewLog.findIndex((l) => l.includes('input'))).toBeLessThan(viewLog.findIndex((l) => l.includes('result')));
    await hasAttribute(viewFrames().first(), 'style', /height: 321px/);
    await view().getByRole('button', { name: 'Grow' }).click();
    await hasAttribute(viewFrames().first(), 'style', /height: 800px/);
    // What else the host answers: ping, inline only, no script links, and -32601 for what it does not implement.
    await view().getByRole('button', { name: 'Ask' }).click();
    const asked = JSON.parse((await logged('asked {')).replace(/^.*asked /, '')) as Record<string, string>;
    expect(asked).toEqual({
      ping: '{}',
      displayMode: '{"mode":"inline"}',
      scriptLink: '{"isError":true}',
      message: '{}',
    });
    await expect.poll(() => input().inputValue()).toBe('hi');
    // The message re-rendered as the turn streamed on (the result, the answer): the iframe never reloaded.
    expect(viewLog.filter((l) => l.includes('initialized')).length).toBe(1);
  });

  it('shows the view again after a page reload, from the history, with its input and result', async () => {
    await ask('show_probe label=kept');
    await logged('result {"shown":true}');
    viewLog.length = 0;
    await page.reload();
    await logged('input {"label":"kept"}');
    await logged('result {"shown":true}');
    await hasCount(viewFrames(), 1);
  });

  it('tears the view down before it leaves: switching the conversation sends ui/resource-teardown, then removes the iframe', async () => {
    await ask('show_probe');
    await logged('result');
    const other = await page.evaluate(
      async () => ((await (await fetch('/v1/conversations', { method: 'POST' })).json()) as { id: string }).id,
    );
    await chat().evaluate((el, id) => el.setAttribute('conversation', id), other);
    await logged('teardown');
    await hasCount(viewFrames(), 0);
  });

  it('loads the view again when the element comes back on the page after leaving it', async () => {
    await ask('show_probe label=moved');
    await logged('result');
    viewLog.length = 0;
    await chat().evaluate((el) => {
      const parent = el.parentElement!;
      el.remove();
      parent.append(el);
    });
    await logged('input {"label":"moved"}');
    await logged('result {"shown":true}');
    await hasCount(viewFrames(), 1);
  });

  it('contains a hostile view: no reach into the page, no navigation of it, no popup, no API call, no storage, and no tool call without the user', async () => {
    const url = page.url();
    await ask(`show_hostile target=${service.url}`);
    const seen = JSON.parse((await logged('hostile {')).replace(/^.*hostile /, '')) as Record<string, string>;
    expect(seen.parentDocument).toBe('blocked');
    expect(seen.localStorage).toBe('blocked');
    expect(seen.cookie).toBe('blocked');
    expect(seen.fetch).toBe('blocked');
    expect(seen.popup).toBe('blocked');
    expect(context.pages()).toHaveLength(1);
    expect(page.url()).toBe(url);
    // Its tool call waits for the user, outside the view; nothing ran.
    await visible(viewApproval());
    await containsText(viewApproval(), 'probe_write');
    expect((await calls()).some((c) => c.name === 'probe_write')).toBe(false);
    await screenshot(page, 'mcp-apps-hostile');
    await viewApproval().getByRole('button', { name: 'Deny' }).click();
    await logged('hostile refused Denied by the user');
    expect((await calls()).some((c) => c.name === 'probe_write')).toBe(false);
    expect(page.url()).toBe(url);
  });

  // @modelcontextprotocol/ext-apps is a dev dependency of the tests only (the widget never bundles it).
  it('interoperates with the official App of @modelcontextprotocol/ext-apps: handshake, input, result, a tool call with approval, teardown', async (ctx) => {
    if (!views.official) return ctx.skip();
    await ask('show_official label=interop');
    await logged('official connected inline');
    await logged('official input {"label":"interop"}');
    await logged('official result {"shown":true}');
    await containsText(view().locator('#out'), 'result {"shown":true}');
    await view().getByRole('button', { name: 'Call' }).click();
    await visible(viewApproval());
    await viewApproval().getByRole('button', { name: 'Approve' }).click();
    await logged('official called noted: official');
    const other = await page.evaluate(
      async () => ((await (await fetch('/v1/conversations', { method: 'POST' })).json()) as { id: string }).id,
    );
    await chat().evaluate((el, id) => el.setAttribute('conversation', id), other);
    await logged('official teardown');
    await hasCount(viewFrames(), 0);
  });

  it('a view\'s "Send Message" (ui/message, the official App) puts its text in the box for the person to send; what they typed stays', async (ctx) => {
    if (!views.official) return ctx.skip();
    await ask('show_official label=message');
    await logged('official connected inline');
    const notice = chat().locator('.app-view [role="status"]');
    await view().getByRole('button', { name: 'Message' }).click();
    await logged('official message {}');
    await expect.poll(() => input().inputValue()).toBe('Show me the tasks due today.');
    await containsText(notice, 'The view put a message in the box below');
    // Nothing was sent for the person: they read it, and send it themselves.
    expect(await chat().locator('article.user').count()).toBe(1);
    await screenshot(page, 'mcp-apps-view-message');
    const before = await turnsEnded();
    await input().press('Enter');
    await expect.poll(turnsEnded, { timeout: 20_000 }).toBeGreaterThan(before);
    await containsText(chat().locator('article.user').last(), 'Show me the tasks due today.');

    // The person's own words in the box are never overwritten: the view hears the chat did not take it, and so does the person.
    await input().fill('My own question');
    await view().getByRole('button', { name: 'Message' }).click();
    await logged('official message {"isError":true}');
    await containsText(notice, 'the box below holds what you typed');
    expect(await input().inputValue()).toBe('My own question');
  });

  it('falls back to the step when the view cannot be shown', async () => {
    await ask('show_missing');
    await visible(chat().locator('details.step summary', { hasText: 'ran show_missing on views' }));
    await containsText(chat().locator('.app-view'), 'view could not be shown');
    expect(await viewFrames().count()).toBe(0);
  });

  it('shows no view with views="off": the step and its text result only', async () => {
    await chat().evaluate((el) => el.setAttribute('views', 'off'));
    await ask('show_probe');
    await visible(chat().locator('details.step summary', { hasText: 'ran show_probe on views' }));
    expect(await chat().locator('.app-view').count()).toBe(0);
    expect(viewLog).toEqual([]);
  });
});
