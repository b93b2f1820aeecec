import { env } from 'cloudflare:workers';
import type { UIMessageChunk } from 'ai';
import { describe, expect, inject, it } from 'vitest';
import { bytesOfBase64 } from '../shared/base64';
import type { DocumentConverterRpc } from '../shared/documents';
import type { AppToolCall } from '../shared/api/views';
import { api, createConversation, postJson } from './helpers/api';
import { callTools, runScriptedTurn, say, scriptedModel, toolResults } from './helpers/turns';
import { REPORT_PAGES, reportPdf } from './infra/pdf-server-files';

/*
 * The real `@modelcontextprotocol/server-pdf` 2.0.4 (test/infra/pdf-server.ts: its stdio mode, bridged to Streamable
 * HTTP) over a folder with report.pdf, through the real routes and MCP client; the "server-pdf" tenant has it as "pdf".
 *
 * What it serves: no PDF as a resource (its one resource is its viewer, ui://pdf-viewer/mcp-app.html) and none inside
 * a tool result. The model has list_pdfs (file:// URLs), display_pdf (opens the viewer, an MCP Apps view; its result
 * is a note, the viewUUID and the URL) and interact; the bytes go only to the viewer, base64 in `structuredContent` of
 * read_pdf_bytes (visible to the app only, up to 512 KB a call). Page text exists only where the viewer's pdf.js makes
 * it: interact `get_text` queues a command, the viewer polls it (poll_pdf_commands) and answers (submit_page_data).
 * So the model reads a page only while the viewer is open; here the viewer is played by the test through the view's
 * own route (POST …/views/call), with the converter Worker's pdf.js (unpdf) for the viewer's, as the widget's frame
 * would. Over the API alone there is no viewer, and no text: the last test says so.
 */
const AS = { authorization: 'Bearer test-key-server-pdf', 'x-end-user': 'alice' };
const REPORT = `file://${inject('pdfFolder')}/report.pdf`;
const VIEW = 'ui://pdf-viewer/mcp-app.html';
const converter = (env as unknown as { CONVERTER: DocumentConverterRpc }).CONVERTER;

type ToolResult = { content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };

/** A tool call of the view, as its frame makes it (the widget relays it to POST …/views/call). */
async function viewCall(id: string, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const response = await postJson(`/v1/conversations/${id}/views/call`, { server: 'pdf', name, arguments: args }, AS);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json<{ result: ToolResult }>()).result;
}

/** Nothing of the PDF's bytes, and no binary placeholder, in what the model was sent. */
function noBytes(text: string) {
  expect(text).not.toContain('JVBERi0'); // "%PDF-" in base64
  expect(text).not.toContain('[Binary resource');
}

describe('server-pdf: what the model is offered and finds', () => {
  it('its model tools only — never the byte and command tools its viewer calls; list_pdfs names the PDF by its file:// URL', async () => {
    const id = await createConversation(AS);
    const model = scriptedModel((_call, step) => (step === 0 ? callTools(['pdf__list_pdfs', {}]) : say('done')));
    await runScriptedTurn(id, 'Which PDFs are there?', model);
    const offered = (model.doStreamCalls[0]!.tools ?? []).map((t) => t.name).filter((n) => n.startsWith('pdf__'));
    expect(offered.sort()).toEqual(['pdf__display_pdf', 'pdf__interact', 'pdf__list_pdfs']);
    const [listed] = toolResults(model.doStreamCalls[1]!.prompt);
    expect(listed).toMatchObject({ toolName: 'pdf__list_pdfs', error: false });
    expect(listed!.text).toContain(`Available PDFs:\n- ${REPORT}\n`);
  });

  it('display_pdf opens its viewer: a data-mcp-app part names the view, whose 4 MB document is served under the domains it declares', async () => {
    const id = await createConversation(AS);
    const model = scriptedModel((_call, step) =>
      step === 0 ? callTools(['pdf__display_pdf', { url: REPORT, page: 2 }]) : say('done'),
    );
    const chunks = await runScriptedTurn(id, 'Show me the report', model);
    const app = chunks
      .filter((c): c is Extract<UIMessageChunk, { type: `data-${string}` }> => c.type === 'data-mcp-app')
      .map((c) => c.data as AppToolCall);
    expect(app.at(-1)).toMatchObject({
      server: 'pdf',
      tool: 'display_pdf',
      resourceUri: VIEW,
      result: { structuredContent: { url: REPORT, initialPage: 2, totalBytes: reportPdf().length } },
    });

    const linked = await postJson(`/v1/conversations/${id}/views`, { server: 'pdf', uri: VIEW }, AS);
    expect(linked.status).toBe(200);
    const document = await api((await linked.json<{ url: string }>()).url, {}, {});
    expect(document.status).toBe(200);
    expect(document.headers.get('content-security-policy')).toContain('connect-src https://unpkg.com;');
    const html = await document.text();
    expect(html.length).toBeGreaterThan(4_000_000); // pdf.js and the viewer, in one file
    expect(html).toContain('ui/initialize');
  });
});

