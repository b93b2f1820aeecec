// What servers that bend the spec send, made from a well-behaved SDK v2
// server: a wrapper around its web-standard handler that rewrites the JSON-RPC
// results of POST responses (v2-servers.ts mounts it at /bent/<how>/<mode>).
//
//   strip-json  every result loses `ttlMs` and `cacheScope` (what servers
//               written before SEP-2549's "required" wording send), answered
//               as one JSON body
//   strip-sse   the same, answered as an SSE stream (one event per message)
//   break       each list gains one entry its schema refuses: a tool whose
//               inputSchema is not an object schema, a resource without a URI,
//               a template without a uriTemplate, a prompt without a name
//   strip-type  every complete 2026 result loses `resultType` (what servers
//               written before SEP-2322 send; the conformance suite's
//               `test_mrtr_no_result_type`)
//
// GET streams (2025 notifications) and 2026 listen streams pass untouched.

export type Bend = 'strip-json' | 'strip-sse' | 'break' | 'strip-type';
export const BENDS: readonly Bend[] = ['strip-json', 'strip-sse', 'break', 'strip-type'];

const BROKEN_ENTRY: Record<string, [string, unknown]> = {
  'tools/list': [
    'tools',
    { name: 'broken_tool', description: 'Its inputSchema is a string schema', inputSchema: { type: 'string' } },
  ],
  'resources/list': ['resources', { name: 'nameless', mimeType: 'text/plain' }],
  'resources/templates/list': ['resourceTemplates', { name: 'templateless' }],
  'prompts/list': ['prompts', { description: 'A prompt without a name' }],
};

type Message = { id?: unknown; method?: string; result?: Record<string, unknown> };

function bendResult(how: Bend, method: string | undefined, result: Record<string, unknown>): void {
  if (how === 'strip-type') {
    if (result.resultType === 'complete') delete result.resultType;
    return;
  }
  if (how === 'break') {
    const broken = method ? BROKEN_ENTRY[method] : undefined;
    if (broken && Array.isArray(result[broken[0]])) (result[broken[0]] as unknown[]).splice(1, 0, broken[1]);
    return;
  }
  delete result.ttlMs;
  delete result.cacheScope;
}

function methodsById(body: string): Map<unknown, string> {
  const methods = new Map<unknown, string>();
  try {
    const parsed = JSON.parse(body) as Message | Message[];
    for (const m of Array.isArray(parsed) ? parsed : [parsed])
      if (m.id !== undefined && m.method) methods.set(m.id, m.method);
  } catch {}
  return methods;
}

function bendMessage(how: Bend, methods: Map<unknown, string>, message: Message): Message {
  if (message.result && typeof message.result === 'object') bendResult(how, methods.get(message.id), message.result);
  return message;
}

/** Wraps a web-standard MCP handler so its POST results come back bent. */
export function bentHandler(
  how: Bend,
  fetchImpl: (request: Request) => Promise<Response>,
): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.method !== 'POST') return fetchImpl(request);
    const body = await request.text();
    const methods = methodsById(body);
    const response = await fetchImpl(new Request(request, { body }));
    const type = response.headers.get('content-type') ?? '';
    if (!response.body || methods.size === 0 || methods.has(undefined)) return response;
    if (methods.size === 1 && [...methods.values()][0] === 'subscriptions/listen') return response;
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    let messages: Message[];
    if (type.includes('application/json')) {
      const parsed = (await response.json()) as Message | Message[];
      messages = Array.isArray(parsed) ? parsed : [parsed];
    } else if (type.includes('text/event-stream')) {
      // POST streams end after their answer: read whole, rewrite each event's data.
      const text = await response.text();
      messages = text
        .split(/\r?\n\r?\n/)
        .map((event) =>
          event
            .split(/\r?\n/)
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trimStart())
            .join('\n'),
        )
        .filter((data) => data.length > 0)
        .map((data) => JSON.parse(data) as Message);
    } else return response;
    const bent = messages.map((m) => bendMessage(how, methods, m));
    if (bent.length === 1 && (how === 'strip-json' || (how === 'break' && type.includes('application/json')))) {
      headers.set('content-type', 'application/json');
      return new Response(JSON.stringify(bent[0]), { status: response.status, headers });
    }
    headers.set('content-type', 'text/event-stream');
    return new Response(bent.map((m) => `event: message\ndata: ${JSON.stringify(m)}\n\n`).join(''), {
      status: response.status,
      headers,
    });
  };
}
