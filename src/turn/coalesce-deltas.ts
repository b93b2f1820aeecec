import type { LanguageModelV4Middleware, LanguageModelV4StreamPart } from '@ai-sdk/provider';

/**
 * Merges a model's streamed deltas before they enter the AI SDK pipeline.
 *
 * Providers stream a token or two per chunk, and every chunk costs the same
 * fixed CPU on its way through `streamText`, the UI message stream, our
 * buffer and the SSE/WebSocket relay (≈ 0.5 ms in workerd, measured in
 * BENCHMARKS.md): a 500-token answer cost ≈ 250 ms of billed CPU. Deltas of
 * one text, reasoning or tool-input part that arrive within `windowMs` of the
 * first one held are sent as one chunk, so the cost follows time, not
 * tokens — while a person still sees the answer grow every few tens of ms.
 * Any other part (a new part's start, a tool call, finish) flushes first, so
 * order is kept exactly.
 */
export function coalesceDeltas(windowMs = 30): LanguageModelV4Middleware {
  if (windowMs <= 0) return { specificationVersion: 'v4' };
  return {
    specificationVersion: 'v4',
    wrapStream: async ({ doStream }) => {
      const { stream, ...rest } = await doStream();
      return { ...rest, stream: stream.pipeThrough(coalescing(windowMs)) };
    },
  };
}

type Delta = Extract<LanguageModelV4StreamPart, { type: 'text-delta' | 'reasoning-delta' | 'tool-input-delta' }>;

const isDelta = (part: LanguageModelV4StreamPart): part is Delta =>
  part.type === 'text-delta' || part.type === 'reasoning-delta' || part.type === 'tool-input-delta';

export function coalescing(windowMs: number): TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart> {
  let held: Delta | undefined;
  let heldSince = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let controllerRef: TransformStreamDefaultController<LanguageModelV4StreamPart> | undefined;

  const stop = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  const flush = () => {
    stop();
    if (held) controllerRef?.enqueue(held);
    held = undefined;
  };

  return new TransformStream({
    start(controller) {
      controllerRef = controller;
    },
    transform(part, controller) {
      // Provider metadata on a delta (e.g. a reasoning signature) belongs to that chunk: never merged.
      if (!isDelta(part) || part.providerMetadata) {
        flush();
        controller.enqueue(part);
        return;
      }
      if (held && held.type === part.type && held.id === part.id) {
        held = { ...held, delta: held.delta + part.delta };
        // A model that streams faster than the window still shows progress every window.
        if (Date.now() - heldSince >= windowMs) flush();
        return;
      }
      flush();
      held = part;
      heldSince = Date.now();
      // A model that pauses mid-answer: what is held goes out when the window ends.
      timer = setTimeout(flush, windowMs);
    },
    flush() {
      flush();
    },
    // A stream cancelled (the user stopped the turn) or failed while a delta was held: the window's timer must not
    // write into it afterwards (an uncaught "Unable to enqueue" from the timer callback).
    cancel() {
      stop();
      held = undefined;
    },
  });
}
