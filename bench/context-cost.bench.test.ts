import { countTokens } from 'gpt-tokenizer';
import { it } from 'vitest';
import { DEFAULT_GUIDELINES } from '../src/demo/content/guidelines';
import { TEST_MATRIX_MARKDOWN } from '../src/demo/content/test-matrix';
import { buildSystemPrompt } from '../src/prompt/system-prompt';
import { SYNTHETIC_TOOLS } from '../src/tools/synthetic';
import type { ServerState } from '../src/mcp/catalog/catalog';

/**
 * System-prompt tokens (gpt-tokenizer, o200k_base, offline) for a server with
 * N resources: our catalog (budget 1,500 tokens) against the naive host that
 * pastes every resource's content, and the naive host that pastes
 * `content[:2000]` of each (and silently drops the rest).
 *
 * Resources cycle through three real documents: the demo's 12.7 KB test
 * matrix, its 590-byte guidelines, and a 4 KB runbook. Naive prompts for large
 * N are counted per resource and summed (tokenizing 60 MB at once would not fit
 * a Worker's memory; the sum is exact up to a token or two per boundary).
 */
const RUNBOOK = Array.from(
  { length: 40 },
  (_, i) =>
    `Step ${i + 1}: check the service dashboard, confirm the alert, and note the time in the incident log before acting.`,
).join('\n');
const DOCS = [
  { text: TEST_MATRIX_MARKDOWN, topic: 'release test matrix', mime: 'text/markdown' },
  { text: DEFAULT_GUIDELINES, topic: 'team guidelines', mime: 'text/plain' },
  { text: RUNBOOK, topic: 'incident runbook', mime: 'text/markdown' },
];
const QUESTION = 'How do we rotate the database credentials for service 4242?';

function server(n: number): ServerState {
  return {
    id: 'kb',
    status: 'connected',
    skills: [],
    instructions: 'The knowledge base: runbooks, guidelines and test plans. Read a document before answering from it.',
    tools: [],
    resourceTemplates: [],
    prompts: [],
    fetchedAt: {},
    resources: Array.from({ length: n }, (_, i) => {
      const doc = DOCS[i % DOCS.length]!;
      const team = ['platform', 'payments', 'search', 'identity', 'mobile'][i % 5];
      return {
        uri: `kb://docs/${i}`,
        name: `doc-${i}`,
        title: `${doc.topic} for service ${i}`,
        mimeType: doc.mime,
        size: new TextEncoder().encode(doc.text).byteLength,
        description: `Maintained by the ${team} team; reviewed every quarter.`,
      };
    }),
  };
}

const withoutEntries = (prompt: string) =>
  prompt
    .split('\n')
    .filter((line) => !line.startsWith('kb://docs/'))
    .join('\n');

it('context cost: catalog vs naive pasting', () => {
  const base = buildSystemPrompt({
    servers: [server(0)],
    conversationText: QUESTION,
    modelPrompts: () => true,
    settings: { CATALOG_TOKEN_BUDGET: 1_500, INSTRUCTIONS_MAX_CHARS: 4_000, READ_WINDOW_CHARS: 24_000 },
    offerable: SYNTHETIC_TOOLS,
  }).text;
  const baseTokens = countTokens(base);
  const docTokens = DOCS.map((d) => countTokens(d.text));
  const docTokens2000 = DOCS.map((d) => countTokens(d.text.slice(0, 2000)));
  const rows = [];
  for (const n of [10, 100, 1_000, 10_000]) {
    const state = server(n);
    const catalog = buildSystemPrompt({
      servers: [state],
      conversationText: QUESTION,
      modelPrompts: () => true,
      settings: { CATALOG_TOKEN_BUDGET: 1_500, INSTRUCTIONS_MAX_CHARS: 4_000, READ_WINDOW_CHARS: 24_000 },
      offerable: SYNTHETIC_TOOLS,
    });
    const unbounded = buildSystemPrompt({
      servers: [state],
      conversationText: QUESTION,
      modelPrompts: () => true,
      settings: { CATALOG_TOKEN_BUDGET: 1e9, INSTRUCTIONS_MAX_CHARS: 4_000, READ_WINDOW_CHARS: 24_000 },
      offerable: SYNTHETIC_TOOLS,
    });
    let naive = baseTokens;
    let naive2000 = baseTokens;
    let dropped = 0;
    for (const [i, r] of state.resources.entries()) {
      const header = countTokens(`\n## ${r.title} (${r.uri})\n`);
      naive += header + docTokens[i % DOCS.length]!;
      naive2000 += header + docTokens2000[i % DOCS.length]!;
      dropped += Math.max(0, DOCS[i % DOCS.length]!.text.length - 2000);
    }
    rows.push({
      n,
      // The stable prompt plus the entries sent with the message (an over-budget catalog's relevant ones).
      catalogTokens: countTokens(catalog.text) + countTokens(catalog.relevant ?? ''),
      shown: catalog.shown,
      hidden: catalog.hidden,
      // What the entries add: the same prompt with its catalog lines taken out is the base (the base
      // instruction's sentences depend on what the catalog offers, so an empty server's prompt is not it).
      tokensPerEntry: (countTokens(unbounded.text) - countTokens(withoutEntries(unbounded.text))) / n,
      relevantShown: `${catalog.text}\n${catalog.relevant ?? ''}`.includes('kb://docs/4242 '),
      naiveTokens: naive,
      naive2000Tokens: naive2000,
      naive2000DroppedChars: dropped,
    });
  }
  console.log(`BENCH_RESULT context-cost ${JSON.stringify({ question: QUESTION, baseTokens, rows })}`);
});
