// The documents of bench:docs, made here byte by byte from a fixed seed (no network, no fixtures on disk): a 40-page
// PDF handbook (a text layer in Helvetica, an Info title, a valid xref), a 12-page DOCX (headings, page breaks, four
// tables), a 5-sheet XLSX (shared strings) and a 2 MB HTML page (navigation, inline style and script, long sections).
// Each carries twelve facts, one on each of twelve pages (rows of a table or a sheet for the tables), and twelve
// questions whose right answer is one fact. Filler never uses a fact's proper nouns, so the sentence or row that
// answers a question exists once. Generation only: nothing here reaches a Worker bundle.
import { createHash } from 'node:crypto';
import { strToU8, zipSync } from 'fflate';

/** Deterministic numbers in [0, 1): SHA-256 of the seed and a counter (the same bytes on every machine). */
function stream(seed) {
  let n = 0;
  let pool = [];
  return () => {
    if (!pool.length) {
      const h = createHash('sha256').update(`${seed}:${n++}`).digest();
      pool = Array.from({ length: 8 }, (_, i) => h.readUInt32BE(i * 4) / 2 ** 32);
    }
    return pool.pop();
  };
}
const choose = (next, list) => list[Math.floor(next() * list.length)];

const WHO = [
  'The shift lead',
  'Each operator',
  'The site manager',
  'A new starter',
  'The maintenance crew',
  'The duty supervisor',
  'The planning desk',
  'The safety officer',
  'Every driver',
  'The quality team',
];
const DOES = ['checks', 'records', 'signs off', 'reviews', 'reports', 'logs', 'cleans', 'restocks', 'tests', 'updates'];
const WHAT = [
  'the daily checklist',
  'the equipment register',
  'open work orders',
  'the handover sheet',
  'the incident log',
  'tool returns',
  'the cleaning rota',
  'temperature readings',
  'the visitor book',
  'spare part levels',
];
const WHEN = [
  'at the start of every shift.',
  'before the equipment is used.',
  'once a week.',
  'and keeps a copy in the site folder.',
  'with a second person present.',
  'as set out in the previous section.',
  'within one working day.',
  'and escalates anything unusual.',
  'using the standard form.',
  'at the end of the month.',
];
const sentence = (next) => `${choose(next, WHO)} ${choose(next, DOES)} ${choose(next, WHAT)} ${choose(next, WHEN)}`;

