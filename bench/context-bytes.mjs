// Context-bytes benchmark: how many bytes the service sends to the model,
// against pasting the documents. For each corpus (10 KB, 50 KB, 500 KB,
// 5 MB; bench/lib/corpora.mjs) a 6-turn conversation runs through the real
// service under `wrangler dev`, with a fake OpenAI-compatible model
// (bench/lib/reader-policy.mjs) that records the bytes of every request body
// (system prompt + messages + tool definitions, all steps of a turn). The
// same questions and answers are then serialised as a pasting host would
// send them: (i) every document in the system prompt, (ii) the first 2,000
// characters of each. Then one turn reads the 5 MB log from start to end.
//
//   npm run bench:bytes
//   BYTES_CORPORA=10k,50k BYTES_FULL_READ=0 npm run bench:bytes   # a quick check
//   BYTES_FROM=run.log npm run bench:bytes                        # re-render a saved run's BENCH_RESULT line
//   (bench/results/context-bytes-baseline.log: the first run, before the loop's byte-saving changes)
//
// Ports (127.0.0.1): wrangler dev BYTES_PORT (8800), its inspector +1, the
// fake model +2, the corpus MCP server +3. BYTES_FULL_READ_CAP_MB (600)
// stops the full read once its turn has sent that much (today's loop resends
// every window at every step: quadratic, about 545 MB in ~40 s here); the
// rest is then extrapolated from the growth per step (a cap of 48 MB stops
// it after 62 reads and extrapolates 545.1 MB against 545.2 MB measured).
import { readFileSync } from 'node:fs';
import { createConversation, runTurn } from './lib/client.mjs';
import { corpus, CORPUS_NAMES } from './lib/corpora.mjs';
import { startCorpusServer } from './lib/corpus-server.mjs';
import { startFakeModel } from './lib/fake-model.mjs';
import { createReaderPolicy } from './lib/reader-policy.mjs';
import { machine, machineLine, writeSection } from './lib/report.mjs';
import { startWrangler, NO_LIMITS } from './lib/stack.mjs';

const NAMES = (process.env.BYTES_CORPORA ?? CORPUS_NAMES.join(',')).split(',');
const FULL_READ = process.env.BYTES_FULL_READ !== '0' && NAMES.includes('5m');
const PORT = Number(process.env.BYTES_PORT ?? 8800);
const CAP_BYTES = Number(process.env.BYTES_FULL_READ_CAP_MB ?? 600) * 1e6;
const FULL_MAX_STEPS = Number(process.env.BYTES_FULL_READ_MAX_STEPS ?? 400);
const WINDOW = 24_000; // READ_WINDOW_CHARS (default): for the full read's extrapolation
const PASTE_PREFIX = 2_000;
const WRITE = process.env.BYTES_WRITE !== '0';

const sum = (xs) => xs.reduce((a, b) => a + b, 0);

/** The service under wrangler dev for one corpus, with the fake model and `extra` vars. */
function vars(fake, server, name, extra = {}) {
  return {
    MODEL: 'openai-compatible:fake',
    OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
    MCP_SERVERS: JSON.stringify([{ id: 'corpus', url: server.url(name) }]),
    AUTH_DISABLED: 'true',
    ALLOW_PRIVATE_MCP_URLS: 'true',
    ...NO_LIMITS,
    // BYTES_VARS='{"INLINE_CORPUS_CHARS":"0"}': compare settings side by side.
    ...JSON.parse(process.env.BYTES_VARS ?? '{}'),
    ...extra,
  };
}

/** One turn: the bytes of each model request it made, which tools were called, the answer and whether it is right. */
/**
 * Where a request's bytes go: tool definitions, the system prompt, tool
 * results of this turn and of earlier turns, the rest (questions, answers,
 * tool calls, JSON). Summed over the requests of the current turn.
 */
