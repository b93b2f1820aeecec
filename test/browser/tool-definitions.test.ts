// A tool that changed since it was approved, as a person sees it (issue 43): the widget's approval card says the tool
// changed and names its server and its own name (also for a name the model knows rewritten: `del.ete` is
// `poison__del_ete` to it), and the operator's page approves the new definition with a button. The service under
// `wrangler dev` as `npm start` runs it (offline model, no tenants), plus SDK v2 servers whose tools change while in
// use (test/infra/changing-tools.ts). Screenshots: tool-changed-card.png, tool-changed-admin.png.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChangingTools } from '../infra/changing-tools';
import { LOOKUP_V2 } from '../infra/changing-tools-definitions';
import { BROWSER_PORTS } from '../infra/ports';
import { launchChromium, screenshot } from './chromium';
import { containsText, hasCount, visible } from './see';
import { startService, type Service } from './service';

let changing: Awaited<ReturnType<typeof startChangingTools>>;
let service: Service;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  changing = await startChangingTools(BROWSER_PORTS.changingTools);
  [service, chromium] = await Promise.all([
    startService(BROWSER_PORTS.definitionsService, {
      AUTH_DISABLED: 'true',
      MCP_SERVERS: JSON.stringify([
        { id: 'demo', url: '/demo/mcp', trustAnnotations: true },
        { id: 'words', url: `${changing.url}/words`, transport: 'streamable-http', autoApprove: ['lookup'] },
        { id: 'poison', url: `${changing.url}/dotted`, transport: 'streamable-http' },
      ]),
    }),
    launchChromium(),
  ]);
  context = await chromium.browser.newContext({ viewport: { width: 1100, height: 820 } });
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
});
afterAll(async () => {
  await context?.close();
  await chromium?.close();
  await service?.stop();
  await changing?.close();
});

const chat = () => page.locator('mcp-ondemand-chat');
const card = () => chat().getByRole('group', { name: 'Tool approval' });
/** Denies the waiting call (once the card can be answered) and waits for the answer that follows to end. */
async function deny(step: string) {
  const button = card().getByRole('button', { name: 'Deny' });
  await expect.poll(() => button.isEnabled(), { timeout: 20_000 }).toBe(true);
  await button.click();
  await visible(chat().locator('details.step summary', { hasText: step }));
  await expect.poll(() => chat().locator('[role="log"]').getAttribute('aria-busy'), { timeout: 20_000 }).toBe('false');
}

const changeWarnings = async () => {
  const { servers } = (await (await fetch(`${service.url}/v1/servers`)).json()) as {
    servers: Array<{ id: string; warnings?: Array<{ change?: unknown }> }>;
  };
  return servers.flatMap((s) => (s.warnings ?? []).filter((w) => w.change).map(() => s.id));
};

describe('a tool that changed since it was approved', () => {
  it('the approval card says it changed and names the server and the tool; /admin approves the new definition', async () => {
    // The deployment's first listing (a conversation's catalog) pins `lookup` as it is; then the server changes it (now
    // asking for an SSH key). (Not GET /v1/servers: its status is reused for 30 s, and /admin would show that one.)
    const created = (await (await fetch(`${service.url}/v1/conversations`, { method: 'POST' })).json()) as {
      id: string;
    };
    expect((await fetch(`${service.url}/v1/conversations/${created.id}/catalog`)).status).toBe(200);
    await fetch(`${changing.url}/__control/words/set`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tools: [LOOKUP_V2] }),
    });

    await page.goto(`${service.url}/`);
    const input = chat().getByRole('textbox', { name: 'Message' });
    await input.fill('words__lookup word=pear ssh_key=hunter2');
    await input.press('Enter');
    await containsText(card(), 'The assistant wants to run lookup on words. Allow it?');
    await containsText(card().getByRole('note'), 'This tool changed since it was approved to run on its own');
    await screenshot(page, 'tool-changed-card');
    await deny('lookup on words — denied');

    // A tool the model knows by another name: the card names it as its server does.
    await input.fill('poison__del_ete word=pear');
    await input.press('Enter');
    await containsText(card(), 'The assistant wants to run del.ete on poison. Allow it?');
    expect(await card().getByRole('note').count()).toBe(0); // never auto-approved: nothing changed for it
    await deny('del.ete on poison — denied');

    // The operator's page: the warning, with a button that approves the new definition.
    const admin = await context.newPage();
    admin.on('pageerror', (error) => pageErrors.push(error.message));
    await admin.goto(`${service.url}/admin/`);
    const warning = admin.locator('#servers li', {
      hasText: 'tool `lookup` changed its definition since it was approved',
    });
    await visible(warning);
    await containsText(admin.locator('#servers tbody'), '`del.ete` is poison__del_ete');
    await warning.scrollIntoViewIfNeeded();
    await screenshot(admin, 'tool-changed-admin');
    await warning.getByRole('button', { name: 'Approve the new definition' }).click();
    await hasCount(admin.locator('#servers li', { hasText: 'changed its definition' }), 0);
    expect(await changeWarnings()).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
