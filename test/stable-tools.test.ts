import { runInDurableObject } from 'cloudflare:test';
import { asSchema, type UIMessageChunk } from 'ai';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import { mcpTools } from '../src/tools/mcp-tools';
import { SYNTHETIC_TOOL_NAMES } from '../src/tools/synthetic';
import { conversationStub, createConversation } from './helpers/api';
import { turnIn } from './helpers/conversation';
import { buildSessions } from './helpers/sessions';
import { userMessage } from './helpers/turns';

/*
 * The tools array is the first segment of the provider's cached prefix: within a conversation it must be the same
 * bytes at every request, or every request after the change writes the whole prefix again. Issue 43 (item 8) saw one
 * conversation in eleven, past MCP_TOOLS_TOKEN_BUDGET with server-everything, send two arrays with the same names and
 * different content. What was found to vary, and is fixed: a tool's schema came in two byte strings depending on the
 * era its list was read in (tools/tool-arguments.ts modelSchema). The repeated conversation below guards the rest.
 */

const fake = inject('fakeModelUrl');
const as = (tenant: string) => ({ authorization: `Bearer test-key-${tenant}`, 'x-end-user': 'alice' });
/** The JSON of a value with every `cache_control` taken out (the marks move from request to request by design). */
const unmarked = (value: unknown) => JSON.stringify(value, (key, v) => (key === 'cache_control' ? undefined : v));

beforeEach(async () => {
  await fetch(`${fake}/__reset`, { method: 'POST' });
});

describe('one definition, one byte string', () => {
  it('a tool listed in the 2026 era and in the 2025 era is given to the model the same, arguments in the server’s order', async () => {
    const id = await createConversation();
    await runInDurableObject(await conversationStub(id), async (_instance, state) => {
      // The demo server, listed once in each era (as after a server upgrade, or a tenant's shared copy made in the other).
      const { sessions, settings } = buildSessions(
        state.storage,
        [
          { id: 'modern', url: '/demo/mcp', protocol: '2026-07-28', trustAnnotations: true },
          { id: 'legacy', url: '/demo/mcp', protocol: '2025-11-25', trustAnnotations: true },
        ],
        {},
        `eras:${id}`,
      );
      try {
        const listed = [await sessions.ensureServer('modern'), await sessions.ensureServer('legacy')];
        const createTask = (tools: (typeof listed)[0]['tools']) => tools.find((t) => t.name === 'create_task')!;
        // The lists differ as the SDK hands them over (2026 keeps the server's key order; the 2025 parse does not).
        expect(JSON.stringify(createTask(listed[0]!.tools))).not.toBe(JSON.stringify(createTask(listed[1]!.tools)));
        const sent = await Promise.all(
          listed.map(async (server) => {
            // As one server of one conversation: only the era its list was read in differs.
            const { tools, entries } = mcpTools(
              { sessions, states: [{ ...server, id: 'demo' }], configs: [], settings, acceptsImages: false },
              SYNTHETIC_TOOL_NAMES,
            );
            // What the AI SDK hands the provider (prepareTools): name, description, the schema's JSON.
            const definitions = await Promise.all(
              Object.entries(tools).map(async ([name, t]) => ({
                name,
                description: t.description,
                inputSchema: await asSchema(t.inputSchema).jsonSchema,
              })),
            );
            return {
              definitions: JSON.stringify(definitions),
              found: JSON.stringify(entries.map((e) => e.definition)),
            };
          }),
        );
        expect(sent[1]!.definitions).toBe(sent[0]!.definitions);
        // search_tools' result (and OpenAI's additional_tools) carry the same definitions: the same there too.
        expect(sent[1]!.found).toBe(sent[0]!.found);
        const createTaskSchema = (
          JSON.parse(sent[0]!.definitions) as Array<{ name: string; inputSchema: object }>
        ).find((d) => d.name === 'demo__create_task')!.inputSchema as { properties: object };
        expect(Object.keys(createTaskSchema.properties)).toEqual(['title', 'assignee', 'estimateHours']);
      } finally {
        await sessions.release();
      }
    });
  });
});

describe('the tools array holds for a whole conversation, past MCP_TOOLS_TOKEN_BUDGET', () => {
  /** Four turns: a read, a search and a call, an echo, another search; the sessions let go (idle) after the second. */
  const QUESTIONS = [
    'What do the team guidelines say about owners?',
    'Find a tool to list the tasks',
    'Please echo hello back to me',
    'Find a tool to complete a task',
  ];
  const RUNS = 12;

  it(`${RUNS} conversations of four turns with server-everything (Anthropic: deferred tools): one tools array each`, async () => {
    const arraysPerRun: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      await fetch(`${fake}/__reset`, { method: 'POST' });
      const id = await createConversation(as('claude-everything'));
      for (const [turn, question] of QUESTIONS.entries()) {
        await runInDurableObject(await conversationStub(id), async (instance) => {
          // The conversation went idle after two turns: its sessions are let go, and the next turn starts from its
          // stored catalogs (or the tenant's shared copies) and connects again — lists read another way than the first.
          if (turn === 2) await instance.parts.live.release();
          const live = await turnIn(instance, [userMessage(question)], instance.parts.terms.model(), {
            MCP_TOOLS_TOKEN_BUDGET: 120,
          });
          const reader = live.reader().getReader();
          const seen: UIMessageChunk[] = [];
          for (let r = await reader.read(); !r.done; r = await reader.read()) seen.push(r.value);
        });
      }
      const requests = (
        (await (await fetch(`${fake}/__requests`)).json()) as Array<{
          api: string;
          body: { tools?: Array<{ name: string; defer_loading?: boolean }> };
        }>
      ).filter((r) => r.api === 'messages');
      expect(requests.length).toBeGreaterThanOrEqual(QUESTIONS.length);
      // Past the budget: server-everything's tools are declared, most of them deferred.
      const tools = requests[0]!.body.tools!;

      expect(tools.filter((t) => t.name.startsWith('everything__')).length).toBeGreaterThan(5);
      expect(tools.some((t) => t.name.startsWith('everything__') && t.defer_loading)).toBe(true);
      arraysPerRun.push(new Set(requests.map((r) => unmarked(r.body.tools))).size);
    }
    expect(arraysPerRun).toEqual(Array(RUNS).fill(1));
  }, 300_000);
});
