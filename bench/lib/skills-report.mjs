// The BENCHMARKS.md sections of bench/skills.bench.test.ts (its `BENCH_RESULT
// skills` line): catalog tokens per skill, and load_skill against
// read_resource on a skill:// URI. bench/run.mjs writes them after `npm run
// bench` (their own markers, `bench-skills`, so the file can be run alone):
//
//   sh scripts/with-node.sh npx vitest run --config bench/vitest.config.ts bench/skills.bench.test.ts > run.log
//   sh scripts/with-node.sh node bench/lib/skills-report.mjs run.log
import { readFileSync } from 'node:fs';
import { machine, machineLine, writeSection } from './report.mjs';

const fmt = (x, d = 0) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const met = (x) => (x ? 'met' : 'missed');
/** Inline code; text holding a backtick gets a double fence. */
const code = (x) => (x.includes('`') ? `\`\` ${x} \`\`` : `\`${x}\``);
/** "the same", "more", "fewer": how a count compares with another. */
const than = (a, b, more = 'more', fewer = 'fewer') =>
  a === b ? 'the same number of' : a > b ? `${a - b} ${more}` : `${b - a} ${fewer}`;

function catalogSection(r, m) {
  const rows = r.catalog.rows;
  const big = rows.filter((x) => x.hidden > 0);
  const offline = (step) =>
    step.tool ? `calls ${code(`${step.tool} ${JSON.stringify(step.args)}`)}` : 'answers without a tool call';
  return `## Skills: catalog tokens per skill

Command: \`npm run bench\` (bench/skills.bench.test.ts) · tokens counted with gpt-tokenizer (o200k_base) · ${machineLine(m)}

System-prompt tokens for one server with N skills (MCP Skills extension; bench/lib/skills-corpus.mjs: ten team skills —
SKILL.md of 1.0–2.2 KB and at most one other file each — then generated ones, named verb-object, with descriptions of
60–200 characters and the files of a team skill), listed by URI as the SDK lists them. Each skill is one line
(${code(rows[0].sampleLine)}): its description cut at 32 characters, like a resource's. Per line: the prompt with an
unbounded budget minus the same prompt without the skill lines, / N. Catalog tokens: the default budget (CATALOG_TOKEN_BUDGET
1,500) — past it a stable part plus the lines most relevant to the question, sent with it (both counted). Paste: every
skill's SKILL.md and files, each in a ${code('<resource …>')} block, as a pasting host would send them (the base prompt not counted).

| N skills | tokens per skill line | catalog tokens (default budget) | skills shown / hidden | tools offered | paste every SKILL.md + files | pasted bytes |
|---|---|---|---|---|---|---|
${rows.map((x) => `| ${fmt(x.n)} | ${x.tokensPerSkillLine.toFixed(1)} | ${fmt(x.catalogTokens)} | ${x.shown} / ${fmt(x.hidden)} | ${x.offered.join(', ')} | ${fmt(x.pasteTokens)} | ${fmt(x.pasteBytes / 1000, 0)} KB |`).join('\n')}

Targets (those of resources): ≤ 25 tokens per line (${met(rows.every((x) => x.tokensPerSkillLine <= 25))}); a bounded prompt for any N (${met(rows.every((x) => x.catalogTokens < 2_000))}: at most
${fmt(Math.max(...rows.map((x) => x.catalogTokens)))} tokens); list_skills offered once skills are hidden (${met(rows.every((x) => x.offered.includes('list_skills') === x.hidden > 0))}).
${
  big.length
    ? `At N = ${big.map((x) => fmt(x.n)).join(' and ')} the question "${big[0].question}" is for ${code(big[0].target)}, which the
system prompt does not show: it is ${big.every((x) => x.targetSentWithMessage) ? 'among the lines sent with the message' : '**not** among the lines sent with the message'}; the scripted model (bench/lib/skills-policy.mjs)
${big.every((x) => x.scripted?.tool === 'load_skill' && x.scripted.args.name === x.target) ? 'loads it from there' : 'does not load it'}; the offline model ${offline(big[0].offline)}${
        JSON.stringify(big[0].offline) === JSON.stringify(big[0].offlineMixed)
          ? ', also with the five documents beside the skills'
          : `, and with the five documents beside the skills it ${offline(big[0].offlineMixed)}`
      }${big[0].offlineMixed.tool === 'load_skill' ? '' : ' — it reads the lines sent with a message as resource lines only, and a skill line parses as one'}.`
    : ''
}
${
  rows.some((x) => !x.offered.includes('read_resource'))
    ? `For a server with skills and nothing else, read_resource is not offered (the tools column): a skill's other files, which load_skill
tells the model to read with read_resource, cannot be read (see "one skill of ten" below).`
    : ''
}
`;
}

