// Skills in bytes and dollars: one skill of ten per turn. The team handbook
// of bench/lib/skills-corpus.mjs (ten skills through the SDK's skills
// extension, five documents; bench/lib/skills-server.mjs) behind the real
// service under `wrangler dev`, the fake model (bench/lib/fake-model.mjs)
// deciding with bench/lib/skills-policy.mjs: load_skill the best-matching
// skill line, answer if the fact is in its SKILL.md, else read_resource the
// file the skill points to, then answer. Six turns, each needing a different
// skill (three facts in a SKILL.md, three in a file), through the real
// provider packages: Anthropic Messages (`MODEL=anthropic:claude-sonnet-4-5`,
// cache breakpoints on) and OpenAI Responses (`MODEL=openai:gpt-4.1`). Every
// request body is priced as bench/cost.mjs prices them (bench/lib/pricing.mjs:
// tokens, each provider's cache rules, list prices), side by side with a
// pasting host: every skill's SKILL.md and files (and the five documents) in
// the system prompt, the same questions and answers.
//
//   npm run bench:skills
//   SKILLS_COST_WRITE=0 npm run bench:skills          # BENCHMARKS.md left alone
//   SKILLS_COST_DOCS=0 npm run bench:skills            # the skills alone, no documents (a check: BENCHMARKS.md left alone)
//   SKILLS_COST_VARS='{"INLINE_CORPUS_CHARS":"0"}' npm run bench:skills   # other settings (a check too)
//   SKILLS_COST_FROM=run.log npm run bench:skills     # re-render a saved run's BENCH_RESULT line
//
// Ports (127.0.0.1): wrangler dev SKILLS_COST_PORT (8860), its inspector +1,
// the fake model +2, the skills MCP server +3. Each run starts its own
// wrangler with fresh state (a cold cache).
import { readFileSync } from 'node:fs';
import { createConversation, runTurn } from './lib/client.mjs';
import { startFakeModel } from './lib/fake-model.mjs';
import {
  anthropicBlocks,
  anthropicUsage,
  dollars,
  openaiUsage,
  outputTokens,
  pasteAnthropic,
  pasteOpenAI,
  pastePrompt,
  PRICES,
  tokens,
} from './lib/pricing.mjs';
import { createReaderPolicy } from './lib/reader-policy.mjs';
import { machine, machineLine, writeSection } from './lib/report.mjs';
import { COST_TURNS, SERVER_ID, skillUri, TEAM_DOCS, TEAM_SKILLS } from './lib/skills-corpus.mjs';
import { createSkillsPolicy } from './lib/skills-policy.mjs';
import { startSkillsServer } from './lib/skills-server.mjs';
import { NO_LIMITS, startWrangler } from './lib/stack.mjs';

const PORT = Number(process.env.SKILLS_COST_PORT ?? 8860);
const WRITE = process.env.SKILLS_COST_WRITE !== '0';
const DOCS = process.env.SKILLS_COST_DOCS !== '0';

/** One run per provider, with the service's default settings: the wire format it must use, the model its bodies are priced for, its vars. */
const RUNS = {
  anthropic: {
    api: 'messages',
    model: 'claude-sonnet-4-5',
    vars: (fake) => ({
      MODEL: 'anthropic:claude-sonnet-4-5',
      ANTHROPIC_BASE_URL: fake.baseUrl,
      ANTHROPIC_API_KEY: 'bench-key',
    }),
  },
  openai: {
    api: 'responses',
    model: 'gpt-4.1',
    vars: (fake) => ({ MODEL: 'openai:gpt-4.1', OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: 'bench-key' }),
  },
};

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const bytesOf = (body) => Buffer.byteLength(JSON.stringify(body));

/** A Responses body with its `item_reference`s replaced by the items the fake streamed (billed as input like any other). */
function resolved(body, fake) {
  if (!Array.isArray(body.input)) return body;
  return {
    ...body,
    input: body.input.map((entry) => (entry.type === 'item_reference' ? (fake.item(entry.id) ?? entry) : entry)),
  };
}

