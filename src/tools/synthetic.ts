import type { GetPromptResult } from '@modelcontextprotocol/client';
import type { ToolResultOutput } from '@ai-sdk/provider-utils';
import { tool, zodSchema, type ToolSet } from 'ai';
import { z } from 'zod';
import type { Settings } from '../config';
import { ApiError } from '../errors';
import type { ServerState } from '../mcp/catalog';
import { base64ByteLength, shownAsText } from '../mcp/contents';
import type { McpSessions } from '../mcp/sessions';
import { resourceLine, templateLine } from '../context/catalog-lines';
import { score, terms } from '../context/relevance';
import { isToolResultUri, type LargeResultStore } from './large-results';
import { searchPassages } from './passage-search';
import { renderEmbedded, renderResource, wrapPassage, type ModelView } from '../context/render';
import { viewResource } from '../context/resource-view';
import { searchHeader } from '../context/markers';

/** What the synthetic tools need from the conversation. */
export interface ToolContext {
  sessions: McpSessions;
  /** The catalog as of this turn. */
  states: ServerState[];
  settings: Pick<Settings, 'READ_WINDOW_CHARS' | 'INLINE_IMAGE_MAX_BYTES'>;
  /** The model accepts image parts. */
  acceptsImages: boolean;
  /** Whether the model may invoke this server's prompts (config can keep them user-only). */
  modelPrompts: (server: string) => boolean;
  /** Resource bytes the model may still read this turn (MAX_RESOURCE_BYTES_PER_TURN), shared by every read of the turn. */
  readBudget: { remaining: number; limit: number };
  /** When this turn started: reads the server marks stale at once may still be shared within the turn. */
  turnStartedAt: number;
  /** Long tool results of this conversation (`tool-result://…`), read window by window like resources. */
  largeResults?: LargeResultStore | undefined;
}

const LIST_PAGE = 50;

/**
 * Input schemas, converted to JSON Schema once per isolate: `zodSchema`
 * keeps its conversion, while a bare zod object given to `tool()` is
 * converted again at every step of every turn (≈ 1.3 ms a step, measured).
 */
const READ_INPUT = zodSchema(
  z.object({
    uri: z.string().min(1).describe('The resource URI'),
    server: z.string().optional().describe('Server id; needed only when several servers have the URI'),
    offset: z.number().int().min(0).optional().describe('Character offset of the part to read (from the previous part)'),
  }),
);
const SEARCH_INPUT = zodSchema(
  z.object({
    uri: z.string().min(1).describe('The resource URI'),
    query: z.string().min(1).describe('Words to look for'),
    server: z.string().optional().describe('Server id; needed only when several servers have the URI'),
  }),
);
const LIST_INPUT = zodSchema(
  z.object({
    server: z.string().optional(),
    query: z.string().optional().describe('Words to look for in titles, URIs and descriptions'),
    cursor: z.string().optional().describe('From the previous page'),
  }),
);
const TEMPLATES_INPUT = zodSchema(z.object({ server: z.string().optional() }));
const PROMPT_INPUT = zodSchema(
  z.object({
    server: z.string(),
    name: z.string(),
    arguments: z.record(z.string(), z.string()).default({}),
  }),
);

/** Tool output of `read_resource`: the model view plus where it came from. */
export interface ReadResourceOutput extends ModelView {
  server: string;
  uri: string;
  cache: 'memory' | 'kv' | 'miss' | 'catalog';
}

/**
 * The synthetic tools: resolved here, in the Durable Object, through the
 * resource cache — never sent to an MCP server as tool calls, and never
 * waiting for approval (they only read).
 */