function choiceSection(r, m) {
  const c = r.choice;
  const v = Object.fromEntries(c.variants.map((x) => [x.id, x]));
  const right = (x, who, kind) =>
    x.picks.filter((p) => p[`${who}Verdict`] === 'right' && (kind === 'doc') === p.meant.includes('://')).length;
  const total = (x, who) => right(x, who, 'skill') + right(x, who, 'doc');
  const n = c.questions.skill + c.questions.doc;
  const row = (x) =>
    `| ${x.label} | ${right(x, 'offline', 'skill')}/${c.questions.skill} · ${right(x, 'offline', 'doc')}/${c.questions.doc} | ${right(x, 'scripted', 'skill')}/${c.questions.skill} · ${right(x, 'scripted', 'doc')}/${c.questions.doc} | ${fmt(x.systemTokens)} | ${x.skillLineTokens.toFixed(1)} | ${x.sentenceTokens} | ${fmt(x.toolTokens)} (${x.offered.join(', ')}) | ${x.callTokens.toFixed(1)} |`;
  const firstFile = c.variants.flatMap((x) =>
    x.picks
      .filter(
        (p) => p.scriptedVerdict === 'right skill, a file first' || p.offlineVerdict === 'right skill, a file first',
      )
      .map(() => x),
  );
  const s = v.skills;
  const res = v.resources;
  const fixed = s.systemTokens + s.toolTokens - (res.systemTokens + res.toolTokens);
  const perLine = res.skillLineTokens - s.skillLineTokens;
  const extra = s.toolTokens - res.toolTokens + s.sentenceTokens;
  const samePicks = ['offline', 'scripted'].every((who) => total(s, who) === total(res, who));
  const differing = s.picks.filter(
    (p, i) => p.offlineVerdict !== res.picks[i].offlineVerdict || p.scriptedVerdict !== res.picks[i].scriptedVerdict,
  );
  const uncutGain = ['offline', 'scripted'].map((who) => total(v['skills-uncut'], who) - total(s, who));
  const detail = s.picks.map((p, i) => {
    const show = (x) => (!x ? '—' : x.tool === 'load_skill' ? `load ${x.args.name}` : `read ${x.args.uri}`);
    const mark = (p2, who) => `${show(p2[who])}${p2[`${who}Verdict`] === 'right' ? ' ✓' : ''}`;
    const q = res.picks[i];
    return `| ${p.question} | ${p.meant} | ${mark(p, 'offline')} | ${mark(q, 'offline')} | ${mark(p, 'scripted')} | ${mark(q, 'scripted')} |`;
  });
  return `## Skills: load_skill or read_resource on a skill:// URI

Command: \`npm run bench\` (bench/skills.bench.test.ts) · tokens counted with gpt-tokenizer (o200k_base) · ${machineLine(m)}

The same ten skills and five documents (bench/lib/skills-corpus.mjs) in the real system prompt, presented two ways: as
**skills** (the "Skills (load_skill):" section; load_skill offered) and as **resources** — each SKILL.md a resource line
whose name is the skill's and whose description is its description, no skills section, so the model must read_resource the
${code('skill://…/SKILL.md')} URI (also: with every other file of each skill listed as a resource too). ${n} questions, each meant for
one skill (${c.questions.skill}: per skill one asking for the task, one for its fact) or one document (${c.questions.doc}), written before any run.
Asked of the **offline model** (src/models/offline.ts ${code('decide()')}: it ranks lines by weighted shared words, and loads a skill
that scores at least as well as the best document) and of the **scripted model** (bench/lib/skills-policy.mjs: the line
with the most words in common, the first on a tie, as bench/lib/reader-policy.mjs picks documents). Right: the first call
loads or reads what the question is meant for. "Uncut": the same prompts with every description whole (not what the
service sends: it cuts them at 32 characters). Tokens: the system prompt; of it, each skill's line(s); load_skill's
sentence in the base instruction; the offered tools' definitions (name, description, JSON schema: sent with every request);
the call a right pick emits (tool name + JSON arguments, e.g. ${code(`{"name":"estimate-a-task","server":"team"}`)} against
${code(`{"uri":"skill://estimate-a-task/SKILL.md","server":"team"}`)}).

| presented as | offline: right (skill · doc questions) | scripted: right | system prompt | per skill | load_skill's sentence | tool definitions | call |
|---|---|---|---|---|---|---|---|
${c.variants.map(row).join('\n')}

After the call, both ways the model gets the SKILL.md whole (${c.manifestTokens.toFixed(0)} tokens on average, of which ${c.frontmatterTokens.toFixed(0)} are its
frontmatter: the name and description the catalog line already gave). load_skill adds the list of the skill's other files
(${c.filesNote.mean.toFixed(1)} tokens on average, ${c.filesNote.min}–${c.filesNote.max}: ${code(c.filesNote.sample.replace('\n', ' '))}${c.filesNote.none ? `; a skill without other files still gets ${c.filesNote.none.tokens} tokens saying so, ${code(c.filesNote.none.text)}` : ''}); read_resource gives none: the
SKILL.md names its files relative (${code("`checklist.md` (this skill's file)")}), so the model must build
${code('skill://estimate-a-task/checklist.md')} itself${firstFile.length ? `; with every file listed as a resource, a chooser went to a file first, skipping the SKILL.md, ${firstFile.length}×` : ''}.

**Conclusion.** ${samePicks ? `Neither stand-in picks better one way than the other: the offline model is right ${total(s, 'offline')}/${n} times with load_skill and ${total(res, 'offline')}/${n} with read_resource, the scripted one ${total(s, 'scripted')}/${n} and ${total(res, 'scripted')}/${n}` : `The offline model is right ${than(total(s, 'offline'), total(res, 'offline'))} times with load_skill than with read_resource (${total(s, 'offline')} and ${total(res, 'offline')}/${n}), the scripted one ${than(total(s, 'scripted'), total(res, 'scripted'))} (${total(s, 'scripted')} and ${total(res, 'scripted')}/${n})`}${differing.length ? `; they differ on ${differing.length} question(s): ${differing.map((p) => `"${p.question}"`).join(', ')}` : ', question by question'}.
${samePicks ? 'Why: both rank catalog lines by the words they share with the question, and a skill carries the same words either way — its\nname and its cut description; the URI adds "skill" and "md", which no question uses.' : "Both rank catalog lines by the words they share with the question; the weights differ (the offline model counts a resource's title 3×\nand its URI 2×, a skill's name 3×), which decides the questions listed."} How a real LLM weighs a tool named
for the task against a read of a URI cannot be measured with these; what can be measured is tokens and what the model has
to go on next. load_skill's line is ${perLine.toFixed(1)} tokens shorter per skill (no URI, no type), its call ${(res.callTokens - s.callTokens).toFixed(1)} output tokens shorter, and
only load_skill hands the model the skill's files as URIs; against that, its definition and its sentence add ${extra} tokens
to every request, so this ten-skill prompt costs ${fixed} tokens more per request with load_skill (it evens out from about
${Math.ceil(extra / perLine)} skills shown). Keeping load_skill is therefore a choice for what happens after the pick — the skill
verified and loaded as a whole (SEP-2640's digests and frontmatter), its files named — not for the pick itself.
What did change the picks is the description cut: with descriptions whole (+${(v['skills-uncut'].skillLineTokens - s.skillLineTokens).toFixed(1)} tokens per skill line) the offline model is right
${uncutGain[0]} more time(s) and the scripted one ${uncutGain[1]} more${['offline', 'scripted'].every((who) => total(v['skills-uncut'], who) === total(v['resources-uncut'], who)) ? ', either way presented' : ''}. A skill's description is the
"when to use it" the model decides by; 32 characters (${code(s.sampleLine)}) keep little of it.

<details><summary>Each question's first call (skills · resources, cut descriptions; ✓ right)</summary>

| question | meant for | offline, skills | offline, resources | scripted, skills | scripted, resources |
|---|---|---|---|---|---|
${detail.join('\n')}

</details>
`;
}

export function skillsSections(result, m = machine()) {
  return `${catalogSection(result, m)}\n${choiceSection(result, m)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const line = readFileSync(process.argv[2] ?? '/dev/stdin', 'utf8').match(/BENCH_RESULT skills (\{.*\})/);
  if (!line) throw new Error('no BENCH_RESULT skills line');
  const text = skillsSections(JSON.parse(line[1]));
  writeSection('BENCHMARKS.md', 'bench-skills', text);
  console.log(text);
}
