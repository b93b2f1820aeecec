// Connecting an account from the widget, end to end: the demo page under
// `wrangler dev` with `npm start`'s configuration (auth off, the offline
// model) plus an MCP server that needs each end user's OAuth authorization
// (test/infra/oauth-servers.ts, this project's own pair, started by
// global-setup.ts). The popup goes through the real flow: /oauth/start →
// the authorization server (which approves at once, or denies when told to)
// → /oauth/callback, which tells the widget and closes itself.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { BROWSER_PORTS } from '../infra/ports';
import { launchChromium, screenshot } from './chromium';
import { containsText, focused, hasAttribute, hasCount, hidden, visible } from './see';
import { startService, type Service } from './service';
import { countTurns, turnsEnded as endedTurns } from './turn-count';

const asUrl = inject('oauthAsUrl');
const rsUrl = inject('oauthRsUrl');

let service: Service;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];

beforeAll(async () => {
  const port = BROWSER_PORTS.oauthDemoService;
  [service, chromium] = await Promise.all([
    startService(port, {
      AUTH_DISABLED: 'true',
      MCP_SERVERS: JSON.stringify([
        { id: 'demo', url: '/demo/mcp' },
        { id: 'account', url: rsUrl, transport: 'streamable-http', auth: { type: 'oauth' }, trustAnnotations: true },
      ]),
      // Its own origin, over http: dynamic client registration (a client metadata document must be https).
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      // The authorization server and the MCP server are on 127.0.0.1 over http: allowed for this test only.
      ALLOW_PRIVATE_MCP_URLS: 'true',
    }),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await chromium?.close();
  await service?.stop();
});
beforeEach(async () => {
  // Auth is off: every page is the same end user, so each test starts disconnected, with an approving server.
  await fetch(`${service.url}/v1/connections/account`, { method: 'DELETE' });
  await control('config', { deny: false });
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

/** The authorization server's control API (test/infra/README.md). */
async function control<T = unknown>(action: string, body?: object): Promise<T> {
  const response = await fetch(
    `${asUrl}/__control/${action}`,
    body ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {},
  );
  expect(response.ok).toBe(true);
  return (await response.json()) as T;
}
const revocations = async () =>
  (await control<{ revocations: Array<{ tokenTypeHint: string | null; kind: string }> }>('state')).revocations;

const chat = () => page.locator('mcp-ondemand-chat');
const input = () => chat().getByRole('textbox', { name: 'Message' });
const assistant = () => chat().locator('article.assistant');
const card = () => chat().getByRole('group', { name: 'Connect account' });
const turnsEnded = () => endedTurns(page);

/** Waits for the turn after `before` to end, and the log to be idle. */
async function turnOver(before: number): Promise<void> {
  await expect.poll(turnsEnded, { timeout: 20_000 }).toBeGreaterThan(before);
  await expect.poll(() => chat().locator('[role="log"]').getAttribute('aria-busy'), { timeout: 20_000 }).toBe('false');
}

async function ask(text: string): Promise<void> {
  const before = await turnsEnded();
  await input().fill(text);
  await input().press('Enter');
  await turnOver(before);
}

describe('connecting an account from the widget (OAuth, per end user)', () => {
  it('asks to connect, connects in a popup, answers the question again with the account, then lists and disconnects it', async () => {
    await ask('whoami');
    // Without the account, the model had no whoami tool: the answer could not use it, and the card says why.
    await visible(card());
    await containsText(card(), 'account is not connected');
    await hasCount(chat().locator('details.step[data-tool="account__whoami"]'), 0);
    await screenshot(page, 'oauth-01-connect-card');

    const before = await turnsEnded();
    const connectButton = card().getByRole('button', { name: 'Connect account' });
    await connectButton.focus(); // reachable from the keyboard: Enter opens the window as a click does
    const [popup] = await Promise.all([page.waitForEvent('popup'), connectButton.press('Enter')]);
    // /oauth/start → the authorization server (auto-approves) → /oauth/callback, which reports and closes itself.
    await popup.waitForEvent('close', { timeout: 20_000 });

    await hasAttribute(card(), 'data-state', /^connected$/);
    await containsText(card(), 'account is connected');
    await hidden(card().getByRole('button', { name: 'Connect account' }));
    // The button it was on is gone: focus is back in the message box.
    await focused(input());
    // The answer that missed the account was answered again, in place, now with it.
    await turnOver(before);
    await visible(chat().locator('details.step[data-tool="account__whoami"]'));
    await containsText(assistant().last(), 'You are upstream-');
    await hasCount(assistant(), 1);
    await screenshot(page, 'oauth-02-connected-and-answered');

    // The Connected accounts panel: the account is connected, and Disconnect revokes it at the server.
    const accounts = chat().getByRole('button', { name: 'Accounts' });
    await accounts.click();
    expect(await accounts.getAttribute('aria-expanded')).toBe('true');
    const panel = chat().getByRole('region', { name: 'Connected accounts' });
    const row = panel.locator('li[data-server="account"]');
    await containsText(row, 'Connected');
    const revokedBefore = (await revocations()).length;
    await screenshot(page, 'oauth-03-accounts-panel');
    await row.getByRole('button', { name: 'Disconnect account' }).click();
    await hasAttribute(row, 'data-status', /^not_connected$/);
    await containsText(panel.getByRole('status'), 'account is disconnected');
    await visible(row.getByRole('button', { name: 'Connect account' }));
    expect((await revocations()).length).toBeGreaterThan(revokedBefore);
    expect((await revocations()).slice(revokedBefore).map((r) => r.kind)).toContain('refresh_token');
    const listed = (await (await fetch(`${service.url}/v1/connections`)).json()) as {
      connections: Array<{ server: string; status: string }>;
    };
    expect(listed.connections.find((c) => c.server === 'account')?.status).toBe('not_connected');
    // Escape closes the panel, back on its button.
    await row.getByRole('button', { name: 'Connect account' }).press('Escape');
    await hidden(panel);
    expect(await accounts.evaluate((el) => (el.getRootNode() as ShadowRoot).activeElement === el)).toBe(true);

    // Reloaded, the conversation comes back from the service, and so does the card (from the list: cards are not stored).
    await page.reload();
    await visible(card());
    await containsText(card(), 'account is not connected');
  });

  it('says so on the card when access is not granted, and keeps the button', async () => {
    await control('config', { deny: true });
    await ask('whoami');
    await visible(card());
    const [popup] = await Promise.all([
      page.waitForEvent('popup'),
      card().getByRole('button', { name: 'Connect account' }).click(),
    ]);
    // The callback page stays open and says why; the widget hears it from the window it opened.
    await popup.waitForURL(/\/oauth\/callback/, { timeout: 20_000 });
    await containsText(popup.locator('body'), 'Access was not granted');
    await hasAttribute(card(), 'data-state', /^failed$/);
    await containsText(card(), 'Access was not granted');
    await screenshot(page, 'oauth-04-not-granted');
    await popup.close();
    const again = card().getByRole('button', { name: 'Connect account' });
    await visible(again);
    expect(await again.isEnabled()).toBe(true);
    // Closing the window afterwards does not hide why it failed.
    await containsText(card(), 'Access was not granted');
    const listed = (await (await fetch(`${service.url}/v1/connections`)).json()) as {
      connections: Array<{ server: string; status: string }>;
    };
    expect(listed.connections.find((c) => c.server === 'account')?.status).toBe('not_connected');
  });
});

describe('the connect link’s page', () => {
  it('says a link whose fragment is not valid percent-encoding is not valid, and takes the fragment out of the address bar', async () => {
    await page.goto(`${service.url}/oauth/start#%E0%A4%A`);
    await expect
      .poll(() => page.locator('#note').innerText(), { timeout: 10_000 })
      .toBe('This link is not valid. Go back to the chat and choose Connect again.');
    expect(new URL(page.url()).hash).toBe('');
  });
});