/** Sentences wrapped into lines of at most `width` characters. */
function wrap(sentences, width) {
  const lines = [];
  let line = '';
  for (const word of sentences.join(' ').split(' ')) {
    if (line && line.length + 1 + word.length > width) lines.push(line), (line = '');
    line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

// ---- the facts and questions ----------------------------------------------------------------------

/** `page`: where the fact is (1-based page, or the sheet for the workbook); `expect`: what a right answer contains. */
const PDF_FACTS = [
  [
    3,
    'The Kestrel depot in Porto opens its loading dock at 06:40 on weekdays.',
    'When does the Kestrel depot in Porto open its loading dock?',
    '06:40',
  ],
  [
    5,
    'Forklift licences for the Harlow yard are renewed every 18 months.',
    'How often are forklift licences for the Harlow yard renewed?',
    '18 months',
  ],
  [
    8,
    'Night shifts at the Quayside plant are paid a premium of 22 percent.',
    'What premium is paid for night shifts at the Quayside plant?',
    '22 percent',
  ],
  [
    11,
    'Spill kits on the Brennan line are inspected by the shift lead every Tuesday.',
    'Who inspects the spill kits on the Brennan line?',
    'shift lead every Tuesday',
  ],
  [
    14,
    'Visitors to the Corvid lab must wear a badge of the colour amber at all times.',
    'What colour of badge must visitors to the Corvid lab wear?',
    'amber',
  ],
  [
    17,
    'The Marlow cold store keeps frozen goods at minus 24 degrees Celsius.',
    'At what temperature does the Marlow cold store keep frozen goods?',
    'minus 24',
  ],
  [
    20,
    'Overtime on the Tamsin project needs approval from Ruth Okafor in advance.',
    'Who approves overtime on the Tamsin project?',
    'Ruth Okafor',
  ],
  [
    23,
    'First aid training at the Ashby site is booked through the portal Medline.',
    'Through which portal is first aid training at the Ashby site booked?',
    'Medline',
  ],
  [
    27,
    'Damaged pallets at the Fenwick hub go to bay 14 for repair.',
    'Where do damaged pallets at the Fenwick hub go?',
    'bay 14',
  ],
  [
    31,
    'The Osprey fleet has its brakes serviced every 12,000 kilometres.',
    'How often does the Osprey fleet have its brakes serviced?',
    '12,000 kilometres',
  ],
  [
    35,
    'Lost keys for the Pembury gate are reported on extension 5190.',
    'On which extension are lost keys for the Pembury gate reported?',
    '5190',
  ],
  [
    39,
    'Hearing protection in the Thornbury press hall is required above 85 decibels.',
    'Above what level is hearing protection required in the Thornbury press hall?',
    '85 decibels',
  ],
].map(([page, text, question, expect]) => ({ page, text, question, expect }));

const DOCX_FACTS = [
  [
    2,
    'Invoices from the Galloway mill are paid within 45 days of receipt.',
    'Within how many days are invoices from the Galloway mill paid?',
    '45 days',
  ],
  [
    3,
    'The Ridgeway supplier portal locks an account after 5 failed sign-ins.',
    'After how many failed sign-ins does the Ridgeway supplier portal lock an account?',
    '5 failed',
  ],
  [
    4,
    'Samples for the Linden range are shipped to the test kitchen in Antwerp.',
    'Where are samples for the Linden range shipped?',
    'Antwerp',
  ],
  [
    5,
    'Audits of the Cobalt packaging line take place every March and September.',
    'When do audits of the Cobalt packaging line take place?',
    'March and September',
  ],
  [
    6,
    'Insurance certificates from the Whitby carriers must cover 2 million EUR.',
    'How much must insurance certificates from the Whitby carriers cover?',
    '2 million EUR',
  ],
  [
    7,
    'Purchase orders for the Halden account are signed by Mirela Vasquez.',
    'Who signs purchase orders for the Halden account?',
    'Mirela Vasquez',
  ],
  [
    8,
    'Returns to the Stroud depot are accepted until 16:30 on Thursdays.',
    'Until what time are returns to the Stroud depot accepted on Thursdays?',
    '16:30',
  ],
  [
    10,
    'The Ferris label printer needs ribbon type TR-220 only.',
    'Which ribbon type does the Ferris label printer need?',
    'TR-220',
  ],
].map(([page, text, question, expect]) => ({ page, text, question, expect }));
/** Rows of the DOCX's tables: [page, table caption, row cells, question, expect]. */
const DOCX_ROWS = [
  [
    3,
    'Escalation contacts',
    ['Nordic region', 'Jonas Lindqvist', 'escalations for the Nordic region'],
    'Who handles escalations for the Nordic region?',
    'Jonas Lindqvist',
  ],
  [
    6,
    'Lead times by product group',
    ['Quartz glassware', 'lead time quoted: 21 days', 'sea freight'],
    'What lead time is quoted for Quartz glassware?',
    '21 days',
  ],
  [
    9,
    'Payment terms by customer',
    ['Beacon Foods', 'payment terms: net 60', 'monthly statement'],
    'What are the payment terms for Beacon Foods?',
    'net 60',
  ],
  [
    11,
    'Certificates on file',
    ['Larchmont Dairy', 'certification expires on 30 June 2027', 'organic'],
    'When does the certification of Larchmont Dairy expire?',
    '30 June 2027',
  ],
].map(([page, caption, cells, question, expect]) => ({ page, caption, cells, question, expect }));

const SHEETS = [
  { name: 'Stock', header: ['Item', 'Warehouse', 'In stock', 'Reorder point'] },
  { name: 'Suppliers', header: ['Supplier', 'Country', 'Contact', 'Lead time'] },
  { name: 'Prices', header: ['Item', 'Unit price', 'Currency', 'Valid until'] },
  { name: 'Shipments', header: ['Shipment', 'Destination', 'Carrier', 'Status'] },
  { name: 'Staff', header: ['Name', 'Team', 'Role', 'Location'] },
];
const XLSX_ROWS = [
  [
    1,
    ['Kestrel solar lantern', 'Porto', 'in stock: 1204 units', 'reorder at 350 units'],
    'At what quantity is the Kestrel solar lantern reordered?',
    '350 units',
  ],
  [
    1,
    ['Marigold desk lamp', 'Leeds', 'in stock: 86 units', 'reorder at 40 units'],
    'How many Marigold desk lamps are in stock?',
    '86 units',
  ],
  [
    1,
    ['Orrin copper kettle', 'Gdynia', 'in stock: 412 units', 'reorder at 100 units'],
    'How many Orrin copper kettles are in stock?',
    '412 units',
  ],
  [
    2,
    ['Brightwave Ltd', 'Portugal', 'Ana Reis', 'lead time 17 days'],
    'What lead time does Brightwave quote?',
    '17 days',
  ],
  [
    2,
    ['Tallis Components', 'Ireland', 'sales contact: Declan Moore', 'lead time 9 days'],
    'Who is the sales contact for Tallis Components in Ireland?',
    'Declan Moore',
  ],
  [
    3,
    ['Harbor steel hinge', 'unit price 4.85', 'EUR', 'valid until 30 April 2027'],
    'What is the unit price of the Harbor steel hinge?',
    '4.85',
  ],
  [
    3,
    ['Juniper oak shelf', 'unit price 129.00', 'EUR', 'valid until 31 March 2027'],
    'Until when is the price of the Juniper oak shelf valid?',
    '31 March 2027',
  ],
  [
    3,
    ['Sable wool blanket', 'unit price 59.90', 'GBP', 'valid until 28 February 2027'],
    'In which currency is the Sable wool blanket priced?',
    'GBP',
  ],
  [
    4,
    ['shipment SH-40917', 'Rotterdam', 'carrier Bluefin Freight', 'delivered'],
    'Which carrier handles shipment SH-40917?',
    'Bluefin Freight',
  ],
  [
    4,
    ['shipment SH-51230', 'Gdansk', 'carrier Nordline', 'status: held at customs'],
    'What is the status of shipment SH-51230 to Gdansk?',
    'held at customs',
  ],
  [
    5,
    ['Priya Castellano', 'Team Falconer', 'warehouse supervisor', 'Porto'],
    'Who is the warehouse supervisor of Team Falconer?',
    'Priya Castellano',
  ],
  [
    5,
    ['Tomasz Wren', 'Team Heron', 'forklift trainer', 'Gdansk'],
    'Who is the forklift trainer in Team Heron?',
    'Tomasz Wren',
  ],
].map(([sheet, cells, question, expect]) => ({ page: sheet, cells, question, expect }));

const HTML_FACTS = [
  [
    'The Aurora API gateway rejects request bodies larger than 6 MB.',
    'How large may request bodies to the Aurora API gateway be?',
    '6 MB',
  ],
  [
    'Webhooks from the Pelican billing service are retried 8 times over 24 hours.',
    'How many times are webhooks from the Pelican billing service retried?',
    '8 times',
  ],
  [
    'Tokens issued by the Zephyr auth server expire after 15 minutes.',
    'When do tokens issued by the Zephyr auth server expire?',
    '15 minutes',
  ],
  [
    'The Lumen search index is rebuilt every night at 02:15 UTC.',
    'When is the Lumen search index rebuilt?',
    '02:15 UTC',
  ],
  [
    'Rate limits on the Cascade reporting API are 120 requests per minute per key.',
    'What are the rate limits on the Cascade reporting API?',
    '120 requests',
  ],
  [
    'Support tickets about the Tundra mobile SDK go to the queue MOB-ESC.',
    'Which queue do support tickets about the Tundra mobile SDK go to?',
    'MOB-ESC',
  ],
  [
    'Logs of the Meridian data pipeline are kept for 400 days.',
    'How long are logs of the Meridian data pipeline kept?',
    '400 days',
  ],
  [
    'The Solstice feature flag service answers from 9 regions.',
    'From how many regions does the Solstice feature flag service answer?',
    '9 regions',
  ],
  [
    'Exports from the Granite warehouse API are limited to 50,000 rows per file.',
    'How many rows per file do exports from the Granite warehouse API allow?',
    '50,000 rows',
  ],
  [
    'Sandbox keys for the Willow payments API start with the prefix wsk-test.',
    'What prefix do sandbox keys for the Willow payments API start with?',
    'wsk-test',
  ],
  [
    'The Lantern status page is updated every 30 minutes during an incident.',
    'How often is the Lantern status page updated during an incident?',
    'every 30 minutes',
  ],
  [
    'Uploads to the Ember media API are scanned by the service Vigil.',
    'Which service scans uploads to the Ember media API?',
    'Vigil',
  ],
].map(([text, question, expect], i) => ({ page: i + 1, text, question, expect }));

// ---- PDF ---------------------------------------------------------------------------------------------

const PDF_TITLE = 'Field operations handbook';
const PDF_PAGES = 40;
const LINES_PER_PAGE = 40;

/** Each page's lines (heading first, footer last), the facts placed on their pages. */
function handbookPages() {
  const next = stream('docs-pdf');
  return Array.from({ length: PDF_PAGES }, (_, p) => {
    const body = wrap(
      Array.from({ length: 40 }, () => sentence(next)),
      88,
    ).slice(0, LINES_PER_PAGE - 3);
    const fact = PDF_FACTS.find((f) => f.page === p + 1);
    if (fact) body.splice(Math.floor(next() * body.length), 0, fact.text);
    return [
      `Section ${p + 1}: ${choose(next, ['Site rules', 'Equipment', 'Safety', 'Shifts', 'Vehicles', 'Stores', 'People'])}`,
      ...body,
      `${PDF_TITLE}, page ${p + 1} of ${PDF_PAGES}`,
    ];
  });
}

const pdfString = (s) => `(${s.replace(/[\\()]/g, (c) => `\\${c}`)})`;

/** A PDF whose pages hold `pages` (lines of text; the first a heading), set with text leading (TL, T*). */
function writePdf(title, pages) {
  const bodies = [];
  const ref = (i) => `${i} 0 R`;
  // Objects 1-3: catalog, page tree, font; then per page its content stream and its page; last, the Info dictionary.
  const pageIds = pages.map((_, i) => 5 + i * 2);
  bodies[1] = `<< /Type /Catalog /Pages ${ref(2)} >>`;
  bodies[2] = `<< /Type /Pages /Count ${pages.length} /Kids [${pageIds.map(ref).join(' ')}] >>`;
  bodies[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
  pages.forEach((lines, i) => {
    const [heading, ...rest] = lines;
    const ops = `BT\n/F1 16 Tf\n56 748 Td\n${pdfString(heading)} Tj\n/F1 10 Tf\n13 TL\n0 -26 Td\n${rest.map((l) => `${pdfString(l)} Tj T*`).join('\n')}\nET`;
    bodies[4 + i * 2] = `<< /Length ${Buffer.byteLength(ops, 'latin1')} >>\nstream\n${ops}\nendstream`;
    bodies[5 + i * 2] =
      `<< /Type /Page /Parent ${ref(2)} /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${ref(3)} >> >> /Contents ${ref(4 + i * 2)} >>`;
  });
  const infoId = 4 + pages.length * 2;
  bodies[infoId] = `<< /Title ${pdfString(title)} /Producer (mcp-ondemand bench:docs) >>`;
  const chunks = ['%PDF-1.7\n%\xb5\xb6\xb7\xb8\n'];
  let at = Buffer.byteLength(chunks[0], 'latin1');
  const offsets = [];
  for (let id = 1; id <= infoId; id++) {
    const obj = `${id} 0 obj\n${bodies[id]}\nendobj\n`;
    offsets[id] = at;
    chunks.push(obj);
    at += Buffer.byteLength(obj, 'latin1');
  }
  const xref = [`xref\n0 ${infoId + 1}\n0000000000 65535 f \n`];
  for (let id = 1; id <= infoId; id++) xref.push(`${String(offsets[id]).padStart(10, '0')} 00000 n \n`);
  chunks.push(
    ...xref,
    `trailer\n<< /Size ${infoId + 1} /Root ${ref(1)} /Info ${ref(infoId)} >>\nstartxref\n${at}\n%%EOF\n`,
  );
  return new Uint8Array(Buffer.from(chunks.join(''), 'latin1'));
}

// ---- DOCX --------------------------------------------------------------------------------------------

const xmlText = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const W_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const para = (text, style) =>
  `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${xmlText(text)}</w:t></w:r></w:p>`;
const pageBreak = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>';
const table = (rows) =>
  `<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="0" w:type="auto"/></w:tblPr>${rows
    .map(
      (cells) =>
        `<w:tr>${cells.map((c) => `<w:tc><w:tcPr><w:tcW w:w="3000" w:type="dxa"/></w:tcPr>${para(c)}</w:tc>`).join('')}</w:tr>`,
    )
    .join('')}</w:tbl>`;

const DOCX_TITLE = 'Supplier onboarding guide';
const REGIONS = [
  'Iberia',
  'Benelux',
  'Alpine region',
  'Baltics',
  'Balkans',
  'Central Europe',
  'British Isles',
  'Adriatic',
];
const GROUPS = [
  'Ceramic tiles',
  'Cotton textiles',
  'Steel fixings',
  'Paper goods',
  'Plastic crates',
  'Timber boards',
  'Rubber seals',
];
const CUSTOMERS = [
  'Northfield Retail',
  'Atlas Hardware',
  'Greenleaf Market',
  'Summit Outfitters',
  'Riverbend Stores',
  'Oakhill Pantry',
];
const SURNAMES = ['Keller', 'Moreau', 'Novak', 'Rossi', 'Jansen', 'Silva', 'Horvat', 'Berg', 'Costa', 'Murphy'];
const GIVEN = ['Anna', 'Luca', 'Eva', 'Marco', 'Sofia', 'Jan', 'Clara', 'Pavel', 'Ines', 'Oskar'];

/** Twelve pages: a heading, paragraphs of filler with the page's fact, and on four pages a table with a fact row. */
function guideBody() {
  const next = stream('docs-docx');
  const name = () => `${choose(next, GIVEN)} ${choose(next, SURNAMES)}`;
  const filler = {
    3: () => [choose(next, REGIONS), name(), `escalations for the ${choose(next, REGIONS)}`],
    6: () => [
      choose(next, GROUPS),
      `lead time quoted: ${5 + Math.floor(next() * 40)} days`,
      choose(next, ['road freight', 'air freight', 'rail']),
    ],
    9: () => [
      choose(next, CUSTOMERS),
      `payment terms: net ${choose(next, [14, 30, 45, 90])}`,
      choose(next, ['per invoice', 'weekly statement']),
    ],
    11: () => [
      choose(next, CUSTOMERS),
      `certification expires on ${1 + Math.floor(next() * 27)} ${choose(next, ['May', 'July', 'October'])} 2028`,
      choose(next, ['food safety', 'ISO 9001', 'fair trade']),
    ],
  };
  const pages = [];
  const sections = [
    'Scope',
    'Registration',
    'Documents we need',
    'Samples',
    'Audits',
    'Insurance',
    'Ordering',
    'Returns',
    'Payments',
    'Labels',
    'Certificates',
    'Contacts',
  ];
  for (let p = 1; p <= 12; p++) {
    const parts = [para(`${p}. ${sections[p - 1]}`, 'Heading1')];
    const paragraphs = Array.from({ length: 7 }, () =>
      Array.from({ length: 4 + Math.floor(next() * 3) }, () => sentence(next)).join(' '),
    );
    const fact = DOCX_FACTS.find((f) => f.page === p);
    if (fact) paragraphs.splice(1 + Math.floor(next() * 5), 0, fact.text);
    parts.push(...paragraphs.slice(0, 4).map((t) => para(t)));
    const row = DOCX_ROWS.find((r) => r.page === p);
    if (row) {
      const rows = Array.from({ length: 10 }, filler[p]);
      rows.splice(Math.floor(next() * rows.length), 0, row.cells);
      parts.push(para(row.caption, 'Heading2'), table([['Name', 'Detail', 'Note'], ...rows]));
    }
    parts.push(...paragraphs.slice(4).map((t) => para(t)));
    pages.push(parts.join(''));
  }
  return pages.join(pageBreak);
}

function writeDocx() {
  const style = (id, name, size) =>
    `<w:style w:type="paragraph" w:styleId="${id}"><w:name w:val="${name}"/><w:basedOn w:val="Normal"/><w:qFormat/><w:rPr><w:b/><w:sz w:val="${size}"/></w:rPr></w:style>`;
  const files = {
    '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>`,
    '_rels/.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`,
    'docProps/core.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${DOCX_TITLE}</dc:title></cp:coreProperties>`,
    'word/_rels/document.xml.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`,
    'word/styles.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles ${W_NS}><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>${style('Heading1', 'heading 1', 32)}${style('Heading2', 'heading 2', 26)}<w:style w:type="table" w:styleId="TableGrid"><w:name w:val="Table Grid"/></w:style></w:styles>`,
    'word/document.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W_NS}><w:body>${para(DOCX_TITLE, 'Heading1')}${guideBody()}<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>`,
  };
  return zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strToU8(v)])), {
    level: 6,
    mtime: new Date('2026-01-01T00:00:00Z'),
  });
}

