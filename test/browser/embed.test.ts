// The widget embedded in a customer's page on another origin, as a SaaS
// product does: the service runs multi-tenant (TENANTS), the page gets a
// browser token from its own backend, and only allowed origins may call.
import { createHash } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BROWSER_PORTS } from '../infra/ports';
import { launchChromium, screenshot } from './chromium';
import { startHostPage } from './host-pages';
import { containsText, hasCount, hasText, hidden, visible } from './see';
import { startService, type Service } from './service';

const SECRET = 'shop-browser-token-secret-0123456789';
const OUTAGE_SECRET = 'outage-browser-token-secret-0123456789';
const TURNS_PER_USER = 3;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let service: Service;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let allowed: { url: string; close(): Promise<void> };
let foreign: { url: string; close(): Promise<void> };
let context: BrowserContext;
let page: Page;
let manifest: { path: string; integrity: string };

beforeAll(async () => {
  const hostOrigin = `http://127.0.0.1:${BROWSER_PORTS.hostPage}`;
  const tenants = [
    {
      id: 'shop',
      apiKeySha256: [sha256('shop-api-key')],
      tokenSecret: 'secret:SHOP_TOKEN_SECRET',
      allowedOrigins: [hostOrigin],
      limits: { turnsPerUser: TURNS_PER_USER, windowMs: 60_000 },
    },
    {
      // A tenant whose CRM server is down, with a pinned resource the turns require.
      id: 'outage',
      apiKeySha256: [sha256('outage-api-key')],
      tokenSecret: 'secret:OUTAGE_TOKEN_SECRET',
      allowedOrigins: [hostOrigin],
      mcpServers: [
        { id: 'demo', url: '/demo/mcp', trustAnnotations: true },
        {
          id: 'crm',
          url: `http://127.0.0.1:${BROWSER_PORTS.nothingListening}/mcp`,
          transport: 'streamable-http',
          pin: [{ uri: 'crm://accounts', required: true }],
        },
      ],
    },
  ];
  [service, chromium] = await Promise.all([
    startService(BROWSER_PORTS.tenantService, {
      TENANTS: JSON.stringify(tenants),
      SHOP_TOKEN_SECRET: SECRET,
      OUTAGE_TOKEN_SECRET: OUTAGE_SECRET,
      // The CRM's URL is on 127.0.0.1: allowed for this test only.
      ALLOW_PRIVATE_MCP_URLS: 'true',
      // The demo MCP server is off with TENANTS unless enabled (it answers anyone); these tests use it.
      DEMO_MCP_ENABLED: 'true',
    }),
    launchChromium(),
  ]);
  // The customer page pins the widget as the README says: the versioned path and its SRI hash, from the manifest.
  manifest = await (await fetch(`${service.url}/widget/manifest.json`)).json();
  const host = { serviceUrl: service.url, tenants: { shop: SECRET, outage: OUTAGE_SECRET }, widget: manifest };
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
  if (ctx.task.result?.state === 'fail')
    await screenshot(page, `failed-embed-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
  await context.close();
});

const chat = () => page.locator('mcp-ondemand-chat');
const alert = () => chat().locator('.alert');
const events = () =>
  page.evaluate(
    () =>
      (window as unknown as { widgetEvents: Array<{ type: string; detail: Record<string, unknown> }> }).widgetEvents,
  );

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
    const accent = await chat()
      .getByRole('button', { name: 'Send' })
      .evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(accent).toBe('rgb(11, 122, 83)');
    await expect
      .poll(async () => (await events()).map((e) => e.type))
      .toEqual(expect.arrayContaining(['mcp-ondemand-conversation', 'mcp-ondemand-message']));
    await screenshot(page, '20-embedded-cross-origin');

    // The conversation belongs to maria of tenant shop: the service says so to an API caller with her tenant's key.
    const { id } = (await events()).find((e) => e.type === 'mcp-ondemand-conversation')!.detail as { id: string };
    const asMaria = await fetch(`${service.url}/v1/conversations/${id}`, {
      headers: { authorization: 'Bearer shop-api-key', 'x-end-user': 'maria' },
    });
    expect(asMaria.status).toBe(200);
    const asSomeoneElse = await fetch(`${service.url}/v1/conversations/${id}`, {
      headers: { authorization: 'Bearer shop-api-key', 'x-end-user': 'tom' },
    });
    expect(asSomeoneElse.status).toBe(404);
  });

  it('loads the widget from its pinned, versioned path, checked by its SRI hash across origins', async () => {
    const script = page.waitForResponse((r) => r.url().endsWith(manifest.path));
    await page.goto(`${allowed.url}/?user=maria`);
    const response = await script;
    expect(response.status()).toBe(200);
    expect(response.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.headers()['access-control-allow-origin']).toBe('*');
    const tag = page.locator(`script[src$="${manifest.path}"]`);
    expect(await tag.getAttribute('integrity')).toBe(manifest.integrity);
    expect(await tag.getAttribute('crossorigin')).toBe('anonymous');
    expect(manifest.path).toMatch(/^\/widget\/v\d+\.\d+\.\d+[^/]*\/mcp-ondemand-chat\.[0-9a-f]{16}\.js$/);
    expect(await page.evaluate(() => customElements.get('mcp-ondemand-chat') !== undefined)).toBe(true);
    await visible(chat().getByRole('log', { name: 'Conversation' }));
  });

  it('is refused by the browser when the integrity value does not match the script', async () => {
    const logged: string[] = [];
    page.on('console', (message) => logged.push(message.text()));
    const script = page.waitForResponse((r) => r.url().endsWith(manifest.path));
    await page.goto(`${allowed.url}/?user=maria&integrity=wrong`);
    await script;
    await page.waitForLoadState('load');
    // The bytes came, but did not run: no element definition, nothing rendered.
    expect(await page.evaluate(() => customElements.get('mcp-ondemand-chat'))).toBeUndefined();
    expect(await page.evaluate(() => document.querySelector('mcp-ondemand-chat')!.shadowRoot)).toBeNull();
    await expect.poll(() => logged.join('\n')).toMatch(/integrity/i);
  });

  it('says plainly that a page on an origin the tenant does not allow cannot use the service', async () => {
    await page.goto(`${foreign.url}/?user=maria`);
    await ask('Hello?');
    await visible(alert());
    await containsText(alert(), 'This site is not allowed to use this chat service.');
    await containsText(alert(), `http://127.0.0.1:${BROWSER_PORTS.foreignPage}`);
    // Nothing the person typed is lost: it is back in the box.
    expect(await chat().getByRole('textbox', { name: 'Message' }).inputValue()).toBe('Hello?');
    expect((await events()).find((e) => e.type === 'mcp-ondemand-error')?.detail).toMatchObject({
      code: 'origin_refused',
    });
    await screenshot(page, '21-origin-not-allowed');
  });

  it('says plainly that a bad token cannot sign the person in', async () => {
    await page.goto(`${allowed.url}/?user=maria&token=bad&refresh=manual`);
    await ask('Hello?');
    await containsText(alert(), 'This chat could not sign you in.');
    expect((await events()).find((e) => e.type === 'mcp-ondemand-error')?.detail).toMatchObject({
      status: 401,
      code: 'unauthorized',
    });
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

  it('says plainly when the person has sent too many messages, and when to try again', async () => {
    await page.goto(`${allowed.url}/?user=rita`);
    for (let turn = 1; turn <= TURNS_PER_USER; turn++) {
      await ask('What do the team guidelines say about estimates?');
      await hasCount(chat().locator('article.assistant'), turn);
      await expect.poll(() => chat().locator('[role="log"]').getAttribute('aria-busy')).toBe('false');
    }
    await ask('And about owners?');
    await containsText(alert(), 'Too many messages at once.');
    await hasText(alert(), /Try again in \d+ s\./);
    expect(await chat().getByRole('textbox', { name: 'Message' }).inputValue()).toBe('And about owners?');
    await hasCount(chat().locator('article.user'), TURNS_PER_USER);
    await screenshot(page, '25-rate-limited');
    // "Try again" while still limited: refused again, and still nothing lost or doubled.
    await alert().getByRole('button', { name: 'Try again' }).click();
    await containsText(alert(), 'Too many messages at once.');
    expect(await chat().getByRole('textbox', { name: 'Message' }).inputValue()).toBe('And about owners?');
    await hasCount(chat().locator('article.user'), TURNS_PER_USER);
  });

  it('says plainly when a connected server is down, in the menu and when a turn needs it', async () => {
    await page.goto(`${allowed.url}/?user=maria&tenant=outage`);
    await chat().getByRole('textbox', { name: 'Message' }).fill('@');
    const down = chat()
      .getByRole('listbox', { name: 'Resources to attach' })
      .getByRole('option', { name: /crm is unavailable/ });
    await visible(down);
    expect(await down.getAttribute('aria-disabled')).toBe('true');
    await screenshot(page, '26-server-down-menu');
    await chat().getByRole('textbox', { name: 'Message' }).press('Escape');
    await ask('What do the team guidelines say about estimates?');
    await containsText(alert(), 'A connected tool server is not responding.');
    await containsText(alert(), 'crm://accounts');
    await visible(alert().getByRole('button', { name: 'Try again' }));
    await screenshot(page, '27-server-down-turn');
  });
});
