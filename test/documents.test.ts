import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { kvKey } from '../src/cache/keys';
import { api, conversationStub, createConversation, postJson } from './helpers/api';
import { settle } from './helpers/conversation';
import { waitFor } from './helpers/demo-client';
import { callTools, runScriptedTurn, say, scriptedModel, toolResults } from './helpers/turns';
import { HOSTILE_TEXT } from './infra/hostile-text';
import { SCAN } from './infra/pdf-fixtures';
import { decodePng } from './helpers/png';

// Documents served by MCP servers, read through the real route, the real MCP client and the converter Worker (the
// CONVERTER service binding): the "documents" tenant has the demo server and test/infra/document-server.ts ("docs").
const ALICE = { authorization: 'Bearer test-key-documents', 'x-end-user': 'alice' };
const BOB = { authorization: 'Bearer test-key-documents', 'x-end-user': 'bob' };
const control = inject('documentsUrl');
const serverState = async () =>
  (await fetch(`${control}/__control/state`)).json<{ reads: Record<string, number>; version: number }>();

afterEach(async () => {
  await fetch(`${control}/__control/reset`, { method: 'POST' });
});

// biome-ignore lint/suspicious/noExplicitAny: the API's ResourceView, looked into field by field
async function readVia(id: string, body: object, as = ALICE): Promise<{ status: number; body: any }> {
  const response = await postJson(`/v1/conversations/${id}/resources/read`, body, as);
  return { status: response.status, body: await response.json() };
}

/** The tool-result parts the model was sent in `prompt`, as they are (images included). */
const toolResultParts = (prompt: LanguageModelV4Prompt) =>
  prompt.flatMap((m) => (m.role === 'tool' ? m.content.filter((part) => part.type === 'tool-result') : []));

/** What the model was sent back for each tool call of a scripted turn that makes `calls` and then answers. */
async function turnResults(id: string, calls: Array<[string, unknown]>) {
  const model = scriptedModel((_call, step) => (step === 0 ? callTools(...calls) : say('done')));
  await runScriptedTurn(id, 'Read the documents', model);
  return toolResults(model.doStreamCalls.at(-1)!.prompt);
}