// ---- XLSX --------------------------------------------------------------------------------------------

const ROWS_PER_SHEET = 220;
const CITIES = ['Leeds', 'Lyon', 'Bremen', 'Turin', 'Utrecht', 'Brno', 'Cork', 'Malmo', 'Graz', 'Bilbao'];
const ADJ = ['Compact', 'Classic', 'Folding', 'Heavy', 'Slim', 'Round', 'Square', 'Large', 'Small', 'Outdoor'];
const MATERIAL = ['bamboo', 'glass', 'linen', 'ceramic', 'aluminium', 'pine', 'cotton', 'brass', 'stone', 'felt'];
const OBJECT = ['tray', 'stool', 'basket', 'vase', 'mirror', 'bench', 'rug', 'clock', 'bowl', 'planter'];
const COMPANIES = [
  'Vantage',
  'Corelink',
  'Pinecrest',
  'Stellar',
  'Redwood',
  'Bluestone',
  'Ironbridge',
  'Silverline',
  'Westmoor',
  'Eastgate',
];

/** The five sheets' rows (header first), the facts' rows placed among generated ones. */
function workbookSheets() {
  const next = stream('docs-xlsx');
  const item = () => `${choose(next, ADJ)} ${choose(next, MATERIAL)} ${choose(next, OBJECT)}`;
  const n = (lo, hi) => lo + Math.floor(next() * (hi - lo));
  const makers = [
    () => [item(), choose(next, CITIES), `in stock: ${n(0, 3000)} units`, `reorder at ${n(10, 500)} units`],
    () => [
      `${choose(next, COMPANIES)} ${choose(next, ['Ltd', 'GmbH', 'BV', 'SA', 'Oy'])}`,
      choose(next, ['Spain', 'Germany', 'Netherlands', 'Austria', 'Finland']),
      `${choose(next, GIVEN)} ${choose(next, SURNAMES)}`,
      `lead time ${n(2, 60)} days`,
    ],
    () => [
      item(),
      `unit price ${n(1, 400)}.${String(n(0, 100)).padStart(2, '0')}`,
      choose(next, ['EUR', 'USD', 'SEK']),
      `valid until ${n(1, 28)} ${choose(next, ['June', 'August', 'November'])} 2027`,
    ],
    () => [
      `shipment SH-${n(10000, 39999)}`,
      choose(next, CITIES),
      `carrier ${choose(next, COMPANIES)} Logistics`,
      choose(next, ['delivered', 'in transit', 'booked', 'loading']),
    ],
    () => [
      `${choose(next, GIVEN)} ${choose(next, SURNAMES)}`,
      `Team ${choose(next, ['Oak', 'Birch', 'Cedar', 'Maple', 'Willowby'])}`,
      choose(next, ['picker', 'packer', 'driver', 'planner', 'clerk']),
      choose(next, CITIES),
    ],
  ];
  return SHEETS.map((sheet, s) => {
    const rows = Array.from({ length: ROWS_PER_SHEET }, makers[s]);
    for (const fact of XLSX_ROWS.filter((f) => f.page === s + 1)) rows.splice(n(5, rows.length - 5), 0, fact.cells);
    return { name: sheet.name, rows: [sheet.header, ...rows] };
  });
}

