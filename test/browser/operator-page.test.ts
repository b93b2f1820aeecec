// The operator's page (/admin) in Chromium, against the service under `wrangler dev` with two tenants whose turns go
// through @ai-sdk/anthropic to a fake provider that bills known tokens: real turns seed the tenants' ledgers, then the
// page must show what each tenant's own usage API says, and nothing at all to a wrong key. Screenshots in
// test-results/screenshots/ (operator-page.png, operator-refused.png).
import { createHash } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModel } from '../../bench/lib/fake-model.mjs';
import type { UsageReport } from '../../shared/api/usage';
import { providerPolicy } from '../infra/provider-model';
import { BROWSER_PORTS } from '../infra/ports';
import { launchChromium, screenshot } from './chromium';
import { containsText, hasText, visible } from './see';
import { startService, type Service } from './service';

const OPERATOR_KEY = 'operator-page-key-0123456789abcdef';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const TENANTS = ['shop', 'clinic'] as const;

let model: Awaited<ReturnType<typeof startFakeModel>>;
let service: Service;
/** `npm start`'s configuration: no tenants, AUTH_DISABLED, no operator key. */
let openService: Service;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  model = await startFakeModel({ port: BROWSER_PORTS.operatorModel, decide: providerPolicy });
  [service, openService, chromium] = await Promise.all([
    startService(BROWSER_PORTS.operatorService, {
      TENANTS: JSON.stringify(
        TENANTS.map((id) => ({
          id,
          apiKeySha256: [sha256(`key-${id}`)],
          ...(id === 'shop' ? { limits: { usdPerMonth: 25, tokensPerDay: 200_000 } } : {}),
        })),
      ),
      OPERATOR_KEY_SHA256: sha256(OPERATOR_KEY),
      MODEL: 'anthropic:claude-sonnet-4-5',
      ANTHROPIC_BASE_URL: `${model.baseUrl}/v1`,
      ANTHROPIC_API_KEY: 'operator-page-anthropic-key',
      // The demo MCP server is off with TENANTS unless enabled (it answers anyone); these tenants use it.
      DEMO_MCP_ENABLED: 'true',
    }),
    startService(BROWSER_PORTS.operatorOpenService, { AUTH_DISABLED: 'true' }),
    launchChromium(),
  ]);
  // Real turns: shop reads the guidelines (a tool call and an MCP read) and answers twice; clinic once.
  await Promise.all([
    turn('shop', 'What do the guidelines say?', 'ann').then(() => turn('shop', 'Thanks', 'ben')),
    turn('clinic', 'Hello', 'cy'),
  ]);
  context = await chromium.browser.newContext({ viewport: { width: 1200, height: 1400 } });
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on(
    'console',
    (message) => message.type() === 'error' && !/401/.test(message.text()) && pageErrors.push(message.text()),
  );
});
afterAll(async () => {
  await context?.close();
  await chromium?.close();
  await service?.stop();
  await openService?.stop();
  await model?.close();
});

const asTenant = (tenant: string, user = 'ops') => ({ authorization: `Bearer key-${tenant}`, 'x-end-user': user });

