import { env } from 'cloudflare:workers';
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { ConvertedDocument, ConvertInput, ConvertOutput, DocumentConverterRpc } from '../shared/documents';
import { ENCRYPTED_PDF_BASE64 } from './fixtures/documents/encrypted-pdf';
import { makeDocx, makePptx, makeXlsx, zipOf } from './fixtures/documents/office';
import { makePdf } from './fixtures/documents/pdf';
import { decodePng, greyPng } from './helpers/png';

// The converter Worker (converter/) through the main Worker's service binding CONVERTER: a real second Worker in
// workerd, called over JS RPC exactly as src/documents/ calls it. Fixtures are made here (pdf-lib, OOXML with fflate)
// or checked in small (test/fixtures/documents/).
const converter = (env as unknown as { CONVERTER: DocumentConverterRpc }).CONVERTER;
const LIMITS = { maxPages: 500, maxChars: 2_000_000 };

async function convert(bytes: Uint8Array, format: ConvertInput['format'], limits = LIMITS): Promise<ConvertOutput> {
  return converter.convert({ bytes, format, limits });
}

async function converted(
  bytes: Uint8Array,
  format: ConvertInput['format'],
  limits = LIMITS,
): Promise<ConvertedDocument> {
  const output = await convert(bytes, format, limits);
  if (!output.ok) throw new Error(`refused: ${output.reason}`);
  return output.document;
}