let parts = {};
const size = (x) => Buffer.byteLength(JSON.stringify(x ?? ''));
function addParts(body, bytes) {
  const messages = body.messages ?? [];
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  const p = {
    tools: size(body.tools ?? []),
    system: sum(messages.filter((m) => m.role === 'system').map((m) => size(m.content))),
  };
  p.readsThisTurn = sum(messages.filter((m, i) => m.role === 'tool' && i > lastUser).map((m) => size(m.content)));
  p.readsEarlierTurns = sum(messages.filter((m, i) => m.role === 'tool' && i < lastUser).map((m) => size(m.content)));
  p.rest = bytes - p.tools - p.system - p.readsThisTurn - p.readsEarlierTurns;
  for (const [k, v] of Object.entries(p)) parts[k] = (parts[k] ?? 0) + v;
}

async function turn(base, id, fake, q) {
  fake.reset();
  parts = {};
  const t = await runTurn(base, id, q.text);
  const requests = fake.requests.map((r) => ({
    bytes: r.bytes,
    did: 'toolCalls' in r.step ? r.step.toolCalls.map((c) => c.name).join('+') : 'answer',
  }));
  return {
    question: q.text,
    uri: q.uri,
    expect: q.expect,
    answer: t.answer,
    correct: t.answer.includes(q.expect),
    requestBytes: requests.map((r) => r.bytes),
    calls: requests.map((r) => r.did),
    bytes: sum(requests.map((r) => r.bytes)),
    parts,
    ms: Math.round(t.ms),
    problems: t.problems,
  };
}

/**
 * A pasting host's request bodies, one per turn: the documents (whole, or
 * their first `limit` characters) in the system prompt, the conversation so
 * far with the same answers, no tools; as OpenAI chat request JSON.
 */
function pasted(c, turns, limit) {
  const docs = c.docs.map(
    (d) =>
      `<resource uri="${d.uri}" title="${d.title}" mime="${d.mimeType}">\n${limit ? d.text.slice(0, limit) : d.text}\n</resource>`,
  );
  const messages = [
    {
      role: 'system',
      content: `You are a helpful assistant. Answer from these documents of the server "corpus":\n\n${docs.join('\n\n')}`,
    },
  ];
  const bytes = [];
  for (const t of turns) {
    messages.push({ role: 'user', content: t.question });
    bytes.push(Buffer.byteLength(JSON.stringify({ model: 'fake', messages, stream: true })));
    messages.push({ role: 'assistant', content: t.answer });
  }
  return bytes;
}

async function corpusRun(fake, server, name) {
  const c = corpus(name);
  const started = performance.now();
  const w = await startWrangler({ port: PORT, inspectorPort: PORT + 1, vars: vars(fake, server, name) });
  const turns = [];
  try {
    const id = await createConversation(w.base);
    for (const q of c.questions) {
      const t = await turn(w.base, id, fake, q);
      console.log(
        `  ${name} turn ${turns.length + 1}: ${callsText(t.calls)} · ${t.bytes} B · ${t.correct ? 'right' : 'WRONG'}${t.problems.length ? ` · ${t.problems.join('; ')}` : ''}`,
      );
      turns.push(t);
    }
  } finally {
    await w.stop();
  }
  const paste = pasted(c, turns);
  const prefix = pasted(c, turns, PASTE_PREFIX);
  const docOf = (t) => c.docs.find((d) => d.uri === t.uri);
  return {
    name,
    title: c.title,
    docs: c.docs.length,
    corpusBytes: sum(c.docs.map((d) => d.size)),
    turns: turns.map((t, i) => ({
      ...t,
      paste: paste[i],
      prefix: prefix[i],
      prefixHasFact: docOf(t).text.indexOf(t.expect) >= 0 && docOf(t).text.indexOf(t.expect) < PASTE_PREFIX,
    })),
    prefixDroppedChars: sum(c.docs.map((d) => Math.max(0, d.text.length - PASTE_PREFIX))),
    wallMs: Math.round(performance.now() - started),
  };
}