function writeXlsx() {
  const sheets = workbookSheets();
  const strings = [];
  const index = new Map();
  const sst = (s) => {
    if (!index.has(s)) index.set(s, strings.push(s) - 1);
    return index.get(s);
  };
  const col = (i) => String.fromCharCode(65 + i);
  const sheetXml = (rows) =>
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows
      .map(
        (cells, r) =>
          `<row r="${r + 1}">${cells.map((c, i) => `<c r="${col(i)}${r + 1}" t="s"><v>${sst(c)}</v></c>`).join('')}</row>`,
      )
      .join('')}</sheetData></worksheet>`;
  const files = {};
  for (const [i, s] of sheets.entries()) files[`xl/worksheets/sheet${i + 1}.xml`] = sheetXml(s.rows);
  const MAIN = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  Object.assign(files, {
    '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>${sheets
      .map(
        (_, i) =>
          `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`,
      )
      .join('')}</Types>`,
    '_rels/.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${MAIN}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${MAIN}"><sheets>${sheets
      .map((s, i) => `<sheet name="${s.name}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
      .join('')}</sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheets
      .map((_, i) => `<Relationship Id="rId${i + 1}" Type="${MAIN}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`)
      .join(
        '',
      )}<Relationship Id="rId${sheets.length + 1}" Type="${MAIN}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
  });
  // Written last: the sheets filled the table.
  files['xl/sharedStrings.xml'] =
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${strings.length}" uniqueCount="${strings.length}">${strings
      .map((s) => `<si><t xml:space="preserve">${xmlText(s)}</t></si>`)
      .join('')}</sst>`;
  return zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strToU8(v)])), {
    level: 6,
    mtime: new Date('2026-01-01T00:00:00Z'),
  });
}

// ---- HTML --------------------------------------------------------------------------------------------

const HTML_BYTES = 2 * 1024 * 1024;
/** About a fifth of the page is text, as on documentation sites: the rest is markup, icons and a hydration script. */
const HTML_TEXT_CHARS = 420_000;
const HTML_TITLE = 'Platform developer guide';
const TOPICS = [
  'Authentication',
  'Pagination',
  'Errors',
  'Webhooks',
  'Rate limits',
  'Exports',
  'Search',
  'Uploads',
  'Regions',
  'Sandboxes',
  'Status',
  'Logging',
];
const BOX =
  'relative flex flex-col gap-2 rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm dark:border-slate-700 dark:bg-slate-900';
const PROSE = 'text-base leading-7 text-slate-700 dark:text-slate-300 [&>code]:rounded [&>code]:bg-slate-100';
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="20" height="20" fill="none" stroke="currentColor" stroke-width="1.5" aria-hidden="true"><path stroke-linecap="round" stroke-linejoin="round" d="M13.19 8.688a4.5 4.5 0 0 1 1.242 7.244l-4.5 4.5a4.5 4.5 0 0 1-6.364-6.364l1.757-1.757m13.35-.622 1.757-1.757a4.5 4.5 0 0 0-6.364-6.364l-4.5 4.5a4.5 4.5 0 0 0 1.242 7.244"/></svg>`;

