// Documents benchmark (issue 44): what twelve questions about one document cost when the document is sent to the
// provider as its own file on every turn (native), when its converted text is pasted into a cached prompt (paste),
// and when the model reads what it needs of the converted text through the real service (ours); what a conversion
// costs in CPU; and what the converter added to the main Worker's bundle.
//
// The corpus (bench/lib/docs-corpus.mjs, made here, deterministic): a 40-page PDF handbook, a 12-page DOCX, a
// 5-sheet XLSX and a 2 MB HTML page, each with twelve questions answered from one page, table row or sheet row.
// bench/lib/docs-server.mjs serves them as an MCP server would (blobs with MIME type and size; the HTML as text).
//
// - ours: per model and document, a 12-question conversation through the real service under `wrangler dev` (the
//   converter Worker beside it, fresh state per run), the fake model (bench/lib/fake-model.mjs +
//   reader-policy.mjs: it searches the document, reads the window the search points at, answers by quoting the
//   fact) reached through the real provider packages; every request body as sent, priced by bench/lib/pricing.mjs.
// - paste: the converted text (as the service made it) pasted into a cached system prompt, one request per turn
//   with the same questions and answers (pricing.mjs's paste bodies, the cheaper lifetime).
// - native: the same bodies with the document as the provider bills a file input (NATIVE below: text plus an image
//   per PDF page), cached as well as the provider allows, and uncached (re-sent in full every turn).
// - conversion CPU: per document, a fresh `wrangler dev`; the workerd CPU (/proc schedstat, both Workers run in it)
//   of a read that converts — the first after start (cold), then new copies of the document (warm) — and of the
//   same read served from the cache; the MCP server counts the reads that reach it (a conversion each).
// - the main Worker's bundle (`wrangler deploy --dry-run`, gzip as wrangler prints it) before the converter work
//   (the parent of the first commit touching converter/ or src/documents/) and now (this working tree). The service
//   runs from a copy of the tree taken when the run starts (bench/lib/docs-snapshot.mjs): the tree may change meanwhile.
//
//   npm run bench:docs
//   BENCH_DOCS=quick npm run bench:docs                 # Sonnet 5.5 and gpt-6.1-terra only, 3 warm conversions
//   BENCH_DOCS_ONLY=cpu BENCH_DOCS_WRITE=0 npm run bench:docs   # conversion CPU only, BENCHMARKS.md untouched
//   BENCH_DOCS_ONLY=cost BENCH_DOCS_DOCS=pdf,xlsx BENCH_DOCS_MODELS=claude-haiku-5-5 npm run bench:docs
//   BENCH_DOCS_FROM=run.log npm run bench:docs          # re-render a saved run's BENCH_RESULT line
//   BENCH_DOCS_BEFORE=<rev> npm run bench:docs          # the bundle's "before" (default: see above)
//   BENCH_DOCS_DUMP=/tmp/bodies npm run bench:docs      # also write each conversation's request bodies there
//
// Ports (127.0.0.1): wrangler dev BENCH_DOCS_PORT (8860), its inspector +1, the fake model +2, the MCP server +3.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { catalog, createConversation, readResource, runTurn } from './lib/client.mjs';
import { DOCUMENT_KEYS, documentByKey } from './lib/docs-corpus.mjs';
import { bundleSize, git, snapshot } from './lib/docs-snapshot.mjs';
import { startDocsServer } from './lib/docs-server.mjs';
import { startFakeModel, withItems } from './lib/fake-model.mjs';
import {
  benchModels,
  bill,
  modelVars,
  pasteAnthropic,
  pasteOpenAI,
  pastePrompt,
  PRICES,
  tokens,
  ttlsOf,
} from './lib/pricing.mjs';
import { createReaderPolicy } from './lib/reader-policy.mjs';
import { machine, machineLine, writeSection } from './lib/report.mjs';
import { cpuOf, NO_LIMITS, startWrangler } from './lib/stack.mjs';