/** One turn reading the 5 MB log to its end; if the cap stopped it, the rest is extrapolated from the measured growth per step. */
async function fullReadRun(fake, server) {
  const c = corpus('5m');
  const doc = c.docs.find((d) => d.uri === c.fullRead.uri);
  const started = performance.now();
  const w = await startWrangler({
    port: PORT,
    inspectorPort: PORT + 1,
    vars: vars(fake, server, '5m', {
      MAX_STEPS: String(FULL_MAX_STEPS),
      MAX_RESOURCE_BYTES_PER_TURN: String(64 * 1024 * 1024),
    }),
  });
  let t;
  try {
    t = await turn(w.base, await createConversation(w.base), fake, c.fullRead);
  } finally {
    await w.stop();
  }
  const ys = t.requestBytes;
  const n = ys.length;
  // Least squares over the request sizes: bytes of request k ≈ a + b·k.
  const mx = (n - 1) / 2;
  const my = sum(ys) / n;
  const b = n > 1 ? sum(ys.map((y, k) => (k - mx) * (y - my))) / sum(ys.map((_, k) => (k - mx) ** 2)) : 0;
  const a = my - b * mx;
  const windows = Math.ceil(doc.text.length / WINDOW);
  const extrapolated = t.correct ? t.bytes : Math.round(sum(Array.from({ length: windows + 1 }, (_, k) => a + b * k)));
  console.log(
    `  full read: ${t.calls.filter((x) => x === 'read_resource').length} reads · ${t.bytes} B · ${t.correct ? 'reached the end' : 'stopped'}`,
  );
  const { requestBytes, answer, ...rest } = t;
  return {
    ...rest,
    answer: answer.slice(0, 300),
    requests: n,
    reads: t.calls.filter((x) => x === 'read_resource').length,
    windows,
    docBytes: doc.size,
    docChars: doc.text.length,
    firstRequest: ys[0],
    lastRequest: ys.at(-1),
    growthPerStep: Math.round(b),
    extrapolatedBytes: extrapolated,
    capBytes: CAP_BYTES,
    maxSteps: FULL_MAX_STEPS,
    wallMs: Math.round(performance.now() - started),
  };
}

const fmt = (x, d = 0) =>
  Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a';
const kb = (x) => (x >= 1e6 ? `${fmt(x / 1e6, 2)} MB` : `${fmt(x / 1000, 1)} KB`);
const met = (ok) => (ok ? '**met**' : '**missed**');

function targets(r) {
  const over = r.corpora
    .flatMap((c) => c.turns.map((t, i) => ({ c: c.name, i, t })).filter(({ t }) => t.bytes > t.paste))
    .map(({ c, i }) => `${c} turn ${i + 1}`);
  const c50 = r.corpora.find((c) => c.name === '50k');
  const ratio50 = c50 ? sum(c50.turns.map((t) => t.paste)) / sum(c50.turns.map((t) => t.bytes)) : NaN;
  const full = r.fullRead ? r.fullRead.extrapolatedBytes / r.fullRead.docBytes : NaN;
  return {
    neverAbovePaste: { met: over.length === 0, over },
    fiftyKbRatio: { met: ratio50 >= 3, ratio: ratio50 },
    fullReadRatio: { met: full <= 2, ratio: full, measured: !!r.fullRead?.correct },
  };
}

/** "read_resource ×6 → answer": runs of the same call counted. */
const callsText = (calls) =>
  calls
    .reduce((out, c) => {
      if (out.at(-1)?.c === c) out.at(-1).n++;
      else out.push({ c, n: 1 });
      return out;
    }, [])
    .map(({ c, n }) => (n > 1 ? `${c} ×${n}` : c))
    .join(' → ');

function perTurnTable(c) {
  const rows = c.turns.map(
    (t, i) =>
      `| ${i + 1} | ${t.question} | ${callsText(t.calls)} | ${kb(t.bytes)} | ${kb(t.paste)} | ${kb(t.prefix)}${t.prefixHasFact ? '' : ' (fact cut)'} | ${fmt(t.paste / t.bytes, 1)}× | ${t.correct ? 'yes' : `**no**: "${t.answer.slice(0, 80)}"`} |`,
  );
  return `| turn | question | model calls (ours) | ours | paste all | paste first 2,000 | paste / ours | right? |\n|---|---|---|---|---|---|---|---|\n${rows.join('\n')}`;
}

/** "tools 20 %, system 10 %, …" over some turns. */
function breakdown(turns) {
  const total = sum(turns.map((t) => t.bytes));
  const names = {
    tools: 'tool definitions',
    system: 'system prompt',
    readsThisTurn: "this turn's reads",
    readsEarlierTurns: "earlier turns' reads",
    rest: 'the rest',
  };
  return Object.entries(names)
    .map(([k, label]) => `${label} ${fmt((100 * sum(turns.map((t) => t.parts?.[k] ?? 0))) / total)} %`)
    .join(', ');
}

