// The chat widget end to end: headless Chromium, the service under
// `wrangler dev` (workerd) with the demo MCP server and the offline model,
// exactly what `npm start` runs. Screenshots of each state are saved in
// test-results/screenshots/ (looked at when these tests were written).
import { createHash } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { BROWSER_PORTS } from '../infra/ports';
import { launchChromium, screenshot } from './chromium';
import { containsText, focused, hasAttribute, hasCount, hasText, hasValue, hidden, lacksText, visible } from './see';
import { startService, type Service } from './service';
import { answerEvents, countTurns, turnsEnded as endedTurns } from './turn-count';

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
  // A fresh context per test: its own sessionStorage, so its own conversation.
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
const assistant = () => chat().locator('article.assistant');
const lastAnswer = () => assistant().last();
const step = (label: string | RegExp) => chat().locator('details.step summary', { hasText: label });

/**
 * Turns the widget finished, counted from its own `mcp-ondemand-message`
 * event (one per completed turn). A test waits for *its* turn to end — the
 * count past what it was when the test acted, and the log idle — never for
 * a fixed time, the first text, or an idle log that may still be the
 * previous turn's.
 */
const turnsEnded = () => endedTurns(page);
let turnsBefore = 0;

/** The next turn starts now: answerText() waits for it to end. */
async function markTurn(): Promise<void> {
  turnsBefore = await turnsEnded();
}

async function ask(text: string): Promise<void> {
  await markTurn();
  await input().fill(text);
  await input().press('Enter');
}

/** Answers the approval card (once it can be answered: the paused turn is over) and starts the continued turn. */
async function decide(button: 'Approve' | 'Deny', how: 'click' | 'Enter' = 'click'): Promise<void> {
  const target = chat().getByRole('group', { name: 'Tool approval' }).getByRole('button', { name: button });
  await expect.poll(() => target.isEnabled(), { timeout: 20_000 }).toBe(true);
  await markTurn();
  if (how === 'click') await target.click();
  else await target.press('Enter');
}

/** Waits until the turn started last is over (it ended, and the log is idle) and returns the last answer's text. */
async function answerText(): Promise<string> {
  await expect.poll(turnsEnded, { timeout: 20_000 }).toBeGreaterThan(turnsBefore);
  await expect.poll(() => chat().locator('[role="log"]').getAttribute('aria-busy'), { timeout: 20_000 }).toBe('false');
  return (await lastAnswer().innerText()).trim();
}