/** A documentation page as sites serve them: navigation, an inline style, sections in utility-class markup with icons, a hydration script. */
function writeHtml() {
  const next = stream('docs-html');
  const head = [
    '<!doctype html>',
    `<html lang="en"><head><meta charset="utf-8"><title>${HTML_TITLE}</title>`,
    `<style>${Array.from({ length: 400 }, (_, i) => `.c${i}{margin:${i % 7}px;padding:${i % 5}px}`).join('')}</style>`,
    '</head><body>',
    `<nav class="sticky top-0 z-40 flex items-center gap-4 border-b bg-white/90 backdrop-blur"><ul>${TOPICS.map((t, i) => `<li class="px-2 py-1 text-sm font-medium"><a href="#s${i}">${t}</a></li>`).join('')}</ul></nav>`,
    `<main class="mx-auto max-w-3xl px-6"><h1>${HTML_TITLE}</h1>`,
  ];
  const sections = [];
  let text = 0;
  let s = 0;
  while (text < HTML_TEXT_CHARS) {
    const paragraphs = Array.from({ length: 5 }, () => Array.from({ length: 3 }, () => sentence(next)).join(' '));
    const list = Array.from({ length: 3 }, () => sentence(next));
    text += [...paragraphs, ...list].reduce((n, p) => n + p.length + 2, 0);
    const id = () => Math.floor(next() * 2 ** 32).toString(36);
    sections.push(
      `<section id="s${s}" class="scroll-mt-24 py-8" data-section="${id()}"><h2 class="group flex items-center gap-2 text-2xl font-semibold"><a href="#s${s}" class="opacity-0 group-hover:opacity-100">${ICON}</a>${choose(next, TOPICS)} ${s + 1}</h2>\n${paragraphs
        .map((p) => `<div class="${BOX}" data-block-id="b-${id()}"><p class="${PROSE}">${p}</p></div>`)
        .join('\n')}\n<ul class="ml-6 list-disc space-y-1 marker:text-slate-400">${list
        .map((l) => `<li class="pl-1"><span class="${PROSE}">${l}</span></li>`)
        .join('')}</ul></section>`,
    );
    s++;
  }
  // The twelve facts at twelve evenly spread sections, each a paragraph of its own.
  HTML_FACTS.forEach((fact, i) => {
    const at = Math.floor(((i + 0.5) / HTML_FACTS.length) * sections.length);
    sections[at] = sections[at].replace(
      '</h2>\n',
      `</h2>\n<div class="${BOX}"><p class="${PROSE}">${fact.text}</p></div>\n`,
    );
  });
  const page = `${head.join('\n')}\n${sections.join('\n')}\n</main><footer class="border-t py-6 text-sm">Generated for bench:docs.</footer>`;
  // The framework's hydration data fills the page up to its size (what the converter drops with every script).
  const state = [];
  let size = page.length + 60;
  while (size < HTML_BYTES) {
    const entry = JSON.stringify({
      id: state.length,
      href: `/docs/${state.length}`,
      label: `Page ${state.length}`,
      hash: Math.floor(next() * 2 ** 32).toString(16),
    });
    state.push(entry);
    size += entry.length + 1;
  }
  return `${page}\n<script id="__DATA__" type="application/json">[${state.join(',')}]</script></body></html>\n`;
}