export function syntheticTools(ctx: ToolContext): ToolSet {
  return {
    read_resource: tool({
      description:
        'Read one resource by URI (from the catalog, a filled-in template, or a resource link). Long text comes in parts: pass the offset the previous part gives to get the next one. Binary content is described, not shown.',
      inputSchema: READ_INPUT,
      execute: async ({ uri, server, offset }): Promise<ReadResourceOutput> => readForModel(ctx, uri, server, offset),
      toModelOutput: ({ output }) => toModelOutput(output),
    }),

    search_resource: tool({
      description:
        'Find the passages of a long resource (or long tool result) that match a query, best first, each with the offset to read on from with read_resource. Much cheaper than reading it all.',
      inputSchema: SEARCH_INPUT,
      execute: async ({ uri, query, server }) => searchForModel(ctx, uri, server, query),
    }),

    list_resources: tool({
      description: 'List resources (all servers, or one), 50 at a time. With a query, the most relevant come first and only matches are listed.',
      inputSchema: LIST_INPUT,
      execute: async ({ server, query, cursor }) => {
        const states = pick(ctx.states, server);
        let entries = states.flatMap((s) => s.resources.map((resource) => ({ server: s.id, resource })));
        if (query) {
          const wanted = terms(query);
          entries = entries
            .map((e) => ({
              ...e,
              relevance: score(wanted, {
                fields: [
                  [e.resource.title ?? e.resource.name, 3],
                  [e.resource.uri, 2],
                  [e.resource.description, 1],
                ],
              }),
            }))
            .filter((e) => e.relevance > 0)
            .sort((a, b) => b.relevance - a.relevance);
        }
        const start = cursor ? decodeCursor(cursor) : 0;
        const page = entries.slice(start, start + LIST_PAGE);
        const next = start + LIST_PAGE < entries.length ? encodeCursor(start + LIST_PAGE) : undefined;
        const lines = page.map((e) => `${resourceLine(e.resource)} [server ${e.server}]`);
        const summary = `${entries.length} resource(s)${query ? ` matching "${query}"` : ''}; showing ${start + 1}-${start + page.length}.`;
        return [
          entries.length ? summary : `No resources${query ? ` match "${query}"` : ''}.`,
          ...lines,
          next ? `More: call list_resources again with cursor "${next}".` : '',
        ]
          .filter(Boolean)
          .join('\n');
      },
    }),

    list_resource_templates: tool({
      description: 'List resource templates (URIs with {placeholders}); fill one in and call read_resource.',
      inputSchema: TEMPLATES_INPUT,
      execute: async ({ server }) => {
        const lines = pick(ctx.states, server).flatMap((s) => s.resourceTemplates.map((t) => `${templateLine(t)} [server ${s.id}]`));
        return lines.length ? lines.join('\n') : 'No resource templates.';
      },
    }),

    invoke_prompt: tool({
      description: "Fetch one of a server's prompts (message templates) with its arguments; returns its messages.",
      inputSchema: PROMPT_INPUT,
      execute: async ({ server, name, arguments: args }, { abortSignal }) => {
        if (!ctx.modelPrompts(server)) throw new Error(`The prompts of server "${server}" are for users only; they cannot be invoked by the model.`);
        // A stop cancels prompts/get on the server too, like a tool call.
        const result = await asToolError(ctx.sessions.getPrompt(server, name, args, abortSignal));
        return renderPrompt(server, name, result, ctx);
      },
    }),
  };
}

async function readForModel(ctx: ToolContext, uri: string, server: string | undefined, offset: number | undefined): Promise<ReadResourceOutput> {
  if (isToolResultUri(uri)) return charged(ctx, uri, readLargeResult(ctx, uri, offset));
  let view: Awaited<ReturnType<typeof viewResource>>;
  try {
    view = await viewResource(
      ctx.sessions,
      { server, uri },
      {
        windowChars: ctx.settings.READ_WINDOW_CHARS,
        ...(offset === undefined ? {} : { offset }),
        images: ctx.acceptsImages,
        maxImageBytes: ctx.settings.INLINE_IMAGE_MAX_BYTES,
        reuseSince: ctx.turnStartedAt,
        connect: false,
      },
    );
  } catch (error) {
    if (error instanceof ApiError && error.code === 'resource_not_found') {
      const near = closestUris(uri, ctx.states);
      throw new Error(`${error.message}${near.length ? `. Closest known URIs: ${near.join(', ')}` : ''}`);
    }
    throw new Error(error instanceof Error ? error.message : String(error));
  }
  if (view.cache === 'catalog') return { server: view.server, uri, cache: 'catalog', ...view.model };
  return charged(ctx, uri, { server: view.server, uri, cache: view.cache, ...view.model });
}

/** The best passages of one resource for a query, wrapped as reference material, with their offsets. */
async function searchForModel(ctx: ToolContext, uri: string, server: string | undefined, query: string): Promise<string> {
  let found: { server: string; mime: string; text: string };
  if (isToolResultUri(uri)) {
    const kept = ctx.largeResults?.get(uri);
    if (!kept) throw new Error(`No tool result ${uri} is kept in this conversation`);
    found = { server: kept.server, mime: 'text/plain', text: kept.text };
  } else {
    const id = server ?? (await asToolError(ctx.sessions.resolveServer(uri)));
    const read = await asToolError(ctx.sessions.readResource(id, uri, { reuseSince: ctx.turnStartedAt, connect: false }));
    const texts = shownAsText(read.contents).filter((c): c is Extract<typeof c, { text: string }> => 'text' in c);
    if (!texts.length) throw new Error(`${uri} on server "${id}" has no text to search (binary content); read_resource describes it`);
    found = { server: id, mime: texts[0]!.mimeType ?? 'text/plain', text: texts.map((c) => c.text).join('') };
  }
  const passages = searchPassages(found.text, query, { passageChars: PASSAGE_CHARS, limit: PASSAGES });
  const total = found.text.length;
  const best = passages[0];
  const head = searchHeader({
    uri,
    server: found.server,
    total,
    query,
    passages: passages.length,
    best: best ? { uri, server: found.server, offset: best.offset } : undefined,
  });
  const text = [head, ...passages.map((p) => wrapPassage(found.server, uri, found.mime, p, total))].join('\n');
  charge(ctx, uri, new TextEncoder().encode(text).byteLength);
  return text;
}

