/**
 * Tool results too long for one window are kept whole, out of the message
 * history, and read by the model window by window — like a long resource —
 * under a URI of their own: `tool-result://<toolCallId>`. The history (and
 * every frame sent to a client) holds the first window and this reference,
 * so no stored row and no frame grows with what a server returned, and
 * nothing is cut silently.
 */
export interface LargeResultStore {
  put(uri: string, server: string, text: string): void;
  get(uri: string): { server: string; text: string } | undefined;
  /**
   * Keeps only the results of these tool calls: the others' messages are
   * gone (removed, regenerated, a failed or cut turn's). Returns how many
   * results went.
   */
  keepOnly(toolCallIds: ReadonlySet<string>): number;
}

/** Every tool call id in `messages` (the owners a kept result may have). */
export function toolCallIdsOf(messages: ReadonlyArray<{ parts: ReadonlyArray<unknown> }>): Set<string> {
  const ids = new Set<string>();
  for (const message of messages)
    for (const part of message.parts) {
      const id = (part as { toolCallId?: unknown }).toolCallId;
      if (typeof id === 'string') ids.add(id);
    }
  return ids;
}

export const TOOL_RESULT_SCHEME = 'tool-result://';

export const toolResultUri = (toolCallId: string) => `${TOOL_RESULT_SCHEME}${encodeURIComponent(toolCallId)}`;

export const isToolResultUri = (uri: string) => uri.startsWith(TOOL_RESULT_SCHEME);
