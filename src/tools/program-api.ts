import { AsyncLocalStorage } from 'node:async_hooks';
import { asSchema } from 'ai';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { shownAsText } from '../mcp/contents';
import { isUsable } from '../mcp/catalog/catalog';
import { describeBinary } from '../prompt/render';
import { fieldsOf, score, terms } from '../prompt/relevance';
import type { ApiAnswer, ProgramApi } from '../sandbox/gateway';
import { isToolResultUri } from './large-results';
import { searchPassages } from './passage-search';
import { asToolError, pick, type ToolHost } from './synthetic/tool-host';

/*
 * What `resources`, `prompts` and `tools` mean inside a program (tools/synthetic/run-code.ts): the conversation's
 * own reads, with the caller's tenant, user, scopes, cache and freshness — the same calls read_resource,
 * search_resource and invoke_prompt make, so a program can read nothing the conversation could not. What differs:
 * a read gives the whole text (the program, not the model, reads it; the gateway counts its bytes), and a tool
 * runs only if the person would not be asked about it.
 */

/**
 * A program's tool call in progress, per async flow: a server's question (elicitation) asked during it is not put to
 * the person — the turn's `elicit` answers `cancel` at once (turn/runner.ts) — and the call is refused, as a call that
 * needs approval is: nobody is asked from inside a program.
 */
const programCalls = new AsyncLocalStorage<{ asked: boolean }>();

/** True (and noted) when a server asks the person something during a program's tool call. */
export function askedInProgram(): boolean {
  const call = programCalls.getStore();
  if (call) call.asked = true;
  return call !== undefined;
}

const utf8 = (text: string) => new TextEncoder().encode(text).byteLength;
const str = (value: unknown, name: string): string => {
  if (typeof value !== 'string' || !value) throw new Error(`"${name}" must be a non-empty string`);
  return value;
};
const optStr = (value: unknown, name: string): string | undefined =>
  value === undefined || value === null ? undefined : str(value, name);

/**
 * `endsAt` (epoch ms) is when the run's wall time ends: a tool call that becomes a task is followed until then, then
 * cancelled — a run stopped by its time limit must not leave its calls running on the server.
 */
