import type { ToolResultOutput } from '@ai-sdk/provider-utils';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { jsonSchema, tool, type ToolSet } from 'ai';
import type { McpServerConfig, Settings } from '../config';
import type { ServerState } from '../mcp/catalog';
import type { McpSessions } from '../mcp/sessions';
import { base64ByteLength } from '../mcp/contents';
import { humanSize } from '../../shared/human-size';
import { toolResultUri, type LargeResultStore } from './large-results';
import type { ToolEntry } from './tool-search';
import { estimateTokens } from './tokens';
import { renderEmbedded } from './render';

export interface McpToolContext {
  sessions: McpSessions;
  states: ServerState[];
  configs: McpServerConfig[];
  settings: Pick<Settings, 'READ_WINDOW_CHARS' | 'INLINE_IMAGE_MAX_BYTES'>;
  acceptsImages: boolean;
  /** Where results longer than one window are kept whole (read on with read_resource). */
  largeResults?: LargeResultStore | undefined;
}

/** What an MCP tool call gives the model: text, and images for models that take them. */
export interface McpToolOutput {
  server: string;
  tool: string;
  text: string;
  images: Array<{ mediaType: string; base64: string }>;
}

/** Providers accept `^[a-zA-Z0-9_-]{1,64}$` (OpenAI's rule, the strictest common one). */
export function modelToolName(server: string, name: string, taken: Set<string>): string {
  const base = `${server}__${name}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  let candidate = base;
  for (let n = 2; taken.has(candidate); n++) candidate = `${base.slice(0, 64 - String(n).length - 1)}_${n}`;
  taken.add(candidate);
  return candidate;
}

/**
 * Every MCP tool of every connected server, as `<server>__<tool>`, schemas
 * passed through. Tools listed in the server's `autoApprove`, or annotated
 * `readOnlyHint: true` by a server configured `trustAnnotations`, run
 * directly; every other call pauses the turn for an approval. `isError` results are thrown, so the model sees an error it
 * can act on.
 */
export function mcpTools(ctx: McpToolContext, taken: Set<string>): { tools: ToolSet; entries: ToolEntry[] } {
  const tools: ToolSet = {};
  const entries: ToolEntry[] = [];
  for (const state of ctx.states) {
    if (state.status !== 'connected') continue;
    const config = ctx.configs.find((c) => c.id === state.id);
    for (const mcpTool of state.tools) {
      const name = modelToolName(state.id, mcpTool.name, taken);
      const description = `[server ${state.id}] ${mcpTool.title ?? mcpTool.name}${mcpTool.description ? `: ${mcpTool.description}` : ''}`;
      entries.push({
        name,
        server: state.id,
        title: mcpTool.title,
        description: mcpTool.description,
        cost: estimateTokens(`${name}${description}${JSON.stringify(mcpTool.inputSchema)}`),
      });
      // A server's own annotations are its claims: they decide only for servers the operator trusts.
      const autoApproved =
        (config?.trustAnnotations === true && mcpTool.annotations?.readOnlyHint === true) || (config?.autoApprove.includes(mcpTool.name) ?? false);
      tools[name] = tool({
        description,
        inputSchema: jsonSchema(mcpTool.inputSchema as Parameters<typeof jsonSchema>[0]),
        needsApproval: !autoApproved,
        execute: async (args: unknown, { abortSignal, toolCallId }): Promise<McpToolOutput> => {
          let result: CallToolResult;
          try {
            // A stop cancels the request on the server too (notifications/cancelled, or the aborted HTTP request).
            result = await ctx.sessions.callTool(state.id, mcpTool.name, (args ?? {}) as Record<string, unknown>, abortSignal);
          } catch (error) {
            throw new Error(error instanceof Error ? error.message : String(error));
          }
          const output = windowLongResult(renderToolResult(state.id, mcpTool.name, result, ctx), toolCallId, ctx);
          if (result.isError) throw new Error(output.text || `${mcpTool.name} failed`);
          return output;
        },
        toModelOutput: ({ output }: { output: McpToolOutput }): ToolResultOutput =>
          output.images.length
            ? {
                type: 'content',
                value: [
                  { type: 'text', text: output.text },
                  ...output.images.map((i) => ({ type: 'file' as const, data: { type: 'data' as const, data: i.base64 }, mediaType: i.mediaType })),
                ],
              }
            : { type: 'text', value: output.text },
      });
    }
  }
  return { tools, entries };
}

/**
 * A result longer than one window: the model (and the history) get the first
 * window and where the rest is — kept whole in the conversation, read on
 * with read_resource like a long document. Without a store, the whole text.
 */
export function windowLongResult(output: McpToolOutput, toolCallId: string, ctx: Pick<McpToolContext, 'settings' | 'largeResults'>): McpToolOutput {
  const window = ctx.settings.READ_WINDOW_CHARS;
  if (!ctx.largeResults || output.text.length <= window) return output;
  const uri = toolResultUri(toolCallId);
  ctx.largeResults.put(uri, output.server, output.text);
  const next = JSON.stringify({ uri, offset: window });
  return {
    ...output,
    text: `${output.text.slice(0, window)}\n[Showing characters 0-${window} of ${output.text.length} of this result. The rest is kept: call read_resource with ${next} for the next part.]`,
  };
}

/** Maps an MCP tool result faithfully: text, images, links (made readable), embedded resources (wrapped or described). */
export function renderToolResult(
  server: string,
  toolName: string,
  result: CallToolResult,
  ctx: Pick<McpToolContext, 'sessions' | 'settings' | 'acceptsImages'>,
): McpToolOutput {
  const lines: string[] = [];
  const images: McpToolOutput['images'] = [];
  for (const part of result.content ?? []) {
    switch (part.type) {
      case 'text':
        lines.push(part.text);
        break;
      case 'image': {
        const size = base64ByteLength(part.data);
        if (ctx.acceptsImages && size <= ctx.settings.INLINE_IMAGE_MAX_BYTES) {
          images.push({ mediaType: part.mimeType, base64: part.data });
          lines.push(`[Image: ${part.mimeType}, ${humanSize(size)} — attached]`);
        } else lines.push(`[Image: ${part.mimeType}, ${humanSize(size)} — not shown to this model]`);
        break;
      }
      case 'audio':
        lines.push(`[Audio: ${part.mimeType}, ${humanSize(base64ByteLength(part.data))} — not shown]`);
        break;
      case 'resource_link':
        ctx.sessions.registerLink(server, part.uri);
        lines.push(
          `[Resource link: ${part.uri}${part.mimeType ? ` (${part.mimeType})` : ''}${part.title || part.name ? `, "${part.title ?? part.name}"` : ''} — read it with read_resource]`,
        );
        break;
      case 'resource': {
        lines.push(renderEmbedded(server, part.resource as { uri: string }, ctx.settings.READ_WINDOW_CHARS));
        break;
      }
    }
  }
  if (!lines.length && result.structuredContent) lines.push(JSON.stringify(result.structuredContent));
  return { server, tool: toolName, text: lines.join('\n'), images };
}
