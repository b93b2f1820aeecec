// The widget's languages, in Chromium against the service under `wrangler dev` (`npm start`'s configuration: the demo
// server and the offline model): German from the page's `<html lang>`, Japanese from the element's `lang`, Arabic laid
// out right to left (the composer and the messages mirrored), a host's `strings` over the language's, a `lang`
// changed live, and axe-core with no violation in German and Arabic — at 1280 and 360 px. Each message goes to the
// service with the language (the model is asked to answer in it: test/answer-language.test.ts). Screenshots in
// test-results/screenshots/.
import { join } from 'node:path';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_PORTS } from '../infra/ports';
import { axeViolations } from './axe';
import { launchChromium, SCREENSHOTS, screenshot } from './chromium';
import { containsText, hasText, visible } from './see';
import { startService, type Service } from './service';
import { countTurns, turnsEnded } from './turn-count';

const WIDE = { width: 1280, height: 820 };
const PHONE = { width: 360, height: 800 };

let service: Service;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext | undefined;
let page: Page;
let pageErrors: string[];
/** The bodies of the messages the widget posted. */
let sent: Array<{ text?: string; language?: string }>;
/** The language chunks the page loaded (each language but English is one, loaded when spoken). */
let chunks: string[];

beforeAll(async () => {
  [service, chromium] = await Promise.all([
    startService(BROWSER_PORTS.i18nService, { AUTH_DISABLED: 'true' }),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await chromium?.close();
  await service?.stop();
});
afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail')
    await screenshot(page, `failed-i18n-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
  expect(pageErrors).toEqual([]);
  await context?.close();
  context = undefined;
});

/**
 * The demo page in a fresh context whose browser prefers English: `pageLang` on `<html>`, `attrs` on the element
 * (each test's language comes from the page or the element, never from the browser).
 */
async function open(
  viewport: { width: number; height: number },
  { pageLang = 'en', attrs = {} }: { pageLang?: string; attrs?: Record<string, string> } = {},
): Promise<void> {
  context = await chromium.browser.newContext({ viewport, locale: 'en-US', isMobile: viewport.width < 500 });
  page = await context.newPage();
  pageErrors = [];
  sent = [];
  chunks = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('request', (request: Request) => {
    if (request.method() === 'POST' && /\/v1\/conversations\/[^/]+\/messages$/.test(request.url()))
      sent.push(request.postDataJSON() as { text?: string; language?: string });
    const chunk = /\/widget\/v[^/]+\/mcp-ondemand-lang-(\w+)\.[0-9a-f]{16}\.js$/.exec(request.url());
    if (chunk) chunks.push(chunk[1]!);
  });
  await page.route(`${service.url}/`, async (route) => {
    const response = await route.fetch();
    const extra = Object.entries(attrs)
      .map(([name, value]) => ` ${name}="${value}"`)
      .join('');
    const body = (await response.text())
      .replace('<html lang="en">', `<html lang="${pageLang}">`)
      .replace('<mcp-ondemand-chat ', `<mcp-ondemand-chat${extra} `);
    await route.fulfill({ response, body });
  });
  await page.goto(`${service.url}/`);
  await countTurns(page);
}

const chat = () => page.locator('mcp-ondemand-chat');
const start = () => chat().locator('[part="start"]');

async function ask(box: string, text: string): Promise<void> {
  const before = await turnsEnded(page);
  const input = chat().getByRole('textbox', { name: box });
  await input.fill(text);
  await input.press('Enter');
  await expect.poll(() => turnsEnded(page), { timeout: 20_000 }).toBeGreaterThan(before);
}

/** The chat section's computed direction and `lang`, and a shadow-root element's box. */
const shell = () =>
  chat().evaluate((host) => {
    const section = host.shadowRoot!.querySelector('section.chat') as HTMLElement;
    return { dir: getComputedStyle(section).direction, lang: section.lang };
  });
const box = async (selector: string) => {
  const found = await chat().locator(selector).last().boundingBox();
  expect(found, selector).not.toBeNull();
  return found!;
};

describe('languages', () => {
  for (const viewport of [WIDE, PHONE]) {
    it(`German from the page’s lang: the shell, the start screen, an answer’s steps, sent with the language; axe clean — ${viewport.width} px`, async () => {
      await open(viewport, { pageLang: 'de' });
      expect(await shell()).toEqual({ dir: 'ltr', lang: 'de' });
      const input = chat().getByRole('textbox', { name: 'Nachricht' });
      await visible(input);
      expect(await input.getAttribute('placeholder')).toBe('Frag etwas');
      await visible(chat().getByRole('button', { name: 'Senden' }));
      await visible(chat().getByRole('button', { name: 'Dateien anhängen' }));
      await containsText(start(), 'Wie kann ich helfen?');
      await containsText(chat().locator('.hint'), 'Enter sendet, Umschalt+Enter für eine neue Zeile.');
      // German came as its own chunk, the only one loaded.
      expect(chunks).toEqual(['de']);
      await screenshot(page, `i18n-de-start-${viewport.width}`);
      expect(await axeViolations(page)).toEqual([]);

      await ask('Nachricht', 'What do the team guidelines say about estimates?');
      expect(sent.at(-1)).toMatchObject({ text: 'What do the team guidelines say about estimates?', language: 'de' });
      const answer = chat().getByRole('article', { name: 'Assistent' }).last();
      await visible(answer.locator('details.step summary', { hasText: 'hat task://guidelines gelesen' }));
      await visible(chat().getByRole('article', { name: 'Du' }).first());
      await screenshot(page, `i18n-de-answer-${viewport.width}`);
      expect(await axeViolations(page)).toEqual([]);
    });

    it(`Japanese from the element’s lang: the shell, the thread list with its dates — ${viewport.width} px`, async () => {
      await open(viewport, { attrs: { lang: 'ja' } });
      expect(await shell()).toEqual({ dir: 'ltr', lang: 'ja' });
      await visible(chat().getByRole('textbox', { name: 'メッセージ' }));
      await visible(chat().getByRole('button', { name: '送信' }));
      await containsText(start(), 'ご用件は何でしょう？');
      await ask('メッセージ', 'Which tasks are still open?');
      expect(sent.at(-1)?.language).toBe('ja');
      await chat().getByRole('button', { name: '会話', exact: true }).click();
      const panel = chat().getByRole('dialog', { name: '会話' });
      await visible(panel.getByRole('button', { name: '新しいチャット' }));
      // The date in Japanese order, by Intl: 2026/12/07 16:05.
      await hasText(panel.locator('li.thread .meta').first(), /^最終更新 \d{4}\/\d{1,2}\/\d{1,2} \d{1,2}:\d{2}$/);
      await screenshot(page, `i18n-ja-threads-${viewport.width}`);
    });

    it(`Arabic lays out right to left: the composer and the messages mirrored; axe clean — ${viewport.width} px`, async () => {
      await open(viewport, { attrs: { lang: 'ar' } });
      expect(await shell()).toEqual({ dir: 'rtl', lang: 'ar' });
      const input = chat().getByRole('textbox', { name: 'الرسالة' });
      await visible(input);
      expect(await input.evaluate((el) => getComputedStyle(el).direction)).toBe('rtl');
      // The input row runs from the right: the attach button at the right edge, Send at the left.
      const [attach, send, field] = await Promise.all([
        box('button.attach'),
        box('button[part="send"]'),
        box('textarea'),
      ]);
      expect(attach.x).toBeGreaterThan(field.x);
      expect(send.x + send.width).toBeLessThanOrEqual(field.x + 1);
      await containsText(start(), 'كيف يمكنني المساعدة؟');
      await screenshot(page, `i18n-ar-start-${viewport.width}`);
      expect(await axeViolations(page)).toEqual([]);

      await ask('الرسالة', 'ما المهام المفتوحة؟');
      expect(sent.at(-1)?.language).toBe('ar');
      // The person's message at the left, the assistant's at the right: the mirror of a left-to-right chat.
      const log = await box('[part="log"]');
      const mine = await box('article.msg.user');
      const answer = await box('article.msg.assistant');
      expect(mine.x - log.x).toBeLessThan(30);
      expect(log.x + log.width - (answer.x + answer.width)).toBeLessThan(30);
      expect(answer.x + answer.width).toBeGreaterThan(mine.x + mine.width);
      // The Arabic message reads right to left; code stays left to right inside it.
      expect(
        await chat()
          .locator('article.msg.user .text')
          .evaluate((el) => getComputedStyle(el).direction),
      ).toBe('rtl');
      await screenshot(page, `i18n-ar-answer-${viewport.width}`);
      // The docs' picture (docs/images/widget-arabic.png is a copy).
      if (viewport === WIDE) await chat().screenshot({ path: join(SCREENSHOTS, 'widget-arabic.png') });
      expect(await axeViolations(page)).toEqual([]);
    });
  }

  it('a host’s strings win over the language’s, the rest stays translated; a new lang relabels the chat live', async () => {
    await open(WIDE, { pageLang: 'de' });
    await visible(chat().getByRole('button', { name: 'Senden' }));
    // A chunk is loaded once per language, when first spoken (French and Hebrew come below).
    expect(chunks).toEqual(['de']);
    await chat().evaluate((el) => {
      (el as HTMLElement & { strings: unknown }).strings = {
        shell: { send: 'Frag los' },
        start: { greeting: 'Servus! Was brauchst du?' },
      };
    });
    await visible(chat().getByRole('button', { name: 'Frag los' }));
    await containsText(start(), 'Servus! Was brauchst du?');
    await visible(chat().getByRole('textbox', { name: 'Nachricht' }));
    await screenshot(page, 'i18n-strings-override');

    // French, live: the shell, the start screen; the host's strings still apply (they are not per language).
    await chat().evaluate((el) => el.setAttribute('lang', 'fr'));
    await visible(chat().getByRole('textbox', { name: 'Message' }));
    expect(await chat().getByRole('textbox', { name: 'Message' }).getAttribute('placeholder')).toBe(
      'Posez une question',
    );
    await visible(chat().getByRole('button', { name: 'Frag los' }));
    await visible(chat().getByRole('button', { name: 'Joindre des fichiers' }));
    expect(await shell()).toEqual({ dir: 'ltr', lang: 'fr' });
    // Hebrew, live: right to left.
    await chat().evaluate((el) => el.setAttribute('lang', 'he'));
    await visible(chat().getByRole('textbox', { name: 'הודעה' }));
    expect(await shell()).toEqual({ dir: 'rtl', lang: 'he' });
    expect(chunks).toEqual(['de', 'fr', 'he']);
  });

  it('English speaks from the widget itself: no chunk is loaded', async () => {
    await open(PHONE, { pageLang: 'en-GB' });
    await visible(chat().getByRole('button', { name: 'Send' }));
    expect(await shell()).toEqual({ dir: 'ltr', lang: 'en-GB' });
    expect(chunks).toEqual([]);
  });
});
