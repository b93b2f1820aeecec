// The person's own files in the chat widget, in Chromium against the service under `wrangler dev` (`npm start`'s
// configuration: the demo server, the offline model, the converter Worker) with UPLOAD_MAX_BYTES at 200,000 bytes:
// the attach button, a drop and a paste; chips with name, size and progress; a refusal in words with nothing
// stored; the offline model answering from the PDF's text; the keyboard alone; a phone's width. Screenshots in
// test-results/screenshots/.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BROWSER_PORTS } from '../infra/ports';
import { makePdf } from '../infra/pdf-fixtures';
import { launchChromium, screenshot } from './chromium';
import { containsText, focused, hasCount, hasText, hidden, visible } from './see';
import { startService, type Service } from './service';
import { countTurns, turnsEnded } from './turn-count';

const MAX = 200_000;
let service: Service;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];

beforeAll(async () => {
  [service, chromium] = await Promise.all([
    startService(BROWSER_PORTS.filesService, { AUTH_DISABLED: 'true', UPLOAD_MAX_BYTES: String(MAX) }),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await chromium?.close();
  await service?.stop();
});

async function open(viewport = { width: 1000, height: 820 }, isMobile = false): Promise<void> {
  context = await chromium.browser.newContext({ viewport, isMobile });
  page = await context.newPage();
  // Playwright intercepts file choosers only once a listener exists, and turns that on asynchronously: a chooser opened
  // by a key press right after `waitForEvent('filechooser')` could beat it (the keyboard test then waited in vain).
  // A listener for the page's whole life makes the interception certain before any test opens one.
  page.on('filechooser', () => {});
  pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${service.url}/`);
  await countTurns(page);
  // The conversation the widget starts (its first file creates it), for the API checks.
  await page.evaluate(() =>
    document.querySelector('mcp-ondemand-chat')!.addEventListener('mcp-ondemand-conversation', (e) => {
      (window as unknown as { conversation: string }).conversation = (e as CustomEvent<{ id: string }>).detail.id;
    }),
  );
}
beforeEach(async (ctx) => {
  if (!ctx.task.name.includes('phone')) await open();
});
afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail')
    await screenshot(page, `failed-files-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
  expect(pageErrors).toEqual([]);
  await context.close();
});

const chat = () => page.locator('mcp-ondemand-chat');
const input = () => chat().getByRole('textbox', { name: 'Message' });
const attachButton = () => chat().getByRole('button', { name: 'Attach files' });
const fileChips = () => chat().getByRole('list', { name: 'Attached files' }).getByRole('listitem');
const lastAnswer = () => chat().locator('article.assistant').last();
const announcer = () => chat().locator('[aria-live="polite"]').last();
const conversation = () => page.evaluate(() => (window as unknown as { conversation?: string }).conversation);

/** A PDF whose page says things about travel, padded to about `bytes` with a page of filler. */
function travelPdf(bytes = 2_000): Buffer {
  const filler = Array.from({ length: Math.max(0, Math.ceil((bytes - 1_200) / 60)) }, (_, i) => `Filler line ${i}.`);
  const pages: string[][] = [
    ['# Travel policy', 'Trains are booked two weeks ahead.', 'Hotels cost at most 140 euros.'],
  ];
  for (let i = 0; i < filler.length; i += 40) pages.push(filler.slice(i, i + 40));
  return Buffer.from(makePdf({ title: 'Travel policy', pages }));
}

async function listed(): Promise<Array<{ name: string; size: number }>> {
  const id = await conversation();
  if (!id) return [];
  const response = await fetch(`${service.url}/v1/conversations/${id}/files`);
  return ((await response.json()) as { files: Array<{ name: string; size: number }> }).files;
}

/** Sends the question with Enter and waits for the answer to be over; its text. */
async function ask(text: string): Promise<string> {
  const before = await turnsEnded(page);
  await input().fill(text);
  await input().press('Enter');
  await expect.poll(() => turnsEnded(page), { timeout: 30_000 }).toBeGreaterThan(before);
  return (await lastAnswer().innerText()).trim();
}

/** Files put on the page's clipboard or drag as a DataTransfer (what a drop or a paste hands the page). */
const transfer = (files: Array<{ name: string; type: string; text: string }>) =>
  page.evaluateHandle((list) => {
    const data = new DataTransfer();
    for (const f of list) data.items.add(new File([f.text], f.name, { type: f.type }));
    return data;
  }, files);

describe('attaching files in the widget', () => {
  it('the attach button: a chip with name, size and upload progress; the answer quotes the PDF', async () => {
    // Uploads at 40 KB/s, so that the progress is seen.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 40_000,
    });
    const pdf = travelPdf(120_000);
    const chooser = page.waitForEvent('filechooser');
    await attachButton().click();
    await (await chooser).setFiles({ name: 'Travel policy.pdf', mimeType: 'application/pdf', buffer: pdf });
    const chip = fileChips().first();
    await containsText(chip, 'Travel policy.pdf · ');
    const bar = chip.getByRole('progressbar');
    await visible(bar);
    await hasText(announcer(), /Uploading Travel policy\.pdf, 1\d\d KB\./);
    await screenshot(page, 'files-01-uploading');
    await expect
      .poll(async () => Number(await bar.getAttribute('value').catch(() => '100')), { timeout: 15_000 })
      .toBeGreaterThan(0);
    // Sent while it uploads: the message waits for the file, then goes with it.
    const before = await turnsEnded(page);
    await input().fill('What does this file say about trains?');
    await input().press('Enter');
    await containsText(chat().getByRole('status').first(), 'Uploading files…');
    await hidden(bar);
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await expect.poll(() => turnsEnded(page), { timeout: 30_000 }).toBeGreaterThan(before);
    expect(await lastAnswer().innerText()).toContain('Trains are booked two weeks ahead');
    expect(await listed()).toEqual([expect.objectContaining({ name: 'Travel_policy.pdf', size: pdf.length })]);
    await containsText(chat().locator('article.user').last().getByRole('listitem'), 'Travel policy.pdf');
    await hasCount(fileChips(), 0);
    await screenshot(page, 'files-02-answered');
  });

  it('a drop and a paste attach files; a chip removed deletes its file', async () => {
    const section = chat().locator('section.chat');
    const dropped = await transfer([
      { name: 'notes.txt', type: 'text/plain', text: 'The invoice export is overdue.\n' },
    ]);
    await section.dispatchEvent('dragenter', { dataTransfer: dropped });
    await expect.poll(() => section.getAttribute('data-drop')).toBe('');
    await screenshot(page, 'files-04-dragging');
    await section.dispatchEvent('drop', { dataTransfer: dropped });
    await expect.poll(() => section.getAttribute('data-drop')).toBe(null);
    await containsText(fileChips().first(), 'notes.txt · 31 B');

    const pasted = await transfer([{ name: 'pasted.txt', type: 'text/plain', text: 'Pasted words.\n' }]);
    await input().evaluate(
      (el, data) =>
        el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true })),
      pasted,
    );
    await hasCount(fileChips(), 2);
    await expect.poll(async () => (await listed()).map((f) => f.name).sort()).toEqual(['notes.txt', 'pasted.txt']);
    await hasCount(fileChips().getByRole('progressbar'), 0);

    await chat().getByRole('button', { name: 'Remove pasted.txt' }).click();
    await hasCount(fileChips(), 1);
    await focused(input());
    await expect.poll(async () => (await listed()).map((f) => f.name)).toEqual(['notes.txt']);

    const answer = await ask('What is overdue in the attached notes?');
    expect(answer).toContain('invoice export is overdue');
  });

  it('a file over UPLOAD_MAX_BYTES is refused in words, naming the limit; nothing is stored', async () => {
    const chooser = page.waitForEvent('filechooser');
    await attachButton().click();
    await (await chooser).setFiles({ name: 'big.pdf', mimeType: 'application/pdf', buffer: travelPdf(250_000) });
    const alert = chat().getByRole('alert');
    await containsText(alert, 'The file was not attached.');
    await hasText(
      alert,
      /"big\.pdf" is 2\d\d KB; a file may be at most 195 KB \(UPLOAD_MAX_BYTES\)\. Nothing was stored/,
    );
    await hasCount(fileChips(), 0);
    expect(await listed()).toEqual([]);
    await screenshot(page, 'files-05-refused');
  });

  it('with the keyboard alone: attach, remove, send', async () => {
    await input().focus();
    await page.keyboard.press('Shift+Tab');
    await focused(attachButton());
    let chooser = page.waitForEvent('filechooser');
    await page.keyboard.press('Enter');
    await (await chooser).setFiles({
      name: 'wrong.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('Not this one.\n'),
    });
    await focused(input());
    await hasCount(fileChips().getByRole('progressbar'), 0);
    // Back over the attach button to the chip's Remove button.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await focused(chat().getByRole('button', { name: 'Remove wrong.txt' }));
    await page.keyboard.press('Enter');
    await hasCount(fileChips(), 0);
    await focused(input());
    await containsText(announcer(), 'wrong.txt removed.');

    await page.keyboard.press('Shift+Tab');
    chooser = page.waitForEvent('filechooser');
    await page.keyboard.press('Space');
    await (await chooser).setFiles({ name: 'Travel policy.pdf', mimeType: 'application/pdf', buffer: travelPdf() });
    await focused(input());
    await page.keyboard.type('What does this file say about hotels?');
    const before = await turnsEnded(page);
    // Sent at once, while the file may still upload: the message waits for it.
    await page.keyboard.press('Enter');
    await expect.poll(() => turnsEnded(page), { timeout: 30_000 }).toBeGreaterThan(before);
    await containsText(lastAnswer(), 'Hotels cost at most 140 euros');
    expect((await listed()).map((f) => f.name)).toEqual(['Travel_policy.pdf']);
  });

  it('on a phone (390 px): the attach button and a long-named chip fit, nothing overflows', async () => {
    await open({ width: 390, height: 800 }, true);
    const chooser = page.waitForEvent('filechooser');
    await attachButton().click();
    await (await chooser).setFiles({
      name: 'A very long file name of a quarterly planning document for the whole team.pdf',
      mimeType: 'application/pdf',
      buffer: travelPdf(),
    });
    await hasCount(fileChips().getByRole('progressbar'), 0);
    await input().fill('What does this file say about trains?');
    const overflow = await page.evaluate(() => {
      const found: string[] = [];
      const screen = document.documentElement.clientWidth;
      if (document.documentElement.scrollWidth > screen) found.push(`page ${document.documentElement.scrollWidth}`);
      const host = document.querySelector('mcp-ondemand-chat')!;
      const right = host.getBoundingClientRect().right;
      for (const el of host.shadowRoot!.querySelectorAll('*')) {
        const box = el.getBoundingClientRect();
        if (box.width && box.right > right + 0.5) found.push(`${el.tagName}.${el.className}: ${Math.round(box.right)}`);
      }
      return found;
    });
    expect(overflow).toEqual([]);
    await screenshot(page, 'files-06-phone');
  });
});
