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
  // A native pipe (no JavaScript per chunk); only a broken source runs code, to add the error chunk.
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  response.body.pipeTo(writable, { preventAbort: true }).catch(async (error: unknown) => {
    const cause = error instanceof Error ? error.message : String(error);
    const chunk = { type: 'error', errorText: `${INTERRUPTED_REASON} (cause: ${cause})` };
    const writer = writable.getWriter();
    try {
      // Blank line first: the break may have come in the middle of an event, which must end before ours starts.
      await writer.write(new TextEncoder().encode(`\n\ndata: ${JSON.stringify(chunk)}\n\n`));
      await writer.close();
    } catch {
      // the client went away too
    }
  });
  return new Response(readable, { status: response.status, headers: response.headers });
}
