// The corpus and the questions of bench:code (issue 46, code over resources): four text resources, made here from
// fixed seeds, and ten analytical questions whose exact answers the bench computes itself —
//   - the 5 MB gateway log of bench:bytes (corpora.mjs, corpus 5m),
//   - a 470 KB handbook: the 39 documents of bench:bytes' 500 KB corpus as the chapters of one markdown file,
//   - orders.csv, 50,000 orders (id, customer_id, region, product, quantity, price, status, date),
//   - customers.csv, 2,000 customers (id, name, country, segment): what a join needs.
// Each question carries the program the fake model sends to run_code (the body of an async function; it reads with
// resources.read and computes) and the answer it must return. The reference answers come from the rows as generated
// (orders, customers) or from a regex pass over the text (log, handbook), not from the programs.
import { corpus, pick, rng } from './corpora.mjs';

export const URIS = {
  log: 'corpus://ccode/logs/gateway.log',
  handbook: 'corpus://ccode/handbook.md',
  orders: 'corpus://ccode/data/orders.csv',
  customers: 'corpus://ccode/data/customers.csv',
};

const FIRST =
  'Ada Ben Cleo Dara Emil Fay Gus Hana Ivo Jude Kai Lena Milo Nora Omar Pia Quinn Rosa Sami Tess Ugo Vera Wes Xena Yuri Zoe Anke Bram Cyra Dion Elsa Finn Gwen Hugo Iris Jonas Kira Lars Maja Nils'.split(
    ' ',
  );
const LAST =
  'Abbott Brandt Castro Dumont Engel Fischer Garcia Horvat Ivanov Jansen Keller Larsen Moreau Novak Olsen Petrov Quast Rossi Silva Tanaka Ueda Varga Weber Xu Yilmaz Zimmer Adler Berg Costa Dahl Eriksen Ferrari Gomez Hahn Ito Jovanovic Kowalski Lund Meyer Nagy Ortiz Popescu Richter Schulz Torres Ulrich Vogel Wagner Young Zeller'.split(
    ' ',
  );
const COUNTRIES = ['DE', 'FR', 'ES', 'IT', 'NL', 'PL', 'SE', 'US', 'CA', 'BR', 'JP', 'IN'];
const SEGMENTS = ['enterprise', 'smb', 'consumer'];
const REGIONS = ['EU', 'NA', 'LATAM', 'APAC'];
const PRODUCTS = [
  'anvil',
  'bracket',
  'cable',
  'dynamo',
  'gasket',
  'hinge',
  'lever',
  'nozzle',
  'pulley',
  'rivet',
  'sprocket',
  'valve',
];
/** Shares of each status (paid most), as cumulative thresholds. */
const STATUSES = [
  ['paid', 0.68],
  ['shipped', 0.8],
  ['pending', 0.88],
  ['cancelled', 0.95],
  ['refunded', 1],
];
const ORDERS = 50_000;

/** Cents as "1234.56" (exact for any integer: no float division). */
export const money = (cents) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

function customers() {
  const r = rng(0x46c0de);
  const names = FIRST.flatMap((f) => LAST.map((l) => `${f} ${l}`));
  // A seeded shuffle: ids do not follow the alphabet.
  for (let i = names.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [names[i], names[j]] = [names[j], names[i]];
  }
  return names.map((name, i) => ({
    id: `C${String(i + 1).padStart(4, '0')}`,
    name,
    country: pick(r, COUNTRIES),
    segment: pick(r, SEGMENTS),
  }));
}

function orders(people) {
  const r = rng(0x46f00d);
  const day0 = Date.UTC(2026, 0, 1);
  return Array.from({ length: ORDERS }, (_, i) => {
    // A few big accounts order far more often: a top-3 by revenue that is not a coin toss.
    const who = r() < 0.15 ? Math.floor(r() * 40) : Math.floor(r() * people.length);
    const u = r();
    return {
      id: 100_000 + i,
      customer: people[who].id,
      region: pick(r, REGIONS),
      product: pick(r, PRODUCTS),
      quantity: 1 + Math.floor(r() * 20),
      cents: 199 + Math.floor(r() * 49_800),
      status: STATUSES.find(([, upTo]) => u < upTo)[0],
      date: new Date(day0 + Math.floor(r() * 365) * 86_400_000).toISOString().slice(0, 10),
    };
  });
}

