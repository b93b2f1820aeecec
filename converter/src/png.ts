import { zlibSync } from 'fflate';

/**
 * Pixels → PNG, for a scanned page's image (page-image.ts). Our own ~60 lines rather than a library: the PNG
 * encoders on npm either need Node's zlib or canvas (neither in workerd) or bring a decoder we do not need, and fflate
 * (already here for the Office files' ZIPs) does the one hard part, the deflate. Gray or RGB at 8 bits, or gray at
 * 1 bit (a black-and-white scan, the smallest); each row filtered "Up" (scans compress better against the row above).
 */
export interface Raster {
  width: number;
  height: number;
  /** `gray1`: rows of ⌈width / 8⌉ bytes, most significant bit first, 1 = white (PNG's and pdf.js's convention). */
  kind: 'gray1' | 'gray8' | 'rgb8';
  data: Uint8Array;
}

export function encodePng(raster: Raster): Uint8Array {
  const { width, height, kind, data } = raster;
  const rowBytes = kind === 'gray1' ? Math.ceil(width / 8) : width * (kind === 'rgb8' ? 3 : 1);
  if (data.length < rowBytes * height) throw new Error('encodePng: fewer bytes than the raster needs');
  const filtered = new Uint8Array((rowBytes + 1) * height);
  for (let y = 0; y < height; y++) {
    const out = y * (rowBytes + 1);
    const row = y * rowBytes;
    filtered[out] = 2; // filter type Up
    for (let x = 0; x < rowBytes; x++)
      filtered[out + 1 + x] = (data[row + x]! - (y ? data[row - rowBytes + x]! : 0)) & 0xff;
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header[8] = kind === 'gray1' ? 1 : 8; // bit depth
  header[9] = kind === 'rgb8' ? 2 : 0; // colour type: truecolour or greyscale
  return concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', zlibSync(filtered, { level: 6 })), chunk('IEND')]);
}

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

function chunk(type: string, body = new Uint8Array(0)): Uint8Array {
  const out = new Uint8Array(12 + body.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, body.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(body, 8);
  view.setUint32(8 + body.length, crc32(out.subarray(4, 8 + body.length)));
  return out;
}

let table: Uint32Array | undefined;

function crc32(bytes: Uint8Array): number {
  table ??= Uint32Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  let crc = 0xffffffff;
  for (const byte of bytes) crc = table[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
