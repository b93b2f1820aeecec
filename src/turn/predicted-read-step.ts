import type { ModelMessage, ToolSet, UIMessage, UIMessageChunk } from 'ai';
import type { ServerState } from '../mcp/catalog/catalog';
import { predictedRead, readInHistory } from '../prompt/predicted-read';
import { logEvent } from '../observability/log';

/** A read made for the model before its first step: the messages it sees, the chunks the answer shows. */
export interface PredictedReadStep {
  messages: ModelMessage[];
  chunks: UIMessageChunk[];
  /** What read_resource returned (its `cache` says which layer served it: the turn's meter counts the read). */
  output: unknown;
}

/**
 * When the new message clearly needs one resource (prompt/predicted-read.ts), reads it through `read_resource` —
 * the same tool, cache, freshness and byte budget as the model's own calls — before the first step, as a call of the
 * answer's first step: the model gets the question with the window already read and answers in one round trip; the
 * saved answer holds the call like any other, so the next turn re-sends it as it was (the cached prefix holds). A read
 * that fails is left to the model, as if nothing had been tried.
 */
export async function predictedReadStep(input: {
  messages: readonly UIMessage[];
  states: ServerState[];
  tools: ToolSet;
  /** The tools the system prompt offers (read_resource must be one). */
  offered: ReadonlySet<string>;
  /** `server\u0000uri` of the resources in the prompt already. */
  inlined: ReadonlySet<string>;
  /** READ_WINDOW_CHARS: only a document that fits in one window is read ahead. */
  windowChars: number;
  abortSignal?: AbortSignal | undefined;
}): Promise<PredictedReadStep | undefined> {
  const last = input.messages.at(-1);
  const read = input.tools.read_resource;
  if (last?.role !== 'user' || !read?.execute || !input.offered.has('read_resource')) return undefined;
  const text = last.parts.map((p) => (p.type === 'text' ? p.text : '')).join(' ');
  const predicted = predictedRead(input.states, text, {
    inlined: input.inlined,
    read: readInHistory(input.messages),
    windowChars: input.windowChars,
  });
  if (!predicted) return undefined;
  const toolCallId = `call_predicted_${crypto.randomUUID().replace(/-/g, '')}`;
  const args = { uri: predicted.uri, server: predicted.server };
  let output: unknown;
  try {
    output = await read.execute(args, { toolCallId, messages: [], abortSignal: input.abortSignal } as never);
  } catch {
    return undefined;
  }
  const modelOutput = read.toModelOutput
    ? await read.toModelOutput({ toolCallId, input: args, output } as never)
    : { type: 'json' as const, value: output as never };
  logEvent('turn.predicted_read', { server: predicted.server, because: predicted.because });
  return {
    messages: [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId, toolName: 'read_resource', input: args }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId, toolName: 'read_resource', output: modelOutput }] },
    ],
    chunks: [
      { type: 'start-step' },
      { type: 'tool-input-available', toolCallId, toolName: 'read_resource', input: args },
      { type: 'tool-output-available', toolCallId, output },
      { type: 'finish-step' },
    ],
    output,
  };
}
