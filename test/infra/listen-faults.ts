// Faults of the 2026-07-28 notification channel, made from a well-behaved SDK
// v2 server: a wrapper around its web-standard handler that rewrites its
// `subscriptions/listen` streams event by event (v2-servers.ts mounts it at
// /listen-faults/strict, controlled as `listen-faults-strict`: POST
// /__control/listen-faults-strict/fault {mode, count?}). The mode is read when
// a stream opens. Other requests pass untouched.
//
//   pass                  forward
//   no-ack                the acknowledgement never comes (the stream stays open, silent)
//   narrow-ack            the acknowledged filter leaves out every URI asked for
//   unknown-subscription  after the acknowledgement, a resources/updated for each
//                         acknowledged URI under a subscription id nobody opened
//   storm                 after the acknowledgement, `count` (10,000) resources/updated
//                         for each acknowledged URI, in one burst

export type ListenFault = 'pass' | 'no-ack' | 'narrow-ack' | 'unknown-subscription' | 'storm';

/** The mode and storm size, with what was done (listen streams opened, notifications injected: the tests' bounds). */
export type ListenFaultState = { mode: ListenFault; count: number; opened: number; injected: number };

const ACK = 'notifications/subscriptions/acknowledged';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

type Message = {
  method?: string;
  params?: { notifications?: { resourceSubscriptions?: string[] }; _meta?: Record<string, unknown> };
};

const event = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

/** Wraps a web-standard MCP handler so its listen streams misbehave as `state.mode` says. */
export function listenFaultHandler(
  state: ListenFaultState,
  fetchImpl: (request: Request) => Promise<Response>,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const response = await fetchImpl(request);
    if (request.headers.get('mcp-method') !== 'subscriptions/listen' || !response.body) return response;
    state.opened++;
    const mode = state.mode;
    if (mode === 'pass') return response;
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    let buffer = '';
    const rewrite = (raw: string, out: TransformStreamDefaultController<Uint8Array>) => {
      const data = raw
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      let message: Message | undefined;
      try {
        message = data ? (JSON.parse(data) as Message) : undefined;
      } catch {}
      if (message?.method !== ACK) return out.enqueue(encoder.encode(`${raw}\n\n`));
      if (mode === 'no-ack') return;
      const uris = message.params?.notifications?.resourceSubscriptions ?? [];
      if (mode === 'narrow-ack') {
        message.params!.notifications!.resourceSubscriptions = [];
        return out.enqueue(encoder.encode(event(message)));
      }
      out.enqueue(encoder.encode(`${raw}\n\n`));
      const id = mode === 'unknown-subscription' ? 'not-a-subscription' : message.params?._meta?.[SUBSCRIPTION_ID];
      const times = mode === 'storm' ? state.count : 1;
      const notification = (uri: string) =>
        event({
          jsonrpc: '2.0',
          method: 'notifications/resources/updated',
          params: { uri, _meta: { [SUBSCRIPTION_ID]: id } },
        });
      for (const uri of uris) out.enqueue(encoder.encode(notification(uri).repeat(times)));
      state.injected += uris.length * times;
    };
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          buffer += decoder.decode(chunk, { stream: true });
          for (let end = buffer.search(/\r?\n\r?\n/); end !== -1; end = buffer.search(/\r?\n\r?\n/)) {
            const raw = buffer.slice(0, end);
            buffer = buffer.slice(buffer.slice(end).match(/^\r?\n\r?\n/)![0].length + end);
            rewrite(raw, out);
          }
        },
        flush(out) {
          if (buffer) out.enqueue(encoder.encode(buffer));
        },
      }),
    );
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return new Response(body, { status: response.status, headers });
  };
}