export function programApi(host: ToolHost, signal?: AbortSignal, endsAt?: number): ProgramApi {
  const readText = async (options: Record<string, unknown>) => {
    const uri = str(options.uri, 'uri');
    if (isToolResultUri(uri)) {
      const kept = host.largeResults?.get(uri);
      if (!kept) throw new Error(`No tool result ${uri} is kept in this conversation`);
      return { server: kept.server, uri, text: kept.text };
    }
    const server = optStr(options.server, 'server') ?? (await asToolError(host.sessions.resolveServer(uri)));
    pick(host.states, server);
    const read = await asToolError(
      host.sessions.readResource(server, uri, { reuseSince: host.turnStartedAt, connect: false }),
    );
    // Text as read_resource counts it (every text entry, in order); a binary is its one-line description.
    const text = shownAsText(read.contents)
      .map((entry) => ('text' in entry ? entry.text : describeBinary({ ...entry, uri: entry.uri ?? uri }, server)))
      .join('');
    return { server, uri, text };
  };

  return {
    list: async (options) => {
      const value = pick(host.states, optStr(options.server, 'server')).flatMap((state) =>
        state.resources.map((r) => ({
          server: state.id,
          uri: r.uri,
          name: r.name,
          ...(r.title === undefined ? {} : { title: r.title }),
          ...(r.mimeType === undefined ? {} : { mimeType: r.mimeType }),
          ...(r.size === undefined ? {} : { size: r.size }),
          ...(r.description === undefined ? {} : { description: r.description }),
        })),
      );
      return { value, bytes: utf8(JSON.stringify(value)) };
    },

    read: async (options): Promise<ApiAnswer> => {
      const { server, uri, text } = await readText(options);
      return { value: text, bytes: utf8(text), read: { server, uri } };
    },

    search: async (options): Promise<ApiAnswer> => {
      const query = str(options.query, 'query');
      const limit = Math.min(50, Math.max(1, Number(options.limit) || 10));
      if (options.uri === undefined) {
        // Without a URI: the catalog's resources that match, best first (titles, URIs, descriptions).
        const wanted = terms(query);
        const value = pick(host.states, optStr(options.server, 'server'))
          .flatMap((state) =>
            state.resources.map((r) => ({
              server: state.id,
              uri: r.uri,
              name: r.name,
              title: r.title,
              score: score(wanted, { fields: fieldsOf.resource(r) }),
            })),
          )
          .filter((r) => r.score > 0)
          .sort((a, b) => b.score - a.score)
          .slice(0, limit);
        return { value, bytes: utf8(JSON.stringify(value)) };
      }
      const { server, uri, text } = await readText(options);
      const value = searchPassages(text, query, { limit }).map((p) => ({ offset: p.offset, end: p.end, text: p.text }));
      return { value, bytes: utf8(JSON.stringify(value)), read: { server, uri } };
    },

    prompt: async (options): Promise<ApiAnswer> => {
      const name = str(options.name, 'name');
      const server =
        optStr(options.server, 'server') ??
        onlyServerWith(host, (s) => s.prompts.some((p) => p.name === name), `prompt "${name}"`);
      // A server the conversation does not have is "No server", not "prompts for users only".
      pick(host.states, server);
      if (!host.modelPrompts(server))
        throw new Error(`The prompts of server "${server}" are for users only; a program cannot get them either.`);
      const args = (options.arguments ?? {}) as Record<string, unknown>;
      const result = await asToolError(host.sessions.getPrompt(server, name, args, signal));
      const value = {
        ...(result.description === undefined ? {} : { description: result.description }),
        messages: result.messages.map((m) => ({
          role: m.role,
          text:
            m.content.type === 'text'
              ? m.content.text
              : m.content.type === 'resource' && 'text' in m.content.resource
                ? String(m.content.resource.text)
                : `[${m.content.type}]`,
        })),
      };
      return { value, bytes: utf8(JSON.stringify(value)) };
    },

    call: async (options): Promise<ApiAnswer> => {
      const server = str(options.server, 'server');
      const name = str(options.name, 'name');
      const entry = host.mcpTools?.entries.find((e) => e.server === server && e.tool === name);
      const called = entry && host.mcpTools?.tools[entry.name];
      if (!entry || !called?.execute)
        throw new Error(`No tool "${name}" on server "${server}" that the model may call`);
      const args = (options.arguments ?? {}) as Record<string, unknown>;
      const validation = await asSchema(called.inputSchema).validate?.(args);
      if (validation && !validation.success) throw new Error(validation.error.message);
      // The person is never asked from inside a program: a call that would need their approval is refused, and the
      // model can make it as a tool call of its own (then they are asked, as always).
      const asks =
        typeof called.needsApproval === 'function'
          ? await called.needsApproval(args as never, { toolCallId: 'run_code', messages: [] } as never)
          : called.needsApproval === true;
      if (asks)
        throw new Error(
          `The tool "${name}" of server "${server}" needs the person's approval, which a program cannot ask for: call ${entry.name} directly.`,
        );
      const call = { asked: false };
      const result: CallToolResult = await programCalls.run(call, () =>
        asToolError(
          host.sessions.callToolToEnd(server, name, args, {
            ...(signal ? { signal } : {}),
            maxMs: endsAt === undefined ? 30_000 : Math.max(0, endsAt - Date.now()),
          }),
        ),
      );
      if (call.asked)
        throw new Error(
          `The tool "${name}" of server "${server}" asks the person a question, which a program cannot ask for: call ${entry.name} directly.`,
        );
      const text = (result.content ?? [])
        .map((c) =>
          c.type === 'text' ? c.text : c.type === 'resource' && 'text' in c.resource ? c.resource.text : `[${c.type}]`,
        )
        .join('\n');
      if (result.isError) throw new Error(`The tool "${name}" of server "${server}" failed: ${text}`);
      const value = result.structuredContent ?? text;
      return { value, bytes: utf8(typeof value === 'string' ? value : JSON.stringify(value)) };
    },
  };
}

/** The one usable server that has what is named; several or none is the program's mistake, said plainly. */
function onlyServerWith(host: ToolHost, has: (state: ToolHost['states'][number]) => boolean, what: string): string {
  const found = host.states.filter((s) => isUsable(s) && has(s));
  if (found.length === 1) return found[0]!.id;
  throw new Error(
    found.length
      ? `Several servers have ${what} (${found.map((s) => s.id).join(', ')}): pass "server"`
      : `No server has ${what}`,
  );
}
