import { getResolvedPDFJS } from 'unpdf';
import type { PageImageInput, PageImageOutput } from '../../shared/documents';
import { closePdf, openPdf, type PdfDocument } from './pdf';
import { encodePng } from './png';
import { downscaled, type PdfjsImage, rasterOf } from './raster';
import { Refusal } from './refusal';

/**
 * The longer side of a page image given to a model: what vision models read at full detail (Anthropic scales larger
 * images down to about 1,568 px; OpenAI's high detail tiles 768 px on the shorter side), so more pixels would cost
 * bytes and nothing else. A letter page at this size still has text of ~9 pt at ~6 px a line-height's x-height.
 */
const MAX_SIDE = 1568;
/** Below this the page's text is no longer legible: past it, a page that does not fit is refused, not blurred. */
const MIN_SIDE = 512;

/**
 * One scanned page of a PDF as a PNG, for a model that reads images. pdf.js cannot render a page without a canvas
 * (workerd has none), but a scanner's page *is* one image: the page's largest image, decoded by pdf.js (JPEG, CCITT,
 * JBIG2, Flate; not JPEG 2000, whose decoder is WebAssembly we leave out), is the page. Scaled to MAX_SIDE, then down
 * until the PNG fits `maxBytes`. Never throws: `{ ok: false, reason }` for a page without an image, or one too large.
 */
export async function pdfPageImage(input: PageImageInput): Promise<PageImageOutput> {
  const problem = inputProblem(input);
  if (problem) return { ok: false, reason: problem };
  let pdf: PdfDocument | undefined;
  try {
    pdf = await openPdf(input.bytes);
    if (input.page > pdf.numPages)
      return { ok: false, reason: `the PDF has ${pdf.numPages} pages; there is no page ${input.page}` };
    const image = await largestImage(pdf, input.page);
    if (!image) return { ok: false, reason: `page ${input.page} has no image that could be decoded` };
    const longest = Math.max(image.width, image.height);
    // A small image is tried at its own size at least (never scaled up, never refused for being small).
    const floor = Math.min(MIN_SIDE, longest);
    for (let side = Math.min(MAX_SIDE, longest); side >= floor; side = Math.floor(side * 0.75)) {
      const raster = downscaled(image, side);
      const bytes = encodePng(raster);
      if (bytes.length <= input.maxBytes) {
        const scaled = raster.width !== image.width || raster.height !== image.height;
        return {
          ok: true,
          image: {
            mimeType: 'image/png',
            bytes,
            width: raster.width,
            height: raster.height,
            ...(scaled ? { scaledFrom: { width: image.width, height: image.height } } : {}),
          },
        };
      }
    }
    return {
      ok: false,
      reason: `page ${input.page}'s image does not fit in ${input.maxBytes} bytes (INLINE_IMAGE_MAX_BYTES) at a legible size`,
    };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, reason: error.message };
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: `page ${input.page}'s image could not be read (${message.slice(0, 200)})` };
  } finally {
    if (pdf) await closePdf(pdf);
  }
}

/** The page's largest decoded image (by pixels), as a raster. */
async function largestImage(pdf: PdfDocument, number: number) {
  const { OPS } = await getResolvedPDFJS();
  const page = await pdf.getPage(number);
  try {
    const operators = await page.getOperatorList();
    let best: ReturnType<typeof rasterOf>;
    for (let i = 0; i < operators.fnArray.length; i++) {
      const op = operators.fnArray[i];
      const args = operators.argsArray[i] as unknown[];
      let image: PdfjsImage | undefined;
      if (op === OPS.paintInlineImageXObject) image = args[0] as PdfjsImage;
      else if (op === OPS.paintImageXObject) {
        const key = args[0] as string;
        const objects = key.startsWith('g_') ? page.commonObjs : page.objs;
        image = await new Promise<PdfjsImage | undefined>((resolve) => objects.get(key, resolve));
      }
      if (!image || image.width * image.height <= (best ? best.width * best.height : 0)) continue;
      best = rasterOf(image) ?? best;
    }
    return best;
  } finally {
    page.cleanup();
  }
}

function inputProblem(input: PageImageInput): string | undefined {
  if (!input || typeof input !== 'object') return 'no input';
  if (!(input.bytes instanceof Uint8Array)) return 'bytes must be a Uint8Array';
  if (!Number.isSafeInteger(input.page) || input.page < 1) return 'page must be a positive integer';
  if (!Number.isSafeInteger(input.maxBytes) || input.maxBytes < 1) return 'maxBytes must be a positive integer';
  return undefined;
}
