// Tool-choice benchmark: past MCP_TOOLS_TOKEN_BUDGET, can the model reach the tool a turn needs, and does the tools
// array (the first segment of the provider's cached prefix) hold still? Four eight-turn conversations over a
// 48-tool catalog of six servers (bench/lib/tool-catalog.mjs), each turn with the tool it needs and the words a
// model would search for it with. Two policies, the same ranking code (src/tools/, bundled with esbuild):
//
// - before (up to 2026-12-05): the tools most relevant to the last three user messages offered, re-chosen every
//   turn; search_tools' finds (top 8 of every tool) added to the array from the next step;
// - now: the tools most relevant to the opening message offered for the whole conversation; search_tools (top 5
//   of the hidden ones, close matches only) loads what it finds without touching the array (tool-offer.ts).
//
// What is measured is reachability, not the model's judgement (offline, no model chooses): a turn is "direct"
// when the needed tool is offered, "one search" when the search for its words returns it, "missed" otherwise.
// Array changes: turns (and steps) at which the tools array sent differs from the previous request's — each one
// re-writes the whole cached prefix.
//
//   npm run bench:tools
//   TOOLS_WRITE=0 npm run bench:tools     # print only
import { build } from 'esbuild';
import { TOOL_CATALOG, TOOL_CONVERSATIONS } from './lib/tool-catalog.mjs';
import { machine, machineLine, writeSection } from './lib/report.mjs';

const WRITE = process.env.TOOLS_WRITE !== '0';
const entry = `
export { toolOffer } from './src/tools/tool-offer';
export { searchTools } from './src/tools/synthetic/search-tools';
export { relevanceOf } from './src/tools/tool-entries';
export { terms } from './src/prompt/relevance';
export { estimateTokens } from './src/prompt/tokens';
`;
const bundle = await build({
  stdin: { contents: entry, resolveDir: process.cwd(), loader: 'ts' },
  bundle: true,
  format: 'esm',
  platform: 'node',
  write: false,
  logLevel: 'silent',
});
const code = bundle.outputFiles[0].text;
const { toolOffer, searchTools, relevanceOf, terms, estimateTokens } = await import(
  `data:text/javascript;base64,${Buffer.from(code).toString('base64')}`
);

// The entries as src/tools/mcp-tools.ts makes them.
const entries = TOOL_CATALOG.map(({ server, tool }) => {
  const name = `${server}__${tool.name}`;
  const description = `[server ${server}] ${tool.name}: ${tool.description}`;
  return {
    name,
    server,
    description: tool.description,
    cost: estimateTokens(`${name}${description}${JSON.stringify(tool.inputSchema)}`),
    definition: { description, parameters: tool.inputSchema },
  };
});
const catalogTokens = entries.reduce((sum, e) => sum + e.cost, 0);

/** The search as it was: the top 8 of every tool with any relevance. */
const searchBefore = (query) =>
  entries
    .map((e) => ({ e, r: relevanceOf(terms(query), e) }))
    .filter((f) => f.r > 0)
    .sort((a, b) => b.r - a.r)
    .slice(0, 8)
    .map((f) => f.e.name);

async function searchNow(query, offer) {
  const tool = searchTools.create({ mcpTools: { entries, tools: {}, offer } });
  const output = await tool.execute({ query }, { toolCallId: 'bench', messages: [] });
  return output.tools.map((t) => t.name);
}

async function run(budget) {
  const totals = {
    before: { direct: 0, searched: 0, missed: 0, changes: 0 },
    now: { direct: 0, searched: 0, missed: 0, changes: 0 },
  };
  for (const conversation of TOOL_CONVERSATIONS) {
    const opening = toolOffer(entries, conversation[0][0], budget, 'anthropic');
    let previousBefore;
    /** Now: tools a search of this conversation loaded stay loaded (the result is in the history). */
    const loaded = new Set();
    for (let turn = 0; turn < conversation.length; turn++) {
      const [, needed, query] = conversation[turn];
      const recent = conversation
        .slice(Math.max(0, turn - 2), turn + 1)
        .map(([text]) => text)
        .join(' ');
      // Before: re-chosen by the recent messages; a find joins the array at the next step (one more change).
      const offeredBefore = [...toolOffer(entries, recent, budget, undefined).offered].sort().join();
      if (previousBefore !== undefined && offeredBefore !== previousBefore) totals.before.changes++;
      previousBefore = offeredBefore;
      if (offeredBefore.split(',').includes(needed)) totals.before.direct++;
      else if (searchBefore(query).includes(needed)) {
        totals.before.searched++;
        totals.before.changes++;
      } else totals.before.missed++;
      // Now: the opening message's choice holds; a find is loaded, the array untouched.
      if (opening.offered.has(needed) || loaded.has(needed)) totals.now.direct++;
      else {
        const found = await searchNow(query, opening);
        for (const name of found) loaded.add(name);
        if (found.includes(needed)) totals.now.searched++;
        else totals.now.missed++;
      }
    }
  }
  return totals;
}

const turns = TOOL_CONVERSATIONS.reduce((sum, c) => sum + c.length, 0);
const budgets = [6_000, 2_000, 1_000];
const rows = [];
for (const budget of budgets) {
  const t = await run(budget);
  for (const [policy, r] of Object.entries(t)) {
    const reached = r.direct + r.searched;
    const trips = (r.direct * 1 + r.searched * 2) / Math.max(1, reached);
    rows.push(
      `| ${budget.toLocaleString('en-US')} | ${policy} | ${r.direct} | ${r.searched} | ${r.missed} | ${((reached / turns) * 100).toFixed(0)} % | ${trips.toFixed(2)} | ${r.changes} |`,
    );
  }
}
const m = machine();
const section = `## Tool choice past the tool budget

Command: \`npm run bench:tools\` · ${machineLine(m)}

${TOOL_CONVERSATIONS.length} conversations × ${TOOL_CONVERSATIONS[0].length} turns over a ${entries.length}-tool catalog of six servers (bench/lib/tool-catalog.mjs, about ${catalogTokens.toLocaleString('en-US')} tokens of definitions), each turn needing one tool. **before**: the tools most relevant to the last three messages, re-chosen every turn, finds added to the array; **now**: chosen by the opening message for the whole conversation, finds loaded without touching the array and kept for the rest of the conversation (Anthropic \`tool_reference\`, OpenAI \`additional_tools\`, otherwise \`call_tool\`). Reachability, not the model's judgement: *direct* — the tool is offered; *one search* — searching the turn's words returns it; *trips* — model requests to reach it (1 direct, 2 through a search); *array changes* — requests whose tools array differs from the one before, each re-writing the whole cached prefix.

| MCP_TOOLS_TOKEN_BUDGET | policy | direct | one search | missed | reached | trips per reached turn | array changes |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Under a budget the catalog fits, the two are the same. Past it, *before* re-wrote the whole cached prefix at most turns (a write costs 1.25× the input price of everything from the tools on, against 0.1× for a cached read); *now* never does, and pays for it with a search step on the turns whose tool the opening message did not predict (a cached re-read of the conversation plus the few definitions found). Both reach every tool; which one the model then picks is not measured here.
`;
console.log(section);
if (WRITE) writeSection('BENCHMARKS.md', 'tool-choice', section);
