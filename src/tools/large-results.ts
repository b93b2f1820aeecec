import type { DocumentInfo } from '../../shared/api/resources';

/**
 * Tool results too long for one window are kept whole, out of the message
 * history, and read by the model window by window — like a long resource —
 * under a URI of their own: `tool-result://<toolCallId>`. The history (and
 * every frame sent to a client) holds the first window and this reference,
 * so no stored row and no frame grows with what a server returned, and
 * nothing is cut silently.
 */
export interface LargeResultStore {
  /** `source`: the text is a converted document's (embedded in the result), read on with its pages named. */
  put(uri: string, server: string, text: string, source?: KeptDocument): void;
  get(uri: string): { server: string; text: string; source?: KeptDocument | undefined } | undefined;
  /**
   * Keeps only the results of these tool calls: the others' messages are
   * gone (removed, regenerated, a failed or cut turn's). Returns how many
   * results went.
   */
  keepOnly(toolCallIds: ReadonlySet<string>): number;
}

/** A document embedded in a tool result, kept as its text: where it came from and what it was. */
export interface KeptDocument {
  uri: string;
  document: DocumentInfo;
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

/** Where one part of a tool result is kept (a converted document's text): `tool-result://<toolCallId>/<part>`. */
export const toolResultPartUri = (toolCallId: string, part: number) => `${toolResultUri(toolCallId)}/${part}`;

/** The result URI a kept URI belongs to (itself, or the result of which it is a part): what `keepOnly` keeps by. */
export const ownerResultUri = (uri: string) => {
  const slash = uri.indexOf('/', TOOL_RESULT_SCHEME.length);
  return slash < 0 ? uri : uri.slice(0, slash);
};
