// An answer's sources in the chat widget, in Chromium against the service under `wrangler dev` (`npm start`'s
// configuration: the demo server, the offline model) with READ_WINDOW_CHARS at 4,000, so the long test matrix is read
// in windows: the list under the answer (title, server, the window when partial), the panel with the text the model
// received (the same characters the stored answer points at), its read time, Escape and Close giving focus back, a
// citation in the answer's text, a reload; a phone's width, where the panel is a sheet. And the AI SDK's `useChat`
// (DefaultChatTransport, on a page of another origin) receiving the `data-sources` part with the answer.
import type { UIMessage } from 'ai';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { McpOndemandDataParts, SourcesData, SourceText } from '../../shared/api/stream';
import { sourceWindowText } from '../../shared/sources';
import { BROWSER_PORTS } from '../infra/ports';
import { launchChromium, screenshot } from './chromium';
import { startClientPage } from './clients/page';
import { containsText, focused, hasText, hidden, visible } from './see';
import { startService, type Service } from './service';
import { countTurns, turnsEnded } from './turn-count';

let service: Service;
let clientPage: { url: string; close(): Promise<void> };
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];

beforeAll(async () => {
  clientPage = await startClientPage(BROWSER_PORTS.sourcesClientPage);
  [service, chromium] = await Promise.all([
    startService(BROWSER_PORTS.sourcesService, { AUTH_DISABLED: 'true', READ_WINDOW_CHARS: '4000' }),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await chromium?.close();
  await service?.stop();
  await clientPage?.close();
});
afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail')
    await screenshot(page, `failed-sources-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
  expect(pageErrors).toEqual([]);
  await context?.close();
});

async function open(viewport: { width: number; height: number }, isMobile = false): Promise<void> {
  context = await chromium.browser.newContext({ viewport, isMobile });
  page = await context.newPage();
  pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${service.url}/`);
  await countTurns(page);
  await page.evaluate(() =>
    document.querySelector('mcp-ondemand-chat')!.addEventListener('mcp-ondemand-conversation', (e) => {
      (window as unknown as { conversation: string }).conversation = (e as CustomEvent<{ id: string }>).detail.id;
    }),
  );
}

const chat = () => page.locator('mcp-ondemand-chat');
const input = () => chat().getByRole('textbox', { name: 'Message' });
const lastAnswer = () => chat().locator('article.assistant').last();
const sourceList = () => lastAnswer().getByRole('region', { name: 'Sources of this answer' });
const panel = () => chat().getByRole('dialog');
const conversation = () => page.evaluate(() => (window as unknown as { conversation?: string }).conversation);

async function ask(text: string): Promise<void> {
  const before = await turnsEnded(page);
  await input().fill(text);
  await input().press('Enter');
  await expect.poll(() => turnsEnded(page), { timeout: 30_000 }).toBeGreaterThan(before);
}

/** The stored answer and question (the transcript API), and the text each of its sources' windows points at. */
async function storedSources(): Promise<{ sources: SourcesData['sources']; texts: string[][] }> {
  const response = await fetch(`${service.url}/v1/conversations/${await conversation()}`);
  const { messages } = (await response.json()) as { messages: UIMessage[] };
  const answer = messages.at(-1)!;
  const part = answer.parts.find((p) => p.type === 'data-sources') as unknown as { data: SourcesData } | undefined;
  const sources = part?.data.sources ?? [];
  const holder = (at: SourceText) => (at.in === 'message' ? messages.find((m) => m.id === at.messageId) : undefined);
  const texts = sources.map((s) => s.windows.map((w) => sourceWindowText(w.text, answer, holder(w.text)) ?? ''));
  return { sources, texts };
}

describe('sources under an answer (1280 px)', () => {
  it('an answer after a windowed read lists its source with the window; the panel shows the text the model received', async () => {
    await open({ width: 1280, height: 860 });
    // The chat across the page (the demo's column is 460 px, where the panel is a sheet, as on a phone).
    await page.evaluate(() => {
      document.querySelector('main')!.style.gridTemplateColumns = '1fr';
    });
    await ask('What does the release test matrix say about the report format?');
    const list = sourceList();
    await visible(list);
    const { sources, texts } = await storedSources();
    const matrix = sources.find((s) => s.uri === 'docs://test-matrix')!;
    expect(matrix).toMatchObject({ server: 'demo', partial: true });
    // The list: its title, its server, and which characters of it were read (partial), numbers as Intl writes them.
    const item = list.getByRole('button', { name: new RegExp(matrix.title!) });
    await containsText(item, 'demo');
    await hasText(item, /characters [\d,]+–[\d,]+ of [\d,]+|\d+ parts/);
    await screenshot(page, 'sources-01-list');

    await item.click();
    await visible(panel());
    // At the chat's side, its full height; the answer stays in view beside it.
    const side = (await panel().boundingBox())!;
    const box = (await chat().locator('section.chat').boundingBox())!;
    expect(Math.abs(side.x + side.width - (box.x + box.width))).toBeLessThan(4);
    expect(Math.abs(side.height - box.height)).toBeLessThan(4);
    expect(side.width).toBeLessThan(box.width / 2);
    await containsText(panel(), matrix.title!);
    await containsText(panel(), 'docs://test-matrix');
    await containsText(panel(), 'The text the model received');
    // Its read time, as the page's locale writes it.
    const readAt = await page.evaluate(
      (ms) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' }).format(ms),
      matrix.readAt,
    );
    await containsText(panel(), readAt);
    // Exactly the characters the stored answer points at: what the model was sent (not a fresh read).
    const shown = await panel().locator('pre').allInnerTexts();
    const expected = texts[sources.indexOf(matrix)]!;
    expect(shown.length).toBe(expected.length);
    expect(shown[0]!.trim()).toBe(expected[0]!.trim());
    expect(expected[0]!.length).toBeGreaterThan(1000);
    // The heading has the focus (a screen reader hears which source opened).
    await focused(panel().getByRole('heading', { level: 3 }));
    await screenshot(page, 'sources-02-panel');

    // Escape closes it; focus goes back to the source's button.
    await page.keyboard.press('Escape');
    await hidden(panel());
    await focused(item);
    // The keyboard alone: Enter opens it again, Close closes it.
    await page.keyboard.press('Enter');
    await visible(panel());
    await panel().getByRole('button', { name: 'Close the source' }).click();
    await hidden(panel());
    await focused(item);
  });

  it('a URI the answer cites is a link to its source; after a reload the list and the text are still there', async () => {
    await open({ width: 1280, height: 860 });
    await ask('What do the team guidelines say about estimates?');
    await visible(sourceList());
    const { sources, texts } = await storedSources();
    const guidelines = sources.find((s) => s.uri === 'task://guidelines')!;
    expect(guidelines).toBeDefined();
    // The offline model quotes "From task://guidelines …": the URI in the text opens the source.
    const cite = lastAnswer().locator('.text button.cite', { hasText: 'task://guidelines' }).first();
    await visible(cite);
    await cite.click();
    await visible(panel());
    await containsText(panel(), 'task://guidelines');
    const shown = (await panel().locator('pre').first().innerText()).trim();
    expect(shown).toBe(texts[sources.indexOf(guidelines)]![0]!.trim());
    await page.keyboard.press('Escape');
    await focused(cite);

    await page.reload();
    await visible(sourceList());
    await sourceList().getByRole('button').first().click();
    await visible(panel());
    expect((await panel().locator('pre').first().innerText()).trim()).toBe(texts[0]![0]!.trim());
  });
});

describe('sources on a phone (360 px)', () => {
  it('the source opens as a sheet over the chat; Close gives the focus back', async () => {
    await open({ width: 360, height: 740 }, true);
    await ask('What do the team guidelines say about owners?');
    await visible(sourceList());
    const item = sourceList().getByRole('button').first();
    await item.click();
    await visible(panel());
    // A sheet: the whole width of the chat, from its bottom.
    const sheet = (await panel().boundingBox())!;
    const box = (await chat().locator('section.chat').boundingBox())!;
    expect(Math.abs(sheet.width - box.width)).toBeLessThan(4);
    expect(Math.abs(sheet.y + sheet.height - (box.y + box.height))).toBeLessThan(4);
    // Nothing wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await containsText(panel(), 'The text the model received');
    await screenshot(page, 'sources-03-phone-sheet');
    await panel().getByRole('button', { name: 'Close the source' }).click();
    await hidden(panel());
    await focused(item);
  });
});

describe("useChat's DefaultChatTransport receives the sources", () => {
  it('the answer carries the data-sources part, its windows pointing at the tool output the client holds', async () => {
    context = await chromium.browser.newContext();
    page = await context.newPage();
    pageErrors = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const id = `sources${Date.now()}${Math.random().toString(36).slice(2)}`;
    const params = new URLSearchParams({ client: 'http', service: service.url, conversation: id, token: 'none' });
    await page.goto(`${clientPage.url}/?${params}`);
    await expect.poll(() => page.evaluate(() => Boolean(window.chat)), { timeout: 15_000 }).toBe(true);
    await page.evaluate(() => window.chat!.send('What do the team guidelines say about estimates?'));
    await expect.poll(() => page.evaluate(() => window.chat!.status), { timeout: 30_000 }).toBe('ready');
    // Typed as a frontend types it (McpOndemandDataParts): `part.data` of a data-sources part is SourcesData.
    const messages = (await page.evaluate(() => window.chat!.messages)) as UIMessage<unknown, McpOndemandDataParts>[];
    const answer = messages.at(-1)!;
    const part = answer.parts.find((p) => p.type === 'data-sources');
    const sources = part?.type === 'data-sources' ? part.data.sources : [];
    expect(sources.map((s) => s.uri)).toContain('task://guidelines');
    const source = sources.find((s) => s.uri === 'task://guidelines')!;
    // The client's own copy of the answer holds the text: the window's pointer finds it there.
    const text = sourceWindowText(source.windows[0]!.text, answer);
    expect(text).toMatch(/estimat/i);
  });
});
