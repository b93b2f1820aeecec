import type { ToolResultOutput } from '@ai-sdk/provider-utils';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { humanSize } from '../../shared/human-size';
import type { Settings } from '../config';
import { base64ByteLength } from '../mcp/contents';
import type { McpSessions } from '../mcp/sessions';
import type { TaskStatus } from '../mcp/extensions';
import { resultContinuationNote } from '../prompt/markers';
import { renderEmbedded } from '../prompt/render';
import { windowEnd } from '../prompt/window-end';
import { type EmbeddedDocuments, type KeepDocument, renderEmbeddedDocument } from '../prompt/embedded-documents';
import { type LargeResultStore, toolResultPartUri, toolResultUri } from './large-results';
import { ToolFailure } from './tool-failure';

/*
 * What the model is shown of a tool result, in one place: an MCP tool's
 * result (rendered, windowed), a task's result (the same), a read's text and
 * images (read_resource, load_skill), a failure (its ToolFailure text). How
 * a resource's contents are worded is prompt/render.ts; how older reads are
 * shortened in later turns, prompt/read-elision.ts.
 */

/** What an MCP tool call gives the model: text, and images for models that take them. */
export interface McpToolOutput {
  server: string;
  tool: string;
  text: string;
  images: Array<{ mediaType: string; base64: string }>;
  /** Set on the placeholder of a call that became a task (replaced by the task's result before the model sees it). */
  task?: { taskId: string; status: TaskStatus; statusMessage?: string } | undefined;
}

/** Text, and images for models that take them: what every tool that reads (MCP tools, read_resource, load_skill) gives. */
export interface ShownOutput {
  text: string;
  images: ReadonlyArray<{ mediaType: string; base64: string }>;
}

/** What rendering a result needs: the sessions (resource links made readable), the limits, the model's eyes, the long-result store. */
export interface RenderHost {
  sessions: Pick<McpSessions, 'registerResourceLink'>;
  settings: Pick<Settings, 'READ_WINDOW_CHARS' | 'INLINE_IMAGE_MAX_BYTES'>;
  acceptsImages: boolean;
  /** Where results longer than one window are kept whole (read on with read_resource); without it, the whole text. */
  largeResults?: LargeResultStore | undefined;
}

/** A tool call's outcome as the answer keeps it: what the model is shown, or the failure's text (ToolFailure). */
export type ShownOutcome = { kind: 'output'; output: McpToolOutput } | { kind: 'error'; errorText: string };

/**
 * The one `toModelOutput` of every tool result with text and images (the
 * AI SDK calls it when it builds the next request): text alone, or text and
 * the images as file parts. Failures reach the model as their ToolFailure
 * text (the AI SDK's `error-text`); a task's result is an MCP result like
 * any other (`callOutcome`).
 */
export function toModelOutput(output: ShownOutput): ToolResultOutput {
  if (!output.images.length) return { type: 'text', value: output.text };
  return {
    type: 'content',
    value: [
      { type: 'text', text: output.text },
      ...output.images.map((image) => ({
        type: 'file' as const,
        data: { type: 'data' as const, data: image.base64 },
        mediaType: image.mediaType,
      })),
    ],
  };
}

/**
 * An MCP `tools/call` result — answered at once, or a task's result when it
 * completes (turn/tasks/task-follower.ts) — as the call's outcome:
 * rendered (renderToolResult), a long one windowed (windowLongResult), an
 * `isError` result or no result at all a failure in ToolFailure's words.
 * `documents`: its embedded documents, converted (prompt/embedded-documents.ts),
 * each shown as a read shows it, in windows of its own.
 */
export function callOutcome(
  server: string,
  tool: string,
  result: unknown,
  toolCallId: string,
  host: RenderHost,
  documents?: EmbeddedDocuments | undefined,
): ShownOutcome {
  const call = result as CallToolResult | undefined;
  if (!call || !Array.isArray(call.content))
    return {
      kind: 'error',
      errorText: ToolFailure.mcpRequest(server, tool, new Error('the server answered without a tool result')).message,
    };
  const rendered = renderToolResult(server, tool, call, host, documents && { found: documents, toolCallId });
  const output = windowLongResult(rendered, toolCallId, host, rendered.windowedChars);
  return call.isError
    ? { kind: 'error', errorText: ToolFailure.mcpResult(server, tool, output.text).message }
    : { kind: 'output', output };
}

