import type { LanguageModelV4, LanguageModelV4StreamPart } from '@ai-sdk/provider';

/*
 * A continuation after an approval runs the approved calls before its first model step (the AI SDK executes them
 * first, outside any step, so no `stopWhen` sees their results). When one of them became a task (MCP Tasks), the model
 * must not be asked to answer with the task's placeholder in place of the result: the step is answered by this
 * stand-in instead — no request, no tokens, nothing said — and the turn ends waiting for the task (turn/stream.ts).
 * The AI SDK has no way for `prepareStep` to end a turn before its first step; swapping the step's model is its own
 * documented per-step override.
 */

const NOTHING = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
};

/** A step that says nothing and calls no tool: the turn ends there. */
export const noModelStep: LanguageModelV4 = {
  specificationVersion: 'v4',
  provider: 'mcp-ondemand',
  modelId: 'waiting-for-tasks',
  supportedUrls: {},
  doGenerate: async () => ({
    content: [],
    finishReason: { unified: 'stop', raw: undefined },
    usage: NOTHING,
    warnings: [],
  }),
  doStream: async () => ({
    stream: new ReadableStream<LanguageModelV4StreamPart>({
      start(controller) {
        controller.enqueue({ type: 'stream-start', warnings: [] });
        controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage: NOTHING });
        controller.close();
      },
    }),
  }),
};
