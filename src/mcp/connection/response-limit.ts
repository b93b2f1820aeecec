/**
 * Bounds what one MCP server can make this isolate hold: a Worker isolate has
 * 128 MB, and a JSON-RPC message is buffered whole before it is parsed (a
 * JSON body by `response.json()`, an SSE event by the event parser). So no
 * single message may exceed `maxBytes`; past it, reading stops and the
 * request fails with an error that says why. Measured in docs/RELIABILITY.md:
 * a 50 MB blob read whole cost the isolate about 300 MB before this limit.
 *
 * - JSON responses: refused up front when `content-length` says too much,
 *   else the body errors as soon as it passes the limit.
 * - SSE responses: each event is counted from the last blank line. On a POST
 *   stream, an oversized event is replaced by a JSON-RPC error for the
 *   request(s) it answered (so the caller gets this message, not a timeout)
 *   and the stream is closed; a GET stream just errors (the SDK reconnects,
 *   and gives the session up if it keeps happening).
 */
export function limitResponses(fetchImpl: typeof fetch, maxBytes: number): typeof fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (!response.body) return response;
    const type = response.headers.get('content-type') ?? '';
    let body: ReadableStream<Uint8Array>;
    if (type.includes('text/event-stream')) {
      body = response.body.pipeThrough(sseEventLimit(maxBytes, requestIds(init?.body)));
    } else {
      if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
        await response.body.cancel();
        throw new Error(tooLargeMessage(maxBytes));
      }
      body = response.body.pipeThrough(byteLimit(maxBytes));
    }
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

export const tooLargeMessage = (maxBytes: number) =>
  `the server sent a message larger than ${maxBytes} bytes (MCP_MAX_RESPONSE_BYTES); it was not read`;

/** Ids of the JSON-RPC requests in a POST body (what an SSE response answers). */
function requestIds(body: unknown): Array<string | number> {
  if (typeof body !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(body);
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((m) =>
      typeof m === 'object' &&
      m !== null &&
      'method' in m &&
      'id' in m &&
      (typeof m.id === 'string' || typeof m.id === 'number')
        ? [m.id]
        : [],
    );
  } catch {
    return [];
  }
}

function byteLimit(maxBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let total = 0;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.byteLength;
      if (total > maxBytes) controller.error(new Error(tooLargeMessage(maxBytes)));
      else controller.enqueue(chunk);
    },
  });
}

const LF = 10;
const CR = 13;

function sseEventLimit(maxBytes: number, ids: Array<string | number>): TransformStream<Uint8Array, Uint8Array> {
  let eventBytes = 0; // bytes of the current event seen in earlier chunks
  let lineBytes = 0; // bytes of the current line seen in earlier chunks
  let lastWasCr = false; // the previous chunk ended with CR (a CRLF split across chunks)
  /** Passes on the whole events before the oversized one, then ends the stream with the cause. */
  const overflow = (controller: TransformStreamDefaultController<Uint8Array>, before: Uint8Array) => {
    if (before.byteLength) controller.enqueue(before);
    if (!ids.length) return controller.error(new Error(tooLargeMessage(maxBytes)));
    // Ends the partial event (its JSON fails to parse and is dropped), then answers each request with the cause.
    const errors = ids.map(
      (id) =>
        `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: tooLargeMessage(maxBytes) } })}\n\n`,
    );
    controller.enqueue(new TextEncoder().encode(`\n\n${errors.join('')}`));
    controller.terminate();
  };
  return new TransformStream({
    transform(chunk, controller) {
      let eventStart = 0; // where the current event begins in this chunk
      let lineStart = 0; // where the current line begins in this chunk
      for (let lf = chunk.indexOf(LF); lf !== -1; lf = chunk.indexOf(LF, lf + 1)) {
        const inChunk = lf - lineStart;
        const crBefore = inChunk > 0 ? chunk[lf - 1] === CR : lastWasCr;
        const lineLength = lineBytes + inChunk - (crBefore ? 1 : 0);
        lineBytes = 0;
        lastWasCr = false;
        lineStart = lf + 1;
        if (lineLength !== 0) continue;
        // A blank line ends the event.
        if (eventBytes + (lf + 1 - eventStart) > maxBytes) return overflow(controller, chunk.subarray(0, eventStart));
        eventBytes = 0;
        eventStart = lf + 1;
      }
      lineBytes += chunk.byteLength - lineStart;
      if (chunk.byteLength > lineStart) lastWasCr = chunk[chunk.byteLength - 1] === CR;
      eventBytes += chunk.byteLength - eventStart;
      if (eventBytes > maxBytes) return overflow(controller, chunk.subarray(0, eventStart));
      controller.enqueue(chunk);
    },
  });
}