function render(r, m) {
  const tg = targets(r);
  const rows = r.corpora.map((c) => {
    const ours = sum(c.turns.map((t) => t.bytes));
    const paste = sum(c.turns.map((t) => t.paste));
    const prefix = sum(c.turns.map((t) => t.prefix));
    return `| ${c.title} | ${c.docs} · ${kb(c.corpusBytes)} | ${kb(ours / c.turns.length)} | ${kb(ours)} | ${sum(c.turns.map((t) => t.calls.length))} | ${kb(paste)} | **${fmt(paste / ours, 1)}×** | ${kb(prefix)} (drops ${fmt(c.prefixDroppedChars)} chars; has ${c.turns.filter((t) => t.prefixHasFact).length}/6 facts) | ${c.turns.filter((t) => t.correct).length}/6 |`;
  });
  const f = r.fullRead;
  const fullText = f
    ? `One turn asks "${f.question}" (MAX_STEPS = ${f.maxSteps}, MAX_RESOURCE_BYTES_PER_TURN = 64 MiB). The log is ${kb(f.docBytes)} (${fmt(f.docChars)} characters, ${f.windows} read windows of ${fmt(WINDOW)}).
${
  f.correct
    ? `The model read it to the end in ${f.reads} reads (${f.requests} model calls, ${fmt(f.ms / 1000, 0)} s) and was sent **${kb(f.bytes)}** in all: **${fmt(f.bytes / f.docBytes, f.bytes / f.docBytes < 10 ? 2 : 0)}×** the document.`
    : `The benchmark's cap (${kb(f.capBytes)} sent in the turn, BYTES_FULL_READ_CAP_MB) stopped the model after ${f.reads} reads (${f.requests} model calls, ${kb(f.bytes)} measured, ${fmt(f.ms / 1000, 0)} s): it did not reach the end.
Extrapolated to all ${f.windows} windows (a + b·k summed over ${f.windows + 1} calls): **${kb(f.extrapolatedBytes)}**, **${fmt(f.extrapolatedBytes / f.docBytes, 0)}×** the document.`
}
Requests grew by **${kb(f.growthPerStep)} per step** on average (least squares; first ${kb(f.firstRequest)}, last ${kb(f.lastRequest)})${f.growthPerStep > WINDOW / 2 ? ': every window read earlier in the turn is sent again at every step, so the cost grows with the square of the document' : ''}.
Pasting the whole corpus would be one request of ${kb(r.corpora.find((c) => c.name === '5m')?.turns[0].paste ?? NaN)}.`
    : 'Not run (BYTES_FULL_READ=0).';
  const c50 = r.corpora.find((c) => c.name === '50k');
  const others = r.corpora
    .filter((c) => c !== c50)
    .map((c) => `<details><summary>${c.title}: per turn</summary>\n\n${perTurnTable(c)}\n\n</details>`);
  return `## Context bytes: what the model is sent, against pasting the documents

Command: \`npm run bench:bytes\` (bench/context-bytes.mjs) · ${machineLine(m)} · run took ${fmt(r.wallMs / 1000, 0)} s

The real service under \`wrangler dev\` (fresh state per corpus) with one MCP server (SDK v2, Node, bench/lib/corpus-server.mjs)
serving a generated corpus (bench/lib/corpora.mjs: seeded filler with distinctive facts at chosen places), and a fake
OpenAI-compatible model (bench/lib/reader-policy.mjs) that picks a document from the catalog by word overlap (or
list_resources when the catalog hides entries; search_resource first for a long document when offered), reads it
(following continuations while the fact is not found, within MAX_STEPS = 8), and answers by quoting the sentence that
holds the fact; it answers without a tool when the fact is already in what it was sent. **Ours** = the bytes of every
request body the model received (system prompt, messages and tool definitions), summed over all steps of a turn. Six
turns per corpus; turns 4 and 6 ask about the documents of turns 1 and 2 again. **Paste all** = one request per turn
with every document in the system prompt, the conversation so far and the same answers, no tools (OpenAI chat JSON);
**paste first 2,000** = the same with each document cut to its first 2,000 characters (it drops most of the corpus and
often the fact). "Right" = the answer contains the fact.

| corpus | docs · size | ours, mean per turn | ours, 6 turns | model calls | paste all, 6 turns | paste / ours | paste first 2,000, 6 turns | right |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Where ours goes (all turns): ${r.corpora.map((c) => `${c.name}: ${breakdown(c.turns)}`).join(' · ')}.

Offered to the model: ${[...new Set(r.corpora.flatMap((c) => c.offered?.tools ?? []))].map((t) => `\`${t}\``).join(', ')}; documents inlined in the system prompt: ${
    r.corpora
      .filter((c) => c.offered?.inlined)
      .map((c) => c.name)
      .join(', ') || 'none'
  }.