/** The text of part `n` (1-based) of a converted document. */
function part(document: ConvertedDocument, n: number): string {
  const starts = document.parts!.starts;
  return document.text.slice(starts[n - 1], starts[n] ?? document.text.length);
}

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('PDF', () => {
  it('text per page in order, where each page starts, the title and the page count', async () => {
    const pdf = await makePdf(
      [
        ['Employee Handbook', 'Welcome to the company.'],
        ['Holidays', 'Everyone gets 25 days of paid leave.'],
        ['Expenses', 'Receipts are due within 30 days.'],
      ],
      'Employee Handbook 2026',
    );
    const document = await converted(pdf, 'pdf');
    expect(document).toMatchObject({ format: 'pdf', title: 'Employee Handbook 2026', pageCount: 3 });
    expect(document.parts).toMatchObject({ kind: 'page' });
    expect(document.parts!.starts).toHaveLength(3);
    expect(document.parts!.starts[0]).toBe(0);
    expect(part(document, 1)).toContain('Welcome to the company.');
    expect(part(document, 2)).toMatch(/^Holidays\s+Everyone gets 25 days of paid leave\./);
    expect(part(document, 3)).toContain('Receipts are due within 30 days.');
    expect(part(document, 3)).not.toContain('Holidays');
    expect(document.note).toBeUndefined();
  });

  it('a PDF without a title has none (no empty title)', async () => {
    const document = await converted(await makePdf([['Just text']]), 'pdf');
    expect(document.title).toBeUndefined();
    expect(document.text).toBe('Just text');
  });

  it('a scanned PDF (pages that are images, no text layer) is described by the note', async () => {
    const scanned = await converted(await makePdf([{ scanned: true }, { scanned: true }]), 'pdf');
    expect(scanned).toMatchObject({ pageCount: 2, note: 'scanned: 2 pages, no text layer' });
    expect(scanned.text.trim()).toBe('');

    const mixed = await converted(await makePdf([['Typed cover letter'], { scanned: true }, ['Typed annex']]), 'pdf');
    expect(mixed.note).toBe('page 2 has no text layer (scanned)');
    expect(mixed.scannedPages).toEqual([2]);
    expect(part(mixed, 3)).toContain('Typed annex');
  });

  describe('a scanned page as an image (pageImage, for a model that reads images)', () => {
    // A "scan": white paper, a black square top left, grey lines of "text" below it.
    const shade = (x: number, y: number) =>
      x >= 20 && x < 120 && y >= 20 && y < 120 ? 0 : y > 160 && y % 40 < 6 && x > 20 && x < 380 ? 40 : 255;

    it('is the page’s own picture, as a PNG, at its own size when it fits', async () => {
      const pdf = await makePdf([['Typed cover letter'], { scanned: true, image: greyPng(400, 520, shade) }]);
      const output = await converter.pageImage({ bytes: pdf, page: 2, maxBytes: 1_000_000 });
      if (!output.ok) throw new Error(output.reason);
      expect(output.image).toMatchObject({ mimeType: 'image/png', width: 400, height: 520 });
      expect(output.image.scaledFrom).toBeUndefined();
      const png = decodePng(output.image.bytes);
      expect([png.width, png.height]).toEqual([400, 520]);
      expect(png.grey(60, 60)).toBe(0);
      expect(png.grey(300, 60)).toBe(255);
      expect(png.grey(200, 202)).toBe(40);
      expect(png.grey(200, 230)).toBe(255);
    });

    it('is scaled down until it fits maxBytes (INLINE_IMAGE_MAX_BYTES), and says from what', async () => {
      // Noise does not compress: 1,600 × 2,080 grey is ~3.3 MB as PNG, so it must shrink to fit 400 KB.
      const noisy = (x: number, y: number) => (shade(x >> 2, y >> 2) === 0 ? 0 : 128 + ((x * 7919 + y * 104_729) % 97));
      const pdf = await makePdf([{ scanned: true, image: greyPng(1600, 2080, noisy) }]);
      const output = await converter.pageImage({ bytes: pdf, page: 1, maxBytes: 400_000 });
      if (!output.ok) throw new Error(output.reason);
      expect(output.image.bytes.length).toBeLessThanOrEqual(400_000);
      expect(output.image.scaledFrom).toEqual({ width: 1600, height: 2080 });
      const png = decodePng(output.image.bytes);
      expect(png.height).toBeLessThan(2080);
      expect(png.width / png.height).toBeCloseTo(1600 / 2080, 2);
      // The black square (x, y 80–480 of 1,600) is where it was, scaled.
      const at = (v: number) => Math.floor((v * png.width) / 1600);
      expect(png.grey(at(280), at(280))).toBe(0);
      expect(png.grey(at(1200), at(280))).toBeGreaterThan(100);
    });

    it('a page without an image, a page past the end, too few bytes, or no PDF: a reason, never a throw', async () => {
      const pdf = await makePdf([['Only text here'], { scanned: true, image: greyPng(400, 520, shade) }]);
      expect(await converter.pageImage({ bytes: pdf, page: 1, maxBytes: 1_000_000 })).toEqual({
        ok: false,
        reason: 'page 1 has no image that could be decoded',
      });
      expect(await converter.pageImage({ bytes: pdf, page: 3, maxBytes: 1_000_000 })).toEqual({
        ok: false,
        reason: 'the PDF has 2 pages; there is no page 3',
      });
      expect(await converter.pageImage({ bytes: pdf, page: 2, maxBytes: 100 })).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/does not fit in 100 bytes \(INLINE_IMAGE_MAX_BYTES\)/),
      });
      expect(await converter.pageImage({ bytes: utf8('not a pdf'), page: 1, maxBytes: 1_000 })).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/^not a readable PDF/),
      });
      expect(await converter.pageImage({ bytes: pdf, page: 0, maxBytes: 1_000 })).toEqual({
        ok: false,
        reason: 'page must be a positive integer',
      });
    });
  });

  it('a PDF that needs a password is refused, with the reason', async () => {
    const bytes = Uint8Array.from(atob(ENCRYPTED_PDF_BASE64), (c) => c.charCodeAt(0));
    expect(await convert(bytes, 'pdf')).toEqual({ ok: false, reason: 'encrypted: a password is needed' });
  });

  it('maxPages: the text stops after that page, the count stays whole, and the note says where', async () => {
    const pdf = await makePdf(Array.from({ length: 6 }, (_, i) => [`Body of page ${i + 1}`]));
    const document = await converted(pdf, 'pdf', { maxPages: 2, maxChars: 2_000_000 });
    expect(document.pageCount).toBe(6);
    expect(document.parts!.starts).toHaveLength(2);
    expect(document.text).toContain('Body of page 2');
    expect(document.text).not.toContain('Body of page 3');
    expect(document.note).toBe('converted up to page 2 of 6 (DOCUMENT_MAX_PAGES)');
  });

  it('maxChars: the text is cut at the limit and the note names the page it stopped in', async () => {
    // About 450 characters a page.
    const pdf = await makePdf(
      Array.from({ length: 4 }, (_, i) =>
        Array.from({ length: 10 }, (_, j) => `Line ${j} of page ${i + 1} `.padEnd(44, 'x')),
      ),
    );
    const document = await converted(pdf, 'pdf', { maxPages: 500, maxChars: 1_000 });
    expect(document.text).toHaveLength(1_000);
    expect(document.parts!.starts).toHaveLength(3);
    expect(document.note).toBe('text stops at 1,000 characters (DOCUMENT_MAX_CHARS), in page 3 of 4');
  });

  it('a page count that lies (a PDF bomb’s first trick) is not believed: the pages that exist are read', async () => {
    // Byte for byte as text (binary streams included), edited, and back.
    const pdf = Array.from(await makePdf([['First page'], ['Second page']], undefined, false), (b) =>
      String.fromCharCode(b),
    ).join('');
    const bomb = Uint8Array.from(pdf.replace('/Count 2', '/Count 9999999'), (c) => c.charCodeAt(0));
    const document = await converted(bomb, 'pdf');
    expect(document.pageCount).toBe(2);
    expect(document.text).toMatch(/^First page\s+Second page$/);
  });

  it('a file named PDF whose bytes are not a PDF is refused, never parsed as one', async () => {
    const output = await convert(utf8('<html><body>I am a web page</body></html>'), 'pdf');
    expect(output).toEqual({ ok: false, reason: 'not a PDF: its bytes do not start with %PDF-' });
    const zip = await convert(makeDocx([{ paragraph: 'x' }]), 'pdf');
    expect(zip).toMatchObject({ ok: false, reason: 'not a PDF: its bytes do not start with %PDF- (they are a ZIP)' });
  });

  it('a damaged PDF is refused with a reason, not an error', async () => {
    const pdf = await makePdf([['Some text']]);
    const output = await convert(pdf.slice(0, 200), 'pdf');
    expect(output.ok).toBe(false);
    if (!output.ok) expect(output.reason).toMatch(/^not a readable PDF/);
  });
});

