// The widget's chat session (chat-session.ts) in Node, against a fake
// service behind `fetch`: what the person would see (the messages, the status
// line, the errors) and what reaches the service, for the cases a browser
// test cannot aim at — the back-off's timing, a stream cut at a chosen chunk.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChatApi, ChatError } from './api';
import {
  CONTINUATION_DELAYS_MS,
  ChatSession,
  RESUME_DELAYS_MS,
  TASK_POLL_MAX_MS,
  TASK_POLL_MS,
  taskPollDelay,
  type ChatMessages,
  type ChatSessionOptions,
  type ChatStatus,
  type ConversationStore,
} from './chat-session';
import type { Message } from './types';

const ENDPOINT = 'https://chat.test';
const KEY = `mcp-ondemand:${ENDPOINT}`;

type Chunk = { type: string } & Record<string, unknown>;
type Reply = () => Response | Promise<Response>;

/**
 * The service, as far as the session talks to it: the replies to each
 * `METHOD /path`, in order (the last one repeats), every request recorded.
 */
class FakeService {
  readonly requests: Array<{ method: string; path: string; body?: unknown }> = [];
  private readonly routes = new Map<string, Reply[]>();

  on(route: string, ...replies: Reply[]): this {
    this.routes.set(route, replies);
    return this;
  }

  calls(route: string): Array<{ method: string; path: string; body?: unknown }> {
    return this.requests.filter((r) => `${r.method} ${r.path}` === route);
  }

  readonly fetch = async (input: URL | string, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input);
    const method = init.method ?? 'GET';
    const path = url.pathname + url.search;
    this.requests.push({ method, path, ...(typeof init.body === 'string' ? { body: JSON.parse(init.body) } : {}) });
    const replies = this.routes.get(`${method} ${path}`);
    if (!replies?.length) return json({ error: { code: 'no_route', message: `${method} ${path}` } }, 501);
    return (replies.length > 1 ? replies.shift()! : replies[0]!)();
  };
}

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** A UI message stream: `finished` ends it normally; `dropped` closes it early; `broken` fails mid-read. */
function stream(chunks: Chunk[], end: 'finished' | 'dropped' | 'broken' = 'finished'): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
      if (end === 'broken') controller.error(new TypeError('network error'));
      else {
        if (end === 'finished') controller.enqueue(encoder.encode('data: [DONE]\n\n'));
        controller.close();
      }
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

const answer = (id: string, text: string): Chunk[] => [
  { type: 'start', messageId: id },
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: text },
  { type: 'text-end', id: 't' },
  { type: 'finish' },
];
const user = (id: string, text: string): Message => ({ id, role: 'user', parts: [{ type: 'text', text }] });
const assistant = (id: string, text: string): Message => ({ id, role: 'assistant', parts: [{ type: 'text', text }] });

/** The transcript as a plain list (what the element's TranscriptView keeps). */
class MessageList implements ChatMessages {
  private messages: Message[] = [];
  private stored = new Map<string, Message>();
  all = () => this.messages;
  find = (id: string | undefined) => (id ? this.messages.find((m) => m.id === id) : undefined);
  storedCopy = (id: string | undefined) =>
    id && this.stored.has(id) ? structuredClone(this.stored.get(id)!) : undefined;
  show = (messages: Message[]) => {
    this.messages = [...messages];
    this.stored = new Map(messages.map((m) => [m.id, structuredClone(m)]));
  };
  update = (message: Message) => {
    this.stored.set(message.id, structuredClone(message));
    const old = this.find(message.id);
    if (old) this.replace(old, message);
    else this.add(message);
  };
  add = (message: Message) => (this.messages.push(message), message);
  replace = (old: Message, message: Message) => void (this.messages[this.messages.indexOf(old)] = message);
  remove = (message: Message) => void (this.messages = this.messages.filter((m) => m !== message));
}

class MemoryStorage implements ConversationStore {
  readonly items = new Map<string, string>();
  getItem = (key: string) => this.items.get(key) ?? null;
  setItem = (key: string, value: string) => void this.items.set(key, value);
  removeItem = (key: string) => void this.items.delete(key);
}

/** A session over the fake service, and what its user would see. */
function chat(options: Partial<ChatSessionOptions> = {}) {
  const messages = new MessageList();
  const storage = new MemoryStorage();
  const lifetime = new AbortController();
  const seen = {
    statuses: [] as ChatStatus[],
    chunks: [] as string[],
    errors: [] as Array<{ code: string; message: string; retry?: () => void }>,
    finished: [] as string[],
    waiting: [] as string[],
    created: [] as string[],
    changed: [] as Message[],
  };
  const session = new ChatSession({
    api: new ChatApi(ENDPOINT, () => 'token-1'),
    messages,
    storage: () => storage,
    lifetime: () => lifetime.signal,
    onStatus: (status) => seen.statuses.push(status),
    onChunk: (_message, chunk) => seen.chunks.push(chunk.type),
    onError: (error, retry) =>
      seen.errors.push({
        code: error instanceof ChatError ? error.code : 'connection_lost',
        message: (error as Error).message,
        ...(retry ? { retry } : {}),
      }),
    onFinish: (message) => seen.finished.push(text(message)),
    onWait: (message, waitingFor) => seen.waiting.push(`${waitingFor} in ${message.id}`),
    onCreate: (id) => seen.created.push(id),
    onMessageChange: (message) => seen.changed.push(message),
    ...options,
  });
  /** The transcript as the person reads it. */
  const transcript = () => messages.all().map((m) => `${m.role}: ${text(m)}`);
  return { session, messages, storage, lifetime, seen, transcript };
}

