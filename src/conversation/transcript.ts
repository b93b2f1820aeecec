import type { UIMessage } from 'ai';

/** Most bytes of messages one transcript frame carries (the frame on connect, and after each turn). */
export const TRANSCRIPT_FRAME_BYTES = 1024 * 1024;

/**
 * The newest messages that fit in one frame, and how many older ones were
 * left out (a client gets those with `GET …/messages?before=`). Long
 * conversations must not make a client wait for — or a socket carry — their
 * whole past on every connect. The newest message always goes, whatever its
 * size (tool results are windowed, so one message stays far below the
 * platform's 32 MiB WebSocket message limit).
 */
export function transcriptWindow(
  messages: UIMessage[],
  maxBytes = TRANSCRIPT_FRAME_BYTES,
): { messages: UIMessage[]; older: number } {
  const encoder = new TextEncoder();
  let bytes = 0;
  let start = messages.length;
  while (start > 0) {
    const size = encoder.encode(JSON.stringify(messages[start - 1])).byteLength;
    if (start < messages.length && bytes + size > maxBytes) break;
    bytes += size;
    start--;
  }
  return { messages: messages.slice(start), older: start };
}

/** A page of messages before `before` (or the newest), oldest first: for clients that scroll back. */
export function messagesBefore(
  messages: UIMessage[],
  before: string | undefined,
  limit: number,
): { messages: UIMessage[]; hasMore: boolean } | undefined {
  const end = before === undefined ? messages.length : messages.findIndex((m) => m.id === before);
  if (end < 0) return undefined;
  const start = Math.max(0, end - limit);
  return { messages: messages.slice(start, end), hasMore: start > 0 };
}