describe('the demo page at / (npm start)', () => {
  it('serves the page with a strict CSP, and the widget as a cacheable, embeddable script', async () => {
    const pageResponse = await fetch(`${service.url}/`);
    expect(pageResponse.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(pageResponse.headers.get('x-frame-options')).toBe('DENY');
    const script = await fetch(`${service.url}/widget/mcp-ondemand-chat.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toContain('javascript');
    expect(script.headers.get('access-control-allow-origin')).toBe('*');
    expect(script.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    await visible(chat().getByRole('log', { name: 'Conversation' }));
  });

  it('serves the versioned widget from the manifest as immutable, with its SRI hash, and the alias with a short cache', async () => {
    const manifest = (await (await fetch(`${service.url}/widget/manifest.json`)).json()) as {
      path: string;
      integrity: string;
      size: number;
      alias: string;
      types: { dom: string; react: string };
    };
    const versioned = await fetch(`${service.url}${manifest.path}`);
    expect(versioned.status).toBe(200);
    expect(versioned.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(versioned.headers.get('content-type')).toContain('javascript');
    expect(versioned.headers.get('access-control-allow-origin')).toBe('*');
    expect(versioned.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const bytes = Buffer.from(await versioned.arrayBuffer());
    expect(bytes.length).toBe(manifest.size);
    expect(`sha384-${createHash('sha384').update(bytes).digest('base64')}`).toBe(manifest.integrity);

    // The alias: the same bytes, a short cache (it follows updates).
    const alias = await fetch(`${service.url}${manifest.alias}`);
    expect(alias.headers.get('cache-control')).toBe('public, max-age=300');
    expect(Buffer.from(await alias.arrayBuffer()).equals(bytes)).toBe(true);
    // The element's declarations, as text.
    for (const path of [manifest.types.dom, manifest.types.react]) {
      const types = await fetch(`${service.url}${path}`);
      expect(types.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await types.text()).toContain("'mcp-ondemand-chat'");
    }
  });

  it('streams an answer about the guidelines, with a compact read_resource step that expands to what the model received', async () => {
    const streamed = page.waitForResponse((r) => r.url().endsWith('/messages') && r.request().method() === 'POST');
    await ask('What do the team guidelines say about estimates?');
    expect((await streamed).headers()['content-type']).toContain('text/event-stream');
    const text = await answerText();
    expect(text).toContain('never more than 8');
    await visible(step('read task://guidelines'));
    await screenshot(page, '01-guidelines-answer');

    await step('read task://guidelines').first().click();
    const received = lastAnswer().locator('details.step[open] pre');
    await containsText(received, '<resource server="demo" uri="task://guidelines"');
    await containsText(received, 'Every task has one owner');
    await screenshot(page, '02-step-expanded');

    // The second read of the same resource comes from the edge cache, and the step says so.
    await ask('And what do the team guidelines say about owners?');
    await answerText();
    await visible(lastAnswer().locator('summary', { hasText: 'read task://guidelines (cached)' }));
  });

  it('lists prompts on "/", runs /plan_day through its form with suggestions and a preview, and refuses a bad argument in the form', async () => {
    await input().fill('/');
    const menu = chat().getByRole('listbox', { name: 'Prompts and skills' });
    await visible(menu.getByRole('option', { name: /\/plan_day/ }));
    await visible(menu.getByRole('option', { name: /\/review_guidelines/ }));
    await screenshot(page, '03-slash-menu');

    // Keyboard only: the first option is active; Enter picks it.
    await hasAttribute(input(), 'aria-activedescendant', /.+/);
    await input().press('Enter');
    const form = chat().getByRole('form', { name: /\/plan_day/ });
    const hours = form.getByRole('combobox', { name: /hours/ });
    await focused(hours);
    // Suggestions from completion/complete.
    const suggestions = form.getByRole('listbox', { name: 'Suggestions for hours' });
    await visible(suggestions.getByRole('option', { name: '4', exact: true }));
    await screenshot(page, '04-prompt-form-suggestions');

    await hours.fill('40');
    await form.getByRole('button', { name: 'Preview' }).click();
    await containsText(form.getByRole('alert'), 'hours');
    // Run is checked the same way: the form stays, with the reason, and nothing runs.
    await form.getByRole('button', { name: 'Run' }).click();
    await containsText(form.getByRole('alert'), 'hours');
    await hasCount(chat().locator('article'), 0);
    await screenshot(page, '05-prompt-form-refused');

    await hours.fill('4');
    await form.getByRole('button', { name: 'Preview' }).click();
    await containsText(form.getByLabel('Prompt preview'), 'Plan my day: I have 4 hours of focused time.');
    await screenshot(page, '06-prompt-preview');

    await markTurn();
    await form.getByRole('button', { name: 'Run' }).click();
    await hasCount(form, 0);
    await answerText();
    const mine = chat().locator('article.user').last();
    await containsText(mine, 'Prompt /plan_day (demo)');
    await containsText(mine, 'I have 4 hours');
    await screenshot(page, '07-prompt-ran');
  });

  it('offers the servers\' skills in a "Skills" section of the / menu, and attaches the one picked to the next message', async () => {
    await input().fill('/');
    const menu = chat().getByRole('listbox', { name: 'Prompts and skills' });
    await visible(menu.locator('li.group', { hasText: 'Skills' }));
    const skill = menu.getByRole('option', { name: /estimate-a-task \(skill\)/ });
    await containsText(skill, 'Estimate a task in hours');
    await containsText(skill, '2 files');
    await visible(menu.getByRole('option', { name: /write-release-notes \(skill\)/ }));
    await screenshot(page, '08a-slash-menu-skills');

    // Narrowed by what is typed; picked with the keyboard.
    await input().fill('/estim');
    await hasCount(menu.getByRole('option'), 1);
    await input().press('Enter');
    const chip = chat().getByRole('list', { name: 'Attached resources' }).getByRole('listitem');
    await hasText(chip, /^Skill: estimate-a-task · text\/markdown, [\d.]+ (B|KB)/);
    await hasValue(input(), '');

    await ask('How should I round the hours?');
    const answer = await answerText();
    // The skill's SKILL.md went with the message (read and verified by the service): the answer quotes it.
    expect(answer).toContain('From skill://estimate-a-task/SKILL.md');
    expect(answer).toContain('round up, never down');
    // SKILL.md's steps are hard-wrapped: a quoted step keeps its wrapped line (no loose line below the list), and the
    // steps quoted (1 and 3) keep their numbers.
    const steps = lastAnswer().locator('blockquote ol > li');
    await containsText(steps.filter({ hasText: 'Read the team guidelines' }), 'may be estimated above the limit');
    const shown = await steps.evaluateAll((items) => {
      let n = 0; // the number the browser shows: the item's own value, or one past the one before
      return items.map((li) => (n = li.hasAttribute('value') ? Number(li.getAttribute('value')) : n + 1));
    });
    expect(shown).toEqual([1, 3]);
    await containsText(chat().locator('article.user').last().getByRole('listitem'), 'Skill: estimate-a-task');
    await screenshot(page, '08b-skill-attached');
    const history = (await (await fetch(`${service.url}/v1/conversations/${await conversationId()}`)).json()) as {
      messages: Array<{ role: string; metadata?: { attachments?: unknown } }>;
    };
    expect(history.messages.find((m) => m.role === 'user')?.metadata?.attachments).toEqual([
      { server: 'demo', uri: 'skill://estimate-a-task/SKILL.md' },
    ]);
  });

  it('attaches the PDF from the @ menu; the model reads its text, and the step says which pages', async () => {
    await input().fill('@quart');
    const menu = chat().getByRole('listbox', { name: 'Resources to attach' });
    const option = menu.getByRole('option', { name: /Quarterly report Q3/ });
    await containsText(option, 'application/pdf · 2.7 KB');
    await screenshot(page, '08-at-menu');
    await option.click();
    const chip = chat().getByRole('list', { name: 'Attached resources' }).getByRole('listitem');
    await hasText(chip, /Quarterly report Q3 · application\/pdf, 2\.7 KB · as text/);
    await hasValue(input(), '');

    // Attached, the report goes with the question as its text: the answer quotes its page.
    await ask('What does the quarterly report say about overdue tasks?');
    await answerText();
    await containsText(chat().locator('article.user').last().getByRole('listitem'), 'Quarterly report Q3');
    await containsText(lastAnswer(), '9 tasks were overdue');
    await lacksText(lastAnswer(), '%PDF');

    // Not attached, the model reads it on demand: the step says which pages it received.
    await ask("What are the quarterly report's goals for next quarter?");
    await answerText();
    const read = step('read docs://quarterly-report.pdf');
    await visible(read);
    await containsText(read, 'pages 1-3 of 3');
    await read.click();
    await containsText(lastAnswer().locator('details.step[open] pre'), '[Document: application/pdf, 2.7 KB');
    await containsText(lastAnswer().locator('details.step[open] pre'), 'Goals for Q4');
    await screenshot(page, '09-pdf-read');
  });

  it('a catalog read that lands after the @ was erased opens no menu over the empty box', async () => {
    let deliver!: () => void;
    const delivered = new Promise<void>((resolve) => {
      void page.route('**/v1/conversations/*/catalog', async (route) => {
        const response = await route.fetch();
        await new Promise<void>((release) => (deliver = release));
        await route.fulfill({ response });
        resolve();
      });
    });
    await input().fill('@quart');
    await expect.poll(() => deliver !== undefined).toBe(true);
    await input().fill('');
    deliver();
    await delivered;
    // The read is in; the page has had frames to act on it.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    expect(await chat().getByRole('listbox', { name: 'Resources to attach' }).isVisible()).toBe(false);
    await page.unroute('**/v1/conversations/*/catalog');
  });

  it('builds a URI from the customer template with autocomplete and attaches it', async () => {
    await input().fill('@customer');
    await chat()
      .getByRole('listbox', { name: 'Resources to attach' })
      .getByRole('option', { name: /Customer profile/ })
      .click();
    const form = chat().getByRole('form', { name: /Attach Customer profile/ });
    const field = form.getByRole('combobox', { name: /customerId/ });
    await field.fill('g');
    const suggestions = form.getByRole('listbox', { name: 'Suggestions for customerId' });
    await visible(suggestions.getByRole('option', { name: 'globex' }));
    await screenshot(page, '10-template-autocomplete');
    await suggestions.getByRole('option', { name: 'globex' }).click();
    await hasValue(field, 'globex');
    await form.getByRole('button', { name: 'Attach' }).click();
    await containsText(chat().getByRole('list', { name: 'Attached resources' }), 'Customer profile: globex');

    await ask('Which plan is this customer on?');
    await answerText();
    const history = (await (await fetch(`${service.url}/v1/conversations/${await conversationId()}`)).json()) as {
      messages: Array<{ role: string; metadata?: { attachments?: unknown } }>;
    };
    expect(history.messages.find((m) => m.role === 'user')?.metadata?.attachments).toEqual([
      { server: 'demo', uri: 'customer://globex/profile' },
    ]);
  });

  it('asks before a tool that changes data runs: approve runs it, deny does not', async () => {
    const heard = (await answerEvents(page)).length;
    await ask('create_task title="Write release notes" estimateHours=2');
    const card = chat().getByRole('group', { name: 'Tool approval' });
    await containsText(card, 'wants to run create_task on demo');
    await containsText(card.getByLabel('Arguments'), '"title": "Write release notes"');
    await screenshot(page, '11-approval-requested');
    await decide('Approve');
    expect(await answerText()).toMatch(/Created task #\d+: Write release notes/);
    // The host page heard that the answer waited for the person, then of the answer once, when it was complete.
    expect((await answerEvents(page)).slice(heard)).toEqual(['waiting for approval', 'message']);
    await visible(step('ran create_task on demo'));
    await screenshot(page, '12-approved');

    await ask('create_task title="Delete the backlog"');
    // By keyboard this time: the buttons are reachable and answer to Enter.
    await decide('Deny', 'Enter');
    expect(await answerText()).toContain('The tool call was denied');
    await visible(step('create_task on demo — denied'));
    await screenshot(page, '13-denied');

    // Only the approved task exists: what list_tasks returned (the step's own output, not the model's prose).
    await ask('list_tasks status=all');
    await answerText();
    const listed = lastAnswer().locator('details.step', {
      has: page.locator('summary', { hasText: 'ran list_tasks on demo' }),
    });
    await listed.locator('summary').click();
    const received = listed.locator('pre').last();
    await containsText(received, 'Write release notes');
    expect(await received.innerText()).not.toContain('Delete the backlog');
  });

  it('resumes after the connection drops mid-answer, without losing or repeating anything', async () => {
    // The first answer's stream is cut after its first events, as a flaky network would.
    let cut = false;
    await page.route('**/v1/conversations/*/messages', async (route) => {
      const response = await route.fetch();
      const body = await response.text();
      cut = true;
      await route.fulfill({ response, body: `${body.split('\n\n').slice(0, 3).join('\n\n')}\n\n` });
    });
    await ask('What do the team guidelines say about estimates?');
    const text = await answerText();
    expect(cut).toBe(true);
    expect(text).toContain('never more than 8');
    await hasCount(assistant(), 1);
    await hasCount(chat().locator('article.user'), 1);
    await hidden(chat().getByRole('alert'));
    await screenshot(page, '14-resumed');

    // After a reload, the same conversation comes back from the service.
    await page.unroute('**/v1/conversations/*/messages');
    await page.reload();
    await hasCount(assistant(), 1);
    await containsText(lastAnswer(), 'never more than 8');
  });

  it('renders markup in resource text and model output as text, never as HTML', async () => {
    // A document whose text is hostile markup, published through the demo server's tool.
    await ask(
      'publish_document slug=markup-test title="Markup test" markdown="<img src=x onerror=window.pwned=1> **bold** <script>window.pwned=2</script>"',
    );
    await decide('Approve');
    await answerText();
    // The demo server announces the new document (list_changed); wait until the catalog shows it.
    await expect
      .poll(
        async () =>
          JSON.stringify(
            await (await fetch(`${service.url}/v1/conversations/${await conversationId()}/catalog`)).json(),
          ),
        { timeout: 10_000 },
      )
      .toContain('docs://published/markup-test');
    await ask('What does the Markup test document say?');
    const text = await answerText();
    expect(text).toContain('<img src=x onerror=window.pwned=1>');
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    await hasCount(lastAnswer().locator('img, script'), 0);
    await visible(lastAnswer().locator('strong', { hasText: 'bold' }));
    await screenshot(page, '15-markup-as-text');
  });
});

async function conversationId(): Promise<string> {
  return page.evaluate(() => sessionStorage.getItem(`mcp-ondemand:${location.origin}`) ?? '');
}
