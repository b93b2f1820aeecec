import { getDocumentProxy, getResolvedPDFJS } from 'unpdf';
import type { ConvertedDocument, ConvertLimits } from '../../shared/documents';
import { Refusal } from './refusal';
import { TextOut } from './text-out';

/**
 * PDF → text per page, in content-stream order (pdf.js's `getTextContent`: lines end where the PDF says a line
 * ends), with where each page starts, the title from the document info and the page count. A page with no text but
 * images is a scanned page and the note says so; a PDF that needs a password is refused. At most `maxPages` pages
 * are read (a PDF bomb's page count costs nothing past it); the Worker's CPU limit bounds the rest.
 *
 * unpdf is pdf.js's serverless build (no worker thread, no canvas); `useWasm: false` keeps its WebAssembly image
 * decoders out (text needs none); pdf.js 6 compiles no functions at run time (no `eval`).
 */
export async function convertPdf(bytes: Uint8Array, limits: ConvertLimits): Promise<ConvertedDocument> {
  const pdfjs = await getResolvedPDFJS();
  const pdf = await openPdf(bytes);
  try {
    const pageCount = pdf.numPages;
    const info = ((await pdf.getMetadata().catch(() => undefined))?.info ?? {}) as { Title?: unknown };
    const title = typeof info.Title === 'string' && info.Title.trim() ? info.Title.trim() : undefined;
    const out = new TextOut(limits.maxChars);
    const imageOps = new Set([
      pdfjs.OPS.paintImageXObject,
      pdfjs.OPS.paintInlineImageXObject,
      pdfjs.OPS.paintImageMaskXObject,
    ]);
    const scanned: number[] = [];
    let pagesRead = 0;
    let unreadable: string | undefined;
    for (let number = 1; number <= Math.min(pageCount, limits.maxPages) && out.part(); number++) {
      let page: Awaited<ReturnType<typeof pdf.getPage>>;
      try {
        page = await pdf.getPage(number);
      } catch (error) {
        // A damaged page tree, or a page count that lies: the text stops before the first page that is not there.
        const why = error instanceof Error ? error.message : String(error);
        if (number === 1) throw new Refusal(`not a readable PDF (${why})`);
        unreadable = `page ${number} of ${pageCount} could not be read (${why.slice(0, 100)}): the text stops before it`;
        break;
      }
      try {
        let text = '';
        for (const item of (await page.getTextContent()).items)
          if ('str' in item) text += item.hasEOL ? `${item.str}\n` : item.str;
        text = text.replace(/[ \t]+\n/g, '\n').trimEnd();
        // Only a page without text pays for its operator list: are there images (a scan) or is it blank?
        if (!/\S/.test(text) && (await page.getOperatorList()).fnArray.some((op) => imageOps.has(op)))
          scanned.push(number);
        pagesRead = number;
        if (!out.add(text)) break;
      } finally {
        page.cleanup();
      }
    }
    const document = out.paged({
      format: 'pdf',
      kind: 'page',
      count: pageCount,
      maxPages: limits.maxPages,
      title,
      notes: [scannedNote(scanned, pagesRead), unreadable],
    });
    return scanned.length ? { ...document, scannedPages: scanned } : document;
  } finally {
    await closePdf(pdf);
  }
}

export type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

/** The PDF, opened; a Refusal for one that needs a password or is no PDF at all. Close it with `closePdf`. */
export async function openPdf(bytes: Uint8Array): Promise<PdfDocument> {
  try {
    // pdf.js takes ownership of the buffer it is given: hand it a copy, the caller's bytes stay readable.
    return await getDocumentProxy(bytes.slice(), { useWasm: false, stopAtErrors: false });
  } catch (error) {
    const name = (error as { name?: string } | null)?.name;
    if (name === 'PasswordException') throw new Refusal('encrypted: a password is needed');
    throw new Refusal(`not a readable PDF (${error instanceof Error ? error.message : String(error)})`);
  }
}

export const closePdf = (pdf: PdfDocument) => pdf.loadingTask.destroy();

/** "scanned: 12 pages, no text layer" when every page read is a scan; else which pages are. */
function scannedNote(scanned: number[], pagesRead: number): string | undefined {
  if (!scanned.length) return undefined;
  if (scanned.length === pagesRead) return `scanned: ${pagesRead} ${pagesRead === 1 ? 'page' : 'pages'}, no text layer`;
  const listed = scanned.slice(0, 20).join(', ');
  const more = scanned.length > 20 ? ` and ${scanned.length - 20} more` : '';
  return scanned.length === 1
    ? `page ${listed} has no text layer (scanned)`
    : `pages ${listed}${more} have no text layer (scanned)`;
}