describe('DOCX', () => {
  it('headings, bulleted and numbered lists, and tables become markdown; the title comes from its properties', async () => {
    const docx = makeDocx(
      [
        { heading: 1, text: 'Quarterly Report' },
        { paragraph: 'Revenue grew in every region.' },
        { heading: 2, text: 'Findings' },
        { bullet: 'Overdue tasks halved' },
        { bullet: 'Two new customers', level: 1 },
        { numbered: 'Hire a designer' },
        { numbered: 'Ship the mobile app' },
        {
          table: [
            ['Region', 'Revenue'],
            ['EMEA', '1,200'],
            ['APAC', '950'],
          ],
        },
      ],
      'Q3 Report',
    );
    const document = await converted(docx, 'docx');
    expect(document.title).toBe('Q3 Report');
    expect(document.parts).toBeUndefined();
    const text = document.text;
    expect(text).toMatch(/^# Quarterly Report$/m);
    expect(text).toMatch(/^## Findings$/m);
    expect(text).toMatch(/^- Overdue tasks halved$/m);
    expect(text).toMatch(/^\s+- Two new customers$/m);
    expect(text).toMatch(/^1\. Hire a designer$/m);
    expect(text).toMatch(/^2\. Ship the mobile app$/m);
    expect(text).toMatch(/^\| Region \| Revenue \|$/m);
    expect(text).toMatch(/^\| EMEA \| 1,200 \|$/m);
    expect(text.indexOf('Quarterly Report')).toBeLessThan(text.indexOf('Findings'));
  });

  it('an encrypted Office file (an OLE container, not a ZIP) is refused as encrypted', async () => {
    const ole = new Uint8Array(2048);
    ole.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    ole.set(
      [...'EncryptedPackage'].flatMap((c) => [c.charCodeAt(0), 0]),
      1024,
    );
    expect(await convert(ole, 'docx')).toEqual({
      ok: false,
      reason: 'encrypted: a password is needed (an encrypted Office file)',
    });
  });

  it('a ZIP bomb is refused by what it inflates to, whatever sizes the ZIP claims', async () => {
    // 64 MiB of one byte: a few tens of KiB compressed. The sizes in the ZIP's headers are then rewritten to claim
    // 1,000 bytes — what a bomb does to get past a check of the declared size.
    const bomb = zipOf(
      { 'word/document.xml': new Uint8Array(64 * 1024 * 1024).fill(0x20), '[Content_Types].xml': '<Types/>' },
      9,
    );
    expect(bomb.length).toBeLessThan(200_000);
    claimSize(bomb, 1_000);
    const output = await convert(bomb, 'docx');
    expect(output).toEqual({ ok: false, reason: 'it inflates to more than 32 MiB (a ZIP bomb?)' });
  });

  it('an XML entity bomb (a billion laughs in the document part) expands nothing', async () => {
    const levels = Array.from({ length: 9 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join('');
    const docx = makeDocx([{ paragraph: 'BOMB' }]);
    const files = unzipSync(docx);
    const xml = strFromU8(files['word/document.xml']!)
      .replace('<w:document', `<!DOCTYPE w:document [<!ENTITY l0 "lol">${levels}]><w:document`)
      .replace('BOMB', '&l9;');
    const bomb = zipOf({ ...files, 'word/document.xml': xml });
    const output = await convert(bomb, 'docx');
    // mammoth's XML parser (xmldom) declares no entity of a DTD: the reference is an error, nothing is expanded.
    expect(output).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^not a readable DOCX file .*entity not found/),
    });
  });

  it('a package with too many entries is refused before anything is inflated', async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 5_001; i++) many[`word/part${i}.xml`] = '';
    const output = await convert(zipOf(many, 0), 'docx');
    expect(output).toEqual({ ok: false, reason: 'the package lists 5001 entries, more than 5000' });
  });

  it('another Office file named DOCX is refused by what it lacks', async () => {
    const output = await convert(makeXlsx([{ name: 'S', rows: [['a']] }]), 'docx');
    expect(output).toEqual({ ok: false, reason: 'not a DOCX file: the package has no word/document.xml' });
  });
});