let built;

/**
 * The corpus as corpus-server.mjs serves it (`{ name, docs }`), the rows behind the CSVs, and the ten questions
 * (`{ id, text, uris, program, expect }`). Built once per process.
 */
export function codeCorpus() {
  if (built) return built;
  const people = customers();
  const rows = orders(people);
  const log = corpus('5m').docs.find((d) => d.slug === 'logs/gateway.log').text;
  const handbook = `${corpus('500k')
    .docs.map((d) => d.text.trim())
    .join('\n\n')}\n`;
  const ordersCsv = `id,customer_id,region,product,quantity,price,status,date\n${rows
    .map((o) => [o.id, o.customer, o.region, o.product, o.quantity, money(o.cents), o.status, o.date].join(','))
    .join('\n')}\n`;
  const customersCsv = `id,name,country,segment\n${people
    .map((c) => [c.id, c.name, c.country, c.segment].join(','))
    .join('\n')}\n`;
  const doc = (key, slug, title, description, mimeType, text) => ({
    uri: URIS[key],
    slug,
    title,
    description,
    mimeType,
    text,
    size: Buffer.byteLength(text),
  });
  const docs = [
    doc(
      'log',
      'logs/gateway.log',
      'Gateway access log',
      'Every request the edge gateway served on 14 March, one line each',
      'text/plain',
      log,
    ),
    doc(
      'handbook',
      'handbook',
      'Engineering handbook',
      'Runbooks, design notes and policies, one chapter each',
      'text/markdown',
      handbook,
    ),
    doc(
      'orders',
      'data/orders',
      'Orders 2026',
      'Every order of 2026: id, customer_id, region, product, quantity, price, status, date',
      'text/csv',
      ordersCsv,
    ),
    doc(
      'customers',
      'data/customers',
      'Customers',
      'Every customer: id, name, country, segment',
      'text/csv',
      customersCsv,
    ),
  ];
  built = { name: 'code', title: 'bench:code corpus', docs, questions: questions({ log, handbook, rows, people }) };
  return built;
}