const PASSAGE_CHARS = 800;
const PASSAGES = 5;

/** A window of a long tool result kept by this conversation. */
function readLargeResult(ctx: ToolContext, uri: string, offset: number | undefined): ReadResourceOutput {
  const kept = ctx.largeResults?.get(uri);
  if (!kept) throw new Error(`No tool result ${uri} is kept in this conversation`);
  const model = renderResource(
    { server: kept.server, uri, contents: [{ uri, mimeType: 'text/plain', text: kept.text, size: kept.text.length }] },
    {
      windowChars: ctx.settings.READ_WINDOW_CHARS,
      ...(offset === undefined ? {} : { offset }),
      images: false,
      maxImageBytes: 0,
    },
  );
  return { server: kept.server, uri, cache: 'memory', ...model };
}

/** Charges what reaches the model against the turn's read budget (or refuses the read). */
function charged(ctx: ToolContext, uri: string, output: ReadResourceOutput): ReadResourceOutput {
  // The budget counts what reaches the model — this window and its images —
  // not the whole resource: charging a 5 MB document's full size for every
  // window let a turn read two windows of it, not the document.
  charge(ctx, uri, new TextEncoder().encode(output.text).byteLength + output.images.reduce((sum, image) => sum + base64ByteLength(image.base64), 0));
  return output;
}

function charge(ctx: ToolContext, uri: string, bytes: number): void {
  if (bytes > ctx.readBudget.remaining) {
    throw new Error(
      `This turn may read ${ctx.readBudget.limit} bytes of resources and has ${ctx.readBudget.remaining} left; this part of ${uri} is ${bytes} bytes. Answer with what you have, or ask the user to continue in a new message.`,
    );
  }
  ctx.readBudget.remaining -= bytes;
}

export function toModelOutput(output: ReadResourceOutput): ToolResultOutput {
  if (!output.images.length) return { type: 'text', value: output.text };
  return {
    type: 'content',
    value: [
      { type: 'text', text: output.text },
      ...output.images.map((image) => ({ type: 'file' as const, data: { type: 'data' as const, data: image.base64 }, mediaType: image.mediaType })),
    ],
  };
}

/** A prompt's messages as text for the model: roles kept in order, resources wrapped or described. */
export function renderPrompt(server: string, name: string, result: GetPromptResult, ctx: Pick<ToolContext, 'settings'>): string {
  const lines = [`[Prompt "${name}" from server "${server}"${result.description ? `: ${result.description}` : ''} — ${result.messages.length} message(s)]`];
  for (const message of result.messages) {
    const content = message.content;
    let text: string;
    if (content.type === 'text') text = content.text;
    else if (content.type === 'resource') text = renderEmbedded(server, content.resource as { uri: string }, ctx.settings.READ_WINDOW_CHARS);
    else if (content.type === 'resource_link')
      text = `[Resource link: ${content.uri}${content.mimeType ? ` (${content.mimeType})` : ''} — read it with read_resource]`;
    else if (content.type === 'image' || content.type === 'audio')
      text = `[${content.type === 'image' ? 'Image' : 'Audio'}: ${content.mimeType} — not inlined]`;
    else text = '[Unsupported content]';
    lines.push(`[${message.role}] ${text}`);
  }
  return lines.join('\n');
}

/** Known URIs that look most like `uri`: shared words first, then a shared prefix. */
export function closestUris(uri: string, states: ServerState[], limit = 5): string[] {
  const wanted = terms(uri);
  return states
    .flatMap((s) => [...s.resources.map((r) => r.uri), ...s.resourceTemplates.map((t) => t.uriTemplate)])
    .map((candidate) => ({ candidate, relevance: score(wanted, { fields: [[candidate, 2]] }) + commonPrefix(candidate, uri) / 100 }))
    .filter((c) => c.relevance > 0)
    .sort((a, b) => b.relevance - a.relevance)
    .slice(0, limit)
    .map((c) => c.candidate);
}

const commonPrefix = (a: string, b: string) => {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
};

function pick(states: ServerState[], server: string | undefined): ServerState[] {
  if (server === undefined) return states;
  const found = states.filter((s) => s.id === server);
  if (!found.length) throw new Error(`No server "${server}" (servers: ${states.map((s) => s.id).join(', ')})`);
  return found;
}

/** ApiErrors become plain tool errors: the model sees the message and can act on it. */
async function asToolError<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    throw new Error(error instanceof Error ? error.message : String(error));
  }
}

const encodeCursor = (offset: number) => btoa(`o:${offset}`);
function decodeCursor(cursor: string): number {
  try {
    const match = /^o:(\d+)$/.exec(atob(cursor));
    if (match) return Number(match[1]);
  } catch {
    // fall through
  }
  throw new Error(`Invalid cursor "${cursor}": use the one the previous page gave`);
}