describe('XLSX', () => {
  it('each sheet a markdown table under its name, where each starts, dates as dates, and a row cap with a note', async () => {
    const big = [['Row', 'Value'], ...Array.from({ length: 10_050 }, (_, i) => [`r${i + 1}`, i + 1])];
    const xlsx = makeXlsx(
      [
        {
          name: 'Sales',
          rows: [
            ['Region', 'Q1', 'Closed'],
            ['EMEA', 100.5, new Date(Date.UTC(2026, 0, 15))],
            ['APAC | Japan', 0.1 + 0.2, new Date(Date.UTC(2026, 2, 1))],
          ],
        },
        { name: 'Log', rows: big },
      ],
      'Sales 2026',
    );
    const document = await converted(xlsx, 'xlsx');
    expect(document).toMatchObject({ format: 'xlsx', title: 'Sales 2026', pageCount: 2 });
    expect(document.parts).toEqual({ kind: 'sheet', starts: [0, expect.any(Number)], names: ['Sales', 'Log'] });
    expect(part(document, 1)).toBe(
      [
        '## Sheet: Sales',
        '',
        '| Region | Q1 | Closed |',
        '| --- | --- | --- |',
        '| EMEA | 100.5 | 2026-01-15 |',
        '| APAC \\| Japan | 0.3 | 2026-03-01 |',
        '',
        '',
      ].join('\n'),
    );
    const log = part(document, 2);
    expect(log.startsWith('## Sheet: Log\n\n| Row | Value |')).toBe(true);
    expect(log).toContain('| r9999 | 9999 |');
    expect(log).not.toContain('| r10000 |');
    expect(document.note).toBe('sheet Log: first 10,000 of 10,051 rows (10,000 rows a sheet at most)');
  });

  it('maxPages counts sheets', async () => {
    const xlsx = makeXlsx(['A', 'B', 'C'].map((name) => ({ name, rows: [[`in ${name}`]] })));
    const document = await converted(xlsx, 'xlsx', { maxPages: 2, maxChars: 2_000_000 });
    expect(document.parts!.names).toEqual(['A', 'B']);
    expect(document.text).not.toContain('in C');
    expect(document.note).toBe('converted up to sheet 2 of 3 (DOCUMENT_MAX_PAGES)');
  });
});

