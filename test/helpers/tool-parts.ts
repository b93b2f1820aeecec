import type { UIMessage } from 'ai';

/** Message parts for the pure tests of a saved answer's tool calls (src/turn/pending-step.test.ts, messages.test.ts). */
export type Part = UIMessage['parts'][number];

export const user: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'clean up' }] };
export const assistant = (...parts: Part[]): UIMessage => ({ id: 'a1', role: 'assistant', parts });

/** A call of `delete_file` waiting for the user's approval. */
export const asking = (toolCallId: string): Part => ({
  type: 'tool-delete_file',
  toolCallId,
  state: 'approval-requested',
  input: { path: toolCallId },
  approval: { id: `ap-${toolCallId}` },
});

/** The same call, approved or denied. */
export const decided = (toolCallId: string, approved: boolean): Part => ({
  type: 'tool-delete_file',
  toolCallId,
  state: 'approval-responded',
  input: { path: toolCallId },
  approval: { id: `ap-${toolCallId}`, approved },
});
