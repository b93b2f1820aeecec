import type { UIMessage, UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { LiveStream } from '../../turn/live-stream';
import type { TurnRequests } from '../../turn/requests';
import type { TurnRunner } from '../../turn/runner';
import { TurnEvents } from '../../turn/turn-events';
import { ChatSocket, type ChatPeer } from './chat-socket';

/*
 * The frame sequences of the chat protocol, frozen: what each tab receives,
 * in order, in the three situations the hook's resume handshake exists for.
 * A change that reorders, drops or doubles a frame fails here first (the
 * Chromium test with the real `useAgentChat` hook is the end-to-end proof).
 */

/** A turn whose chunks the test releases one by one. */
function scriptedStream() {
  let controller!: ReadableStreamDefaultController<UIMessageChunk>;
  const source = new ReadableStream<UIMessageChunk>({ start: (c) => void (controller = c) });
  const stream = new LiveStream(source);
  return {
    stream,
    push: (chunk: UIMessageChunk) => controller.enqueue(chunk),
    end: async () => {
      controller.close();
      await stream.ended;
    },
  };
}

const user: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] };
const answer: UIMessage = { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'hello' }] };

/** The runner and requests as the socket uses them, with turns the test controls. */
function fakeConversation() {
  const events = new TurnEvents();
  let running: { stream: LiveStream; continuation: boolean } | undefined;
  let starting = false;
  const calls: string[] = [];
  let next: ReturnType<typeof scriptedStream> | undefined;
  let release: (() => void) | undefined;
  const transcript = { messages: [user] as UIMessage[] };
  const turns = {
    get busy() {
      return starting || (running !== undefined && !running.stream.done);
    },
    get runningTurn() {
      return running && !running.stream.done ? running : undefined;
    },
    events,
    offerClientTools: () => {},
    stop: () => (calls.push('stop'), true),
    whenIdle: async () => void calls.push('whenIdle'),
    answerElicitation: () => {},
    // As the runner's: saved, and told on its event stream.
    record: () => {
      const message = { ...answer, parts: [{ type: 'text', text: 'answered' }] } as UIMessage;
      events.emit({ type: 'messageUpdated', message, tell: true });
      return { message, ready: true };
    },
    /** A continuation: streams once the test says so (`release`), as a turn that is being set up. */
    start: async () => {
      starting = true;
      await new Promise<void>((resolve) => (release = resolve));
      starting = false;
      running = { stream: next!.stream, continuation: true };
      return next!.stream;
    },
  };
  /** A turn that a request elsewhere (HTTP) started: the runner tells its subscribers. */
  const startElsewhere = () => {
    const scripted = scriptedStream();
    running = { stream: scripted.stream, continuation: false };
    events.emit({ type: 'turnStarted', stream: scripted.stream, continuation: false });
    return scripted;
  };
  return {
    turns: turns as unknown as TurnRunner,
    // A continuation goes through the requests (the runner decides): here it is always ready.
    requests: { continueIfReady: () => turns.start() } as unknown as TurnRequests,
    transcript: {
      recent: () => transcript.messages,
      clear: () => void calls.push('clear'),
      keepOnly: () => {},
    },
    // The conversation's stop (turn and tasks) and answers, as conversation/turn-controls.ts makes them of the runner's.
    controls: {
      stop: async () => {
        turns.stop();
        await turns.whenIdle();
      },
      answerElicitation: async () => turns.answerElicitation(),
    },
    transcriptState: transcript,
    calls,
    startElsewhere,
    prepareContinuation: () => (next = scriptedStream()),
    releaseContinuation: () => release?.(),
  };
}