/**
 * A result longer than one window: the model (and the history) get the first
 * window and where the rest is — kept whole in the conversation, read on
 * with read_resource like a long document. Without a store, the whole text.
 */
export function windowLongResult(
  { windowedChars: _, ...output }: McpToolOutput & { windowedChars?: number },
  toolCallId: string,
  host: Pick<RenderHost, 'settings' | 'largeResults'>,
  /** Characters of the text already in windows of their own (documents): not counted again. */
  windowedChars = 0,
): McpToolOutput {
  const window = host.settings.READ_WINDOW_CHARS;
  if (!host.largeResults || output.text.length - windowedChars <= window) return output;
  const uri = toolResultUri(toolCallId);
  host.largeResults.put(uri, output.server, output.text);
  // Ends where a read's window would (at a line end near its edge), so that read_resource goes on from there.
  const end = windowEnd([output], 0, window);
  return {
    ...output,
    text: `${output.text.slice(0, end)}\n${resultContinuationNote({ from: 0, to: end, total: output.text.length }, { uri, offset: end })}`,
  };
}

/**
 * Maps an MCP tool result faithfully (images only for a model that takes them, within INLINE_IMAGE_MAX_BYTES): text,
 * images, resource links (made readable), embedded resources (wrapped or described; a converted document as a read shows it,
 * its rest kept under `tool-result://<call>/<part>`). `windowedChars`: how much of the text is such windows.
 */
export function renderToolResult(
  server: string,
  toolName: string,
  result: CallToolResult,
  host: RenderHost,
  documents?: { found: EmbeddedDocuments; toolCallId: string } | undefined,
): McpToolOutput & { windowedChars: number } {
  const lines: string[] = [];
  const images: McpToolOutput['images'] = [];
  let windowedChars = 0;
  for (const [index, part] of (result.content ?? []).entries()) {
    switch (part.type) {
      case 'text':
        lines.push(part.text);
        break;
      case 'image': {
        const size = base64ByteLength(part.data);
        if (host.acceptsImages && size <= host.settings.INLINE_IMAGE_MAX_BYTES) {
          images.push({ mediaType: part.mimeType, base64: part.data });
          lines.push(`[Image: ${part.mimeType}, ${humanSize(size)} — attached]`);
        } else lines.push(`[Image: ${part.mimeType}, ${humanSize(size)} — not shown to this model]`);
        break;
      }
      case 'audio':
        lines.push(`[Audio: ${part.mimeType}, ${humanSize(base64ByteLength(part.data))} — not shown]`);
        break;
      case 'resource_link':
        host.sessions.registerResourceLink(server, part.uri);
        lines.push(
          `[Resource link: ${part.uri}${part.mimeType ? ` (${part.mimeType})` : ''}${part.title || part.name ? `, "${part.title ?? part.name}"` : ''} — read it with read_resource]`,
        );
        break;
      case 'resource': {
        const document = documents?.found.get(index);
        if (!document) {
          lines.push(renderEmbedded(server, part.resource as { uri: string }, host.settings.READ_WINDOW_CHARS));
          break;
        }
        const keep =
          host.largeResults && keepIn(host.largeResults, server, toolResultPartUri(documents!.toolCallId, index));
        const shown = renderEmbeddedDocument(server, document, { windowChars: host.settings.READ_WINDOW_CHARS, keep });
        windowedChars += shown.length;
        lines.push(shown);
        break;
      }
    }
  }
  if (!lines.length && result.structuredContent) lines.push(JSON.stringify(result.structuredContent));
  return { server, tool: toolName, text: lines.join('\n'), images, windowedChars };
}

/** Keeps a document's whole text in the conversation under `uri` (read on with read_resource, pages and all). */
export function keepIn(store: LargeResultStore, server: string, uri: string): KeepDocument {
  return (text, source) => {
    store.put(uri, server, text, source);
    return uri;
  };
}