/** The six turns in one conversation under a fresh `wrangler dev`: each turn and every model request. */
async function conversation(fake, server, run) {
  const w = await startWrangler({
    port: PORT,
    inspectorPort: PORT + 1,
    vars: {
      MCP_SERVERS: JSON.stringify([{ id: SERVER_ID, url: server.url }]),
      AUTH_DISABLED: 'true',
      ALLOW_PRIVATE_MCP_URLS: 'true',
      ...NO_LIMITS,
      // SKILLS_COST_VARS='{"INLINE_CORPUS_CHARS":"0"}': compare settings side by side.
      ...JSON.parse(process.env.SKILLS_COST_VARS ?? '{}'),
      ...RUNS[run].vars(fake),
    },
  });
  fake.reset();
  const turns = [];
  const requests = [];
  try {
    const id = await createConversation(w.base);
    for (const q of COST_TURNS) {
      const from = fake.requests.length;
      const t = await runTurn(w.base, id, q.text);
      const mine = fake.requests.slice(from);
      for (const r of mine)
        if (r.api !== RUNS[run].api)
          throw new Error(`${run}: the service called the ${r.api} API, not ${RUNS[run].api}`);
      for (const r of mine)
        requests.push({
          turn: turns.length,
          at: r.at,
          step: r.step,
          bytes: r.bytes,
          body: r.api === 'responses' ? resolved(r.body, fake) : r.body,
        });
      const calls = mine.map((r) =>
        'toolCalls' in r.step
          ? r.step.toolCalls.map((c) => `${c.name}(${c.args.name ?? c.args.uri})`).join('+')
          : 'answer',
      );
      const skill = TEAM_SKILLS.find((s) => s.name === q.skill);
      turns.push({
        question: q.text,
        skill: q.skill,
        factIn: skill.fact.file,
        expect: q.expect,
        answer: t.answer.slice(0, 300),
        correct: t.answer.includes(q.expect),
        calls,
        bytes: sum(mine.map((r) => r.bytes)),
        problems: t.problems,
      });
      console.log(
        `  ${run} turn ${turns.length}: ${calls.join(' → ')} · ${turns.at(-1).correct ? 'right' : 'WRONG'}${t.problems.length ? ` · ${t.problems.join('; ')}` : ''}`,
      );
    }
  } finally {
    await w.stop();
  }
  return { turns, requests };
}

/** The tools a request offers the model (Messages `tools[].name`, Responses `tools[].name`). */
const offeredTools = (body) => (body.tools ?? []).map((t) => t.name ?? t.function?.name);

/** Per request: tokens (input, cached, written, uncached, output) under the model's cache rules, and its dollars. */
function priced(model, requests) {
  const p = PRICES[model];
  const u =
    p.provider === 'anthropic'
      ? anthropicUsage(requests, { minCacheable: p.minCacheable })
      : openaiUsage(requests, { minTokens: p.minCacheable });
  return u.map((x, i) => {
    const withOutput = { ...x, output: outputTokens(requests[i].step) };
    return { ...withOutput, turn: requests[i].turn, usd: dollars(withOutput, p) };
  });
}