${c50 ? `Per turn, 50 KB corpus:\n\n${perTurnTable(c50)}\n` : ''}
${others.join('\n\n')}

### Full read of the 5 MB log

${fullText}

### Targets

- Ours never above pasting everything, any turn of any corpus: ${met(tg.neverAbovePaste.met)}${tg.neverAbovePaste.over.length ? ` (above on ${tg.neverAbovePaste.over.join(', ')})` : ''}
- At least 3× less than pasting on the 50 KB corpus: ${met(tg.fiftyKbRatio.met)} (${fmt(tg.fiftyKbRatio.ratio, 1)}×)
- Full read of the 5 MB log at most 2× the document: ${met(tg.fullReadRatio.met)} (${fmt(tg.fullReadRatio.ratio, tg.fullReadRatio.ratio < 10 ? 2 : 0)}×${tg.fullReadRatio.measured ? '' : ', extrapolated'})
`;
}

const m = machine();
let result;
let offered = { tools: new Set(), inlined: false };
if (process.env.BYTES_FROM) {
  const line = readFileSync(process.env.BYTES_FROM, 'utf8').match(/^BENCH_RESULT context-bytes (\{.*\})$/m);
  if (!line) throw new Error(`no BENCH_RESULT context-bytes line in ${process.env.BYTES_FROM}`);
  result = JSON.parse(line[1]);
  if (result.measured) m.date = result.measured;
} else {
  const started = performance.now();
  const policy = createReaderPolicy({ fullReadByteCap: CAP_BYTES, windowChars: WINDOW });
  // What the service offered the model (tools; documents inlined in the system prompt), to tell runs of different versions apart.
  const decide = (body, request) => {
    for (const t of body.tools ?? []) offered.tools.add(t.function?.name ?? t.name);
    if (
      body.messages?.some(
        (m) => m.role === 'system' && /<resource\s[^>]*\buri="/.test(typeof m.content === 'string' ? m.content : ''),
      )
    )
      offered.inlined = true;
    addParts(body, request.bytes);
    return policy(body, request);
  };
  const fake = await startFakeModel({ port: PORT + 2, decide, keepBodies: false });
  const server = await startCorpusServer({ port: PORT + 3, names: NAMES });
  try {
    const corpora = [];
    for (const name of NAMES) {
      console.log(`context-bytes: corpus ${name} …`);
      offered = { tools: new Set(), inlined: false };
      const run = await corpusRun(fake, server, name);
      corpora.push({ ...run, offered: { tools: [...offered.tools].sort(), inlined: offered.inlined } });
    }
    let fullRead;
    if (FULL_READ) {
      console.log('context-bytes: full read of the 5 MB log …');
      fullRead = await fullReadRun(fake, server);
    }
    result = { measured: m.date, corpora, fullRead, wallMs: Math.round(performance.now() - started) };
  } finally {
    await fake.close();
    await server.close();
  }
  result.targets = targets(result);
  console.log(`BENCH_RESULT context-bytes ${JSON.stringify(result)}`);
}
const section = render(result, m);
console.log(`\n${section}`);
if (WRITE) writeSection('BENCHMARKS.md', 'bench-bytes', section);
process.exit(result.corpora.some((c) => c.turns.some((t) => t.problems.length)) ? 1 : 0);