const text = (message: Message) =>
  message.parts.flatMap((p) => (p.type === 'text' ? [(p as { text: string }).text] : [])).join(' ');

/** Lets the session's promise chains run (the streams are read in microtasks), until `check` holds. */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !check(); i++) await Promise.resolve();
  expect(check()).toBe(true);
}

/** A reply held back until `release()`, to land it at a chosen moment; `asked()` once the request came. */
function held(reply: Reply) {
  let release: (() => void) | undefined;
  return {
    reply: () => new Promise<Response>((resolve) => (release = () => void resolve(reply()))),
    asked: () => release !== undefined,
    release: () => release!(),
  };
}

let service: FakeService;
beforeEach(() => {
  service = new FakeService();
  vi.stubGlobal('fetch', service.fetch);
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('the conversation', () => {
  it('is created on first use, once for concurrent callers, remembered in storage, and told to the host', async () => {
    service
      .on('POST /v1/conversations', () => json({ id: 'c1' }))
      .on('GET /v1/conversations/c1/catalog', () => json({ servers: [] }))
      .on('POST /v1/conversations/c1/messages', () => stream(answer('a1', 'Hi.')));
    const { session, storage, seen } = chat();
    expect(session.conversationId).toBeNull();

    // The @ menu asks for the catalog while the first message goes out: one conversation for both.
    const [sent] = await Promise.all([session.send('Hello', []), session.catalog()]);
    expect(sent).toBe(true);
    expect(service.calls('POST /v1/conversations')).toHaveLength(1);
    expect(seen.created).toEqual(['c1']);
    expect(storage.items.get(KEY)).toBe('c1');

    // The next message goes to the same conversation; a new session (a reload) picks it up from storage.
    await session.send('Again', []);
    expect(service.calls('POST /v1/conversations')).toHaveLength(1);
    expect(service.calls('POST /v1/conversations/c1/messages')).toHaveLength(2);
    const reloaded = new ChatSession({ ...chatOptions(), storage: () => storage });
    expect(reloaded.conversationId).toBe('c1');
  });

  it('is not kept without storage, or when storage is blocked, and the chat still works', async () => {
    service
      .on('POST /v1/conversations', () => json({ id: 'c1' }))
      .on('POST /v1/conversations/c1/messages', () => stream(answer('a1', 'Hi.')));
    const blocked = () => {
      throw new DOMException('The operation is insecure.', 'SecurityError');
    };
    for (const storage of [() => null, blocked]) {
      const { session, transcript } = chat({ storage });
      expect(session.conversationId).toBeNull();
      expect(await session.send('Hello', [])).toBe(true);
      expect(transcript()).toEqual(['user: Hello', 'assistant: Hi.']);
    }
  });

  it('loads the history alone when no turn is running: its last answer is not news to the host', async () => {
    service
      .on('GET /v1/conversations/c1', () => json({ id: 'c1', messages: [user('u1', 'Hello'), assistant('a1', 'Hi.')] }))
      .on('GET /v1/conversations/c1/stream', () => new Response(null, { status: 204 }));
    const { session, seen, transcript } = chat({ conversation: 'c1' });
    await session.load('c1');
    expect(transcript()).toEqual(['user: Hello', 'assistant: Hi.']);
    expect(seen.statuses).toEqual(['loading', 'ready']);
    expect(service.calls('GET /v1/conversations/c1')).toHaveLength(1);
    expect(seen.finished).toEqual([]);
  });

  it('loads the history and follows the turn still running; a conversation that is gone is forgotten', async () => {
    service
      .on(
        'GET /v1/conversations/c1',
        () => json({ id: 'c1', messages: [user('u1', 'Hello'), assistant('a1', 'Hi.')] }),
        () =>
          json({
            id: 'c1',
            messages: [
              user('u1', 'Hello'),
              assistant('a1', 'Hi.'),
              user('u2', 'More?'),
              assistant('a2', 'Still here.'),
            ],
          }),
      )
      .on('GET /v1/conversations/c1/stream', () => stream(answer('a2', 'Still here.')))
      .on('GET /v1/conversations/gone', () =>
        json({ error: { code: 'not_found', message: 'No such conversation.' } }, 404),
      );
    const { session, storage, seen, transcript } = chat({ conversation: 'c1' });
    await session.load('c1');
    expect(seen.statuses).toEqual(['loading', 'ready']);
    // The running turn's stream, then the history again (the resumed stream may have begun before this page saw it).
    expect(transcript()).toEqual(['user: Hello', 'assistant: Hi.', 'user: More?', 'assistant: Still here.']);
    expect(service.calls('GET /v1/conversations/c1')).toHaveLength(2);
    expect(seen.finished).toEqual(['Still here.']);

    await session.switchTo('gone');
    expect(seen.errors).toEqual([]);
    expect(session.conversationId).toBeNull();
    expect(storage.items.has(KEY)).toBe(false);
  });
});

describe('a turn', () => {
  it('shows the message at once, streams the answer in chunk by chunk, and ends ready', async () => {
    service
      .on('POST /v1/conversations', () => json({ id: 'c1' }))
      .on('POST /v1/conversations/c1/messages', () => stream(answer('a1', 'Estimates are in hours.')));
    const { session, seen, transcript } = chat();
    const sent = session.send('What about estimates?', [{ server: 'demo', uri: 'task://guidelines' }]);
    expect(transcript()).toEqual(['user: What about estimates?']);
    expect(session.status).toBe('answering');
    expect(await sent).toBe(true);

    expect(transcript()).toEqual(['user: What about estimates?', 'assistant: Estimates are in hours.']);
    expect(seen.chunks).toEqual(['start', 'text-start', 'text-delta', 'text-end', 'finish']);
    expect(seen.statuses).toEqual(['answering', 'ready']);
    expect(seen.finished).toEqual(['Estimates are in hours.']);
    expect(seen.errors).toEqual([]);
    expect(service.calls('POST /v1/conversations/c1/messages')[0]?.body).toEqual({
      text: 'What about estimates?',
      attachments: [{ server: 'demo', uri: 'task://guidelines' }],
    });
  });

  it('refused by the service (429, 409) takes the message back, and says why with a way to try again', async () => {
    service
      .on('POST /v1/conversations', () => json({ id: 'c1' }))
      .on(
        'POST /v1/conversations/c1/messages',
        () => json({ error: { code: 'rate_limited', message: 'Too many turns.' } }, 429, { 'retry-after': '7' }),
        () => json({ error: { code: 'turn_in_progress', message: 'A turn is running.' } }, 409),
      );
    const { session, seen, transcript } = chat();
    for (const code of ['rate_limited', 'turn_in_progress']) {
      const refused = vi.fn();
      expect(await session.send('And owners?', [], { onRefused: refused })).toBe(false);
      expect(transcript()).toEqual([]);
      expect(refused).toHaveBeenCalledOnce();
      expect(seen.errors.at(-1)).toMatchObject({ code, retry: expect.any(Function) });
    }
    expect(seen.statuses).toEqual(['answering', 'ready', 'answering', 'ready']);
    expect(seen.finished).toEqual([]);
  });

  it('sent while another runs is taken back at once, without asking the service', async () => {
    let release!: () => void;
    service
      .on('POST /v1/conversations', () => json({ id: 'c1' }))
      .on(
        'POST /v1/conversations/c1/messages',
        () => new Promise<Response>((resolve) => (release = () => resolve(stream(answer('a1', 'Done.'))))),
      );
    const { session, seen, transcript } = chat();
    const first = session.send('First', []);
    await until(() => release !== undefined);
    const refused = vi.fn();
    expect(await session.send('Second', [], { onRefused: refused })).toBe(false);
    expect(refused).toHaveBeenCalledOnce();
    expect(seen.errors).toMatchObject([{ code: 'turn_in_progress' }]);
    release();
    expect(await first).toBe(true);
    expect(transcript()).toEqual(['user: First', 'assistant: Done.']);
    expect(service.calls('POST /v1/conversations/c1/messages')).toHaveLength(1);
  });

  it('that fails on the service (an error chunk) shows the history as stored and gives the message back', async () => {
    service
      .on('POST /v1/conversations', () => json({ id: 'c1' }))
      .on('POST /v1/conversations/c1/messages', () =>
        stream([
          { type: 'start', messageId: 'a1' },
          { type: 'error', errorText: 'The model is down.' },
        ]),
      )
      .on('GET /v1/conversations/c1', () => json({ id: 'c1', messages: [] }));
    const { session, seen, transcript } = chat();
    const refused = vi.fn();
    expect(await session.send('Hello', [], { onRefused: refused })).toBe(false);
    expect(transcript()).toEqual([]);
    expect(refused).toHaveBeenCalledOnce();
    expect(seen.errors.at(-1)).toMatchObject({
      code: 'turn_failed',
      message: 'The model is down.',
      retry: expect.any(Function),
    });
    expect(seen.finished).toEqual([]);
    expect(seen.statuses).toEqual(['answering', 'ready']);
  });
});

describe('a stream that ends without `finish`: the connection dropped, the turn goes on at the service', () => {
  beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));

  it('is picked up again after the first back-off, replayed onto the message, nothing lost or doubled', async () => {
    const history = [user('u1', 'Hello'), assistant('a1', 'Hello there, friend.')];
    service
      .on('POST /v1/conversations', () => json({ id: 'c1' }))
      .on('POST /v1/conversations/c1/messages', () =>
        stream(answer('a1', 'Hello there, friend.').slice(0, 3), 'dropped'),
      )
      .on('GET /v1/conversations/c1/stream', () => stream(answer('a1', 'Hello there, friend.')))
      .on('GET /v1/conversations/c1', () => json({ id: 'c1', messages: history }));
    const { session, seen, transcript } = chat();
    const sent = session.send('Hello', []);
    await until(() => session.status === 'connection-lost');
    expect(transcript()).toEqual(['user: Hello', 'assistant: Hello there, friend.']);

    await vi.advanceTimersByTimeAsync(RESUME_DELAYS_MS[0]! - 1);
    expect(service.calls('GET /v1/conversations/c1/stream')).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(await sent).toBe(true);
    expect(service.calls('GET /v1/conversations/c1/stream')).toHaveLength(1);
    expect(transcript()).toEqual(['user: Hello', 'assistant: Hello there, friend.']);
    expect(seen.statuses).toEqual(['answering', 'connection-lost', 'ready']);
    expect(seen.finished).toEqual(['Hello there, friend.']);
    expect(seen.errors).toEqual([]);
  });

  it('that finished meanwhile is read from the history, and the host hears of the answer', async () => {
    service
      .on('POST /v1/conversations', () => json({ id: 'c1' }))
      .on('POST /v1/conversations/c1/messages', () => stream([{ type: 'start', messageId: 'a1' }], 'broken'))
      .on('GET /v1/conversations/c1/stream', () => new Response(null, { status: 204 }))
      .on('GET /v1/conversations/c1', () =>
        json({ id: 'c1', messages: [user('u1', 'Hello'), assistant('a1', 'Done while away.')] }),
      );
    const { session, seen, transcript } = chat();
    const sent = session.send('Hello', []);
    await until(() => session.status === 'connection-lost');
    await vi.advanceTimersByTimeAsync(RESUME_DELAYS_MS[0]!);
    expect(await sent).toBe(true);
    expect(transcript()).toEqual(['user: Hello', 'assistant: Done while away.']);
    expect(seen.finished).toEqual(['Done while away.']);
  });

  it('is tried again after 0.5, 1, 2 and 4 s, then given up with "Try again", which follows the turn again', async () => {
    service
      .on('POST /v1/conversations', () => json({ id: 'c1' }))
      .on('POST /v1/conversations/c1/messages', () => stream([{ type: 'start', messageId: 'a1' }], 'dropped'))
      .on(
        'GET /v1/conversations/c1/stream',
        ...RESUME_DELAYS_MS.map(() => () => stream([{ type: 'start', messageId: 'a1' }], 'broken')),
      );
    const { session, seen } = chat();
    const sent = session.send('Hello', []);
    const resumes = () => service.calls('GET /v1/conversations/c1/stream').length;
    for (const [attempt, delay] of RESUME_DELAYS_MS.entries()) {
      await until(() => session.status === 'connection-lost' && resumes() === attempt);
      await vi.advanceTimersByTimeAsync(delay - 1);
      expect(resumes()).toBe(attempt);
      await vi.advanceTimersByTimeAsync(1);
      await until(() => resumes() === attempt + 1);
    }
    await sent;
    expect(seen.statuses).toEqual(['answering', ...RESUME_DELAYS_MS.map(() => 'connection-lost'), 'ready']);
    expect(seen.errors).toMatchObject([
      { code: 'connection_lost', message: 'The connection dropped and could not be re-established.' },
    ]);
    expect(seen.finished).toEqual([]);

    // "Try again": the turn, still running at the service, is followed to its end.
    service.on('GET /v1/conversations/c1/stream', () => stream(answer('a1', 'Back.')));
    service.on('GET /v1/conversations/c1', () =>
      json({ id: 'c1', messages: [user('u1', 'Hello'), assistant('a1', 'Back.')] }),
    );
    seen.statuses.length = 0;
    seen.errors.at(-1)!.retry!();
    await until(() => session.status === 'ready' && seen.finished.length > 0);
    expect(seen.statuses).toEqual(['reconnecting', 'ready']);
    expect(seen.finished).toEqual(['Back.']);
  });

  it('stops waiting when the chat leaves the page: no more requests, no error', async () => {
    service
      .on('POST /v1/conversations', () => json({ id: 'c1' }))
      .on('POST /v1/conversations/c1/messages', () => stream([{ type: 'start', messageId: 'a1' }], 'dropped'));
    const { session, seen, lifetime } = chat();
    const sent = session.send('Hello', []);
    await until(() => session.status === 'connection-lost');
    lifetime.abort();
    await sent;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(service.calls('GET /v1/conversations/c1/stream')).toHaveLength(0);
    expect(seen.errors).toEqual([]);
    expect(session.status).toBe('ready');
  });
});