const env = process.env;
const QUICK = env.BENCH_DOCS === 'quick';
const PORT = Number(env.BENCH_DOCS_PORT ?? 8860);
const WRITE = env.BENCH_DOCS_WRITE !== '0';
const ONLY = env.BENCH_DOCS_ONLY; // 'cpu' | 'cost' | undefined (both)
const DOCS = (env.BENCH_DOCS_DOCS ?? DOCUMENT_KEYS.join(',')).split(',').filter(Boolean);
/** Conversions of new copies per document (warm), and reads of the converted copy (cached). */
const WARM = Number(env.BENCH_DOCS_WARM ?? (QUICK ? 3 : 6));
const CACHED = 5;
/** The service as it is when the run starts (bench/lib/docs-snapshot.mjs): others may go on editing the tree. */
let tree;
/** The copy's service, and its converter Worker beside it (as `npm start` runs them; startWrangler runs a `config` alone). */
const start = (vars) =>
  startWrangler({
    port: PORT,
    inspectorPort: PORT + 1,
    vars,
    config: path.join(tree.dir, 'wrangler.toml'),
    args: ['--config', path.join(tree.dir, 'converter/wrangler.toml')],
  });

const MODELS = benchModels(env.BENCH_DOCS_MODELS, QUICK);

/**
 * What a document costs as the provider's own file input, per provider, from the pages stored here (no live page
 * could be fetched; read 2026-12-07):
 * - Anthropic, "PDF support" (docs.claude.com/en/docs/build-with-claude/pdf-support, "Estimate your costs"): each
 *   page is billed as its extracted text ("typically 1,500-3,000 tokens per page depending on content density") plus
 *   an image of the page, at the vision rule (tokens ≈ width × height / 750, images downscaled to about 1.15
 *   megapixels): a US-letter page at that size, 943 × 1,220 px, is 1,534 tokens. Only PDFs (and plain text) are
 *   document blocks: a DOCX, XLSX or HTML page has no native form (a host converts it: the paste column).
 * - OpenAI, "File inputs" (developers.openai.com/api/docs/guides/file-inputs): a PDF's "extracted text and page
 *   images" on vision models; .docx and .html: "text only"; .xlsx: "up to the first 1,000 rows per sheet" plus a
 *   model-written summary (not counted here). A page image at high detail (images-vision guide, tile rule: the short
 *   side scaled to 768 px, 85 + 170 per 512-px tile): 768 × 994 px, 4 tiles, 765 tokens. Assumed for every OpenAI
 *   card (the guide's patch rule for some newer models is not published per model).
 * Text: the page's own text for a PDF (what the provider extracts), the converted text otherwise (o200k tokens).
 */
