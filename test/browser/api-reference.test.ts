// The API's machine-readable description as an integrator meets it: the
// OpenAPI document the running service serves, checked by an OpenAPI 3.1
// validator from the npm registry, and the reference page that renders it,
// in Chromium.
import { Validator } from '@seriousme/openapi-schema-validator';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_PORTS } from '../infra/ports';
import { launchChromium, screenshot } from './chromium';
import { startService, type Service } from './service';

let service: Service;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let document: { openapi: string; paths: Record<string, Record<string, { summary?: string }>> };

beforeAll(async () => {
  [service, chromium] = await Promise.all([
    startService(BROWSER_PORTS.referenceService, { AUTH_DISABLED: 'true' }),
    launchChromium(),
  ]);
  document = await (await fetch(`${service.url}/v1/openapi.json`)).json();
});

afterAll(async () => {
  await Promise.all([chromium?.close(), service?.stop()]);
});

describe('GET /v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('resolves: every $ref names a schema of the document', async () => {
    const validator = new Validator();
    await validator.validate(structuredClone(document));
    expect(() => validator.resolveRefs()).not.toThrow();
  });
});

describe('the API reference page (/docs/api/)', () => {
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    page = await chromium.browser.newPage();
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    page.on('pageerror', (error) => problems.push(error.message));
    page.on(
      'response',
      (response) => response.status() >= 400 && problems.push(`${response.status()} ${response.url()}`),
    );
    await page.goto(`${service.url}/docs/api/`);
  });

  it('lists every operation of the document, by method and path', async () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => ({ method, path })),
    );
    const blocks = page.locator('.opblock');
    await expect.poll(() => blocks.count(), { timeout: 15_000 }).toBe(operations.length);
    const shown = await page.locator('.opblock-summary-path').allInnerTexts();
    for (const { path } of operations) expect(shown.map((text) => text.replace(/\u200b/g, ''))).toContain(path);
    await screenshot(page, 'api-reference');
  });

  it('shows an operation’s request body schema and its answers when opened', async () => {
    const send = page.locator('.opblock-post', { hasText: '/v1/conversations/{id}/messages' }).first();
    await send.locator('.opblock-summary').click();
    await expect.poll(() => send.locator('.responses-table').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    const text = await send.innerText();
    expect(text).toContain('text/event-stream');
    expect(text).toMatch(/415/);
  });

  it('runs under its Content-Security-Policy with no error', async () => {
    const response = await fetch(`${service.url}/docs/api/`);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(problems).toEqual([]);
  });
});
