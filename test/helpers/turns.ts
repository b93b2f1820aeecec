import { runInDurableObject } from 'cloudflare:test';
import type { LanguageModelV4CallOptions, LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { UIMessage, UIMessageChunk } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import type { Settings } from '../../src/config';
import { conversationStub } from './api';
import { approveIn, turnIn } from './conversation';

/** Parses an AI SDK UI message stream (SSE) into its chunks. */
export async function sseChunks(response: Response): Promise<UIMessageChunk[]> {
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)) as UIMessageChunk);
}

export const textOfChunks = (chunks: UIMessageChunk[]) =>
  chunks.map((c) => (c.type === 'text-delta' ? c.delta : '')).join('');

export const userMessage = (text: string): UIMessage => ({
  id: crypto.randomUUID(),
  role: 'user',
  parts: [{ type: 'text', text }],
});

type Step = (call: LanguageModelV4CallOptions, index: number) => LanguageModelV4StreamPart[];

export const finish = (reason: 'stop' | 'tool-calls'): LanguageModelV4StreamPart => ({
  type: 'finish',
  finishReason: { unified: reason, raw: undefined },
  usage: {
    inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 5, text: 5, reasoning: undefined },
  },
});

export const say = (text: string): LanguageModelV4StreamPart[] => [
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: text },
  { type: 'text-end', id: 't' },
  finish('stop'),
];

export const callTools = (...calls: Array<[toolName: string, input: unknown]>): LanguageModelV4StreamPart[] => [
  ...calls.map(([toolName, input], i) => ({
    type: 'tool-call' as const,
    toolCallId: `call-${crypto.randomUUID().slice(0, 8)}-${i}`,
    toolName,
    input: JSON.stringify(input),
  })),
  finish('tool-calls'),
];

/**
 * A scripted model (the AI SDK's own mock): `script` decides each step from what the model was sent. `pauseMs(index)`
 * holds a step's stream open that long before its end (a turn a test must catch while it runs).
 */
export function scriptedModel(script: Step, { pauseMs }: { pauseMs?: (index: number) => number } = {}) {
  let index = 0;
  const model = new MockLanguageModelV4({
    doStream: async (call) => {
      const step = index++;
      const parts = script(call, step);
      const pause = pauseMs?.(step) ?? 0;
      return {
        stream: new ReadableStream({
          async start(controller) {
            for (const part of parts.slice(0, -1)) controller.enqueue(part);
            if (pause) await new Promise((resolve) => setTimeout(resolve, pause));
            if (parts.length) controller.enqueue(parts.at(-1)!);
            controller.close();
          },
        }),
      };
    },
  });
  return model;
}

/** Every tool result the model was sent in `prompt`, as text. */
export function toolResults(prompt: LanguageModelV4Prompt): Array<{ toolName: string; text: string; error: boolean }> {
  return prompt.flatMap((m) =>
    m.role === 'tool'
      ? m.content.flatMap((part) => {
          if (part.type !== 'tool-result') return [];
          const o = part.output;
          const text =
            o.type === 'text' || o.type === 'error-text'
              ? o.value
              : o.type === 'content'
                ? o.value.map((v) => (v.type === 'text' ? v.text : `[file ${v.type}]`)).join('\n')
                : JSON.stringify(o);
          return [{ toolName: part.toolName, text, error: o.type === 'error-text' || o.type === 'error-json' }];
        })
      : [],
  );
}

/** Runs one turn in the conversation's Durable Object with a scripted model; returns the stream's chunks. */
export async function runScriptedTurn(
  id: string,
  text: string,
  model: MockLanguageModelV4,
  overrides: Partial<Settings> = {},
  acceptsImages = false,
) {
  const stub = await conversationStub(id);
  return runInDurableObject(stub, async (instance) => {
    const live = await turnIn(instance, [userMessage(text)], { model, acceptsImages, spec: 'mock' }, overrides);
    const reader = live.reader().getReader();
    const chunks: UIMessageChunk[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    return chunks;
  });
}

/**
 * Runs a turn with a scripted model to its end (a tool call waiting for
 * approval, as the script makes it) and returns the waiting call's id.
 */
export async function turnUntilApproval(id: string, text: string, model: MockLanguageModelV4): Promise<string> {
  const stub = await conversationStub(id);
  await runInDurableObject(stub, async (instance) => {
    const live = await turnIn(instance, [userMessage(text)], { model, acceptsImages: false, spec: 'mock' });
    const reader = live.reader().getReader();
    while (!(await reader.read()).done);
  });
  const pending = await runInDurableObject(stub, async (instance) => instance.parts.history.waitingApprovals());
  return pending[0]!.toolCallId;
}

/** Approves a waiting call with a scripted model; with `wait`, until the continued turn ends. */
export async function approveWith(
  id: string,
  toolCallId: string,
  model: MockLanguageModelV4,
  wait = true,
): Promise<void> {
  await runInDurableObject(await conversationStub(id), async (instance) => {
    const live = await approveIn(
      instance,
      { toolCallId, approved: true },
      { model, acceptsImages: false, spec: 'mock' },
    );
    if (!wait || !live) return;
    const reader = live.reader().getReader();
    while (!(await reader.read()).done);
  });
}

/** A model that starts its answer and never finishes it (a turn caught mid-answer). */
export function stalledModel(text: string) {
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          controller.enqueue({ type: 'text-start', id: 't' });
          controller.enqueue({ type: 'text-delta', id: 't', delta: text });
        },
      }),
    }),
  });
}

/** Reads the turn's stream until its first text arrives: the turn is then mid-answer. */
export async function untilText(stream: ReadableStream<UIMessageChunk>) {
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) if (r.value.type === 'text-delta') return;
  throw new Error('the turn ended before any text');
}
