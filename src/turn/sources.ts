import type { UIMessage, UIMessageChunk } from 'ai';
import type { Source, SourcesData, SourceText } from '../../shared/api/stream';
import type { ServerState } from '../mcp/catalog/catalog';
import { findResourceBlocks } from '../prompt/markers';
import { isToolResultUri } from '../tools/large-results';
import { outputText } from '../../shared/sources';

/*
 * An answer's sources: every resource whose text reached the model for it, found where that text is — the
 * `<resource>` blocks of its tool results (read_resource, search_resource, a document in an MCP tool's result, a read
 * made before the first step), of the question's attachments, and of pinned or inlined resources the answer cites.
 * The wrapper is the one sure sign of resource text (prompt/markers.ts), so no tool needs to report its reads.
 *
 * Each window points at the text the model received where the conversation already keeps it (a slice of the tool's
 * output or of the user message's part), so the history holds it once and it is that text, not a fresh read:
 * `POST …/resources/read` would give the resource as it is now. Only pinned text, which no message holds, rides in
 * the part itself (SOURCE_TEXT_MAX_CHARS).
 */

type Via = Source['via'];
type Window = Source['windows'][number];

const viaOf = (toolName: string): Via =>
  toolName === 'read_resource' || toolName === 'load_skill'
    ? 'read'
    : toolName === 'search_resource'
      ? 'search'
      : 'tool';

export interface SourceCollectorInput {
  /** The turn's catalogs: each source's title and listed version. */
  states: readonly ServerState[];
  /** The conversation as the turn got it: the question (its attachments) and, when it goes on, the answer so far. */
  messages: readonly UIMessage[];
  /** Rendered pinned and inlined resources (prompt/pinned.ts): sources when the answer cites their URI. */
  pinned?: Iterable<string> | undefined;
  /** SOURCE_TEXT_MAX_CHARS. */
  maxInlineChars: number;
  now?: () => number;
}

/**
 * Follows one answer's stream (`observe` each chunk) and says, before its `finish`, what it read (`chunks`): one
 * `data-sources` part, id `sources`, so a continuation (after an approval, a task) replaces the earlier one with the
 * whole answer's list.
 */
export class SourceCollector {
  private readonly sources = new Map<string, Source>();
  private readonly toolNames = new Map<string, string>();
  private answerText = '';
  private readonly now: () => number;
  private readonly startedAt: number;

  constructor(private readonly input: SourceCollectorInput) {
    this.now = input.now ?? Date.now;
    this.startedAt = this.now();
    const last = input.messages.at(-1);
    const question = input.messages.findLast((m) => m.role === 'user');
    if (question) this.fromQuestion(question);
    if (last?.role === 'assistant') this.fromAnswerSoFar(last);
  }

  observe(chunk: UIMessageChunk): void {
    if (chunk.type === 'text-delta') this.answerText += chunk.delta;
    else if (chunk.type === 'tool-input-available' || chunk.type === 'tool-input-start')
      this.toolNames.set(chunk.toolCallId, chunk.toolName);
    else if (chunk.type === 'tool-output-available' && !chunk.preliminary)
      this.fromTool(chunk.toolCallId, this.toolNames.get(chunk.toolCallId) ?? '', chunk.output);
  }

  /** The `data-sources` chunk, or none when the answer read nothing. */
  chunks(): UIMessageChunk[] {
    this.fromPinned();
    if (!this.sources.size) return [];
    const data: SourcesData = { sources: [...this.sources.values()] };
    return [{ type: 'data-sources', id: 'sources', data } as UIMessageChunk];
  }

  private fromQuestion(message: UIMessage): void {
    message.parts.forEach((part, index) => {
      // The first text part is what the person wrote; attached resources follow it (prompt/attachments.ts).
      if (part.type !== 'text' || index === message.parts.findIndex((p) => p.type === 'text')) return;
      this.fromText(part.text, 'attachment', this.startedAt, undefined, (from, to) => ({
        in: 'message',
        messageId: message.id,
        part: index,
        from,
        to,
      }));
    });
  }