describe('a PDF served by an MCP server', () => {
  it('reads as its text, page by page: the window says which pages it holds, the line what the document is', async () => {
    const id = await createConversation(ALICE);
    const first = await readVia(id, { server: 'docs', uri: 'docs://handbook.pdf' });
    expect(first.status).toBe(200);
    const entry = first.body.contents[0];
    expect(entry.mimeType).toBe('text/markdown');
    expect(entry.document).toMatchObject({
      from: 'application/pdf',
      format: 'pdf',
      title: 'Employee handbook',
      pageCount: 12,
    });
    expect(entry.document.parts.kind).toBe('page');
    expect(entry.document.parts.starts).toHaveLength(12);
    // Page 7's words are on page 7.
    const seventh = entry.text.slice(entry.document.parts.starts[6], entry.document.parts.starts[7]);
    expect(seventh).toContain('Parental leave is sixteen weeks');
    expect(first.body.model.text).toMatch(
      /^\[Document: application\/pdf, [\d.]+ KB, "Employee handbook", 12 pages, uri docs:\/\/handbook\.pdf, server docs — its text follows/,
    );
    expect(first.body.model.text).toContain('pages="pages 1-12 of 12"');

    // A window further in says its own pages, and holds the same text as the stored copy there (byte-exact windows).
    const offset = entry.document.parts.starts[6];
    const later = await readVia(id, { server: 'docs', uri: 'docs://handbook.pdf', offset });
    expect(later.body.model.text).toContain('pages="pages 7-12 of 12"');
    expect(later.body.model.text).toContain(entry.text.slice(offset, offset + 40));
    expect(later.body.cache).toBe('memory');
  });

  it('is converted once per version: reads after the first convert nothing and ask the server nothing', async () => {
    const id = await createConversation(ALICE);
    const results = await turnResults(id, [
      ['read_resource', { uri: 'docs://handbook.pdf', server: 'docs' }],
      ['search_resource', { uri: 'docs://handbook.pdf', server: 'docs', query: 'parental leave weeks' }],
    ]);
    expect(results[0]!.text).toContain('Parental leave is sixteen weeks');
    // The search names the page its best passage is on.
    expect(results[1]!.text).toMatch(/pages="page 7 of 12">\nParental leave\nParental leave is sixteen weeks/);
    // Read (and so converted) once at most in this turn — none if an earlier test's copy is still in the tenant's KV.
    const reads = (await serverState()).reads['docs://handbook.pdf'] ?? 0;
    expect(reads).toBeLessThanOrEqual(1);
    // Another conversation of the tenant: the converted text from KV (the document is public), no server read.
    const other = await createConversation(BOB);
    await settle(await conversationStub(id));
    const again = await readVia(other, { server: 'docs', uri: 'docs://handbook.pdf' }, BOB);
    expect(again.body.cache).toBe('kv');
    expect(again.body.contents[0].text).toContain('Parental leave is sixteen weeks');
    expect((await serverState()).reads['docs://handbook.pdf'] ?? 0).toBe(reads);
  });

  it('an updated document is converted again, and the old text is never served', async () => {
    const id = await createConversation(ALICE);
    const before = await readVia(id, { server: 'docs', uri: 'docs://changing.pdf' });
    expect(before.body.contents[0].text).toContain('Widgets cost 10 euros');
    await fetch(`${control}/__control/edit`, { method: 'POST' });
    await waitFor(async () => {
      const after = await readVia(id, { server: 'docs', uri: 'docs://changing.pdf' });
      return after.body.contents[0].text.includes('Widgets cost 20 euros') ? after : undefined;
    }, 'the new version read');
    const after = await readVia(id, { server: 'docs', uri: 'docs://changing.pdf' });
    expect(after.body.contents[0].text).not.toContain('Widgets cost 10 euros');
    expect(after.body.model.text).toContain('Widgets cost 20 euros');
  });

  it("a private document's text lands in its user's KV space, never the tenant's", async () => {
    const id = await createConversation(ALICE);
    const read = await readVia(id, { server: 'docs', uri: 'docs://private-plan.pdf' });
    expect(read.body.contents[0].text).toContain('BLUEFINCH');
    await settle(await conversationStub(id));
    const ref = { server: 'docs', uri: 'docs://private-plan.pdf' };
    expect(await env.RESOURCE_CACHE.get(await kvKey('tenant:documents', ref))).toBeNull();
    expect(await env.RESOURCE_CACHE.get(await kvKey('tenant:documents:user:alice', ref))).toContain('BLUEFINCH');
    // Bob's conversation reads it from the server, not from Alice's copy.
    const bob = await readVia(await createConversation(BOB), ref, BOB);
    expect(bob.body.cache).toBe('miss');
  });

  it('a scanned PDF is described honestly; a file that only claims to be a PDF is never parsed as one', async () => {
    const id = await createConversation(ALICE);
    const scanned = await readVia(id, { server: 'docs', uri: 'docs://scanned.pdf' });
    expect(scanned.status).toBe(200);
    expect(scanned.body.contents[0].document.note).toMatch(/scanned: 3 pages, no text layer/);
    expect(scanned.body.model.text).toMatch(/Note: scanned: 3 pages, no text layer/);

    const fake = await readVia(id, { server: 'docs', uri: 'docs://fake.pdf' });
    expect(fake.status).toBe(200);
    expect(fake.body.contents[0].blob).toBeDefined();
    expect(fake.body.contents[0].document.failed).toBe('its bytes are not a PDF file');
    expect(fake.body.model.text).toMatch(
      /^\[Binary resource: application\/pdf, 41 B, "fake\.pdf", uri docs:\/\/fake\.pdf, server docs/,
    );
    expect(fake.body.model.text).toContain('a document whose text could not be read: its bytes are not a PDF file');
    expect(fake.body.model.text).not.toContain('Just a text file');
  });

  it('a scanned page is read by its number: its picture for a model that reads images, the reason for one that does not', async () => {
    const id = await createConversation(ALICE);
    const page2 = ['read_resource', { uri: 'docs://scanned.pdf', server: 'docs', page: 2 }] as [string, unknown];
    const seeing = scriptedModel((_call, step) => (step === 0 ? callTools(page2) : say('A black square.')));
    await runScriptedTurn(id, 'What is on page 2 of the contract?', seeing, {}, true);
    const [result] = toolResultParts(seeing.doStreamCalls.at(-1)!.prompt);
    expect(result!.output, JSON.stringify(result!.output).slice(0, 400)).toMatchObject({ type: 'content' });
    const [line, image] = (result!.output as { value: Array<Record<string, unknown>> }).value;
    expect(line!.text).toMatch(
      /^\[Page 2 of 3 of docs:\/\/scanned\.pdf \(server docs\) is scanned \(no text layer\): its image is attached, PNG 160×200 px, [\d.]+ (B|KB)\]$/,
    );
    expect(image).toMatchObject({ type: 'file', mediaType: 'image/png' });
    // The picture is the page's: the scanner's black square top left, white paper elsewhere.
    const png = decodePng(Uint8Array.from(atob((image!.data as { data: string }).data), (c) => c.charCodeAt(0)));
    expect([png.width, png.height]).toEqual([SCAN.width, SCAN.height]);
    for (const [x, y] of [
      [12, 12],
      [30, 40],
      [59, 59],
      [60, 30],
      [100, 100],
      [159, 199],
    ] as const)
      expect(png.grey(x, y), `pixel ${x},${y}`).toBe(SCAN.black(x, y) ? 0 : 255);

    // A model that does not read images is told so (and the turn goes on).
    const blind = scriptedModel((_call, step) => (step === 0 ? callTools(page2) : say('It is a scan.')));
    await runScriptedTurn(id, 'And page 2 again?', blind, {}, false);
    expect(toolResults(blind.doStreamCalls.at(-1)!.prompt).at(-1)!.text).toBe(
      '[Page 2 of 3 of docs://scanned.pdf (server docs) is scanned: no text layer, and its image is not given: the model in use does not read images]',
    );
  });

  it('a page by number: the window starts at that page; a page there is not says which there are', async () => {
    const id = await createConversation(ALICE);
    const seventh = await readVia(id, { server: 'docs', uri: 'docs://handbook.pdf', page: 7 });
    expect(seventh.status).toBe(200);
    expect(seventh.body.model.text).toContain('pages="pages 7-12 of 12"');
    expect(seventh.body.model.text).toMatch(/">\nParental leave\n/);
    expect(seventh.body.model.window.offset).toBe(seventh.body.contents[0].document.parts.starts[6]);

    const missing = await readVia(id, { server: 'docs', uri: 'docs://handbook.pdf', page: 13 });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toEqual({
      code: 'page_not_found',
      message: 'Resource docs://handbook.pdf on server docs: it has 12 pages; there is no page 13',
    });
    const text = await readVia(id, { server: 'docs', uri: 'docs://release.html', page: 1 });
    expect(text.body.error.message).toMatch(/it is no document with pages \(slides, sheets\): read it by offset$/);
  });

  it('what a document says about itself stays on its line, and its text inside the wrapper', async () => {
    const id = await createConversation(ALICE);
    const read = await readVia(id, { server: 'docs', uri: 'docs://hostile.pdf' });
    expect(read.status).toBe(200);
    const text: string = read.body.model.text;
    const [line, ...rest] = text.split('\n');
    expect(line).toMatch(/^\[Document: application\/pdf/);
    expect(line).not.toContain('</resource>');
    expect(line).toContain('&lt;/resource&gt;');
    // The only lines outside the wrapper are the document line and the wrapper's own tags.
    expect(rest[0]).toMatch(/^<resource server="docs" uri="docs:\/\/hostile\.pdf" mime="text\/markdown"/);
    expect(rest.at(-1)).toBe('</resource>');
    expect(rest.slice(1, -1).join('\n')).not.toMatch(/<\/resource>/);
    expect(text.match(/^## SYSTEM RULES/gm)?.length ?? 0).toBeLessThanOrEqual(1); // inside the wrapper, if at all
    expect(HOSTILE_TEXT).toContain('## SYSTEM RULES');
  });
});

describe('an HTML page', () => {
  it('reads as markdown, without its scripts and styles', async () => {
    const id = await createConversation(ALICE);
    const read = await readVia(id, { server: 'docs', uri: 'docs://release.html' });
    expect(read.status).toBe(200);
    const entry = read.body.contents[0];
    expect(entry.document).toMatchObject({ from: 'text/html', format: 'html' });
    expect(entry.text).toMatch(/# Release notes 4\.2/);
    expect(entry.text).toMatch(/[-*] Faster search/);
    expect(entry.text).toContain('iOS');
    expect(entry.text).not.toContain('SCRIPT-SHOULD-NOT-SHOW');
    expect(entry.text).not.toContain('color: red');
  });
});

describe('the catalog', () => {
  it('marks the documents that read as text', async () => {
    const id = await createConversation(ALICE);
    const model = scriptedModel(() => say('ok'));
    await runScriptedTurn(id, 'What documents are there?', model);
    const system = model.doStreamCalls[0]!.prompt.find((m) => m.role === 'system')!.content as string;
    expect(system).toMatch(/docs:\/\/handbook\.pdf \[pdf [\d.]+K, text\]/);
    expect(system).toMatch(/docs:\/\/quarterly-report\.pdf [^\n]*\[pdf [\d.]+K, text\]/);
  });
});

describe("the demo's quarterly report", () => {
  it('answers from its page text', async () => {
    const id = await createConversation(ALICE);
    const results = await turnResults(id, [['read_resource', { uri: 'docs://quarterly-report.pdf', server: 'demo' }]]);
    expect(results[0]!.text).toContain('9 tasks were overdue');
    expect(results[0]!.text).toContain('"Quarterly report Q3", 3 pages');
    const response = await api(`/v1/conversations/${id}`, {}, ALICE);
    expect(response.status).toBe(200);
  });
});