describe('PPTX', () => {
  it('slides in the deck’s order (not the parts’ names), bullets by level, tables and speaker notes', async () => {
    const pptx = makePptx(
      [
        {
          title: 'Roadmap 2026',
          bullets: ['Mobile app', [1, 'iOS first'], 'Offline mode'],
          notes: 'Mention the beta.',
        },
        {
          title: 'Numbers',
          table: [
            ['Quarter', 'Users'],
            ['Q1', '1,000'],
          ],
        },
        { title: 'Questions' },
      ],
      'Roadmap deck',
    );
    const document = await converted(pptx, 'pptx');
    expect(document).toMatchObject({ format: 'pptx', title: 'Roadmap deck', pageCount: 3 });
    expect(document.parts!.kind).toBe('slide');
    expect(part(document, 1)).toBe(
      '## Slide 1: Roadmap 2026\n\n- Mobile app\n  - iOS first\n- Offline mode\n\n> Notes: Mention the beta.\n\n',
    );
    expect(part(document, 2)).toBe('## Slide 2: Numbers\n\n| Quarter | Users |\n| --- | --- |\n| Q1 | 1,000 |\n\n');
    expect(part(document, 3)).toBe('## Slide 3: Questions');
  });
});

describe('HTML and CSV', () => {
  it('HTML becomes readable markdown: scripts and styles dropped, the title kept', async () => {
    const html = `<!doctype html><html><head><title>Pricing</title><style>.x{color:red}</style>
      <script>window.secret = "tracking-code-123";</script></head>
      <body><nav><a href="/">Home</a></nav><main><h1>Plans</h1><p>The <b>Team</b> plan costs $20.</p>
      <ul><li>Unlimited chats</li><li>Uploads</li></ul>
      <table><tr><th>Plan</th><th>Price</th></tr><tr><td>Team</td><td>$20</td></tr></table></main>
      <script>console.log("more script")</script></body></html>`;
    const document = await converted(utf8(html), 'html');
    expect(document.title).toBe('Pricing');
    expect(document.text).toMatch(/^# Plans$/m);
    expect(document.text).toContain('The **Team** plan costs $20.');
    expect(document.text).toMatch(/^- Unlimited chats$/m);
    expect(document.text).toMatch(/\| Team \| \$20 \|/);
    for (const dropped of ['tracking-code-123', 'more script', 'color:red'])
      expect(document.text).not.toContain(dropped);
  });

  it('binary bytes claiming to be HTML are refused', async () => {
    const output = await convert(await makePdf([['x']]), 'html');
    expect(output).toEqual({ ok: false, reason: 'not HTML: its bytes are binary (they are a PDF)' });
  });

  it('CSV stays as it is', async () => {
    expect(await converted(utf8('a,b\n1,2\n'), 'csv')).toEqual({ format: 'csv', text: 'a,b\n1,2\n' });
  });
});

it('bad input is refused with a reason, never thrown', async () => {
  const bytes = utf8('x');
  expect(await converter.convert({ bytes, format: 'exe' as 'pdf', limits: LIMITS })).toEqual({
    ok: false,
    reason: 'unknown format "exe"',
  });
  expect(await converter.convert({ bytes, format: 'csv', limits: { maxPages: 0, maxChars: 10 } })).toMatchObject({
    ok: false,
  });
});

/** Rewrites every size field of a ZIP (local headers and central directory) to `size`. */
function claimSize(zip: Uint8Array, size: number): void {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  for (let at = 0; at + 4 <= zip.length; at++) {
    const signature = view.getUint32(at, true);
    if (signature === 0x04034b50) view.setUint32(at + 22, size, true);
    else if (signature === 0x02014b50) view.setUint32(at + 24, size, true);
  }
}