describe('answers to the service', () => {
  const toolMessage = (): Message => ({
    id: 'a1',
    role: 'assistant',
    parts: [
      {
        type: 'tool-demo__create_task',
        toolCallId: 'call1',
        state: 'approval-requested',
        input: { title: 'x' },
        approval: { id: 'ap1' },
      },
    ],
  });
  const loaded = async () => {
    service
      .on('GET /v1/conversations/c1', () => json({ id: 'c1', messages: [user('u1', 'Create x'), toolMessage()] }))
      .on('GET /v1/conversations/c1/stream', () => new Response(null, { status: 204 }));
    const view = chat({ conversation: 'c1' });
    await view.session.load('c1');
    return view;
  };
  const part = (view: Awaited<ReturnType<typeof loaded>>) =>
    view.messages.find('a1')!.parts[0] as { state: string; approval: { approved?: boolean } };

  it('an approval goes to /approvals, shows as answered at once, and the continuation streams into the same message', async () => {
    const view = await loaded();
    service.on('POST /v1/conversations/c1/approvals', () =>
      stream([
        { type: 'start', messageId: 'a1' },
        { type: 'tool-output-available', toolCallId: 'call1', output: { created: 1 } },
        ...answer('a1', 'Created task #1.').slice(1),
      ]),
    );
    view.session.answerApproval('call1', true);
    expect(part(view)).toMatchObject({ state: 'approval-responded', approval: { approved: true } });
    expect(view.seen.changed.map((m) => m.id)).toEqual(['a1']);
    await until(() => view.session.status === 'ready');
    expect(service.calls('POST /v1/conversations/c1/approvals')[0]?.body).toEqual({
      toolCallId: 'call1',
      approved: true,
    });
    expect(view.transcript()).toEqual(['user: Create x', 'assistant: Created task #1.']);
    expect(part(view).state).toBe('output-available');
  });

  it('the host hears of an answer once, when it is complete; that it waits for an approval or a question, apart', async () => {
    const ask = (id: string, toolCallId: string): Chunk[] => [
      { type: 'start', messageId: id },
      { type: 'tool-input-available', toolCallId, toolName: 'demo__create_task', input: { title: 'x' } },
      { type: 'tool-approval-request', toolCallId, approvalId: `ap-${toolCallId}` },
      { type: 'finish' },
    ];
    const question = (status: string) => ({
      type: 'data-elicitation',
      id: 'el1',
      data: { id: 'el1', server: 'demo', message: 'How many hours?', requestedSchema: {}, status },
    });
    service
      .on('POST /v1/conversations', () => json({ id: 'c1' }))
      .on('POST /v1/conversations/c1/messages', () => stream(ask('a1', 'call1')))
      .on(
        'POST /v1/conversations/c1/approvals',
        // The first approval's continuation asks for a second one; the second one's, a question, then the answer.
        () => stream([{ type: 'start', messageId: 'a1' }, ...ask('a1', 'call2').slice(1)]),
        () =>
          stream([
            { type: 'start', messageId: 'a1' },
            question('pending'),
            question('accept'),
            ...answer('a1', 'Created tasks #1 and #2.').slice(1),
          ]),
      );
    const { session, seen } = chat();
    await session.send('Create x and y', []);
    expect(seen.finished).toEqual([]);
    expect(seen.waiting).toEqual(['approval in a1']);

    session.answerApproval('call1', true);
    await until(() => seen.waiting.length === 2 && session.status === 'ready');
    expect(seen.finished).toEqual([]);
    session.answerApproval('call2', true);
    await until(() => seen.finished.length > 0 && session.status === 'ready');
    expect(seen.waiting).toEqual(['approval in a1', 'approval in a1', 'question in a1']);
    expect(seen.finished).toEqual(['Created tasks #1 and #2.']);
  });

  it('a refused approval asks the question again', async () => {
    const view = await loaded();
    service.on('POST /v1/conversations/c1/approvals', () =>
      json({ error: { code: 'token_expired', message: 'Expired.' } }, 401),
    );
    view.session.answerApproval('call1', false);
    expect(part(view)).toMatchObject({ state: 'approval-responded', approval: { approved: false } });
    await until(() => view.session.status === 'ready');
    expect(part(view).state).toBe('approval-requested');
    expect(part(view).approval).not.toHaveProperty('approved');
    expect(view.seen.errors).toMatchObject([{ code: 'token_expired' }]);
  });

  it("a server's question is answered at /elicitations/:id; a refusal is said", async () => {
    const view = await loaded();
    service
      .on('POST /v1/conversations/c1/elicitations/el1', () => json({ ok: true }))
      .on('POST /v1/conversations/c1/elicitations/el2', () =>
        json({ error: { code: 'not_found', message: 'No such question.' } }, 404),
      );
    view.session.answerElicitation('el1', 'accept', { hours: 4 });
    view.session.answerElicitation('el2', 'decline');
    await until(() => view.seen.errors.length > 0);
    expect(service.calls('POST /v1/conversations/c1/elicitations/el1')[0]?.body).toEqual({
      action: 'accept',
      content: { hours: 4 },
    });
    expect(service.calls('POST /v1/conversations/c1/elicitations/el2')[0]?.body).toEqual({ action: 'decline' });
    expect(view.seen.errors).toMatchObject([{ code: 'not_found' }]);
  });

  it('an answer given again (after a connect) replaces the last one through /v1/chat; refused, the old one comes back', async () => {
    service
      .on('GET /v1/conversations/c1', () =>
        json({ id: 'c1', messages: [user('u1', 'Who am I?'), assistant('a1', 'Connect your account first.')] }),
      )
      .on('GET /v1/conversations/c1/stream', () => new Response(null, { status: 204 }))
      .on(
        'POST /v1/chat',
        () => stream(answer('a2', 'You are alice.')),
        () => json({ error: { code: 'rate_limited', message: 'Slow down.' } }, 429),
      );
    const { session, transcript } = chat({ conversation: 'c1' });
    await session.load('c1');
    expect(session.answerAgain('not-the-last')).toBe(false);
    expect(session.answerAgain('a1')).toBe(true);
    await until(() => session.status === 'ready');
    expect(service.calls('POST /v1/chat')[0]?.body).toMatchObject({
      id: 'c1',
      trigger: 'regenerate-message',
      messageId: 'a1',
    });
    expect(transcript()).toEqual(['user: Who am I?', 'assistant: You are alice.']);

    expect(session.answerAgain('a2')).toBe(true);
    await until(() => session.status === 'ready');
    expect(transcript()).toEqual(['user: Who am I?', 'assistant: You are alice.']);
  });

  it('Stop asks the service to stop the running turn, and only while one runs', async () => {
    let release!: () => void;
    service
      .on('POST /v1/conversations', () => json({ id: 'c1' }))
      .on(
        'POST /v1/conversations/c1/messages',
        () => new Promise<Response>((resolve) => (release = () => resolve(stream([{ type: 'abort' }])))),
      )
      .on('DELETE /v1/conversations/c1/stream', () => json({ stopped: true }));
    const { session, seen } = chat();
    await session.stop();
    const sent = session.send('Write a lot', []);
    await until(() => release !== undefined);
    await session.stop();
    release();
    await sent;
    expect(service.calls('DELETE /v1/conversations/c1/stream')).toHaveLength(1);
    // Stopped: not an error, and not a finished answer.
    expect(seen.errors).toEqual([]);
    expect(seen.finished).toEqual([]);
  });
});