async function turn(tenant: string, text: string, user: string) {
  const created = await fetch(`${service.url}/v1/conversations`, {
    method: 'POST',
    headers: { ...asTenant(tenant, user), 'content-type': 'application/json' },
    body: '{}',
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const answer = await fetch(`${service.url}/v1/conversations/${id}/messages`, {
    method: 'POST',
    headers: { ...asTenant(tenant, user), 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  expect(answer.status).toBe(200);
  await answer.text();
}

async function usageOf(tenant: string, query = '') {
  const response = await fetch(`${service.url}/v1/usage${query}`, { headers: asTenant(tenant) });
  expect(response.status).toBe(200);
  return (await response.json()) as UsageReport;
}

// The page's own formats (public/admin/admin.js).
const usd = (n: number) => `$${n.toFixed(n !== 0 && Math.abs(n) < 1 ? 4 : 2)}`;
const count = (n: number) => Math.round(n).toLocaleString('en-US');

const row = (table: string, name: string) => page.locator(`#${table} tbody tr[data-tenant="${name}"]`);
const cells = async (table: string, name: string) => row(table, name).locator('td').allInnerTexts();

describe("the operator's page", () => {
  it('shows nothing to a missing or wrong key', async () => {
    await page.goto(`${service.url}/admin/`);
    await containsText(page.locator('#status'), 'Enter the operator key.');
    await page.getByLabel('Operator key').fill('not-the-key');
    await page.getByRole('button', { name: 'Open' }).click();
    await containsText(page.locator('#status'), 'The operator key was refused.');
    expect(await page.locator('#report').isVisible()).toBe(false);
    expect(await page.locator('#report td').count()).toBe(0);
    // No tenant's name anywhere on the page (or in what the API answered it).
    for (const tenant of TENANTS) expect(await page.content()).not.toContain(tenant);
    await screenshot(page, 'operator-refused');
  });

  it("shows each tenant's spend, budgets, days, cache reads and servers, as the usage API counts them", async () => {
    // The ledgers have every turn once the conversations' outboxes have sent them.
    const expected = { shop: 3, clinic: 1 };
    await expect
      .poll(async () => Promise.all(TENANTS.map(async (t) => (await usageOf(t)).total.requests)), { timeout: 15_000 })
      .toEqual(TENANTS.map((t) => expected[t]));

    await page.getByLabel('Operator key').fill(OPERATOR_KEY);
    await page.getByRole('button', { name: 'Open' }).click();
    await hasText(page.locator('#status'), /^As of \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC\.$/);
    await visible(row('tenants', 'shop'));

    const today = new Date().toISOString().slice(0, 10);
    for (const tenant of TENANTS) {
      const byDay = await usageOf(tenant, `?groupBy=day&from=${today.slice(0, 8)}01&to=${today}`);
      const day = byDay.rows.find((r) => r.key === today)!;
      const [name, spentToday, tokensToday, month, budgets, live, tasks] = await cells('tenants', tenant);
      expect(name).toBe(tenant);
      expect(spentToday).toBe(usd(day.usd));
      expect(tokensToday).toBe(count(day.inputTokens + day.outputTokens));
      expect(month).toBe(usd(byDay.total.usd));
      expect(day.usd).toBeGreaterThan(0);
      if (tenant === 'shop') {
        expect(budgets).toContain(`Month: ${usd(byDay.total.usd)} of $25.00`);
        expect(budgets).toContain(`Tokens today: ${count(day.inputTokens + day.outputTokens)} of 200,000`);
      } else expect(budgets).toBe('none');
      // Each turn's conversation still holds its MCP sessions (they are released after minutes idle).
      expect(live).toBe(String(tenant === 'shop' ? 2 : 1));
      expect(tasks).toBe('0');

      // Cache reads by layer, this month: the same counts.
      const reads = byDay.total.readsMemory + byDay.total.readsKv + byDay.total.readsServer;
      const share = (n: number) => (reads ? `${Math.round((n / reads) * 100)}%` : '—');
      const { readsMemory, readsKv, readsServer } = byDay.total;
      expect(await cells('cache', tenant)).toEqual([
        tenant,
        count(reads),
        share(readsMemory),
        share(readsKv),
        share(readsServer),
      ]);
      if (tenant === 'shop')
        expect(reads).toBeGreaterThan(0); // shop read the guidelines
      else expect(reads).toBe(0);
    }

    // The chart: 30 days, today's bar titled with today's figures of both tenants together.
    const bars = page.locator('#chart svg rect');
    expect(await bars.count()).toBe(30);
    const both = await Promise.all(TENANTS.map((t) => usageOf(t, `?from=${today}&to=${today}`).then((r) => r.total)));
    const tokens = both.reduce((s, t) => s + t.inputTokens + t.outputTokens, 0);
    const dollars = both.reduce((s, t) => s + t.usd, 0);
    expect(await page.locator(`#chart rect[data-day="${today}"] title`).textContent()).toBe(
      `${today}: ${count(tokens)} tokens, ${usd(dollars)}`,
    );
    // One tenant chosen: its own figures.
    await page.getByLabel('Tenant', { exact: true }).selectOption('clinic');
    expect(await page.locator(`#chart rect[data-day="${today}"] title`).textContent()).toBe(
      `${today}: ${count(both[1]!.inputTokens + both[1]!.outputTokens)} tokens, ${usd(both[1]!.usd)}`,
    );

    // The servers, probed live: each tenant's demo server connected.
    await hasText(page.locator('#servers-status'), /^2 servers; 0 in error;/);
    const servers = await page.locator('#servers tbody tr').allInnerTexts();
    expect(servers).toHaveLength(2);
    for (const line of servers) expect(line).toMatch(/demo \(.+\)\s+connected\s+\d{4}-\d{2}-\d{2}/);

    // Refresh: the same figures, each tenant once.
    const reloaded = page.waitForResponse((r) => r.url().endsWith('/admin/api/servers')); // asked after the overview is drawn
    await page.getByRole('button', { name: 'Refresh' }).click();
    await reloaded;
    await hasText(page.locator('#servers-status'), /^2 servers; 0 in error;/);
    expect(await page.locator('#tenants tbody tr').count()).toBe(2);
    expect(await page.locator('#cache tbody tr').count()).toBe(3); // and "All tenants"
    expect(await page.locator('#servers tbody tr').count()).toBe(2);

    await screenshot(page, 'operator-page');
    expect(pageErrors).toEqual([]);
  });
});

describe("the operator's page, answers out of order", () => {
  it('a key entered while the first, key-less request is still out is kept: that request’s late 401 clears nothing', async () => {
    const slowContext = await chromium.browser.newContext();
    const slow = await slowContext.newPage();
    slow.on('pageerror', (error) => pageErrors.push(error.message));
    // The page's first request (no key yet) answers after the person has entered the key, as on a busy service.
    let held = 0;
    await slow.route('**/admin/api/overview', async (route) => {
      if (!route.request().headers().authorization) {
        held++;
        await new Promise((r) => setTimeout(r, 1_500));
      }
      await route.continue();
    });
    await slow.goto(`${service.url}/admin/`);
    await slow.getByLabel('Operator key').fill(OPERATOR_KEY);
    await slow.getByRole('button', { name: 'Open' }).click();
    await hasText(slow.locator('#servers-status'), /^2 servers; 0 in error;/);
    await new Promise((r) => setTimeout(r, 1_600)); // the held answer has come back by now
    expect(held).toBe(1);
    await hasText(slow.locator('#status'), /^As of /);
    expect(await slow.locator('#servers-status').innerText()).toMatch(/^2 servers; 0 in error;/);
    await slowContext.close();
  });
});

/** Opens the page at a phone's size (390 × 844): the page, and what sticks out past the screen's right edge. */
async function onPhone(url: string): Promise<{ phone: Page; close(): Promise<void> }> {
  const phoneContext = await chromium.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  const phone = await phoneContext.newPage();
  phone.on('pageerror', (error) => pageErrors.push(error.message));
  await phone.goto(url);
  return { phone, close: () => phoneContext.close() };
}

/** The page's width past the screen, and the chart's labels' size on screen in CSS pixels (font size × the SVG's scale). */
const layout = (phone: Page) =>
  phone.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    labelPx: [...document.querySelectorAll<SVGTextElement>('#chart svg text')].map(
      (text) => parseFloat(getComputedStyle(text).fontSize) * text.getScreenCTM()!.a,
    ),
    labels: [...document.querySelectorAll('#chart svg text')].map((text) => text.textContent),
  }));

describe("the operator's page on a phone, and under npm start", () => {
  it('fits a 390 px phone: no sideways scroll, chart labels of a legible size, each row read as "column value" lines', async () => {
    const { phone, close } = await onPhone(`${service.url}/admin/`);
    await phone.getByLabel('Operator key').fill(OPERATOR_KEY);
    await phone.getByRole('button', { name: 'Open' }).click();
    await hasText(phone.locator('#servers-status'), /^2 servers; 0 in error;/);
    const { scrollWidth, labelPx } = await layout(phone);
    expect(scrollWidth).toBeLessThanOrEqual(390);
    expect(labelPx.length).toBeGreaterThan(4);
    expect(Math.min(...labelPx)).toBeGreaterThanOrEqual(11);
    // A tenant's row, as a person reads it on the phone: each figure beside the name of its column.
    const shop = (await phone.locator('#tenants tbody tr[data-tenant="shop"]').innerText()).split('\n');
    expect(shop[0]).toMatch(/^Tenant\s+shop$/);
    expect(shop).toContainEqual(expect.stringMatching(/^Today\s+\$\d/));
    expect(shop).toContainEqual(expect.stringMatching(/^Month: \$[\d.]+ of \$25\.00/));
    expect(shop.at(-1)).toMatch(/^Tasks running\s+0$/);
    await screenshot(phone, 'operator-page-phone');
    await phone.locator('#chart').scrollIntoViewIfNeeded();
    await screenshot(phone, 'operator-page-phone-chart');
    await close();
  });

  it('under npm start (AUTH_DISABLED, no key set) asks for no key, says "1 server", and an axis of no spend reads $0', async () => {
    const { phone, close } = await onPhone(`${openService.url}/admin/`);
    await hasText(phone.locator('#servers-status'), /^1 server; 0 in error;/);
    await containsText(phone.locator('#status'), 'No operator key is needed');
    expect(await phone.getByLabel('Operator key').isVisible()).toBe(false);
    expect(await phone.getByRole('button', { name: 'Open' }).isVisible()).toBe(false);
    await visible(phone.getByRole('button', { name: 'Refresh' }));
    // The offline model costs nothing: the dollar axis has $0 only, never a figure no day had.
    const { scrollWidth, labels } = await layout(phone);
    expect(scrollWidth).toBeLessThanOrEqual(390);
    expect(labels.filter((label) => label?.startsWith('$'))).toEqual(['$0']);
    await screenshot(phone, 'operator-page-npm-start');
    await close();
    expect(pageErrors).toEqual([]);
  });
});