/** Counts of `key(x)` over `xs`, keys sorted. */
const countBy = (xs, key) => {
  const out = {};
  for (const x of xs) out[key(x)] = (out[key(x)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
};

function questions({ log, handbook, rows, people }) {
  const byId = new Map(people.map((c) => [c.id, c]));
  const paid = rows.filter((o) => o.status === 'paid');
  const revenueBy = (xs, key) => {
    const sums = new Map();
    for (const o of xs) sums.set(key(o), (sums.get(key(o)) ?? 0) + o.quantity * o.cents);
    return sums;
  };

  // Log references: a regex over the whole text (the programs split lines).
  const errors = {};
  for (const m of log.matchAll(/^\S+ ERROR .*?route=\/v1\/([a-z]+)\//gm)) errors[m[1]] = (errors[m[1]] ?? 0) + 1;
  let checkoutMs = 0;
  for (const m of log.matchAll(/route=\/v1\/checkout\/\d+ status=200 dur_ms=(\d+)/g)) checkoutMs += Number(m[1]);
  const hours = {};
  for (const m of log.matchAll(/^\d{4}-\d\d-\d\dT(\d\d):.* status=5\d\d\b/gm)) hours[m[1]] = (hours[m[1]] ?? 0) + 1;
  const [peakHour, peakCount] = Object.entries(hours).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];

  // Handbook references: chapters are its "# " headings.
  const chapters = handbook.split(/^(?=# )/m).map((c) => ({
    title: c.slice(2, c.indexOf('\n')),
    backlog: (c.match(/incident backlog/g) ?? []).length,
    escalation: (c.match(/^## Escalation$/gm) ?? []).length,
  }));
  // The threshold: five chapters at most mention it more often (fixed by the seed, computed so the question has a short answer).
  const threshold = [...chapters].sort((a, b) => b.backlog - a.backlog)[5].backlog;
  const backlogChapters = chapters
    .filter((c) => c.backlog > threshold)
    .sort((a, b) => b.backlog - a.backlog || a.title.localeCompare(b.title))
    .map((c) => ({ chapter: c.title, mentions: c.backlog }));

  const q1Units = new Map();
  for (const o of rows.filter((o) => o.date < '2026-04-01'))
    q1Units.set(o.product, (q1Units.get(o.product) ?? 0) + o.quantity);
  const topCustomers = [...revenueBy(paid, (o) => o.customer)]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 3)
    .map(([id, cents]) => ({ customer: byId.get(id).name, revenue: money(cents) }));
  const segments = Object.fromEntries(
    [...revenueBy(paid, (o) => byId.get(o.customer).segment)]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([s, cents]) => [s, money(cents)]),
  );

  // Shared by the programs: CSV rows as objects, money in cents.
  const CSV = `const rowsOf = (text) => text.trim().split('\\n').slice(1).map((line) => line.split(','));
const cents = (price) => Math.round(Number(price) * 100);
const money = (c) => Math.floor(c / 100) + '.' + String(c % 100).padStart(2, '0');`;
  const read = (key) => `await resources.read({ uri: '${URIS[key]}' })`;

  return [
    {
      id: 'log-errors',
      text: 'How many ERROR lines per service are there in the gateway log (the service is the first part of the route after /v1/)?',
      uris: [URIS.log],
      program: `const text = ${read('log')};
const counts = {};
for (const line of text.split('\\n')) {
  if (line.split(' ')[1] !== 'ERROR') continue;
  const m = /route=\\/v1\\/([a-z]+)\\//.exec(line);
  if (m) counts[m[1]] = (counts[m[1]] || 0) + 1;
}
return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));`,
      expect: Object.fromEntries(Object.entries(errors).sort(([a], [b]) => a.localeCompare(b))),
    },
    {
      id: 'log-checkout-ms',
      text: 'What is the total dur_ms of the successful (status 200) checkout requests in the gateway log?',
      uris: [URIS.log],
      program: `const text = ${read('log')};
let total = 0;
for (const line of text.split('\\n')) {
  if (!line.includes('route=/v1/checkout/') || !line.includes(' status=200 ')) continue;
  total += Number(/dur_ms=(\\d+)/.exec(line)[1]);
}
return { totalDurMs: total };`,
      expect: { totalDurMs: checkoutMs },
    },
    {
      id: 'log-peak-hour',
      text: 'In which UTC hour did the gateway log record the most 5xx responses, and how many?',
      uris: [URIS.log],
      program: `const text = ${read('log')};
const hours = {};
for (const line of text.split('\\n')) {
  const m = / status=(\\d+)/.exec(line);
  if (!m || m[1][0] !== '5') continue;
  const h = line.slice(11, 13);
  hours[h] = (hours[h] || 0) + 1;
}
const [hour, count] = Object.entries(hours).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
return { hour, count };`,
      expect: { hour: peakHour, count: peakCount },
    },
    {
      id: 'orders-status',
      text: 'How many orders of 2026 are there per status?',
      uris: [URIS.orders],
      program: `${CSV}
const rows = rowsOf(${read('orders')});
const counts = {};
for (const [, , , , , , status] of rows) counts[status] = (counts[status] || 0) + 1;
return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));`,
      expect: countBy(rows, (o) => o.status),
    },
    {
      id: 'orders-eu-paid',
      text: 'What is the sum of quantity × price over the paid orders of region EU?',
      uris: [URIS.orders],
      program: `${CSV}
let total = 0;
for (const [, , region, , quantity, price, status] of rowsOf(${read('orders')})) if (region === 'EU' && status === 'paid') total += Number(quantity) * cents(price);
return { revenue: money(total) };`,
      // The same answer written for speed (no array per row): the CPU measurement runs both.
      fastProgram: `const text = ${read('orders')};
let total = 0;
let at = text.indexOf('\\n') + 1;
while (at < text.length) {
  let end = text.indexOf('\\n', at);
  if (end < 0) end = text.length;
  const line = text.slice(at, end);
  at = end + 1;
  if (!line.includes(',EU,') || !line.includes(',paid,')) continue;
  const v = line.split(',');
  total += Number(v[4]) * Math.round(Number(v[5]) * 100);
}
return { revenue: Math.floor(total / 100) + '.' + String(total % 100).padStart(2, '0') };`,
      expect: { revenue: money(paid.filter((o) => o.region === 'EU').reduce((s, o) => s + o.quantity * o.cents, 0)) },
    },
    {
      id: 'orders-top-products',
      text: 'Which 3 products sold the most units in the first quarter of 2026 (January to March), and how many?',
      uris: [URIS.orders],
      program: `${CSV}
const units = {};
for (const [, , , product, quantity, , , date] of rowsOf(${read('orders')})) if (date < '2026-04-01') units[product] = (units[product] || 0) + Number(quantity);
return Object.entries(units).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 3).map(([product, n]) => ({ product, units: n }));`,
      expect: [...q1Units]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .slice(0, 3)
        .map(([product, units]) => ({ product, units })),
    },
    {
      id: 'join-top-customers',
      text: 'Who are the top 3 customers by revenue (quantity × price) of paid orders, by name?',
      uris: [URIS.orders, URIS.customers],
      program: `${CSV}
const [orders, people] = await Promise.all([resources.read({ uri: '${URIS.orders}' }), resources.read({ uri: '${URIS.customers}' })]);
const name = new Map(rowsOf(people).map(([id, n]) => [id, n]));
const sums = {};
for (const [, customer, , , quantity, price, status] of rowsOf(orders)) if (status === 'paid') sums[customer] = (sums[customer] || 0) + Number(quantity) * cents(price);
return Object.entries(sums).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 3).map(([id, c]) => ({ customer: name.get(id), revenue: money(c) }));`,
      expect: topCustomers,
    },
    {
      id: 'join-segments',
      text: 'What is the revenue of paid orders per customer segment (the segment is in the customers list)?',
      uris: [URIS.orders, URIS.customers],
      program: `${CSV}
const [orders, people] = await Promise.all([resources.read({ uri: '${URIS.orders}' }), resources.read({ uri: '${URIS.customers}' })]);
const segment = new Map(rowsOf(people).map(([id, , , s]) => [id, s]));
const sums = {};
for (const [, customer, , , quantity, price, status] of rowsOf(orders)) if (status === 'paid') { const s = segment.get(customer); sums[s] = (sums[s] || 0) + Number(quantity) * cents(price); }
return Object.fromEntries(Object.entries(sums).sort(([a], [b]) => a.localeCompare(b)).map(([s, c]) => [s, money(c)]));`,
      expect: segments,
    },
    {
      id: 'handbook-backlog',
      text: `Which chapters of the engineering handbook mention "incident backlog" more than ${threshold} times, and how often?`,
      uris: [URIS.handbook],
      program: `const text = ${read('handbook')};
return text.split(/^(?=# )/m)
  .map((c) => ({ chapter: c.slice(2, c.indexOf('\\n')), mentions: c.split('incident backlog').length - 1 }))
  .filter((c) => c.mentions > ${threshold})
  .sort((a, b) => b.mentions - a.mentions || a.chapter.localeCompare(b.chapter));`,
      expect: backlogChapters,
    },
    {
      id: 'handbook-escalation',
      text: 'How many chapters does the engineering handbook have, and how many "Escalation" sections in all?',
      uris: [URIS.handbook],
      program: `const text = ${read('handbook')};
const lines = text.split('\\n');
return { chapters: lines.filter((l) => l.startsWith('# ')).length, escalationSections: lines.filter((l) => l === '## Escalation').length };`,
      expect: {
        chapters: chapters.length,
        escalationSections: chapters.reduce((s, c) => s + c.escalation, 0),
      },
    },
  ];
}
