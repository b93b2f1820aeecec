/**
 * The client under test for the MCP conformance suite's non-auth client scenarios (scripts/conformance/README.md):
 * the suite runs it as `node dist/conformance-mcp-client.mjs <serverUrl>` with MCP_CONFORMANCE_SCENARIO,
 * MCP_CONFORMANCE_PROTOCOL_VERSION and, for some scenarios, MCP_CONFORMANCE_CONTEXT, then judges the wire.
 *
 * It is the service's own MCP path, not an SDK client: one conversation's `McpSessions` (src/mcp/sessions.ts) with
 * the suite's server as its only server — its ServerLink, McpConnection (era negotiation, lenient results, the
 * transport and its extensions), the catalog (every list, the skills extension), the read path through the resource
 * cache (an in-memory KV and Node's SQLite stand in for Workers KV and the Durable Object's storage:
 * stand-ins/), and the elicitation bridge. What a scenario asks of a client is done the way a turn does it: through
 * the tools a turn gives the model (`mcpTools`, and the synthetic `read_resource`, `invoke_prompt`, `load_skill`),
 * each call validated against its input schema first, as the AI SDK does; a server's question is answered as a
 * person answers the form the widget shows (`checkedAnswer`, src/turn/elicitations.ts).
 */
import process from 'node:process';
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/client';
import type { Tool, ToolSet } from 'ai';
import { InvalidationLog } from '../../src/cache/invalidation-log';
import { kvScopesOf } from '../../src/cache/keys';
import { ResourceCache } from '../../src/cache/resource-cache';
import { McpServersSchema } from '../../src/config/servers';
import { settingsSchema } from '../../src/config/settings';
import type { ServerState } from '../../src/mcp/catalog/catalog';
import { ServerStateStore } from '../../src/mcp/catalog/state-store';
import { McpSessions } from '../../src/mcp/sessions';
import { mcpTools } from '../../src/tools/mcp-tools';
import { syntheticTools } from '../../src/tools/synthetic';
import { checkedAnswer } from '../../src/turn/elicitations';
import { memoryKv } from './stand-ins/kv';
import { sqliteStorage } from './stand-ins/sql';

const SERVER = 'conformance';
const log = (...parts: unknown[]) => console.error('[harness]', ...parts);

interface Harness {
  states: ServerState[];
  /** Calls one of the turn's tools by its model name, as the AI SDK does: input checked, then executed. */
  call(name: string, input: Record<string, unknown>): Promise<unknown>;
  /** The model name of an MCP tool of the suite's server (`conformance__<tool>`), if the turn offers it. */
  toolName(tool: string): string | undefined;
}

/** The person at the form: accepts what the form shows (its defaults filled in, as the widget pre-fills them). */
async function person(_server: string, params: ElicitRequestFormParams): Promise<ElicitResult> {
  log('elicitation:', params.message);
  const content: Record<string, unknown> = /confirm/i.test(params.message) ? { confirmed: true } : {};
  return checkedAnswer(params.requestedSchema, { action: 'accept', content }) as ElicitResult;
}

async function connect(serverUrl: string): Promise<{ sessions: McpSessions; harness: () => Promise<Harness> }> {
  // The service's defaults, as a deployment without settings has them.
  const settings = settingsSchema().parse({});
  const [config] = McpServersSchema.parse([{ id: SERVER, url: serverUrl, transport: 'streamable-http' }]);
  const sql = sqliteStorage();
  const kv = memoryKv();
  const scopes = kvScopesOf({ tenant: 'conformance', user: 'harness' });
  const sessions = new McpSessions({
    servers: [config!],
    // No Worker bindings: the suite's servers need no secrets and are not this Worker's.
    env: {} as never,
    settings,
    store: new ServerStateStore(sql),
    cache: new ResourceCache(
      kv,
      new InvalidationLog(sql, settings.CACHE_MAX_AGE_MS, settings.CACHE_TRACKED_URIS),
      scopes,
      settings,
    ),
    elicit: person,
  });
  const harness = async (): Promise<Harness> => {
    const states = await sessions.catalog();
    const state = states.find((s) => s.id === SERVER);
    log('catalog:', state?.status, state?.error ?? '', `${state?.tools.length ?? 0} tools`);
    const synthetic = syntheticTools({
      sessions,
      states,
      settings,
      acceptsImages: false,
      modelPrompts: () => true,
      readBudget: { remaining: settings.MAX_RESOURCE_BYTES_PER_TURN, limit: settings.MAX_RESOURCE_BYTES_PER_TURN },
      turnStartedAt: Date.now(),
    });
    const mcp = mcpTools(
      { sessions, states, configs: [config!], settings, acceptsImages: false },
      new Set(Object.keys(synthetic)),
    );
    const tools: ToolSet = { ...synthetic, ...mcp.tools };
    const names = new Map(mcp.entries.filter((e) => e.server === SERVER).map((e) => [e.tool, e.name]));
    return {
      states,
      toolName: (tool) => names.get(tool),
      call: async (name, input) => {
        const chosen = tools[name] as Tool | undefined;
        if (!chosen?.execute) throw new Error(`the turn offers no tool ${name}`);
        const schema = chosen.inputSchema as {
          validate?: (value: unknown) => Promise<{ success: true; value: unknown } | { success: false; error: Error }>;
        };
        const checked = (await schema.validate?.(input)) ?? { success: true, value: input };
        if (!checked.success) throw new Error(`${name}: ${checked.error.message}`);
        const output = await chosen.execute(checked.value, {
          toolCallId: `call_${crypto.randomUUID()}`,
          messages: [],
          context: {},
        } as never);
        log(`${name} →`, JSON.stringify(output).slice(0, 300));
        return output;
      },
    };
  };
  return { sessions, harness };
}