describe('server-pdf: the PDF read by the model', () => {
  it('with the viewer open, the model asks for page 2 (interact get_text) and receives that page’s text under its number', async () => {
    const id = await createConversation(AS);
    let opened!: (viewUUID: string) => void;
    const viewUUID = new Promise<string>((resolve) => {
      opened = resolve;
    });
    const model = scriptedModel((call, step) => {
      if (step === 0) return callTools(['pdf__display_pdf', { url: REPORT }]);
      if (step === 1) {
        const note = toolResults(call.prompt).find((r) => r.toolName === 'pdf__display_pdf')!.text;
        const uuid = /viewUUID: ([0-9a-f-]{36})/.exec(note)![1]!;
        opened(uuid);
        return callTools(['pdf__interact', { viewUUID: uuid, action: 'get_text', page: 2 }]);
      }
      return say('Page 2: 7 cracked bolts on the east span.');
    });
    const turn = runScriptedTurn(id, 'What did the inspection find? It is on page 2 of the report.', model);

    // The viewer, once display_pdf has run: it loads the PDF through the view's route, then polls for commands.
    const uuid = await viewUUID;
    const loaded = await viewCall(id, 'read_pdf_bytes', { url: REPORT });
    expect(loaded.structuredContent).toMatchObject({ offset: 0, totalBytes: reportPdf().length, hasMore: false });
    const bytes = bytesOfBase64(loaded.structuredContent!.bytes as string);
    expect(bytes).toEqual(reportPdf()); // the file, byte for byte
    const polled = await viewCall(id, 'poll_pdf_commands', { viewUUID: uuid });
    const [command] = polled.structuredContent!.commands as Array<{ type: string; requestId: string }>;
    expect(command).toMatchObject({ type: 'get_pages', getText: true, intervals: [{ start: 2, end: 2 }] });
    // The page's text, as the viewer's pdf.js extracts it (here the converter Worker's).
    const converted = await converter.convert({ bytes, format: 'pdf', limits: { maxPages: 10, maxChars: 100_000 } });
    if (!converted.ok) throw new Error(converted.reason);
    const { text, parts } = converted.document;
    const page2 = text.slice(parts!.starts[1], parts!.starts[2]).trim();
    expect(page2).toContain(REPORT_PAGES[1]![1]);
    await viewCall(id, 'submit_page_data', { requestId: command!.requestId, pages: [{ page: 2, text: page2 }] });
    await turn;

    const results = toolResults(model.doStreamCalls[2]!.prompt);
    const read = results.find((r) => r.toolName === 'pdf__interact')!;
    expect(read.error).toBe(false);
    expect(read.text).toMatch(/^--- Page 2 ---\n/);
    expect(read.text).toContain('The inspection found 7 cracked bolts on the east span.');
    expect(read.text).not.toContain(REPORT_PAGES[0]![1]); // page 1
    expect(read.text).not.toContain(REPORT_PAGES[2]![1]); // page 3
    for (const result of results) noBytes(result.text);
  });

  // The product gap: over the API alone (no widget, so no viewer), server-pdf gives the model no way to the text.
  it('with no viewer (the API alone) it cannot: display_pdf gives a note and the URL, the URL is no resource, get_text has no one to ask', async () => {
    const id = await createConversation(AS);
    const model = scriptedModel((call, step) => {
      if (step === 0) return callTools(['pdf__display_pdf', { url: REPORT }]);
      if (step === 1) {
        const note = toolResults(call.prompt).find((r) => r.toolName === 'pdf__display_pdf')!.text;
        const uuid = /viewUUID: ([0-9a-f-]{36})/.exec(note)![1]!;
        return callTools(
          ['pdf__interact', { viewUUID: uuid, action: 'get_text', page: 2 }],
          ['read_resource', { server: 'pdf', uri: REPORT }],
        );
      }
      return say('I cannot read it.');
    });
    // Longer than server-pdf's 8 s wait for a viewer (the default, 30 s, is too): the model hears server-pdf's own words.
    await runScriptedTurn(id, 'What did the inspection find?', model, { MCP_REQUEST_TIMEOUT_MS: 15_000 });

    const [display, getText, read] = toolResults(model.doStreamCalls[2]!.prompt);
    expect(display!.text).toMatch(/^PDF opened\. viewUUID: [0-9a-f-]{36}\n/);
    expect(display!.text).toContain(`URL: ${REPORT}`);
    expect(getText!.error).toBe(true); // server-pdf's isError result, an error to the model
    expect(getText!.text).toMatch(/Viewer never connected for viewUUID [0-9a-f-]{36} \(no poll within 8s\)/);
    expect(read).toMatchObject({ toolName: 'read_resource', error: true });
    expect(read!.text).toContain(`MCP server "pdf" has no resource ${REPORT}`);
    for (const result of [display!, getText!, read!]) {
      expect(result.text).not.toContain('cracked bolts');
      noBytes(result.text);
    }
  });
});