/** A tab: what it was sent, frame by frame, as `type(key facts)` strings. */
function tab(id: string) {
  const frames: Array<Record<string, unknown>> = [];
  const peer: ChatPeer = { id, send: (data) => void frames.push(JSON.parse(data)) };
  const summary = () =>
    frames.map((f) => {
      const facts = [
        f.id === undefined ? undefined : 'id',
        f.replay ? 'replay' : undefined,
        f.replayComplete ? 'replayComplete' : undefined,
        f.seq === undefined ? undefined : `seq ${f.seq}`,
        f.done ? 'done' : undefined,
        f.continuation ? 'continuation' : undefined,
        f.connect ? 'connect' : undefined,
        f.probeId ? `probe ${f.probeId}` : undefined,
        typeof f.body === 'string' && f.body ? (JSON.parse(f.body) as { type: string }).type : undefined,
      ].filter(Boolean);
      return `${String(f.type).replace(/^cf_agent_/, '')}${facts.length ? `(${facts.join(', ')})` : ''}`;
    });
  return { peer, frames, summary };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the WebSocket chat protocol, frame by frame', () => {
  it('a tab that connects mid-turn is told to resume, probes, acknowledges: every chunk once, replayed then live', async () => {
    const conversation = fakeConversation();
    const a = tab('a');
    const b = tab('b');
    const peers: ChatPeer[] = [a.peer];
    const socket = new ChatSocket({ peers: () => peers, ...conversation });
    socket.connected(a.peer);
    const turn = conversation.startElsewhere();
    turn.push({ type: 'start' });
    turn.push({ type: 'text-start', id: 't' });
    await flush();

    peers.push(b.peer);
    socket.connected(b.peer);
    const resumeId = b.frames.at(-1)!.id as string;
    await socket.received(b.peer, JSON.stringify({ type: 'cf_agent_stream_resume_request', probeId: 'p1' }));
    turn.push({ type: 'text-delta', id: 't', delta: 'hel' }); // while b has not acknowledged: not sent to b
    await flush();
    await socket.received(b.peer, JSON.stringify({ type: 'cf_agent_stream_resume_ack', id: resumeId }));
    turn.push({ type: 'text-delta', id: 't', delta: 'lo' });
    turn.push({ type: 'finish' });
    conversation.transcriptState.messages = [user, answer];
    await turn.end();
    await flush();

    expect(a.summary()).toEqual([
      'chat_messages(connect)',
      'chat_messages',
      'use_chat_response(id, seq 0, start)',
      'use_chat_response(id, seq 1, text-start)',
      'use_chat_response(id, seq 2, text-delta)',
      'use_chat_response(id, seq 3, text-delta)',
      'use_chat_response(id, seq 4, finish)',
      // The turn is saved by now: the other tabs get the saved transcript before `done`.
      'chat_messages',
      'use_chat_response(id, done)',
      'message_updated',
    ]);
    expect(b.summary()).toEqual([
      'chat_messages(connect)',
      'stream_resuming(id)',
      'stream_resuming(id, probe p1)',
      'use_chat_response(id, replay, seq 0, start)',
      'use_chat_response(id, replay, seq 1, text-start)',
      'use_chat_response(id, replay, seq 2, text-delta)',
      'use_chat_response(id, replay, replayComplete)',
      'use_chat_response(id, seq 3, text-delta)',
      'use_chat_response(id, seq 4, finish)',
      'chat_messages',
      'use_chat_response(id, done)',
      'message_updated',
    ]);
    // One turn, one id, on both tabs.
    expect(
      new Set([...a.frames, ...b.frames].filter((f) => f.type === 'cf_agent_use_chat_response').map((f) => f.id)).size,
    ).toBe(1);
  });

  it('the tab that answered the last approval probes while the continuation is set up: pending, then resuming, then the continuation', async () => {
    const conversation = fakeConversation();
    const a = tab('a');
    const other = tab('other');
    const socket = new ChatSocket({ peers: () => [a.peer, other.peer], ...conversation });
    const continuation = conversation.prepareContinuation();

    const answered = socket.received(
      a.peer,
      JSON.stringify({ type: 'cf_agent_tool_approval', toolCallId: 'c1', approved: true }),
    );
    await flush();
    await socket.received(a.peer, JSON.stringify({ type: 'cf_agent_stream_resume_request', probeId: 'p2' }));
    conversation.releaseContinuation();
    await flush();
    const id = a.frames.at(-1)!.id as string;
    continuation.push({ type: 'start', messageId: 'a1' });
    continuation.push({ type: 'text-delta', id: 't', delta: 'done' });
    await flush();
    await socket.received(a.peer, JSON.stringify({ type: 'cf_agent_stream_resume_ack', id }));
    conversation.transcriptState.messages = [user, answer];
    await continuation.end();
    await answered;

    expect(a.summary()).toEqual([
      'message_updated',
      'stream_pending(probe p2)',
      'stream_resuming(id)',
      // The continuation's start names no message: it extends the client's last assistant message.
      'use_chat_response(id, replay, seq 0, continuation, start)',
      'use_chat_response(id, replay, seq 1, continuation, text-delta)',
      'use_chat_response(id, replay, replayComplete, continuation)',
      'chat_messages',
      'use_chat_response(id, done, continuation)',
      'message_updated',
    ]);
    expect(JSON.parse(a.frames[3]!.body as string)).toEqual({ type: 'start' });
    // The other tab follows live from the first chunk, without a handshake.
    expect(other.summary()).toEqual([
      'message_updated',
      'use_chat_response(id, seq 0, continuation, start)',
      'use_chat_response(id, seq 1, continuation, text-delta)',
      'chat_messages',
      'use_chat_response(id, done, continuation)',
      'message_updated',
    ]);
  });

  it('a clear during a turn stops it, waits for its end, then clears; the other tabs are told, not the sender', async () => {
    const conversation = fakeConversation();
    const a = tab('a');
    const b = tab('b');
    const socket = new ChatSocket({ peers: () => [a.peer, b.peer], ...conversation });
    const turn = conversation.startElsewhere();
    turn.push({ type: 'start' });
    await flush();
    await socket.received(a.peer, JSON.stringify({ type: 'cf_agent_chat_clear' }));
    // The conversation's stop awaits the stopped turn's end; the clear awaits it again (a turn still being set up).
    expect(conversation.calls).toEqual(['stop', 'whenIdle', 'whenIdle', 'clear']);
    expect(a.summary().filter((f) => f === 'chat_clear')).toEqual([]);
    expect(b.summary().at(-1)).toBe('chat_clear');
  });

  it('frames that are not ours, or ours malformed, are ignored', async () => {
    const conversation = fakeConversation();
    const a = tab('a');
    const socket = new ChatSocket({ peers: () => [a.peer], ...conversation });
    for (const raw of [
      'not json',
      '{"type":"cf_agent_tool_approval","toolCallId":5}',
      '{"type":"other_protocol"}',
      '[]',
    ])
      await socket.received(a.peer, raw);
    expect(a.frames).toEqual([]);
    expect(conversation.calls).toEqual([]);
  });
});
