import type { SourceText } from './api/stream';

/*
 * Reading an answer's sources (`data-sources`, shared/api/stream.ts) back: the service writes each window as a pointer
 * into the messages that hold the text the model received (src/turn/sources.ts); the widget — and any frontend —
 * finds the text there with these.
 */

type Parts = { parts: ReadonlyArray<{ type: string }> };

/** What a tool's output gave the model as text: the output itself when a string, else its `text`. */
export function outputText(output: unknown): string | undefined {
  if (typeof output === 'string') return output;
  const text = (output as { text?: unknown } | null | undefined)?.text;
  return typeof text === 'string' ? text : undefined;
}

/**
 * The exact text a source's window points at: in the answer's tool call, in the question's part (`question`: the
 * message `at.messageId` names), or inline. Undefined when the message that held it is not given or no longer has it.
 */
export function sourceWindowText(at: SourceText, answer: Parts, question?: Parts): string | undefined {
  if (at.in === 'inline') return at.text;
  if (at.in === 'tool') {
    const part = answer.parts.find((p) => (p as { toolCallId?: string }).toolCallId === at.toolCallId);
    return outputText((part as { output?: unknown } | undefined)?.output)?.slice(at.from, at.to);
  }
  const text = (question?.parts[at.part] as { text?: unknown } | undefined)?.text;
  return typeof text === 'string' ? text.slice(at.from, at.to) : undefined;
}
