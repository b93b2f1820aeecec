import type { Raster } from './png';

/** pdf.js's decoded image (`page.objs`): `kind` 1 = gray 1 bit, 2 = RGB, 3 = RGBA (its ImageKind). */
export interface PdfjsImage {
  width: number;
  height: number;
  kind?: number;
  data?: Uint8Array | Uint8ClampedArray;
}

/**
 * A pdf.js image as the smallest raster that keeps it: 1-bit gray as it is, RGBA laid on white (a page is white under
 * its image), and colour that is all grey stored as gray (a third of the bytes; most scans of text are grey).
 * Undefined for what is not a decoded bitmap (pdf.js may hand an ImageBitmap where a canvas exists; workerd has none).
 */
export function rasterOf(image: PdfjsImage): Raster | undefined {
  const { width, height, kind, data } = image;
  if (!data || !(width > 0) || !(height > 0)) return undefined;
  const pixels = width * height;
  if (kind === 1 && data.length >= Math.ceil(width / 8) * height)
    return { width, height, kind: 'gray1', data: Uint8Array.from(data) };
  const channels = kind === 2 ? 3 : kind === 3 ? 4 : data.length / pixels;
  if ((channels !== 3 && channels !== 4) || data.length < pixels * channels) return undefined;
  const rgb = new Uint8Array(pixels * 3);
  let grey = true;
  for (let p = 0; p < pixels; p++) {
    const alpha = channels === 4 ? data[p * 4 + 3]! : 255;
    for (let c = 0; c < 3; c++) {
      const value = data[p * channels + c]!;
      rgb[p * 3 + c] = alpha === 255 ? value : Math.round((value * alpha + 255 * (255 - alpha)) / 255);
    }
    if (grey && (rgb[p * 3] !== rgb[p * 3 + 1] || rgb[p * 3] !== rgb[p * 3 + 2])) grey = false;
  }
  if (!grey) return { width, height, kind: 'rgb8', data: rgb };
  const gray = new Uint8Array(pixels);
  for (let p = 0; p < pixels; p++) gray[p] = rgb[p * 3]!;
  return { width, height, kind: 'gray8', data: gray };
}

/**
 * `raster` no larger than `maxSide` on its longer side, each output pixel the mean of the input pixels it covers
 * (a box filter: text stays legible, no ringing). A 1-bit raster becomes 8-bit gray (its edges anti-aliased).
 */
export function downscaled(raster: Raster, maxSide: number): Raster {
  const scale = maxSide / Math.max(raster.width, raster.height);
  if (scale >= 1) return raster;
  const width = Math.max(1, Math.round(raster.width * scale));
  const height = Math.max(1, Math.round(raster.height * scale));
  const channels = raster.kind === 'rgb8' ? 3 : 1;
  const sample = sampler(raster);
  const out = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    const y0 = Math.floor((y * raster.height) / height);
    const y1 = Math.max(y0 + 1, Math.floor(((y + 1) * raster.height) / height));
    for (let x = 0; x < width; x++) {
      const x0 = Math.floor((x * raster.width) / width);
      const x1 = Math.max(x0 + 1, Math.floor(((x + 1) * raster.width) / width));
      const count = (y1 - y0) * (x1 - x0);
      for (let c = 0; c < channels; c++) {
        let sum = 0;
        for (let sy = y0; sy < y1; sy++) for (let sx = x0; sx < x1; sx++) sum += sample(sx, sy, c);
        out[(y * width + x) * channels + c] = Math.round(sum / count);
      }
    }
  }
  return { width, height, kind: channels === 3 ? 'rgb8' : 'gray8', data: out };
}

function sampler(raster: Raster): (x: number, y: number, channel: number) => number {
  const { width, data } = raster;
  if (raster.kind === 'gray1') {
    const rowBytes = Math.ceil(width / 8);
    return (x, y) => ((data[y * rowBytes + (x >> 3)]! >> (7 - (x & 7))) & 1 ? 255 : 0);
  }
  if (raster.kind === 'rgb8') return (x, y, c) => data[(y * width + x) * 3 + c]!;
  return (x, y) => data[y * width + x]!;
}
