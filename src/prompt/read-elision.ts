import type { ModelMessage, ToolCallPart, ToolResultPart } from 'ai';
import { parseContinuation, parseResourceBlocks, parseSearchHeader } from './markers';

/**
 * What the model is sent again of the resources it has read. Every
 * `read_resource` result stays whole in the history (the person sees it),
 * but each model request re-sends the whole conversation: re-sending every
 * window of every read at every later step made reading a long document
 * cost the square of its length (a 5 MB log: 549 MB sent), and earlier
 * turns' reads made later turns cost more than pasting the documents.
 *
 * So, rebuilt for every step from the untouched messages:
 * - Sequential windows of one resource within a turn: only the newest is
 *   sent; the older ones (call and result) are dropped, and the newest says
 *   which characters were read before. A full read costs about the document
 *   once, plus a fixed prompt per window.
 * - The newest read of the current turn is always sent whole; the other reads
 *   of the turn, newest first, while they fit `turnBudget` characters; older
 *   ones become a one-line note.
 * - Reads of earlier turns: the same, with `earlierBudget` (by default 0:
 *   every earlier read is a note — reading again is a cache hit at the edge).
 * - With prompt caching on, both budgets are unbounded (turn/stream.ts): a
 *   note in place of a read sent before rewrites the cached prefix from there
 *   on (1.25× the input price for all of it, against 0.1× to send it again),
 *   so every request extends the one before it; the reads of the first
 *   `compactedTurns` user turns alone become notes, once the conversation has
 *   passed its context budget (a compaction: turn/runner.ts decides where).
 *
 * Notes name the URI, server and characters, so the model can read again;
 * nothing is cut silently.
 */
export interface ElisionBudgets {
  /** Characters of the current turn's reads (besides its newest read) sent whole. */
  turnBudget: number;
  /** Characters of earlier turns' reads sent whole. */
  earlierBudget: number;
  /** The tools whose results are resource text the model can get again at the edge (a cache hit): tools/synthetic's `reads`. */
  readingTools: ReadonlySet<string>;
  /** Reads of the conversation's first this-many user turns are notes, whatever the budgets (a compaction). */
  compactedTurns?: number | undefined;
}

interface Read {
  /** A window read (`read_resource`, `load_skill`) or passages found (`search_resource`). */
  kind: 'read' | 'search';
  call: ToolCallPart;
  key: string;
  uri: string;
  server: string;
  /** The search's query (searches only). */
  query: string;
  chars: number;
  range: [number, number] | undefined;
  total: number | undefined;
  /** Index of the user message that started the read's turn. */
  turn: number;
}

export function elideReads(messages: ModelMessage[], budgets: ElisionBudgets): ModelMessage[] {
  const reads = collectReads(messages, budgets.readingTools);
  if (!reads.length) return messages;
  const currentTurn = Math.max(...reads.map((r) => r.turn), lastUserIndex(messages));

  const dropped = new Set<string>();
  const notes = new Map<string, string>();
  const prefixes = new Map<string, string>();

  // Within each turn, only the newest window of a resource is kept; the newest says what came before.
  const byTurnAndKey = new Map<string, Read[]>();
  for (const read of reads) {
    if (read.kind !== 'read') continue;
    const group = `${read.turn}\u0000${read.key}`;
    byTurnAndKey.set(group, [...(byTurnAndKey.get(group) ?? []), read]);
  }
  for (const group of byTurnAndKey.values()) {
    // Windows only: a resource read whole again is re-sent as it was (with a prompt cache, dropping the earlier copy
    // would rewrite the cached prefix; it is one document, not a document's square).
    if (group.length < 2 || !group.every((r) => r.range)) continue;
    const newest = group.at(-1)!;
    const older = group.slice(0, -1);
    for (const read of older) dropped.add(read.call.toolCallId);
    prefixes.set(
      newest.call.toolCallId,
      `[Read before in this turn and not repeated: ${describeRanges(older)} of ${newest.uri}.]\n`,
    );
  }

  // The remaining reads, newest first: the newest of all is always sent; the others while they fit their turn's budget.
  let turnKept = 0;
  let earlierKept = 0;
  let newestSeen = false;
  const compacted = compactedIndex(messages, budgets.compactedTurns ?? 0);
  for (const read of [...reads].reverse()) {
    if (dropped.has(read.call.toolCallId)) continue;
    if (read.turn < compacted) {
      notes.set(read.call.toolCallId, note(read, false));
      continue;
    }
    const current = read.turn === currentTurn;
    if (current && !newestSeen) {
      newestSeen = true;
      continue;
    }
    // A read that does not fit leaves the budget to older, smaller ones.
    if (current && turnKept + read.chars <= budgets.turnBudget) turnKept += read.chars;
    else if (!current && earlierKept + read.chars <= budgets.earlierBudget) earlierKept += read.chars;
    else notes.set(read.call.toolCallId, note(read, current));
  }

  if (!dropped.size && !notes.size && !prefixes.size) return messages;
  return rewrite(messages, dropped, notes, prefixes);
}