const NATIVE = {
  anthropic: { pageImageTokens: 1534, formats: new Set(['pdf']) },
  openai: { pageImageTokens: 765, formats: new Set(['pdf', 'docx', 'xlsx', 'html']) },
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2 : NaN;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const providerOf = (model) => PRICES[model].provider;

function serviceVars(server, key, model) {
  return {
    MCP_SERVERS: JSON.stringify([{ id: 'docs', url: server.url(key) }]),
    AUTH_DISABLED: 'true',
    ALLOW_PRIVATE_MCP_URLS: 'true',
    ...NO_LIMITS,
    ...JSON.parse(env.BENCH_DOCS_VARS ?? '{}'),
    ...(model ? modelVars(model, `http://127.0.0.1:${PORT + 2}/v1`) : {}),
  };
}

// ---- conversion CPU ---------------------------------------------------------------------------------

/** One document under a fresh `wrangler dev`: its first conversion (cold), conversions of new copies (warm), cached reads. */
async function conversionCpu(server, key) {
  const doc = documentByKey(key);
  const w = await start(serviceVars(server, 'all'));
  try {
    const id = await createConversation(w.base);
    await catalog(w.base, id); // the MCP session is up before anything is measured
    const read = (uri) => readResource(w.base, id, 'docs', uri);
    const readsBefore = server.reads()[doc.uri] ?? 0;
    const cold = await cpuOf(w, () => read(doc.uri));
    const entry = cold.result.contents[0];
    if (!entry.document || entry.document.failed || !('text' in entry))
      throw new Error(`${key}: not converted: ${JSON.stringify(entry.document)}`);
    const cached = [];
    for (let i = 0; i < CACHED; i++) cached.push((await cpuOf(w, () => read(doc.uri))).ms);
    const warm = [];
    for (let n = 1; n <= WARM; n++) warm.push((await cpuOf(w, () => read(server.copyUri(key, n)))).ms);
    return {
      key,
      pages: entry.document.pageCount ?? doc.pageCount,
      textChars: entry.text.length,
      bytes: doc.bytes.byteLength,
      coldMs: cold.ms,
      warmMs: median(warm),
      warmSpread: [Math.min(...warm), Math.max(...warm)],
      cachedMs: median(cached),
      reads: 1 + CACHED,
      serverReads: (server.reads()[doc.uri] ?? 0) - readsBefore,
    };
  } finally {
    await w.stop();
  }
}

// ---- conversations ----------------------------------------------------------------------------------

/** The read window's size (READ_WINDOW_CHARS' default): windows start at its multiples. */
const WINDOW_CHARS = 24_000;

/** Where a read window boundary cuts the line holding `expect` in `text`, if one does. */
function windowCut(text, expect) {
  const at = text.indexOf(expect);
  if (at < 0) return undefined;
  const from = text.lastIndexOf('\n', at) + 1;
  const to = text.indexOf('\n', at) < 0 ? text.length : text.indexOf('\n', at);
  const boundary = Math.ceil(from / WINDOW_CHARS) * WINDOW_CHARS;
  return from % WINDOW_CHARS !== 0 && boundary < to ? boundary : undefined;
}

/** Twelve questions about one document, one model, fresh state: answers, requests, conversions, the converted text. */
async function conversation(fake, server, key, model) {
  const doc = documentByKey(key);
  const api = providerOf(model) === 'anthropic' ? 'messages' : 'responses';
  const w = await start(serviceVars(server, key, model));
  fake.reset();
  const readsBefore = server.reads()[doc.uri] ?? 0;
  const turns = [];
  const requests = [];
  try {
    const id = await createConversation(w.base);
    const plan = (await catalog(w.base, id)).plan;
    for (const q of doc.questions) {
      const from = fake.requests.length;
      const t = await runTurn(w.base, id, q.question);
      const mine = fake.requests.slice(from);
      if (mine.some((r) => r.api !== api)) throw new Error(`${model}: the service called another API than ${api}`);
      for (const r of mine)
        requests.push({
          turn: turns.length,
          at: r.at,
          step: r.step,
          body: api === 'responses' ? withItems(r.body, fake) : r.body,
        });
      const calls = mine.map((r) => ('toolCalls' in r.step ? r.step.toolCalls.map((c) => c.name).join('+') : 'answer'));
      turns.push({
        question: q.question,
        page: q.page,
        answer: t.answer,
        right: t.answer.includes(q.expect),
        requests: mine.length,
        calls,
        problems: t.problems,
      });
      console.log(
        `  ${key} · ${model} · turn ${turns.length}: ${calls.join(' → ')} · ${turns.at(-1).right ? 'right' : 'WRONG'}${t.problems.length ? ` · ${t.problems.join('; ')}` : ''}`,
      );
    }
    const converted = (await readResource(w.base, id, 'docs', doc.uri)).contents[0];
    for (const [i, q] of doc.questions.entries()) turns[i].cutAt = windowCut(converted.text, q.expect);
    if (env.BENCH_DOCS_DUMP)
      writeFileSync(
        `${env.BENCH_DOCS_DUMP}/${key}-${model}.json`,
        JSON.stringify(
          requests.map((r) => r.body),
          null,
          1,
        ),
      );
    const tools = [...new Set(requests.flatMap((r) => (r.body.tools ?? []).map((t) => t.name).filter(Boolean)))];
    return { turns, requests, plan, converted, tools, serverReads: (server.reads()[doc.uri] ?? 0) - readsBefore };
  } finally {
    await w.stop();
  }
}

// ---- pricing ----------------------------------------------------------------------------------------

/** One-request-per-turn bodies with `prompt` as the cached system prompt: priced at the cheaper lifetime, and uncached. */
function pastedBills(model, prompt, run) {
  const qa = run.turns.map((t) => ({ question: t.question, answer: t.answer }));
  const startOf = (i) => run.requests.find((r) => r.turn === i)?.at ?? 0;
  const timed = (bodies) => bodies.map((body, i) => ({ body, at: startOf(i), turn: i, step: { text: qa[i].answer } }));
  const anthropic = providerOf(model) === 'anthropic';
  const bodies = (ttl, cache = true) =>
    anthropic ? pasteAnthropic(prompt, qa, { cache, model, ttl }) : pasteOpenAI(prompt, qa, { model, ttl });
  const cached = ttlsOf(model)
    .map((ttl) => ({ ttl, ...bill(model, timed(bodies(ttl))) }))
    .sort((a, b) => a.usd - b.usd)[0];
  const uncached = bill(model, timed(bodies(undefined, false)), { cache: false });
  return { cached, uncached };
}

/**
 * The document as the provider bills it natively, as text of the same token count: each PDF page's text followed by
 * a run of " x" (one o200k token each) as long as the page image's tokens; other formats, the converted text.
 */
function nativeDocument(doc, provider, convertedText) {
  const rule = NATIVE[provider];
  if (!rule.formats.has(doc.format)) return undefined;
  if (doc.format !== 'pdf') return convertedText;
  return doc.pages.map((lines) => `${lines.join('\n')}\n${' x'.repeat(rule.pageImageTokens)}`).join('\n');
}

function priceRun(key, model, run) {
  const doc = documentByKey(key);
  const text = run.converted.text;
  const asResource = (t) => [{ uri: doc.uri, title: doc.title, mimeType: 'text/markdown', text: t }];
  const ours = bill(model, run.requests);
  const paste = pastedBills(model, pastePrompt(asResource(text), 'docs'), run);
  const nativeText = nativeDocument(doc, providerOf(model), text);
  const native =
    nativeText === undefined ? undefined : pastedBills(model, pastePrompt(asResource(nativeText), 'docs'), run);
  return {
    ours: { ...ours, right: run.turns.filter((t) => t.right).length, tripsPerTurn: ours.requests / run.turns.length },
    paste,
    native,
    nativeDocTokens: nativeText === undefined ? undefined : tokens(nativeText),
    textTokens: tokens(text),
  };
}

// ---- the main Worker's bundle -----------------------------------------------------------------------

/** The main Worker before the converter work (the parent of the first commit touching converter/ or src/documents/) and now. */
function bundles(after) {
  const first = git('log', '--reverse', '--format=%H', '--', 'converter', 'src/documents').split('\n')[0];
  const rev = env.BENCH_DOCS_BEFORE ?? (first ? `${first}^` : 'HEAD');
  const before = snapshot(rev);
  try {
    const size = bundleSize(before.dir);
    if (size.error) throw new Error(`the main Worker at ${before.label} does not build:\n${size.error}`);
    return {
      before: { rev: before.label, ...size },
      after: { rev: tree.label, ...after },
      converter: bundleSize(tree.dir, 'converter/wrangler.toml'),
    };
  } finally {
    before.remove();
  }
}

// ---- the report ---------------------------------------------------------------------------------------

const fmt = (x, d = 0) =>
  Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a';
const usd = (x) => (!Number.isFinite(x) ? 'n/a' : x < 0.1 ? `$${x.toFixed(4)}` : `$${x.toFixed(3)}`);
const ratio = (x) => (!Number.isFinite(x) ? 'n/a' : x >= 10 ? `${fmt(x, 0)}×` : `${fmt(x, 2)}×`);
const kb = (x) => (x >= 1e6 ? `${fmt(x / 1e6, 2)} MB` : `${fmt(x / 1000, 1)} KB`);
const ktok = (x) => (x >= 10_000 ? `${fmt(x / 1000, 0)}k` : fmt(x));
const LABEL = {
  pdf: 'PDF handbook, 40 pages',
  docx: 'DOCX guide, 12 pages',
  xlsx: 'XLSX workbook, 5 sheets',
  html: 'HTML page, 2 MB',
};
const PARTS = { pdf: 'page', docx: 'page', xlsx: 'sheet' };

function costTable(r) {
  const rows = r.runs.map((x) => {
    const { ours, paste, native } = x.priced;
    const over = (b) => (b && b.maxInput > PRICES[x.model].contextTokens ? ' †' : '');
    return `| ${LABEL[x.key]} · ${kb(x.textChars)} of text | ${PRICES[x.model].label} | **${usd(ours.usd)}** · ${ktok(ours.input)} in (${fmt((100 * ours.cached) / Math.max(1, ours.input))} % cached) | ${ours.right}/${x.turns.length} | ${fmt(ours.tripsPerTurn, 2)} | ${usd(paste.cached.usd)}${over(paste.cached)} · ${ktok(paste.cached.input)} | ${native ? `${usd(native.cached.usd)}${over(native.cached)} · ${ktok(native.cached.input)}` : 'n/a'} | ${native ? `${usd(native.uncached.usd)}${over(native.uncached)}` : 'n/a'} | ${native ? `${ratio(native.cached.usd / ours.usd)} / ${ratio(native.uncached.usd / ours.usd)}` : 'n/a'} | ${ratio(paste.cached.usd / ours.usd)} | ${x.serverReads} |`;
  });
  return `| document | model | ours: $ · input tokens | right | model requests per turn | paste, cached: $ · input tokens | native, cached: $ · input tokens | native, uncached | native / ours (cached / uncached) | paste / ours | conversions (server reads) |
|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}`;
}

function cpuTable(r) {
  const rows = r.cpu.map((c) => {
    const per = (ms) => (PARTS[c.key] ? ` (${fmt(ms / c.pages, 1)} per ${PARTS[c.key]})` : '');
    return `| ${LABEL[c.key]} | ${kb(c.bytes)} → ${kb(c.textChars)} of text | ${fmt(c.coldMs)} ms${per(c.coldMs)} | ${fmt(c.warmMs)} ms${per(c.warmMs)}, ${fmt(c.warmSpread[0])}–${fmt(c.warmSpread[1])} | ${fmt(c.cachedMs, 1)} ms | ${fmt(c.warmMs - c.cachedMs)} ms${per(c.warmMs - c.cachedMs)} | ${c.serverReads} for ${c.reads} reads |`;
  });
  return `| document | size | read that converts, cold | read that converts, warm (median of ${WARM}, range) | read from the cache (median of ${CACHED}) | conversion alone, warm (difference) | conversions |
|---|---|---|---|---|---|---|
${rows.join('\n')}`;
}

function targets(r) {
  const lines = [];
  const check = (label, rows) => {
    if (!rows.length) return lines.push(`- ${label}: not measured in this run.`);
    const missed = rows.filter((x) => !x.ok);
    lines.push(
      `- ${label}: ${missed.length ? `**missed** on ${missed.map((x) => x.where).join(', ')} (met on ${rows.length - missed.length} of ${rows.length})` : `**met** on all ${rows.length}`}.`,
    );
  };
  const where = (x) => `${LABEL[x.key]} × ${PRICES[x.model].label}`;
  const big = r.runs.filter((x) => (documentByKey(x.key).pageCount ?? 0) >= 20 && x.priced.native);
  check(
    'ours ≤ 1/10 of native from 20 pages up, native cached as well as the provider allows',
    big.map((x) => ({ where: where(x), ok: 10 * x.priced.ours.usd <= x.priced.native.cached.usd })),
  );
  check(
    'ours ≤ 1/10 of native from 20 pages up, native re-sent uncached every turn',
    big.map((x) => ({ where: where(x), ok: 10 * x.priced.ours.usd <= x.priced.native.uncached.usd })),
  );
  check(
    'ours ≤ paste from 50 KB of text up',
    r.runs
      .filter((x) => x.textChars >= 50_000)
      .map((x) => ({ where: where(x), ok: x.priced.ours.usd <= x.priced.paste.cached.usd })),
  );
  check(
    'every answer right',
    r.runs.map((x) => ({
      where: `${where(x)} (${x.priced.ours.right}/${x.turns.length})`,
      ok: x.priced.ours.right === x.turns.length,
    })),
  );
  check(
    'conversion ≤ 30 ms CPU per PDF page (the whole read that converts, warm and cold)',
    r.cpu
      .filter((c) => c.key === 'pdf')
      .flatMap((c) => [
        { where: `cold ${fmt(c.coldMs / c.pages, 1)} ms`, ok: c.coldMs / c.pages <= 30 },
        { where: `warm ${fmt(c.warmMs / c.pages, 1)} ms`, ok: c.warmMs / c.pages <= 30 },
      ]),
  );
  check('repeated reads convert nothing (one server read per document and run)', [
    ...r.cpu.map((c) => ({ where: `${LABEL[c.key]}: ${c.serverReads} for ${c.reads} reads`, ok: c.serverReads === 1 })),
    ...r.runs.map((x) => ({ where: `${where(x)}: ${x.serverReads} in 12 turns`, ok: x.serverReads === 1 })),
  ]);
  return lines.join('\n');
}

function render(r, m) {
  const cards = [...new Set(r.runs.map((x) => x.model))].map((k) => {
    const p = PRICES[k];
    return `${p.label} input $${p.input}, cache read $${p.cacheRead}${p.cacheWrite ? `, cache write $${p.cacheWrite}` : ', writes free'}, output $${p.output}`;
  });
  const b = r.bundles;
  // Wrong answers, one entry per question, with the models that got it wrong.
  const wrongBy = new Map();
  for (const x of r.runs)
    for (const t of x.turns.filter((t) => !t.right)) {
      const key = `${LABEL[x.key]}, page ${t.page}: "${t.question}"${t.cutAt ? ` (its line is cut by the read window boundary at character ${fmt(t.cutAt)})` : ''} → "${t.answer.slice(0, 70)}"`;
      wrongBy.set(key, [...(wrongBy.get(key) ?? []), PRICES[x.model].label]);
    }
  const wrong = [...wrongBy].map(([what, models]) => `${what}, with ${models.join(', ')}`);
  const offerBy = new Map();
  for (const x of r.runs) {
    const what = `${LABEL[x.key]}: ${x.inlined ? 'inlined in the system prompt by the cost planner' : x.tools.filter((t) => /resource/.test(t)).join(', ') || 'no reading tools'}`;
    offerBy.set(what, [...(offerBy.get(what) ?? []), PRICES[x.model].label]);
  }
  const offers = [...offerBy].map(([what, models]) => `${what} (${models.join(', ')})`);
  const natives = [
    ...new Map(
      r.runs
        .filter((x) => x.priced.native && x.key === 'pdf')
        .map((x) => [
          providerOf(x.model),
          `${providerOf(x.model) === 'anthropic' ? 'Anthropic' : 'OpenAI'} ${fmt(x.priced.nativeDocTokens)} tokens (${fmt(x.priced.nativeDocTokens / documentByKey('pdf').pageCount)} a page)`,
        ]),
    ).values(),
  ];
  const pdfText = r.runs.find((x) => x.key === 'pdf')?.priced.textTokens;
  // A document the model could only page through: search_resource is offered when the catalog marks a text resource
  // long (src/prompt/system-prompt.ts, isTextMime), which a PDF's line never is.
  const unsearched = [
    ...new Set(
      r.runs
        .filter((x) => !x.inlined && !x.tools.includes('search_resource') && x.priced.ours.tripsPerTurn > 2)
        .map((x) => LABEL[x.key]),
    ),
  ];
  return `## Documents: twelve questions about one document — native file input, pasted text, or read on demand

Command: \`npm run bench:docs\` (bench/docs.mjs) · ${machineLine(m)} · run took ${fmt(r.wallMs / 1000)} s

A corpus the bench makes itself (bench/lib/docs-corpus.mjs): a 40-page PDF handbook (text layer, Helvetica), a
12-page DOCX (headings, page breaks, four tables), a 5-sheet XLSX and a 2 MB HTML page (a fifth of it text; the rest
markup, icons and a hydration script), each with twelve questions answered from one page, table row or sheet row,
served by an MCP server as blobs with their MIME types and sizes (bench/lib/docs-server.mjs). **Ours**: one
12-question conversation per model and document through the real service under \`wrangler dev\` with the converter
Worker beside it (fresh state per run), the fake model searching the document (\`search_resource\` names the page),
reading the window it points at and quoting the fact; every request body as sent, priced from its tokens under the
provider's cache rules (bench/lib/pricing.mjs; o200k_base, for Claude an estimate). **Paste**: the converted text as the
service made it, in a cached system prompt, one request per turn with the same questions and answers, the cheaper
lifetime. **Native**: the same bodies with the document as the provider bills a file input — Anthropic (PDF support
page, "Estimate your costs"): each page's text plus a page image at the vision rule, 1,534 tokens for a letter page
at the largest size (the page says 1,500–3,000 tokens a page); DOCX, XLSX and HTML are not document blocks there
(n/a: a host converts them, which is the paste column). OpenAI (File inputs guide): a PDF's text and page images
(765 tokens a page image at high detail, the tile rule; assumed for every OpenAI card), DOCX and HTML text only,
XLSX up to 1,000 rows a sheet (its model-written summary not counted). Pages as stored here, read 2026-12-07 (no live
page could be fetched). Native **cached**: the document in the cached prefix (the cheaper lifetime); **uncached**: re-sent
and billed in full on every turn. ${natives.length ? `The PDF natively: ${natives.join('; ')}, against ${fmt(pdfText)} for its converted text.` : ''}
Prices, USD per million tokens (src/config/price-cards.ts): ${cards.join('; ')}.

${r.runs.length ? costTable(r) : '(conversations not run)'}

${r.runs.some((x) => x.priced.native?.cached.maxInput > PRICES[x.model].contextTokens || x.priced.paste.cached.maxInput > PRICES[x.model].contextTokens) ? "† over the model's context window: the provider would refuse these requests; priced as if they fit.\n" : ''}
**Conversion CPU** — workerd CPU under \`wrangler dev\` (/proc schedstat; the main Worker and the converter run in
the same workerd, so this is the whole read: the MCP read, the RPC to the converter, the conversion, the cache
writes). Cold: the first read after start (the converter's isolate and its parser's first run); warm: reads of new
copies of the document (new URIs, each converted); cached: the first document read again, served from the
conversation's cache (converts nothing). Conversions are the reads that reached the MCP server.

${r.cpu.length ? cpuTable(r) : '(not run)'}

${b ? `**The main Worker's bundle** (\`wrangler deploy --dry-run\`, as wrangler prints it): before the converter work (${b.before.rev}) ${fmt(b.before.kib, 1)} KiB, **${fmt(b.before.gzipKib, 1)} KiB gzipped**; now (${b.after.rev}) ${fmt(b.after.kib, 1)} KiB, **${fmt(b.after.gzipKib, 1)} KiB gzipped** (${b.after.gzipKib >= b.before.gzipKib ? '+' : ''}${fmt((100 * (b.after.gzipKib - b.before.gzipKib)) / b.before.gzipKib, 1)} %; issue 44 allows 5 %). The converter Worker on its own: ${fmt(b.converter.kib, 1)} KiB, ${fmt(b.converter.gzipKib, 1)} KiB gzipped.` : ''}

**Targets** (issue 44):
${targets(r)}
${offers.length ? `\nWhat the service offered the model: ${offers.join('; ')}.` : ''}${unsearched.length ? ` **${unsearched.join(', ')}: \`search_resource\` was not offered** (it is offered when the catalog holds a long text resource, and \`isTextMime\` does not count a PDF as text — the OOXML types match its /xml/), so the model pages through the document one 24,000-character window after another (${fmt(Math.max(...r.runs.filter((x) => unsearched.includes(LABEL[x.key])).map((x) => x.priced.ours.tripsPerTurn)), 2)} requests a turn).` : ''}
${wrong.length ? `\nWrong answers: ${wrong.join('; ')}.` : ''}
`;
}

// ---- main -------------------------------------------------------------------------------------------

const m = machine();
let result;
if (env.BENCH_DOCS_FROM) {
  const line = readFileSync(env.BENCH_DOCS_FROM, 'utf8').match(/^BENCH_RESULT docs (\{.*\})$/m);
  if (!line) throw new Error(`no BENCH_RESULT docs line in ${env.BENCH_DOCS_FROM}`);
  result = JSON.parse(line[1]);
  m.date = result.measured;
} else {
  const started = performance.now();
  // A copy of the tree that builds: others' edits in progress may not, for a while.
  let after;
  for (let attempt = 1; ; attempt++) {
    tree = snapshot();
    after = bundleSize(tree.dir);
    if (!after.error) break;
    tree.remove();
    if (attempt === 10) throw new Error(`the working tree does not build:\n${after.error}`);
    console.log(`docs: the working tree does not build (attempt ${attempt}); trying again in 30 s`);
    await sleep(30_000);
  }
  console.log(`docs: running ${tree.label} from ${tree.dir}`);
  const server = await startDocsServer({ port: PORT + 3, copies: WARM });
  const fake = await startFakeModel({ port: PORT + 2, decide: createReaderPolicy(), keepBodies: true });
  const cpu = [];
  const runs = [];
  try {
    if (ONLY !== 'cost')
      for (const key of DOCS) {
        console.log(`docs: conversion CPU, ${key} …`);
        cpu.push(await conversionCpu(server, key));
        console.log(`  ${JSON.stringify(cpu.at(-1))}`);
      }
    if (ONLY !== 'cpu')
      for (const key of DOCS)
        for (const model of MODELS) {
          console.log(`docs: ${key} × ${model} …`);
          const run = await conversation(fake, server, key, model);
          runs.push({
            key,
            model,
            textChars: run.converted.text.length,
            serverReads: run.serverReads,
            tools: run.tools,
            inlined: run.plan?.inlined?.length ?? 0,
            turns: run.turns.map(({ answer, ...t }) => ({ ...t, answer: answer.slice(0, 200) })),
            priced: priceRun(key, model, run),
          });
        }
    const bundle = ONLY === 'cpu' || env.BENCH_DOCS_BUNDLE === '0' ? undefined : bundles(after);
    result = { measured: m.date, cpu, runs, bundles: bundle, wallMs: Math.round(performance.now() - started) };
  } finally {
    await fake.close();
    await server.close();
    tree.remove();
  }
  console.log(`BENCH_RESULT docs ${JSON.stringify(result)}`);
}
const section = render(result, m);
console.log(`\n${section}`);
const failed = result.runs.some((x) => x.turns.some((t) => t.problems.length));
if (WRITE && failed) console.error('docs: some turns failed (see above); BENCHMARKS.md left as it was');
else if (WRITE) writeSection('BENCHMARKS.md', 'bench-docs', section);
process.exit(failed ? 1 : 0);
