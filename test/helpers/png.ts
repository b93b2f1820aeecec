import { unzlibSync, zlibSync } from 'fflate';

// PNG for the tests, written from the specification (not from converter/src/png.ts, so that one checks the other):
// a greyscale PNG to put in a PDF as its scanned page, and a decoder for what the model is given.

/** An 8-bit greyscale PNG of `width` × `height`, pixel (x, y) = `shade(x, y)` (0 black … 255 white). */
export function greyPng(width: number, height: number, shade: (x: number, y: number) => number): Uint8Array {
  const raw = new Uint8Array((width + 1) * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) raw[y * (width + 1) + 1 + x] = shade(x, y);
  const header = new Uint8Array(13);
  new DataView(header.buffer).setUint32(0, width);
  new DataView(header.buffer).setUint32(4, height);
  header[8] = 8;
  return join([
    Uint8Array.of(137, 80, 78, 71, 13, 10, 26, 10),
    chunk('IHDR', header),
    chunk('IDAT', zlibSync(raw)),
    chunk('IEND', new Uint8Array()),
  ]);
}

export interface DecodedPng {
  width: number;
  height: number;
  bitDepth: number;
  colourType: number;
  /** The grey level of pixel (x, y) (for RGB, the mean of its channels). */
  grey(x: number, y: number): number;
}

/** Decodes a non-interlaced greyscale or RGB PNG (bit depth 1 or 8), checking each chunk's CRC. */
export function decodePng(bytes: Uint8Array): DecodedPng {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes[0] !== 137 || bytes[1] !== 80) throw new Error('not a PNG');
  let at = 8;
  let width = 0;
  let height = 0;
  let bitDepth = 0;
  let colourType = 0;
  const idat: Uint8Array[] = [];
  while (at < bytes.length) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (crc32(bytes.subarray(at + 4, at + 8 + length)) !== view.getUint32(at + 8 + length))
      throw new Error(`bad CRC in ${type}`);
    if (type === 'IHDR') {
      width = new DataView(body.buffer, body.byteOffset).getUint32(0);
      height = new DataView(body.buffer, body.byteOffset).getUint32(4);
      bitDepth = body[8]!;
      colourType = body[9]!;
      if (body[12] !== 0) throw new Error('interlaced PNGs are not decoded here');
    }
    if (type === 'IDAT') idat.push(body);
    at += 12 + length;
  }
  const channels = colourType === 2 ? 3 : 1;
  const rowBytes = Math.ceil((width * channels * bitDepth) / 8);
  const bpp = Math.max(1, (channels * bitDepth) / 8);
  const raw = unzlibSync(join(idat));
  const pixels = new Uint8Array(rowBytes * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (rowBytes + 1)]!;
    for (let x = 0; x < rowBytes; x++) {
      const value = raw[y * (rowBytes + 1) + 1 + x]!;
      const left = x >= bpp ? pixels[y * rowBytes + x - bpp]! : 0;
      const up = y ? pixels[(y - 1) * rowBytes + x]! : 0;
      const upLeft = y && x >= bpp ? pixels[(y - 1) * rowBytes + x - bpp]! : 0;
      const predicted = [0, left, up, (left + up) >> 1, paeth(left, up, upLeft)][filter];
      if (predicted === undefined) throw new Error(`unknown filter ${filter}`);
      pixels[y * rowBytes + x] = (value + predicted) & 0xff;
    }
  }
  return {
    width,
    height,
    bitDepth,
    colourType,
    grey(x, y) {
      if (bitDepth === 1) return (pixels[y * rowBytes + (x >> 3)]! >> (7 - (x & 7))) & 1 ? 255 : 0;
      const at = y * rowBytes + x * channels;
      let sum = 0;
      for (let c = 0; c < channels; c++) sum += pixels[at + c]!;
      return sum / channels;
    },
  };
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

function chunk(type: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + body.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, body.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(body, 8);
  view.setUint32(8 + body.length, crc32(out.subarray(4, 8 + body.length)));
  return out;
}

function crc32(bytes: Uint8Array): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return ~crc >>> 0;
}

function join(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