/** The index of the user message that starts turn number `turns` (0-based), or -1: reads before it are compacted. */
function compactedIndex(messages: ModelMessage[], turns: number): number {
  if (turns <= 0) return -1;
  let seen = 0;
  for (let i = 0; i < messages.length; i++) {
    if (messages[i]!.role !== 'user') continue;
    if (seen === turns) return i;
    seen++;
  }
  return messages.length;
}

/** One line, re-sent at every later step: short, but enough to read it again. */
function note(read: Read, currentTurn: boolean): string {
  const when = currentTurn ? 'earlier in this turn' : 'in an earlier turn';
  if (read.kind === 'search')
    return `[Searched ${when}, not repeated: ${read.uri} (server "${read.server}") for "${read.query}"; search again if needed.]`;
  const what = read.range
    ? `characters ${read.range[0]}-${read.range[1]}${read.total === undefined ? '' : ` of ${read.total}`}`
    : `${read.chars} characters`;
  return `[Read ${when}, not repeated: ${what} of ${read.uri} (server "${read.server}"); read it again if needed.]`;
}

/** "characters 0-48000, 96000-120000": consecutive windows merged. */
function describeRanges(reads: Read[]): string {
  const ranges = reads
    .map((r) => r.range)
    .filter((r): r is [number, number] => !!r)
    .sort((a, b) => a[0] - b[0]);
  if (!ranges.length) return `${reads.length} earlier part(s)`;
  const merged: Array<[number, number]> = [];
  for (const [from, to] of ranges) {
    const last = merged.at(-1);
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return `characters ${merged.map(([a, b]) => `${a}-${b}`).join(', ')}`;
}

function rewrite(
  messages: ModelMessage[],
  dropped: Set<string>,
  notes: Map<string, string>,
  prefixes: Map<string, string>,
): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const message of messages) {
    if ((message.role !== 'assistant' && message.role !== 'tool') || typeof message.content === 'string') {
      out.push(message);
      continue;
    }
    let changed = false;
    const parts = [];
    for (const part of message.content) {
      const id = part.type === 'tool-call' || part.type === 'tool-result' ? part.toolCallId : undefined;
      if (id !== undefined && dropped.has(id)) {
        changed = true;
        continue;
      }
      if (part.type === 'tool-result' && (notes.has(id!) || prefixes.has(id!))) {
        changed = true;
        const text = notes.get(id!);
        parts.push({
          ...part,
          output:
            text !== undefined ? { type: 'text' as const, value: text } : prefixed(part.output, prefixes.get(id!)!),
        });
        continue;
      }
      parts.push(part);
    }
    if (!changed) out.push(message);
    else if (parts.length) out.push({ ...message, content: parts } as ModelMessage);
  }
  return out;
}

function prefixed(output: ToolResultPart['output'], prefix: string): ToolResultPart['output'] {
  if (output.type === 'text') return { ...output, value: prefix + output.value };
  if (output.type === 'content') return { ...output, value: [{ type: 'text', text: prefix }, ...output.value] };
  return output;
}

function collectReads(messages: ModelMessage[], readingTools: ReadonlySet<string>): Read[] {
  const calls = new Map<string, { call: ToolCallPart; turn: number }>();
  const reads: Read[] = [];
  let turn = -1;
  messages.forEach((message, index) => {
    if (message.role === 'user') turn = index;
    if (typeof message.content === 'string') return;
    for (const part of message.content) {
      if (part.type === 'tool-call' && readingTools.has(part.toolName))
        calls.set(part.toolCallId, { call: part, turn });
      if (part.type !== 'tool-result' || !readingTools.has(part.toolName)) continue;
      const found = calls.get(part.toolCallId);
      const text = outputText(part.output);
      if (!found || text === undefined) continue;
      const input = (found.call.input ?? {}) as { uri?: unknown; server?: unknown; query?: unknown };
      const block = parseResourceBlocks(text)[0];
      // load_skill names a skill, not a URI: its result's block says which file it read.
      const uri = typeof input.uri === 'string' ? input.uri : (block?.uri ?? '?');
      const window = block?.window ?? parseContinuation(text)?.window;
      const server =
        block?.server ?? parseSearchHeader(text)?.server ?? (typeof input.server === 'string' ? input.server : '?');
      // Every reading tool reads windows (read_resource, load_skill) but search_resource, which finds passages.
      const kind = part.toolName === 'search_resource' ? 'search' : 'read';
      reads.push({
        kind,
        query: typeof input.query === 'string' ? input.query : '',
        call: found.call,
        key: `${kind}\u0000${server}\u0000${uri}`,
        uri,
        server,
        chars: text.length + imageChars(part.output),
        range: window && kind === 'read' ? [window.from, window.to] : undefined,
        total: window?.total,
        turn: found.turn,
      });
    }
  });
  return reads;
}

/** The text of a successful read result (errors and denials are short and kept as they are). */
function outputText(output: ToolResultPart['output']): string | undefined {
  if (output.type === 'text') return output.value;
  if (output.type === 'content') return output.value.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
  return undefined;
}

function imageChars(output: ToolResultPart['output']): number {
  if (output.type !== 'content') return 0;
  return output.value.reduce((sum, p) => sum + ('data' in p && typeof p.data === 'string' ? p.data.length : 0), 0);
}

const lastUserIndex = (messages: ModelMessage[]) => messages.findLastIndex((m) => m.role === 'user');