describe('a read the page has moved past is not shown', () => {
  /**
   * Sends, presses Stop, and lands the stopped stream's end before Stop's
   * reply (the page is idle then); returns once Stop's read-back of the
   * history is asked for, and held; `stopping` settles when Stop is done.
   */
  async function stopBeforeReadBack(
    session: ChatSession,
    replies: Record<'turn' | 'stop' | 'readBack', ReturnType<typeof held>>,
  ) {
    const sent = session.send('Write a lot', []);
    await until(replies.turn.asked);
    const stopping = session.stop();
    await until(replies.stop.asked);
    replies.turn.release();
    await sent;
    expect(session.status).toBe('ready');
    replies.stop.release();
    await until(replies.readBack.asked);
    return { stopping }; // not the promise itself: an async function's caller would wait for it
  }

  it('a message sent while the stopped answer is read back is not wiped by that older history', async () => {
    // Stop's reply can come after the stopped stream has ended; the page is idle then, so the person may
    // send again while the stopped answer is read back. That read is older than the new turn.
    const turn = held(() => stream([{ type: 'start', messageId: 'a1' }, { type: 'abort' }]));
    const stop = held(() => json({ stopped: true }));
    const readBack = held(() =>
      json({ id: 'c1', messages: [user('u1', 'Write a lot'), assistant('a1', 'word0 word1')] }),
    );
    service
      .on('POST /v1/conversations', () => json({ id: 'c1' }))
      .on('POST /v1/conversations/c1/messages', turn.reply, () => stream(answer('a2', 'You said: one more')))
      .on('DELETE /v1/conversations/c1/stream', stop.reply)
      .on('GET /v1/conversations/c1', readBack.reply);
    const { session, transcript } = chat();
    const { stopping } = await stopBeforeReadBack(session, { turn, stop, readBack });
    await session.send('one more', []);
    readBack.release();
    await stopping;
    expect(transcript().slice(-2)).toEqual(['user: one more', 'assistant: You said: one more']);
  });

  it('a prompt run keeps the page busy until its messages are read back as stored', async () => {
    const readBack = held(() =>
      json({ id: 'c1', messages: [user('u1', 'Summarize task://1'), assistant('a1', 'Summary.')] }),
    );
    service
      .on('POST /v1/conversations', () => json({ id: 'c1' }))
      .on('POST /v1/conversations/c1/prompts/run', () => stream(answer('a1', 'Summary.')))
      .on('GET /v1/conversations/c1', readBack.reply);
    const { session, transcript } = chat();
    const ran = session.runPrompt('demo', 'summarize', { uri: 'task://1' });
    await until(readBack.asked);
    // The answer has streamed in, but the prompt's own message is still the placeholder: not idle yet.
    expect(session.status).not.toBe('ready');
    expect(transcript()).toEqual(['user: (uri: task://1)', 'assistant: Summary.']);
    readBack.release();
    expect(await ran).toBe(true);
    expect(session.status).toBe('ready');
    expect(transcript()).toEqual(['user: Summarize task://1', 'assistant: Summary.']);
  });

  it('a read of one conversation that lands after the host switched to another is not shown', async () => {
    const turn = held(() => stream([{ type: 'abort' }]));
    const stop = held(() => json({ stopped: true }));
    const readBack = held(() => json({ id: 'c1', messages: [user('u1', 'Write a lot')] }));
    service
      .on('POST /v1/conversations/c1/messages', turn.reply)
      .on('DELETE /v1/conversations/c1/stream', stop.reply)
      .on('GET /v1/conversations/c1', readBack.reply)
      .on('GET /v1/conversations/c2', () => json({ id: 'c2', messages: [user('u2', 'Other'), assistant('a2', 'B.')] }))
      .on('GET /v1/conversations/c2/stream', () => new Response(null, { status: 204 }));
    const { session, transcript } = chat({ conversation: 'c1' });
    const { stopping } = await stopBeforeReadBack(session, { turn, stop, readBack });
    await session.switchTo('c2');
    readBack.release();
    await stopping;
    expect(session.conversationId).toBe('c2');
    expect(transcript()).toEqual(['user: Other', 'assistant: B.']);
  });

  it('a conversation created for the @ menu is not adopted when the host switched to another meanwhile', async () => {
    const created = held(() => json({ id: 'c-new' }));
    service
      .on('POST /v1/conversations', created.reply)
      .on('GET /v1/conversations/c-new/catalog', () => json({ servers: [{ id: 'new' }] }))
      .on('GET /v1/conversations/c2/catalog', () => json({ servers: [{ id: 'c2-server' }] }))
      .on('GET /v1/conversations/c2', () => json({ id: 'c2', messages: [] }))
      .on('GET /v1/conversations/c2/stream', () => new Response(null, { status: 204 }));
    const { session, storage, seen } = chat();
    const catalog = session.catalog();
    await until(created.asked);
    await session.switchTo('c2');
    created.release();
    expect((await catalog).servers.map((s) => s.id)).toEqual(['c2-server']);
    expect(session.conversationId).toBe('c2');
    expect(storage.items.get(KEY)).toBe('c2');
    expect(seen.created).toEqual([]);
  });
});