/** Our run and the pasting host's, per turn: bytes sent, requests, tokens, dollars. */
function compare(run, ours) {
  const model = RUNS[run].model;
  const p = PRICES[model];
  const docs = [
    ...TEAM_SKILLS.flatMap((s) =>
      Object.entries(s.files).map(([path, text]) => ({
        uri: skillUri(s.name, path),
        title: `${s.name}/${path}`,
        mimeType: 'text/markdown',
        text,
      })),
    ),
    ...(DOCS ? TEAM_DOCS : []),
  ];
  const prompt = pastePrompt(docs, SERVER_ID);
  const qa = ours.turns.map((t) => ({ question: t.question, answer: t.answer }));
  const bodies =
    p.provider === 'anthropic'
      ? pasteAnthropic(prompt, qa, { cache: true, model })
      : pasteOpenAI(prompt, qa, { model });
  // The pasting host sends one request per turn, when our turn started, and streams the same answer.
  const startOf = (i) => ours.requests.find((r) => r.turn === i)?.at ?? 0;
  const paste = bodies.map((body, i) => ({
    body,
    at: startOf(i),
    turn: i,
    step: { text: qa[i].answer },
    bytes: bytesOf(body),
  }));
  const side = (requests) => {
    const u = priced(model, requests);
    return ours.turns.map((_, i) => {
      const mine = u.filter((x) => x.turn === i);
      return {
        requests: mine.length,
        bytes: sum(requests.filter((r) => r.turn === i).map((r) => r.bytes)),
        input: sum(mine.map((x) => x.input)),
        cached: sum(mine.map((x) => x.cached)),
        output: sum(mine.map((x) => x.output)),
        usd: sum(mine.map((x) => x.usd)),
      };
    });
  };
  // Each of our requests (what the cache did with it), and the tools + system prompt every request starts with.
  const detail = priced(model, ours.requests).map(({ turn, input, cached, written, output, usd }, i) => {
    const step = ours.requests[i].step;
    return {
      turn,
      call: 'toolCalls' in step ? step.toolCalls.map((c) => c.name).join('+') : 'answer',
      input,
      cached,
      written,
      output,
      usd,
    };
  });
  const prefix =
    p.provider === 'anthropic'
      ? (anthropicBlocks(ours.requests[0].body).findLast((b) => b.part !== 'messages')?.end ?? 0)
      : undefined;
  return {
    run,
    model,
    pasteBytes: Buffer.byteLength(prompt),
    pasteTokens: tokens(prompt),
    ours: side(ours.requests),
    paste: side(paste),
    detail,
    prefix,
  };
}

// ---- the report ----------------------------------------------------------------------------

const fmt = (x, d = 0) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const usd = (x) => (x < 0.1 ? `$${x.toFixed(4)}` : `$${x.toFixed(3)}`);
const kb = (x) => `${fmt(x / 1000, 1)} KB`;
const code = (x) => `\`${x}\``;
const total = (rows, k) => sum(rows.map((r) => r[k]));