// ---- the corpus ----------------------------------------------------------------------------------------

const MIME = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  html: 'text/html',
};

/**
 * @typedef {{ page: number, question: string, expect: string }} DocQuestion
 * @typedef {{ key: string, slug: string, uri: string, title: string, description: string, mimeType: string,
 *   format: 'pdf' | 'docx' | 'xlsx' | 'html', bytes: Uint8Array, pages?: string[][], sheets?: Array<{ name: string, rows: string[][] }>,
 *   pageCount?: number, questions: DocQuestion[] }} BenchDocument
 */

const ASKED_AS = {
  pdf: 'operations handbook',
  docx: 'supplier onboarding guide',
  xlsx: 'inventory workbook',
  html: 'developer guide',
};

let cached;
/** The four documents (generated once per process). */
export function documents() {
  if (cached) return cached;
  const pages = handbookPages();
  const html = writeHtml();
  cached = [
    {
      key: 'pdf',
      slug: 'handbook',
      uri: 'docs://bench/field-operations-handbook.pdf',
      title: PDF_TITLE,
      description:
        'Docks, forklifts, night shifts, overtime, spill kits, visitors, cold stores, first aid, pallets, fleet brakes, lost keys, hearing protection',
      format: 'pdf',
      bytes: writePdf(PDF_TITLE, pages),
      pages,
      pageCount: PDF_PAGES,
      questions: PDF_FACTS,
    },
    {
      key: 'docx',
      slug: 'supplier-guide',
      uri: 'docs://bench/supplier-onboarding-guide.docx',
      title: DOCX_TITLE,
      description:
        'Invoices, supplier portal, samples, audits, insurance, purchase orders, returns, label ribbons, lead times, escalations, payment terms, certifications',
      format: 'docx',
      bytes: writeDocx(),
      pageCount: 12,
      questions: [...DOCX_FACTS, ...DOCX_ROWS].sort((a, b) => a.page - b.page),
    },
    {
      key: 'xlsx',
      slug: 'inventory-workbook',
      uri: 'docs://bench/inventory-workbook.xlsx',
      title: 'Inventory workbook',
      description:
        'Stock and reorder points, suppliers, lead times, sales contacts, unit prices and currency, shipments, carriers, status, staff teams and roles',
      format: 'xlsx',
      bytes: writeXlsx(),
      sheets: workbookSheets(),
      pageCount: SHEETS.length,
      questions: XLSX_ROWS,
    },
    {
      key: 'html',
      slug: 'developer-guide',
      uri: 'docs://bench/platform-developer-guide.html',
      title: HTML_TITLE,
      description:
        'Gateway limits, webhooks, auth tokens, search index, rate limits, mobile SDK, pipeline logs, feature flags, exports, sandbox keys, status page, media uploads',
      format: 'html',
      bytes: new TextEncoder().encode(html),
      questions: HTML_FACTS,
    },
  ].map((d) => ({
    ...d,
    mimeType: MIME[d.format],
    // A person names the document they ask about (in lower case: the fake model takes capitalised words for the
    // fact's own names, which must all be in the answering line).
    questions: d.questions.map((q) => ({
      ...q,
      question: `In the ${ASKED_AS[d.format]}, ${q.question[0].toLowerCase()}${q.question.slice(1)}`,
    })),
  }));
  return cached;
}

export const DOCUMENT_KEYS = ['pdf', 'docx', 'xlsx', 'html'];
export const documentByKey = (key) => documents().find((d) => d.key === key);