  private fromAnswerSoFar(message: UIMessage): void {
    for (const part of message.parts) {
      if (part.type === 'text') this.answerText += part.text;
      const call = part as { type: string; toolCallId?: string; toolName?: string; state?: string; output?: unknown };
      if (!call.toolCallId || call.state !== 'output-available') continue;
      const name = call.type === 'dynamic-tool' ? (call.toolName ?? '') : call.type.slice('tool-'.length);
      this.toolNames.set(call.toolCallId, name);
      this.fromTool(call.toolCallId, name, call.output);
    }
  }

  private fromTool(toolCallId: string, toolName: string, output: unknown): void {
    const text = outputText(output);
    if (text === undefined) return;
    const fetchedAt = (output as { fetchedAt?: unknown }).fetchedAt;
    this.fromText(
      text,
      viaOf(toolName),
      this.now(),
      typeof fetchedAt === 'number' ? fetchedAt : undefined,
      (from, to) => ({ in: 'tool', toolCallId, from, to }),
    );
  }

  /** Pinned and inlined resources are in every request: sources of this answer only when it names them. */
  private fromPinned(): void {
    for (const rendered of this.input.pinned ?? []) {
      for (const block of findResourceBlocks(rendered)) {
        if (!this.answerText.includes(block.uri)) continue;
        const max = this.input.maxInlineChars;
        this.add(block, block.body.length, 'pinned', this.startedAt, undefined, {
          in: 'inline',
          text: block.body.slice(0, max),
          ...(block.body.length > max ? { truncated: true } : {}),
        });
      }
    }
  }

  private fromText(
    text: string,
    via: Via,
    readAt: number,
    fetchedAt: number | undefined,
    at: (from: number, to: number) => SourceText,
  ): void {
    for (const block of findResourceBlocks(text)) {
      // A long tool result's own windows are that call's output, not a resource (its step shows them).
      if (isToolResultUri(block.uri)) continue;
      this.add(block, block.body.length, via, readAt, fetchedAt, at(block.at, block.at + block.body.length));
    }
  }

  private add(
    block: ReturnType<typeof findResourceBlocks>[number],
    length: number,
    via: Via,
    readAt: number,
    fetchedAt: number | undefined,
    text: SourceText,
  ): void {
    const range = block.window ?? { from: 0, to: length, total: length };
    const window: Window = {
      offset: range.from,
      end: range.to,
      total: range.total,
      ...(block.pages ? { pages: block.pages } : {}),
      text,
    };
    const key = `${block.server}\u0000${block.uri}`;
    const known = this.sources.get(key);
    if (known) {
      if (!known.windows.some((w) => w.offset === window.offset && w.end === window.end)) {
        known.windows.push(window);
        known.windows.sort((a, b) => a.offset - b.offset);
        known.partial = !covers(known.windows);
      }
      if (fetchedAt !== undefined) known.fetchedAt = Math.max(known.fetchedAt ?? 0, fetchedAt);
      return;
    }
    const listing = this.input.states.find((s) => s.id === block.server)?.resources.find((r) => r.uri === block.uri);
    const title = listing?.title ?? listing?.name;
    const version = (listing?.annotations as { lastModified?: unknown } | undefined)?.lastModified;
    this.sources.set(key, {
      n: this.sources.size + 1,
      server: block.server,
      uri: block.uri,
      ...(title ? { title } : {}),
      via,
      windows: [window],
      partial: !covers([window]),
      readAt,
      ...(fetchedAt !== undefined ? { fetchedAt } : {}),
      ...(typeof version === 'string' ? { version } : {}),
    });
  }
}

/** The windows (sorted by offset) hold every character of the text. */
function covers(windows: readonly Window[]): boolean {
  let reached = 0;
  for (const w of windows) {
    if (w.offset > reached) return false;
    reached = Math.max(reached, w.end);
  }
  return reached >= (windows[0]?.total ?? 0);
}
