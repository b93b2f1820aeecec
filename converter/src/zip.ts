import { Inflate } from 'fflate';
import { Refusal } from './refusal';

/**
 * A ZIP package (DOCX, XLSX, PPTX are ZIPs of XML) read entry by entry, within limits counted on what is actually
 * inflated. A ZIP's own size fields are the file's word, not a fact: a bomb claims a small size and inflates to
 * gigabytes (fflate's `unzipSync` trusts the claimed size), so every entry is inflated through a stream, a few
 * kilobytes of input at a time, and the bytes it yields are counted against one budget for the whole package.
 */

/** Bounds on one package: entries listed, and bytes inflated over every entry read. */
export interface ZipLimits {
  maxEntries: number;
  maxInflatedBytes: number;
}

export interface ZipPackage {
  /** Every entry's name, in the central directory's order. */
  readonly names: readonly string[];
  has(name: string): boolean;
  /** The entry's bytes, inflated within the package's budget; undefined if there is no such entry. */
  read(name: string): Uint8Array | undefined;
  /** The entry as UTF-8 text (a BOM dropped). */
  text(name: string): string | undefined;
}

interface Entry {
  method: number;
  compressedSize: number;
  localHeader: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** Compressed input per push: deflate's ratio is at most ~1032:1, so one push yields at most ~4 MiB. */
const SLICE = 4096;

/**
 * Opens `bytes` as a ZIP package: reads its central directory (refusing more than `maxEntries`, encrypted entries,
 * ZIP64 and entries outside the file). Nothing is inflated until `read`.
 *
 * @example
 * const zip = openZip(bytes, { maxEntries: 5000, maxInflatedBytes: 48 * 1024 * 1024 });
 * const xml = zip.text('word/document.xml');
 */
export function openZip(bytes: Uint8Array, limits: ZipLimits): ZipPackage {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEndOfCentralDirectory(bytes, view);
  const count = view.getUint16(end + 10, true);
  const directorySize = view.getUint32(end + 12, true);
  const directoryOffset = view.getUint32(end + 16, true);
  if (count === 0xffff || directoryOffset === 0xffffffff) throw new Refusal('a ZIP64 package (not an Office file)');
  if (count > limits.maxEntries)
    throw new Refusal(`the package lists ${count} entries, more than ${limits.maxEntries}`);
  if (directoryOffset + directorySize > bytes.length) throw new Refusal('a damaged ZIP (its directory is cut)');

  const entries = new Map<string, Entry>();
  let at = directoryOffset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== CENTRAL)
      throw new Refusal('a damaged ZIP (bad directory entry)');
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const compressedSize = view.getUint32(at + 20, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const localHeader = view.getUint32(at + 42, true);
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
    if (flags & 1) throw new Refusal('encrypted: the package’s entries are encrypted');
    if (method !== 0 && method !== 8)
      throw new Refusal(`an entry compressed with method ${method} (only stored and deflate are read)`);
    entries.set(name, { method, compressedSize, localHeader });
    at += 46 + nameLength + extraLength + commentLength;
  }

  let inflated = 0;
  const read = (name: string): Uint8Array | undefined => {
    const entry = entries.get(name);
    if (!entry) return undefined;
    const { localHeader, compressedSize, method } = entry;
    if (localHeader + 30 > bytes.length || view.getUint32(localHeader, true) !== LOCAL)
      throw new Refusal(`a damaged ZIP (entry ${name})`);
    const start = localHeader + 30 + view.getUint16(localHeader + 26, true) + view.getUint16(localHeader + 28, true);
    if (start + compressedSize > bytes.length) throw new Refusal(`a damaged ZIP (entry ${name} is cut)`);
    const data = bytes.subarray(start, start + compressedSize);
    const budget = limits.maxInflatedBytes - inflated;
    const out = method === 0 ? stored(data, budget) : inflate(data, budget);
    if (!out) throw new Refusal(`it inflates to more than ${mib(limits.maxInflatedBytes)} (a ZIP bomb?)`);
    inflated += out.length;
    return out;
  };
  return {
    names: [...entries.keys()],
    has: (name) => entries.has(name),
    read,
    text(name) {
      const data = read(name);
      return data ? new TextDecoder().decode(data) : undefined;
    },
  };
}

function findEndOfCentralDirectory(bytes: Uint8Array, view: DataView): number {
  // The record is 22 bytes plus a comment of at most 65,535.
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 0xffff); at--)
    if (view.getUint32(at, true) === EOCD) return at;
  throw new Refusal('not a ZIP package (no central directory)');
}

function stored(data: Uint8Array, budget: number): Uint8Array | undefined {
  return data.length > budget ? undefined : data;
}

/** Inflates `data`, or undefined as soon as the output passes `budget` (what it claims is never consulted). */
function inflate(data: Uint8Array, budget: number): Uint8Array | undefined {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let over = false;
  const stream = new Inflate((chunk) => {
    size += chunk.length;
    if (size > budget) over = true;
    else chunks.push(chunk);
  });
  try {
    for (let at = 0; at < data.length && !over; at += SLICE)
      stream.push(data.subarray(at, at + SLICE), at + SLICE >= data.length);
    if (data.length === 0) stream.push(new Uint8Array(0), true);
  } catch (error) {
    throw new Refusal(`a damaged ZIP entry (${error instanceof Error ? error.message : String(error)})`);
  }
  if (over) return undefined;
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

const mib = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;