describe('the catalog and a new chat', () => {
  it('callers at the same time share one catalog read; a new chat forgets the conversation, its catalog and its messages', async () => {
    service
      .on('POST /v1/conversations', () => json({ id: 'c1' }))
      .on('GET /v1/conversations/c1/catalog', () => json({ servers: [{ id: 'one' }] }))
      .on('POST /v1/conversations/c1/messages', () => stream(answer('a1', 'Hi.')));
    const { session, storage, transcript } = chat();
    // The start screen and the @ menu, as the chat gets the focus: one read.
    const [first, second] = await Promise.all([session.catalog(), session.catalog()]);
    expect(first).toEqual(second);
    expect(service.calls('GET /v1/conversations/c1/catalog')).toHaveLength(1);
    await session.send('Hello', []);
    expect(transcript()).toEqual(['user: Hello', 'assistant: Hi.']);

    session.startNew();
    expect(session.conversationId).toBeNull();
    expect(storage.items.get(KEY)).toBeUndefined();
    expect(transcript()).toEqual([]);
  });
});

describe('an answer that waits for a tool call running as a task (MCP Tasks)', () => {
  beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));

  const notice = (status: string, statusMessage: string) => ({
    toolCallId: 'call-1',
    server: 'demo',
    tool: 'build_report',
    taskId: 't1',
    status,
    statusMessage,
    startedAt: 1,
    updatedAt: 2,
  });
  const call = (state: string, output?: unknown) => ({
    type: 'tool-demo__build_report',
    toolCallId: 'call-1',
    state,
    input: { seconds: 20 },
    ...(output === undefined ? {} : { output }),
  });
  /** The answer as stored while the task runs, and after. */
  const stored = (status: string, statusMessage: string, metadata: Record<string, unknown>, more: object[] = []) =>
    ({
      id: 'a1',
      role: 'assistant',
      parts: [
        call(
          status === 'working' ? 'input-available' : 'output-available',
          status === 'working' ? undefined : 'Report',
        ),
        { type: 'data-task', id: 'call-1', data: notice(status, statusMessage) },
        ...more,
      ],
      metadata,
    }) as Message;
  const firstTurn: Chunk[] = [
    { type: 'start', messageId: 'a1' },
    { type: 'tool-input-available', toolCallId: 'call-1', toolName: 'demo__build_report', input: { seconds: 20 } },
    { type: 'data-task', id: 'call-1', data: notice('working', 'Collecting tasks (1/4)') },
    { type: 'finish', messageMetadata: { finishReason: 'tool-calls', waitingForTasks: true } },
  ];
  const latest = (message: Message) => () => json({ messages: [message], hasMore: true });
  const taskStatus = (messages: MessageList) =>
    (
      messages
        .all()
        .at(-1)!
        .parts.find((p) => p.type === 'data-task') as { data?: { statusMessage?: string } }
    ).data?.statusMessage;

  it('is read again while the task runs, then the continued answer streams in; the host hears of it once, at the end', async () => {
    service
      .on('POST /v1/conversations', () => json({ id: 'c1' }))
      .on('POST /v1/conversations/c1/messages', () => stream(firstTurn))
      .on(
        'GET /v1/conversations/c1/messages?limit=1',
        latest(stored('working', 'Estimating the open work (3/4)', { waitingForTasks: true })),
        latest(stored('completed', 'Report ready', { finishReason: 'tool-calls', waitingForTasks: false })),
      )
      .on(
        'GET /v1/conversations/c1/stream',
        () => new Response(null, { status: 204 }), // the continuation has not begun yet
        () =>
          stream([
            { type: 'start', messageId: 'a1' },
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: 'Here is the report.' },
            { type: 'text-end', id: 't' },
            { type: 'finish', messageMetadata: { finishReason: 'stop' } },
          ]),
      )
      .on('GET /v1/conversations/c1', () =>
        json({
          id: 'c1',
          messages: [
            user('u1', 'A report please'),
            stored('completed', 'Report ready', { finishReason: 'stop' }, [
              { type: 'step-start' },
              { type: 'text', text: 'Here is the report.' },
            ]),
          ],
        }),
      );
    const { session, seen, messages, transcript } = chat();
    const sent = session.send('A report please', []);
    await until(() => session.status === 'waiting');
    expect(seen.finished).toEqual([]); // not finished: it waits for the task
    expect(taskStatus(messages)).toBe('Collecting tasks (1/4)');

    await vi.advanceTimersByTimeAsync(TASK_POLL_MS);
    await until(() => taskStatus(messages) === 'Estimating the open work (3/4)');
    expect(session.status).toBe('waiting');

    await vi.advanceTimersByTimeAsync(TASK_POLL_MS);
    await until(() => taskStatus(messages) === 'Report ready');
    await vi.advanceTimersByTimeAsync(CONTINUATION_DELAYS_MS[0]!);
    expect(await sent).toBe(true);
    expect(service.calls('GET /v1/conversations/c1/stream')).toHaveLength(2);
    expect(transcript()).toEqual(['user: A report please', 'assistant: Here is the report.']);
    expect(seen.finished).toEqual(['Here is the report.']);
    expect(seen.statuses).toEqual(['answering', 'waiting', 'waiting', 'answering', 'ready']);
    expect(seen.errors).toEqual([]);
  });

  it('Stop cancels it at once: the answer shows as stopped, nothing goes on, the host is not told of an answer', async () => {
    service
      .on('POST /v1/conversations', () => json({ id: 'c1' }))
      .on('POST /v1/conversations/c1/messages', () => stream(firstTurn))
      .on(
        'GET /v1/conversations/c1/messages?limit=1',
        latest(stored('cancelled', 'Stopped by the user', { waitingForTasks: false, stopped: true })),
      )
      .on('DELETE /v1/conversations/c1/stream', () => json({ stopped: true }));
    const { session, seen, messages } = chat();
    const sent = session.send('A report please', []);
    await until(() => session.status === 'waiting');
    await session.stop(); // no timer needed: the stop cuts the wait short
    expect(await sent).toBe(true);
    expect(service.calls('DELETE /v1/conversations/c1/stream')).toHaveLength(1);
    expect(taskStatus(messages)).toBe('Stopped by the user');
    expect(messages.all().at(-1)!.metadata).toMatchObject({ stopped: true });
    expect(service.calls('GET /v1/conversations/c1/stream')).toHaveLength(0);
    expect(seen.finished).toEqual([]);
    expect(session.status).toBe('ready');
  });

  it('Stop while the answer is being looked at is not left to the next look: the look after it comes at once', async () => {
    // The look in flight when Stop is pressed still sees the task working; the next one sees it stopped.
    const look = held(latest(stored('working', 'Writing', { waitingForTasks: true })));
    service
      .on('POST /v1/conversations', () => json({ id: 'c1' }))
      .on('POST /v1/conversations/c1/messages', () => stream(firstTurn))
      .on(
        'GET /v1/conversations/c1/messages?limit=1',
        look.reply,
        latest(stored('cancelled', 'Stopped by the user', { waitingForTasks: false, stopped: true })),
      )
      .on('DELETE /v1/conversations/c1/stream', () => json({ stopped: true }));
    const { session, messages } = chat();
    const sent = session.send('A report please', []);
    await until(() => session.status === 'waiting');
    await vi.advanceTimersByTimeAsync(TASK_POLL_MS);
    await until(look.asked);
    await session.stop();
    look.release();
    // No timer advanced: the wait after the stale look is skipped.
    expect(await sent).toBe(true);
    expect(taskStatus(messages)).toBe('Stopped by the user');
    expect(session.status).toBe('ready');
  });

  it('after a reload, an answer still waiting is followed; a continuation that ended meanwhile is read, not awaited', async () => {
    service
      .on('GET /v1/conversations/c1', () =>
        json({ id: 'c1', messages: [user('u1', 'A report'), stored('working', 'Writing', { waitingForTasks: true })] }),
      )
      .on('GET /v1/conversations/c1/stream', () => new Response(null, { status: 204 }))
      .on(
        'GET /v1/conversations/c1/messages?limit=1',
        latest(
          stored('completed', 'Report ready', { finishReason: 'stop' }, [
            { type: 'step-start' },
            { type: 'text', text: 'Done.' },
          ]),
        ),
      );
    const { session, seen, transcript } = chat({ conversation: 'c1' });
    const loaded = session.load('c1');
    await until(() => session.status === 'waiting');
    await vi.advanceTimersByTimeAsync(TASK_POLL_MS);
    await loaded;
    expect(transcript()).toEqual(['user: A report', 'assistant: Done.']);
    expect(seen.finished).toEqual(['Done.']);
    expect(session.status).toBe('ready');
  });

  it('polls without a connection quietly, a few times, then says so with "Try again"', async () => {
    service
      .on('POST /v1/conversations', () => json({ id: 'c1' }))
      .on('POST /v1/conversations/c1/messages', () => stream(firstTurn))
      .on('GET /v1/conversations/c1/messages?limit=1', () => Promise.reject(new TypeError('Failed to fetch')))
      .on('GET /health', () => Promise.reject(new TypeError('Failed to fetch')));
    const { session, seen } = chat();
    const sent = session.send('A report please', []);
    await until(() => session.status === 'waiting');
    for (let i = 0; i < 4; i++) await vi.advanceTimersByTimeAsync(TASK_POLL_MS * 2 ** i);
    await sent;
    expect(service.calls('GET /v1/conversations/c1/messages?limit=1')).toHaveLength(4);
    expect(seen.errors).toMatchObject([{ code: 'unreachable', retry: expect.any(Function) }]);
  });
});

/** Options for a second session over the same fake service. */
function chatOptions(): ChatSessionOptions {
  return {
    api: new ChatApi(ENDPOINT, () => null),
    messages: new MessageList(),
    storage: () => null,
    lifetime: () => new AbortController().signal,
    onStatus: () => undefined,
    onChunk: () => undefined,
    onError: () => undefined,
  };
}

describe('taskPollDelay: how often a waiting answer is looked at', () => {
  it('every 1.5 s for the first 30 s, then less often as the wait grows, never more than 15 s apart', () => {
    expect(taskPollDelay(0)).toBe(TASK_POLL_MS);
    expect(taskPollDelay(30_000)).toBe(TASK_POLL_MS);
    expect(taskPollDelay(120_000)).toBe(6_000);
    expect(taskPollDelay(2 * 3_600_000)).toBe(TASK_POLL_MAX_MS);
  });
});
