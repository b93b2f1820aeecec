import type {
  ConvertedDocument,
  ConvertInput,
  ConvertLimits,
  ConvertOutput,
  DocumentFormat,
} from '../../shared/documents';
import { convertDocx } from './docx';
import { convertCsv, convertHtml } from './html';
import { convertPdf } from './pdf';
import { convertPptx } from './pptx';
import { Refusal } from './refusal';
import { checkBytes } from './sniff';
import { convertXlsx } from './xlsx';

/** One reader per format; each throws a Refusal for what it will not convert. */
const READERS: Record<
  DocumentFormat,
  (bytes: Uint8Array, limits: ConvertLimits) => ConvertedDocument | Promise<ConvertedDocument>
> = {
  pdf: convertPdf,
  docx: convertDocx,
  xlsx: convertXlsx,
  pptx: convertPptx,
  html: convertHtml,
  csv: convertCsv,
};

/**
 * One document's bytes → its text, or the reason it has none. Never throws: bad input, a file whose bytes are not
 * its claimed type, an encrypted or damaged file, a limit passed — each is `{ ok: false, reason }`, so the caller
 * describes the document instead of failing a turn.
 *
 * @example
 * await convertDocument({ bytes, format: 'pdf', limits: { maxPages: 500, maxChars: 2_000_000 } });
 * // { ok: true, document: { format: 'pdf', text: '…', pageCount: 12, parts: { kind: 'page', starts: [0, …] } } }
 */
export async function convertDocument(input: ConvertInput): Promise<ConvertOutput> {
  const problem = inputProblem(input);
  if (problem) return { ok: false, reason: problem };
  try {
    checkBytes(input.bytes, input.format);
    return { ok: true, document: await READERS[input.format](input.bytes, input.limits) };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, reason: error.message };
    // A parser's own failure on a damaged file (or one deep enough to exhaust the stack).
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: `not a readable ${input.format.toUpperCase()} file (${message.slice(0, 200)})` };
  }
}

function inputProblem(input: ConvertInput): string | undefined {
  if (!input || typeof input !== 'object') return 'no input';
  if (!(input.bytes instanceof Uint8Array)) return 'bytes must be a Uint8Array';
  if (!Object.hasOwn(READERS, input.format)) return `unknown format ${JSON.stringify(String(input.format))}`;
  const { maxPages, maxChars } = input.limits ?? {};
  if (!Number.isSafeInteger(maxPages) || maxPages < 1 || !Number.isSafeInteger(maxChars) || maxChars < 1)
    return 'limits.maxPages and limits.maxChars must be positive integers';
  return undefined;
}
