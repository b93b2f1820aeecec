/** What a 2025 server's standalone GET stream is doing. */
export interface GetStreamWatcher {
  /** The server answered the GET with an SSE stream: notifications can flow from now on. */
  opened(): void;
  /** The server refused the GET (405 for stateless servers): it cannot notify this session. */
  refused(status: number): void;
  /** The stream ended or broke: notifications may be missed until it is back. */
  closed(): void;
  /** The id of the last event the stream carried (what the SDK sends as Last-Event-ID when it opens the stream again). */
  lastEventId?: string | undefined;
}

/**
 * Watches the GET requests a Streamable HTTP transport makes. The SDK opens
 * (and re-opens) the standalone GET stream on its own and tells nobody
 * whether it got one; this is how the notification channel learns it —
 * a 405 from a stateless server, a stream that opened, a stream that ended.
 */
export function watchGetStream(fetchImpl: typeof fetch, watcher: GetStreamWatcher): typeof fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if ((init?.method ?? 'GET').toUpperCase() !== 'GET') return response;
    // A GET with Last-Event-ID resumes a stream: the session's notification stream if the id is its last
    // event's (the SDK opening it again after a drop), otherwise a POST response stream.
    const resumes = new Headers(init?.headers).get('last-event-id');
    if (resumes !== null && (watcher.lastEventId === undefined || resumes !== watcher.lastEventId)) return response;
    const isStream =
      response.ok && (response.headers.get('content-type') ?? '').includes('text/event-stream') && response.body;
    if (!isStream) {
      watcher.refused(response.status);
      return response;
    }
    watcher.opened();
    const reader = response.body!.getReader();
    let ended = false;
    const end = () => {
      if (!ended) (ended = true), watcher.closed();
    };
    // Event ids, read off the stream as it passes (a notification stream carries few events).
    const decoder = new TextDecoder();
    let partial = '';
    const noteIds = (chunk: Uint8Array) => {
      const lines = (partial + decoder.decode(chunk, { stream: true })).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines)
        if (line.startsWith('id:'))
          watcher.lastEventId = line.slice(line.startsWith('id: ') ? 4 : 3).replace(/\r$/, '');
    };
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            end();
            controller.close();
          } else {
            noteIds(value);
            controller.enqueue(value);
          }
        } catch (error) {
          end();
          controller.error(error);
        }
      },
      cancel(reason) {
        end();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/**
 * The standalone GET stream of one 2025 connection, as `watchGetStream`
 * reports it: open since when, refused, or not answered yet.
 */
export class GetStreamState implements GetStreamWatcher {
  /** When the stream (re)opened; undefined while it is not open. */
  openSince: number | undefined;
  /** The HTTP status of a refused GET (405: a stateless server). */
  refusedStatus: number | undefined;
  /** The first GET was answered, either way. */
  answered = false;
  lastEventId: string | undefined;
  private settle!: () => void;
  /** Resolves once the first GET was answered, either way. */
  readonly settled = new Promise<void>((resolve) => (this.settle = () => ((this.answered = true), resolve())));

  constructor(private readonly onClosed: () => void) {}

  opened(): void {
    this.openSince = Date.now();
    this.refusedStatus = undefined;
    this.settle();
  }

  refused(status: number): void {
    this.openSince = undefined;
    this.refusedStatus = status;
    this.settle();
  }

  closed(): void {
    if (this.openSince === undefined) return;
    this.openSince = undefined;
    this.onClosed();
  }
}
