// The actions under each finished answer in the chat widget — Copy, Regenerate, 👍 / 👎 with a comment — in Chromium
// against the service under `wrangler dev` (`npm start`'s configuration: the demo server, the offline model,
// AUTH_DISABLED), at a desktop's width and a phone's: what lands on the clipboard, an answer replaced in place, a
// rating that reaches the API, the host page's event and the operator's page (/admin). Screenshots in
// test-results/screenshots/.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConversationSnapshot } from '../../shared/api/conversations';
import type { FeedbackList } from '../../shared/api/feedback';
import { BROWSER_PORTS } from '../infra/ports';
import { launchChromium, screenshot } from './chromium';
import { containsText, focused, hasAttribute, hasCount, hidden, visible } from './see';
import { startService, type Service } from './service';
import { countTurns, turnsEnded } from './turn-count';

let service: Service;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];

beforeAll(async () => {
  [service, chromium] = await Promise.all([
    startService(BROWSER_PORTS.actionsService, { AUTH_DISABLED: 'true' }),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await chromium?.close();
  await service?.stop();
});

type Heard = { conversation?: string; feedback: Array<Record<string, unknown>> };

/** The page with the widget, listening for the conversation it starts and every `mcp-ondemand-feedback`. */
async function load(): Promise<void> {
  await page.goto(`${service.url}/`);
  await countTurns(page);
  await page.evaluate(() => {
    const heard = { feedback: [] } as Heard;
    (window as unknown as { heard: Heard }).heard = heard;
    const chat = document.querySelector('mcp-ondemand-chat')!;
    chat.addEventListener('mcp-ondemand-conversation', (e) => {
      heard.conversation = (e as CustomEvent<{ id: string }>).detail.id;
    });
    // On the document: the event bubbles out of the shadow root (composed).
    document.addEventListener('mcp-ondemand-feedback', (e) => {
      heard.feedback.push({ ...(e as CustomEvent<Record<string, unknown>>).detail, composed: e.composed });
    });
  });
}
const heard = () => page.evaluate(() => (window as unknown as { heard: Heard }).heard);

const chat = () => page.locator('mcp-ondemand-chat');
const input = () => chat().getByRole('textbox', { name: 'Message' });
const answers = () => chat().locator('article.assistant');
const actions = () => answers().last().getByRole('group', { name: 'Answer actions' });
const button = (name: string) => actions().getByRole('button', { name, exact: true });

async function ask(text: string): Promise<void> {
  const before = await turnsEnded(page);
  await input().fill(text);
  await input().press('Enter');
  await expect.poll(() => turnsEnded(page), { timeout: 30_000 }).toBeGreaterThan(before);
  await visible(actions());
}

/** The conversation as the service keeps it. */
async function stored(): Promise<ConversationSnapshot> {
  const { conversation } = await heard();
  const response = await fetch(`${service.url}/v1/conversations/${conversation}`);
  expect(response.status).toBe(200);
  return response.json() as Promise<ConversationSnapshot>;
}
const lastAnswer = async () => (await stored()).messages.findLast((m) => m.role === 'assistant')!;
const textOf = (message: ConversationSnapshot['messages'][number]) =>
  message.parts.flatMap((p) => (p.type === 'text' ? [String(p.text).trim()] : [])).join('\n\n');

for (const width of [1280, 360]) {
  describe(`actions under an answer at ${width} px`, () => {
    beforeEach(async () => {
      context = await chromium.browser.newContext({
        viewport: { width, height: 860 },
        isMobile: width < 500,
        permissions: ['clipboard-read', 'clipboard-write'],
      });
      page = await context.newPage();
      pageErrors = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await load();
    });
    afterEach(async (ctx) => {
      if (ctx.task.result?.state === 'fail')
        await screenshot(page, `failed-actions-${width}-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
      expect(pageErrors).toEqual([]);
      await context.close();
    });

    it('Copy puts the answer’s markdown on the clipboard, and its plain text as text/plain', async () => {
      await ask('What do the team guidelines say about estimates?');
      // No actions while nothing is finished: the question has none.
      await hasCount(chat().locator('article.user').getByRole('group', { name: 'Answer actions' }), 0);
      await button('Copy the answer').click();
      await containsText(button('Copy the answer'), 'Copied');
      const clipboard = await page.evaluate(async () => {
        const [item] = await navigator.clipboard.read();
        const read = async (type: string) => (item!.types.includes(type) ? (await item!.getType(type)).text() : null);
        return { types: item!.types, markdown: await read('web text/markdown'), plain: await read('text/plain') };
      });
      const markdown = textOf(await lastAnswer());
      expect(markdown).toContain('> '); // the offline model quotes the guidelines as a block quote
      expect(clipboard.markdown).toBe(markdown);
      expect(clipboard.plain).toContain('From task://guidelines (server "demo"):');
      expect(clipboard.plain).toContain('never more than 8');
      expect(clipboard.plain).not.toMatch(/^>/m); // the marks are gone
      await screenshot(page, `actions-${width}-copied`);
      if (width < 500) {
        const overflow = await page.evaluate(() => {
          const host = document.querySelector('mcp-ondemand-chat')!;
          const right = host.getBoundingClientRect().right;
          return [...host.shadowRoot!.querySelectorAll('.answer-actions *')]
            .filter((el) => el.getBoundingClientRect().right > right + 0.5)
            .map((el) => el.outerHTML.slice(0, 60));
        });
        expect(overflow).toEqual([]);
      }
    });

    it('Regenerate writes the last answer again in its place; only the last answer offers it', async () => {
      await ask('What do the team guidelines say about estimates?');
      await ask('And what do they say about owners?');
      await hasCount(answers(), 2);
      await hasCount(answers().first().getByRole('button', { name: 'Regenerate this answer' }), 0);
      const before = await lastAnswer();
      const ended = await turnsEnded(page);
      await button('Regenerate this answer').click();
      await expect.poll(() => turnsEnded(page), { timeout: 30_000 }).toBeGreaterThan(ended);
      await visible(actions());
      const after = await stored();
      // The same conversation, the answer replaced: two questions, two answers, the second one new.
      expect(after.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      expect(after.messages[3]!.id).not.toBe(before.id);
      expect(textOf(after.messages[3]!)).toContain('owner');
      await hasCount(answers(), 2);
      await containsText(answers().last(), 'owner');
      await focused(input());
    });

    it('👎 with a comment reaches the API, stays after a reload, fires the event, and shows on /admin', async () => {
      await ask('What do the team guidelines say about estimates?');
      const down = button('Bad answer');
      await down.click();
      await hasAttribute(down, 'aria-pressed', /^true$/);
      await hasAttribute(button('Good answer'), 'aria-pressed', /^false$/);
      const comment = answers().last().getByRole('textbox', { name: 'What was wrong? (optional)' });
      await focused(comment);
      await screenshot(page, `actions-${width}-comment`);
      const words = `Quoted the wrong rule <b>${width}</b> & "more"`;
      await comment.fill(words);
      await comment.press('Enter');
      await hidden(comment);
      await containsText(actions().getByRole('status'), 'Thanks, your feedback was sent.');

      const answer = await lastAnswer();
      const { conversation, feedback } = await heard();
      expect(feedback).toEqual([
        { conversation, messageId: answer.id, rating: 'down', composed: true },
        { conversation, messageId: answer.id, rating: 'down', comment: words, composed: true },
      ]);
      expect(answer.metadata?.feedback).toMatchObject({ rating: 'down', comment: words });
      const listed = (await (await fetch(`${service.url}/v1/feedback`)).json()) as FeedbackList;
      expect(listed.rows.find((r) => r.messageId === answer.id)).toMatchObject({
        conversation,
        rating: 'down',
        comment: words,
        model: 'offline',
      });

      // After a reload the answer shows the rating kept.
      await page.reload();
      await hasAttribute(button('Bad answer'), 'aria-pressed', /^true$/);

      // The operator's page: the day's share of 👎, and the comment as text (never markup).
      const admin = await context.newPage();
      await admin.goto(`${service.url}/admin/`);
      const day = admin.locator('#feedback tbody tr').first();
      await containsText(day, new Date().toISOString().slice(0, 10));
      await containsText(day.locator('td.share-down'), '%');
      const shown = admin.locator('#feedback-comments td.comment', { hasText: words });
      await visible(shown);
      expect(await shown.locator('b').count()).toBe(0);
      await admin.locator('#feedback-title').scrollIntoViewIfNeeded();
      await screenshot(admin, `actions-${width}-admin`);
      await admin.close();
    });

    it('with the keyboard alone: 👍, Escape closes the comment and returns to the button', async () => {
      await ask('What do the team guidelines say about estimates?');
      await button('Copy the answer').focus();
      await page.keyboard.press('Tab');
      await focused(button('Regenerate this answer'));
      await page.keyboard.press('Tab');
      await focused(button('Good answer'));
      await page.keyboard.press('Enter');
      const comment = answers().last().getByRole('textbox', { name: 'What was good? (optional)' });
      await focused(comment);
      await page.keyboard.press('Escape');
      await hidden(comment);
      await focused(button('Good answer'));
      await hasAttribute(button('Good answer'), 'aria-pressed', /^true$/);
      const answer = await lastAnswer();
      expect(answer.metadata?.feedback).toMatchObject({ rating: 'up' });
      expect((await heard()).feedback).toEqual([
        { conversation: (await heard()).conversation, messageId: answer.id, rating: 'up', composed: true },
      ]);
    });
  });
}
