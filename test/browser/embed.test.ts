// The widget embedded in a customer's page on another origin, as a SaaS
// product does: the service runs multi-tenant (TENANTS), the page gets a
// browser token from its own backend, and only allowed origins may call.
import { createHash } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BROWSER_PORTS } from '../infra/ports';
import { launchChromium, screenshot } from './chromium';
import { startHostPage } from './host-pages';
import { containsText, hidden, visible } from './see';
import { startService, type Service } from './service';

const SECRET = 'shop-browser-token-secret-0123456789';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let service: Service;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let allowed: { url: string; close(): Promise<void> };
let foreign: { url: string; close(): Promise<void> };
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  const tenants = [
    {
      id: 'shop',
      apiKeySha256: [sha256('shop-api-key')],
      tokenSecret: 'secret:SHOP_TOKEN_SECRET',
      allowedOrigins: [`http://127.0.0.1:${BROWSER_PORTS.hostPage}`],
    },
  ];
  [service, chromium] = await Promise.all([
    startService(BROWSER_PORTS.tenantService, { TENANTS: JSON.stringify(tenants), SHOP_TOKEN_SECRET: SECRET }),
    launchChromium(),
  ]);
  const host = { serviceUrl: service.url, tenant: 'shop', secret: SECRET };
  allowed = await startHostPage({ ...host, port: BROWSER_PORTS.hostPage });
  foreign = await startHostPage({ ...host, port: BROWSER_PORTS.foreignPage });
});
afterAll(async () => {
  await Promise.all([allowed?.close(), foreign?.close()]);
  await chromium?.close();
  await service?.stop();
});
beforeEach(async () => {
  context = await chromium.browser.newContext({ viewport: { width: 900, height: 760 } });
  page = await context.newPage();
});
afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail') await screenshot(page, `failed-embed-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
  await context.close();
});

const chat = () => page.locator('mcp-ondemand-chat');
const alert = () => chat().locator('.alert');
const events = () => page.evaluate(() => (window as unknown as { widgetEvents: Array<{ type: string; detail: Record<string, unknown> }> }).widgetEvents);

async function ask(text: string): Promise<void> {
  const input = chat().getByRole('textbox', { name: 'Message' });
  await input.fill(text);
  await input.press('Enter');
}

describe('the widget embedded in a customer page on another origin', () => {
  it('works with a token from the page’s backend, themed by the host, and reports its conversation and answers as events', async () => {
    await page.goto(`${allowed.url}/?user=maria`);
    await ask('What do the team guidelines say about estimates?');
    await containsText(chat().locator('article.assistant').last(), 'never more than 8');
    // The host page's theme reached inside the shadow root.
    const accent = await chat().getByRole('button', { name: 'Send' }).evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(accent).toBe('rgb(11, 122, 83)');
    await expect.poll(async () => (await events()).map((e) => e.type)).toEqual(expect.arrayContaining(['mcp-ondemand-conversation', 'mcp-ondemand-message']));
    await screenshot(page, '20-embedded-cross-origin');

    // The conversation belongs to maria of tenant shop: the service says so to an API caller with her tenant's key.
    const { id } = (await events()).find((e) => e.type === 'mcp-ondemand-conversation')!.detail as { id: string };
    const asMaria = await fetch(`${service.url}/v1/conversations/${id}`, { headers: { authorization: 'Bearer shop-api-key', 'x-end-user': 'maria' } });
    expect(asMaria.status).toBe(200);
    const asSomeoneElse = await fetch(`${service.url}/v1/conversations/${id}`, { headers: { authorization: 'Bearer shop-api-key', 'x-end-user': 'tom' } });
    expect(asSomeoneElse.status).toBe(404);
  });

  it('says plainly that a page on an origin the tenant does not allow cannot use the service', async () => {
    await page.goto(`${foreign.url}/?user=maria`);
    await ask('Hello?');
    await visible(alert());
    await containsText(alert(), 'This site is not allowed to use this chat service.');
    await containsText(alert(), `http://127.0.0.1:${BROWSER_PORTS.foreignPage}`);
    // Nothing the person typed is lost: it is back in the box.
    expect(await chat().getByRole('textbox', { name: 'Message' }).inputValue()).toBe('Hello?');
    expect((await events()).find((e) => e.type === 'mcp-ondemand-error')?.detail).toMatchObject({ code: 'origin_refused' });
    await screenshot(page, '21-origin-not-allowed');
  });

  it('says plainly that a bad token cannot sign the person in', async () => {
    await page.goto(`${allowed.url}/?user=maria&token=bad&refresh=manual`);
    await ask('Hello?');
    await containsText(alert(), 'This chat could not sign you in.');
    expect((await events()).find((e) => e.type === 'mcp-ondemand-error')?.detail).toMatchObject({ status: 401, code: 'unauthorized' });
    await screenshot(page, '22-bad-token');
  });

  it('tells the host when the token has expired, and carries on once the host sets a fresh one', async () => {
    await page.goto(`${allowed.url}/?user=maria&token=expired&refresh=manual`);
    await ask('What do the team guidelines say about estimates?');
    await containsText(alert(), 'Your chat session has expired.');
    await expect.poll(async () => (await events()).some((e) => e.type === 'mcp-ondemand-token-expired')).toBe(true);
    await screenshot(page, '23-token-expired');
    // What the host's token-expired listener does: a new token from its backend, set on the element. The alert clears.
    await page.evaluate(() => (window as unknown as { refreshToken(): Promise<void> }).refreshToken());
    await hidden(alert());
    await chat().getByRole('button', { name: 'Send' }).click();
    await containsText(chat().locator('article.assistant').last(), 'never more than 8');
    await screenshot(page, '24-token-refreshed');
  });
});