/** What each scenario asks of a client, done as a turn does it. */
const SCENARIOS: Record<string, (h: Harness, context: Record<string, unknown>) => Promise<void>> = {
  initialize: async () => {},
  'request-metadata': async () => {},
  'sse-retry': async (h) => void (await h.call(mcpName(h, 'test_reconnection'), {})),
  tools_call: async (h) => void (await h.call(mcpName(h, 'add_numbers'), { a: 2, b: 3 })),
  'elicitation-sep1034-client-defaults': async (h) =>
    void (await h.call(mcpName(h, 'test_client_elicitation_defaults'), {})),
  'sep-2322-client-request-state': async (h) => {
    for (const tool of [
      'test_mrtr_echo_state',
      'test_mrtr_unrelated',
      'test_mrtr_no_state',
      'test_mrtr_no_result_type',
    ])
      await h.call(mcpName(h, tool), {});
  },
  'http-standard-headers': async (h) => {
    const state = serverOf(h);
    if (state.tools[0]) await h.call(mcpName(h, state.tools[0].name), {});
    if (state.resources[0]) await h.call('read_resource', { server: SERVER, uri: state.resources[0].uri });
    if (state.prompts[0]) await h.call('invoke_prompt', { server: SERVER, name: state.prompts[0].name, arguments: {} });
  },
  'http-custom-headers': async (h, context) => {
    for (const call of (context.toolCalls ?? []) as Array<{ name: string; arguments: Record<string, unknown> }>)
      await h.call(mcpName(h, call.name), call.arguments);
  },
  'http-invalid-tool-headers': async (h) => {
    // Every tool the turn offers: a tool whose headers are invalid must not be among them.
    for (const tool of serverOf(h).tools) {
      const name = h.toolName(tool.name);
      if (name) await h.call(name, { region: 'us-west1' }).catch((error) => log(`${tool.name}:`, String(error)));
    }
  },
  'json-schema-ref-no-deref': async () => {},
  'json-schema-2020-12-preservation': async (h) => {
    const focal = serverOf(h).tools.find((t) => t.name === 'json_schema_2020_12_tool');
    if (!focal) throw new Error('json_schema_2020_12_tool is not in the catalog');
    await h.call(mcpName(h, 'json_schema_echo'), { schema: focal.inputSchema });
  },
  'sep-2640-client-no-prefetch': async (h) => {
    log('skills:', JSON.stringify(serverOf(h).skills?.map((s) => s.frontmatter.name)));
  },
  'sep-2640-client-verify-digest': loadSkillThenItsFiles,
  'sep-2640-client-verify-size': loadSkillThenItsFiles,
  'sep-2640-client-verify-frontmatter': loadSkillThenItsFiles,
};

/** Loads the server's first skill as the model would (load_skill), then reads the other files it lists. */
async function loadSkillThenItsFiles(h: Harness): Promise<void> {
  const skill = serverOf(h).skills?.[0];
  if (!skill) throw new Error('the catalog lists no skill');
  await h.call('load_skill', { name: skill.frontmatter.name, server: SERVER });
  for (const file of skill.resources ?? []) {
    const uri = typeof file === 'string' ? file : file.uri;
    if (uri !== skill.uri) await h.call('read_resource', { server: SERVER, uri });
  }
}

function serverOf(h: Harness): ServerState {
  const state = h.states.find((s) => s.id === SERVER);
  if (state?.status !== 'connected') throw new Error(`the server is ${state?.status}: ${state?.error ?? ''}`);
  return state;
}

function mcpName(h: Harness, tool: string): string {
  const name = h.toolName(tool);
  if (!name)
    throw new Error(
      `the turn offers no tool ${tool} (catalog: ${serverOf(h)
        .tools.map((t) => t.name)
        .join(', ')})`,
    );
  return name;
}

async function main(): Promise<void> {
  const serverUrl = process.argv.at(-1);
  if (!serverUrl?.startsWith('http')) throw new Error('usage: conformance-mcp-client <serverUrl>');
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}') as Record<string, unknown>;
  log(`scenario ${scenario} at ${serverUrl}, protocol ${process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? '(default)'}`);
  const run = SCENARIOS[scenario];
  if (!run) throw new Error(`no handling for scenario "${scenario}": add it to scripts/conformance/mcp-client.ts`);
  const { sessions, harness } = await connect(serverUrl);
  try {
    await run(await harness(), context);
  } finally {
    await sessions.release();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    log('failed:', error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
