// PDFs for the document tests, written byte by byte (no library): pages of text in Helvetica with an Info title, a
// "scanned" page that is one image and no text, and a valid xref table — what real PDFs have, small enough to
// generate in every test run. scripts/make-demo-report.mjs writes the demo's report the same way.

/** One PDF: each page a list of lines (`# ` starts a heading), or `{ image: true }` for a scanned page (no text layer). */
export function makePdf(options: { title?: string; pages: Array<string[] | { image: true }> }): Uint8Array {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body);
  const catalog = add('');
  const pages = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  // What a scanner's page is, to a text extractor: an image and no text. Black and white at 1 bit a pixel, as
  // office scanners send text pages: white paper (bit 1) with a black square in its top left corner.
  const image = add(
    `<< /Type /XObject /Subtype /Image /Width ${SCAN.width} /Height ${SCAN.height} /ColorSpace /DeviceGray /BitsPerComponent 1 /Length ${SCAN.bits.length} >>\nstream\n${SCAN.bits}\nendstream`,
  );
  const kids: number[] = [];
  for (const page of options.pages) {
    const content = Array.isArray(page) ? textOps(page) : 'q 500 0 0 700 56 46 cm /Im1 Do Q';
    const contentId = add(`<< /Length ${latin1Length(content)} >>\nstream\n${content}\nendstream`);
    kids.push(
      add(
        `<< /Type /Page /Parent ${pages} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> /XObject << /Im1 ${image} 0 R >> >> /Contents ${contentId} 0 R >>`,
      ),
    );
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pages} 0 R >>`;
  objects[pages - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  const info = options.title === undefined ? undefined : add(`<< /Title (${pdfString(options.title)}) >>`);
  let pdf = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(latin1Length(pdf));
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = latin1Length(pdf);
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, '0')} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R${info ? ` /Info ${info} 0 R` : ''} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Uint8Array.from(pdf, (c) => c.charCodeAt(0) & 0xff);
}

/** The scanned page's picture: 160 × 200 pixels, black where `SCAN.black(x, y)`. Exported for the tests' checks. */
export const SCAN = (() => {
  const width = 160;
  const height = 200;
  const black = (x: number, y: number) => x >= 10 && x < 60 && y >= 10 && y < 60;
  let bits = '';
  for (let y = 0; y < height; y++)
    for (let byte = 0; byte < width / 8; byte++) {
      let value = 0;
      for (let bit = 0; bit < 8; bit++) value = (value << 1) | (black(byte * 8 + bit, y) ? 0 : 1);
      bits += String.fromCharCode(value);
    }
  return { width, height, black, bits };
})();

function textOps(lines: string[]): string {
  let y = 760;
  const ops = ['BT'];
  for (const line of lines) {
    const heading = line.startsWith('# ');
    y -= heading ? 30 : 16;
    ops.push(`/F1 ${heading ? 18 : 11} Tf`, `1 0 0 1 56 ${y} Tm`, `(${pdfString(heading ? line.slice(2) : line)}) Tj`);
  }
  ops.push('ET');
  return ops.join('\n');
}

const pdfString = (text: string) => text.replace(/[\\()]/g, (c) => `\\${c}`);
const latin1Length = (text: string) => text.length;

/** Base64 of bytes (MCP carries blobs so). */
export { base64OfBytes as base64Of } from '../../shared/base64';
