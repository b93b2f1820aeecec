import { INTERRUPTED_REASON } from '../conversation/history';

/**
 * A turn's SSE stream as the client gets it. If the conversation's Durable
 * Object goes away mid-turn (a deploy, an eviction, a crash), the stream
 * from it breaks; instead of a bare network error, the client gets a last
 * UI-message-stream `error` chunk saying what happened and what was kept
 * (see History: the user's message stays, marked interrupted).
 */
export function turnStream(response: Response): Response {
  if (!response.body || !response.headers.get('content-type')?.includes('text/event-stream')) return response;
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        const cause = error instanceof Error ? error.message : String(error);
        const chunk = { type: 'error', errorText: `${INTERRUPTED_REASON} (cause: ${cause})` };
        // Blank line first: the break may have come in the middle of an event, which must end before ours starts.
        controller.enqueue(new TextEncoder().encode(`\n\ndata: ${JSON.stringify(chunk)}\n\n`));
        controller.close();
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: response.status, headers: response.headers });
}