function render(r, m) {
  const a = r.runs.anthropic;
  const summary = r.compared.map((c) => {
    const n = c.ours.length;
    const right = r.runs[c.run].turns.filter((t) => t.correct).length;
    const ours = total(c.ours, 'usd');
    const paste = total(c.paste, 'usd');
    return `| ${PRICES[c.model].label} | **${kb(total(c.ours, 'bytes') / n)}** | ${kb(total(c.paste, 'bytes') / n)} | ${fmt(total(c.ours, 'input') / n)} (${fmt((100 * total(c.ours, 'cached')) / total(c.ours, 'input'))} % cached) | ${fmt(total(c.paste, 'input') / n)} (${fmt((100 * total(c.paste, 'cached')) / total(c.paste, 'input'))} % cached) | **${usd(ours / n)}** / **${usd(ours)}** | ${usd(paste / n)} / ${usd(paste)} | ${fmt(paste / ours, 2)}× | ${right}/${n} |`;
  });
  const sonnet = r.compared.find((c) => c.run === 'anthropic');
  const perTurn = a.turns.map((t, i) => {
    const o = sonnet.ours[i];
    const p = sonnet.paste[i];
    return `| ${i + 1} | ${t.question} | ${t.skill} (${t.factIn}) | ${t.calls.join(' → ')} | ${kb(o.bytes)} | ${kb(p.bytes)} | ${fmt(o.input)} / ${fmt(p.input)} | ${usd(o.usd)} | ${usd(p.usd)} | ${t.correct ? 'right' : 'wrong'} |`;
  });
  const skillBytes = sum(TEAM_SKILLS.flatMap((s) => Object.values(s.files).map((t) => Buffer.byteLength(t))));
  const docBytes = sum(TEAM_DOCS.map((d) => d.size));
  /** "12 % fewer" / "3 % more": ours against the paste. */
  const versus = (ours, paste) => `${fmt(Math.abs(100 * (1 - ours / paste)))} % ${ours <= paste ? 'fewer' : 'more'}`;
  const notes = r.compared.map((c) => {
    const n = c.ours.length;
    const [ours, paste] = [total(c.ours, 'usd'), total(c.paste, 'usd')];
    const share = (rows) => `${fmt((100 * total(rows, 'cached')) / total(rows, 'input'))} %`;
    return `${PRICES[c.model].label}: ${paste < ours ? `**pasting (cached) is cheaper**, ${fmt((100 * (ours - paste)) / ours)} % less than ours` : `**ours is cheaper**, ${fmt((100 * (paste - ours)) / paste)} % less than pasting (cached)`}. Ours sends ${versus(total(c.ours, 'input'), total(c.paste, 'input'))} input tokens
and ${versus(total(c.ours, 'bytes'), total(c.paste, 'bytes'))} bytes per turn, over ${fmt(total(c.ours, 'requests') / n, 1)} model round trips (load, maybe read, answer) against one, with ${share(c.ours)} of its tokens cached against ${share(c.paste)}`;
  });
  const zero = sonnet.detail.filter((x) => x.cached === 0);
  const minimum = PRICES['claude-sonnet-4-5'].minCacheable;
  const why = `Why: the pasted handbook is one system prompt of ${fmt(sonnet.pasteTokens)} tokens that never changes, read from the cache at a tenth
of the input price (Anthropic; a quarter for gpt-4.1) from the second turn on. Ours starts every request with its tools and system prompt
(${fmt(sonnet.prefix)} tokens${sonnet.prefix < minimum ? `, under Anthropic's ${fmt(minimum)}-token minimum cacheable prefix` : ''}; ${zero.length} of its ${sonnet.detail.length} requests read nothing from the cache${zero.length ? `, in turn${new Set(zero.map((x) => x.turn)).size > 1 ? 's' : ''} ${[...new Set(zero.map((x) => x.turn + 1))].join(', ')}` : ''}), and a loaded SKILL.md
or a read file is sent whole only in its own turn (read elision makes it a one-line note from the next turn on), so the cache
never keeps it and every step of that turn pays for it again. Ten skills of ${kb(skillBytes)} are small enough to paste; the pasted
prompt grows with every skill while ours does not (100 skills would paste about ten times as much: "Skills: catalog tokens per
skill" above).`;
  const wrong = Object.entries(r.runs).flatMap(([run, x]) =>
    x.turns
      .filter((t) => !t.correct)
      .map((t) => `${run}: "${t.question}" → ${t.calls.join(' → ')}: "${t.answer.slice(0, 100)}"`),
  );
  return `## Skills: one skill of ten, in bytes and dollars

Command: \`npm run bench:skills\` (bench/skills-cost.mjs) · ${machineLine(m)}

A team handbook MCP server (bench/lib/skills-server.mjs: SDK v2, the skills extension over \`memorySkillFiles\`) with ten
skills — each a SKILL.md of 1.0–2.2 KB and at most one other file, ${kb(skillBytes)} in all, each holding one fact a question
needs — ${r.docs ? `and five short documents (${fmt(docBytes)} bytes), ` : 'and nothing else, '}behind the real service under \`wrangler dev\` (fresh state per run,
${r.vars && Object.keys(r.vars).length ? `settings ${code(JSON.stringify(r.vars))}, the rest default` : 'default settings'}: ${r.docs ? `the documents ${a.docsInlined ? 'go in the system prompt whole (all of them fit INLINE_CORPUS_CHARS)' : 'are listed in the catalog'}, ` : ''}the model is offered ${a.offered.map(code).join(', ')}).
One conversation of ${a.turns.length} turns, each needing a different skill: three answered from the SKILL.md, three from the file it points to.
The fake model (bench/lib/skills-policy.mjs, over reader-policy.mjs) calls load_skill on the skill line sharing most words
with the question, answers when the fact is in what it got, else reads with read_resource the file of the skill's files
note that the question and the SKILL.md point to, then answers quoting the fact ("right": the answer holds it). Requests reach the fake
through the real provider packages and are priced as in "What a conversation costs" (bench/lib/pricing.mjs: o200k tokens — an
estimate for Claude —, Anthropic's breakpoints and 5-minute cache, OpenAI's automatic prefix cache, list prices). **Paste**:
one request per turn with every skill's SKILL.md and files${r.docs ? ' and the five documents' : ''} in the system prompt
(${kb(r.compared[0].pasteBytes)}), the conversation so far with the same answers, no tools; cached as a well-configured host
would (Anthropic: breakpoints on the system prompt and the last message; OpenAI: automatic).

| model | ours: bytes per turn | paste: bytes per turn | ours: input tokens per turn | paste: input tokens per turn | **ours: $ per turn / conversation** | paste: $ per turn / conversation | paste / ours | right (ours) |
|---|---|---|---|---|---|---|---|---|
${summary.join('\n')}

${notes.map((x) => `- ${x}.`).join('\n')}

${why}

Per turn, Claude Sonnet 4.5 (bytes: the request bodies as sent, all model round trips of the turn; tokens: ours / paste):

| turn | question | skill (fact in) | model calls | ours: bytes | paste: bytes | input tokens | ours: $ | paste: $ | ours |
|---|---|---|---|---|---|---|---|---|---|
${perTurn.join('\n')}

<details><summary>Claude Sonnet 4.5, ours, per request (tokens; tools + system prompt: ${fmt(sonnet.prefix)})</summary>

| turn | call | input | cache reads | cache writes | output | $ |
|---|---|---|---|---|---|---|
${sonnet.detail.map((x) => `| ${x.turn + 1} | ${x.call} | ${fmt(x.input)} | ${fmt(x.cached)} | ${fmt(x.written)} | ${fmt(x.output)} | ${usd(x.usd)} |`).join('\n')}

</details>

Methods the skills server answered over the ${Object.keys(r.runs).length} runs: ${Object.entries(r.methods)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}.${wrong.length ? `\n\nWrong answers: ${wrong.join('; ')}.` : ''}

`;
}

// ---- main ----------------------------------------------------------------------------------

const m = machine();
let result;
if (process.env.SKILLS_COST_FROM) {
  const line = readFileSync(process.env.SKILLS_COST_FROM, 'utf8').match(/^BENCH_RESULT skills-cost (\{.*\})$/m);
  if (!line) throw new Error(`no BENCH_RESULT skills-cost line in ${process.env.SKILLS_COST_FROM}`);
  result = JSON.parse(line[1]);
  m.date = result.measured;
} else {
  const fake = await startFakeModel({
    port: PORT + 2,
    decide: createSkillsPolicy(createReaderPolicy()),
    keepBodies: true,
  });
  let server;
  try {
    server = await startSkillsServer({ port: PORT + 3, docs: DOCS });
    const runs = {};
    const compared = [];
    for (const run of Object.keys(RUNS)) {
      console.log(`skills-cost: ${run} …`);
      const ours = await conversation(fake, server, run);
      compared.push(compare(run, ours));
      const first = ours.requests[0].body;
      runs[run] = {
        turns: ours.turns,
        offered: [...new Set(ours.requests.flatMap((r) => offeredTools(r.body)))],
        // A document in the system prompt (whole) rather than a catalog line.
        docsInlined: JSON.stringify(first.system ?? first.input?.[0] ?? '').includes(`uri=\\"${TEAM_DOCS[0].uri}\\"`),
      };
    }
    result = {
      measured: m.date,
      docs: DOCS,
      vars: JSON.parse(process.env.SKILLS_COST_VARS ?? '{}'),
      runs,
      compared,
      methods: server.methods(),
    };
  } finally {
    await fake.close();
    await server?.close();
  }
  console.log(`BENCH_RESULT skills-cost ${JSON.stringify(result)}`);
}
const section = render(result, m);
console.log(`\n${section}`);
const failed = Object.values(result.runs).some((x) => x.turns.some((t) => t.problems.length));
// A turn that failed has no requests to price: its row would read as free.
if (WRITE && failed) console.error('skills-cost: some turns failed (see above); BENCHMARKS.md left as it was');
else if (WRITE && (!result.docs || Object.keys(result.vars).length))
  console.error(
    'skills-cost: SKILLS_COST_DOCS / SKILLS_COST_VARS make it a check, not the benchmark; BENCHMARKS.md left as it was',
  );
else if (WRITE) writeSection('BENCHMARKS.md', 'bench-skills-cost', section);
process.exit(failed ? 1 : 0);
