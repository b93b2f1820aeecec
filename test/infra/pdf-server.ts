// The real `@modelcontextprotocol/server-pdf` (TEST_PORT_BASE + 52, `/mcp`), for test/server-pdf.test.ts: its own
// entry (`node …/server-pdf/dist/index.js --stdio <folder>`, a child process) behind the Streamable HTTP bridge of
// stdio-bridge.ts. Stdio, not its HTTP mode: that one listens on 0.0.0.0 (its main.ts hard-codes the host, no flag
// changes it) and the suite's servers listen on 127.0.0.1 only; stdio is also the configuration its README gives.
// In stdio it registers the model's `interact` tool (and the command queue its viewer polls) as well as `list_pdfs`
// and `display_pdf`. It reads only what its command line names (the folder); with no internet, nothing remote.
//
// The folder (a temp dir, `inject('pdfFolder')`, removed at teardown):
//   report.pdf   pdf-server-files.ts: 3 pages, title "Bridge inspection"; page 2: "The inspection found 7 cracked bolts
//                on the east span."
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { reportPdf } from './pdf-server-files';
import { bridgeStdioServer } from './stdio-bridge';

export const PDF_SERVER_PORT_OFFSET = 52;

const PDF_SERVER_ENTRY = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/server-pdf/dist/index.js', import.meta.url),
);

export async function startPdfServer(port: number): Promise<{ url: string; folder: string; close(): Promise<void> }> {
  // Real, so the file:// URLs server-pdf lists are the paths tests build.
  const folder = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-server-pdf-')));
  writeFileSync(join(folder, 'report.pdf'), reportPdf());
  try {
    const bridge = await bridgeStdioServer({
      name: 'server-pdf-bridge',
      args: [PDF_SERVER_ENTRY, '--stdio', folder],
      port,
    });
    return {
      url: bridge.url,
      folder,
      close: async () => {
        await bridge.close();
        rmSync(folder, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
}
