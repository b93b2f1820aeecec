import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json-depth';
import type { UIMessage, UIMessageChunk } from 'ai';
import { ApiError } from '../errors';
import { errorFields, logEvent } from '../observability/log';
import type { LiveStream } from '../turn/live-stream';
import type { ToolCallAnswer } from '../turn/messages';

/**
 * The WebSocket side of a conversation: the chat protocol of `agents`'
 * `useAgentChat` (agents 0.32 / @cloudflare/ai-chat 0.12), as the hook
 * speaks it — see docs/ARCHITECTURE.md ("Chat protocols") for the frames.
 *
 * Every tab of a conversation sees every turn live. A turn's chunks go out
 * once, to every connection that is attached to it; a connection that
 * joins mid-turn (a reload, a second tab, the tab that answered an
 * approval and waits for the continuation) is kept out of the live frames
 * until it acknowledges the resume, then gets everything so far as
 * `replay: true` frames and the rest live: each chunk exactly once.
 */
export interface ChatHost {
  connections(): Iterable<ChatConnection>;
  /** The transcript sent on connect and after changes (bounded: see `transcriptForClients`). */
  transcript(): UIMessage[];
  /** A `cf_agent_use_chat_request` body: a message, a regeneration, or approval answers; undefined when nothing runs. */
  request(body: unknown): Promise<LiveStream | undefined>;
  /** Records a decision or a client tool's result; `ready` when nothing in the step waits any more. */
  answer(answer: ToolCallAnswer): { message: UIMessage; ready: boolean };
  /** The turn goes on after every call of its step is answered. */
  continueTurn(): Promise<LiveStream>;
  busy(): boolean;
  /** Resolves when no turn is being started or streamed. */
  whenIdle(): Promise<void>;
  stop(): boolean;
  clear(): void;
  /** The turn streaming now, however it was started. */
  running(): { stream: LiveStream; continuation: boolean } | undefined;
  /** The client set its messages: only these ids stay (a client may remove messages, not rewrite them). */
  keepOnly(ids: string[]): void;
  /** The user's answer to a server's question during the running turn. */
  answerElicitation(id: string, answer: { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> | undefined }): void;
}

export interface ChatConnection {
  id: string;
  send(data: string): void;
}

/** The turn being streamed over the sockets (the last one stays until the next starts, for late acknowledgements). */
interface SocketTurn {
  id: string;
  stream: LiveStream;
  /** The connection whose request this turn answers (it reads its own request's frames). */
  sender: string | undefined;
  continuation: boolean;
  /** Chunk bodies sent so far, in order (`seq` is the index). */
  bodies: string[];
  done: boolean;
  outcome: 'completed' | 'error' | 'aborted';
  /** Connections told to resume this turn that have not acknowledged yet: no live frames for them. */
  pending: Set<string>;
}

type Frame = {
  type?: string;
  id?: string;
  init?: { body?: unknown };
  toolCallId?: string;
  approved?: boolean;
  autoContinue?: boolean;
  output?: unknown;
  state?: string;
  errorText?: string;
  probeId?: string;
  messages?: Array<{ id?: unknown }>;
  action?: string;
  content?: Record<string, unknown>;
};

const RESPONSE = 'cf_agent_use_chat_response';

export class ChatSocket {
  private turn: SocketTurn | undefined;
  /** Tabs that answered a tool call and will probe for the continuation: kept out of its live frames until they do. */
  private readonly awaitingProbe = new Set<string>();
  /** Tabs that probed while a turn was being started (told `pending`): told `resuming` once it streams. */
  private readonly awaitingStart = new Set<string>();
  /** Turns being started from socket frames (a refused one may overlap one that starts): piped by their frames' handlers, not by `observe`. */
  private startingHere = 0;
  /** Connections whose chat requests are being started, with how many each. */
  private readonly requesters = new Map<string, number>();

  constructor(private readonly host: ChatHost) {}

  connected(connection: ChatConnection): void {
    // A turn started elsewhere while no tab was connected: it is followed from now on (from its first chunk).
    const running = this.host.running();
    if (running) this.observe(running.stream, running.continuation, true);
    // `connect: true`: the hook keeps messages it sent while the socket was still opening (this list may predate them).
    send(connection, { type: 'cf_agent_chat_messages', messages: this.host.transcript(), connect: true });
    const turn = this.turn;
    if (turn && !turn.done) {
      // As AIChatAgent does: told at once, and kept out of live frames until it acknowledges (the hook dedupes the probe's answer).
      turn.pending.add(connection.id);
      send(connection, { type: 'cf_agent_stream_resuming', id: turn.id });
    }
  }

  closed(connection: { id: string }): void {
    this.turn?.pending.delete(connection.id);
    this.awaitingProbe.delete(connection.id);
    this.awaitingStart.delete(connection.id);
  }

  async received(connection: ChatConnection, raw: string): Promise<void> {
    let frame: Frame;
    try {
      if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) return; // not ours (ours are shallow)
      frame = JSON.parse(raw) as Frame;
    } catch {
      return; // not ours
    }
    switch (frame.type) {
      case 'cf_agent_use_chat_request':
        return this.request(connection, frame);
      case 'cf_agent_tool_approval':
        if (typeof frame.toolCallId !== 'string' || typeof frame.approved !== 'boolean') return;
        return this.answered(connection, { kind: 'approval', toolCallId: frame.toolCallId, approved: frame.approved }, frame.autoContinue !== false);
      case 'cf_agent_tool_result':
        if (typeof frame.toolCallId !== 'string') return;
        return this.answered(
          connection,
          {
            kind: 'tool-result',
            toolCallId: frame.toolCallId,
            output: frame.output,
            ...(frame.state === 'output-error' ? { errorText: frame.errorText ?? 'The client tool failed' } : {}),
          },
          frame.autoContinue !== false && frame.state !== 'output-error',
        );
      case 'cf_agent_chat_request_cancel':
        // The hook sends the id of the turn it shows — its own, or another tab's it observes: either way, the one running.
        this.host.stop();
        return;
      case 'cf_agent_chat_clear':
        // A running turn is stopped and its end awaited first: its save would otherwise bring the cleared history back.
        this.host.stop();
        await this.host.whenIdle();
        this.host.clear();
        this.broadcast({ type: 'cf_agent_chat_clear' }, connection.id);
        return;
      case 'cf_agent_chat_messages': {
        if (!Array.isArray(frame.messages)) return;
        if (!this.host.busy()) this.host.keepOnly(frame.messages.flatMap((m) => (typeof m?.id === 'string' ? [m.id] : [])));
        // Everyone (the sender too, when a running turn kept it from applying) converges on what the server holds.
        this.broadcast({ type: 'cf_agent_chat_messages', messages: this.host.transcript() }, this.host.busy() ? undefined : connection.id);
        return;
      }
      case 'mcp_elicitation_response': {
        // Ours, not the hook's: a client sends it with the socket (`agent.send`) to answer a data-elicitation part.
        if (typeof frame.id !== 'string' || (frame.action !== 'accept' && frame.action !== 'decline' && frame.action !== 'cancel')) return;
        try {
          this.host.answerElicitation(frame.id, { action: frame.action, content: frame.content });
        } catch (error) {
          send(connection, {
            type: 'mcp_elicitation_error',
            id: frame.id,
            error: { code: error instanceof ApiError ? error.code : 'internal_error', message: errorText(error) },
          });
        }
        return;
      }
      case 'cf_agent_stream_resume_request':
        return this.probed(connection, frame.probeId);
      case 'cf_agent_stream_resume_ack':
        return this.acknowledged(connection, frame.id);
    }
  }

  private async request(connection: ChatConnection, frame: Frame): Promise<void> {
    const id = typeof frame.id === 'string' ? frame.id : crypto.randomUUID();
    let stream: LiveStream | undefined;
    try {
      let body: unknown;
      try {
        if (typeof frame.init?.body === 'string' && nestsDeeperThan(frame.init.body, MAX_JSON_DEPTH)) throw new Error('too deep');
        body = typeof frame.init?.body === 'string' ? JSON.parse(frame.init.body) : frame.init?.body;
      } catch {
        throw new ApiError(400, 'invalid_json', `Request body is not valid JSON, or nests deeper than ${MAX_JSON_DEPTH} levels`);
      }
      this.requesters.set(connection.id, (this.requesters.get(connection.id) ?? 0) + 1);
      try {
        stream = await this.startHere(() => this.host.request(body));
      } finally {
        const left = (this.requesters.get(connection.id) ?? 1) - 1;
        if (left > 0) this.requesters.set(connection.id, left);
        else this.requesters.delete(connection.id);
      }
    } catch (error) {
      send(connection, { type: RESPONSE, id, body: errorText(error), done: true, error: true });
      return;
    }
    if (!stream) {
      // Approval answers recorded; other calls of the step still wait.
      send(connection, { type: RESPONSE, id, body: '', done: true });
      this.broadcast({ type: 'cf_agent_chat_messages', messages: this.host.transcript() });
      return;
    }
    await this.pipe(id, stream, false, connection.id);
  }

  private async answered(connection: ChatConnection, answer: ToolCallAnswer, autoContinue: boolean): Promise<void> {
    let result: { message: UIMessage; ready: boolean };
    try {
      result = this.host.answer(answer);
    } catch (error) {
      send(connection, { type: 'cf_agent_chat_messages', messages: this.host.transcript() });
      logEvent('ws.refused', { kind: answer.kind, toolCallId: answer.toolCallId, ...errorFields(error) }, 'warn');
      return;
    }
    this.broadcast({ type: 'cf_agent_message_updated', message: result.message });
    if (!result.ready || !autoContinue) return;
    // The hook probes for the continuation (a new request id, `continuation: true` frames): until then, no live frames for it.
    this.awaitingProbe.add(connection.id);
    const id = crypto.randomUUID();
    let stream: LiveStream;
    try {
      stream = await this.startHere(() => this.host.continueTurn());
    } catch (error) {
      for (const waiting of [...this.awaitingProbe, ...this.awaitingStart]) this.sendTo(waiting, { type: 'cf_agent_stream_resume_none' });
      this.awaitingProbe.clear();
      this.awaitingStart.clear();
      this.broadcast({ type: RESPONSE, id, body: errorText(error), done: true, error: true, continuation: true });
      return;
    }
    await this.pipe(id, stream, true);
  }

  /**
   * A turn started elsewhere (the HTTP API, the widget, `useChat`): every
   * tab sees it live too, under a request id of its own.
   */
  observe(stream: LiveStream, continuation: boolean, joining = false): void {
    if (this.startingHere > 0 || this.turn?.stream === stream) return;
    // With no tab connected nobody needs it (yet): a tab that connects mid-turn starts following it (`connected`).
    if (!joining && !first(this.host.connections())) return;
    void this.pipe(crypto.randomUUID(), stream, continuation);
  }

  private async startHere<T>(start: () => Promise<T>): Promise<T> {
    this.startingHere++;
    try {
      return await start();
    } finally {
      this.startingHere--;
    }
  }

  private probed(connection: ChatConnection, probeId: string | undefined): void {
    const probe = probeId ? { probeId } : {};
    const turn = this.turn;
    // The tab whose own request is starting or streaming reads that request's frames: nothing to resume for it.
    // (Told "resuming" for its own request, the hook would open a second reader of the same turn.)
    if (this.requesters.has(connection.id) || (turn && !turn.done && turn.sender === connection.id)) {
      send(connection, { type: 'cf_agent_stream_resume_none', reason: 'idle', ...probe });
    } else if (turn && (!turn.done || turn.pending.has(connection.id))) {
      turn.pending.add(connection.id);
      this.awaitingProbe.delete(connection.id);
      send(connection, { type: 'cf_agent_stream_resuming', id: turn.id, ...probe });
    } else if (this.host.busy() || this.awaitingProbe.has(connection.id)) {
      // A turn is being started (its MCP sessions, its context): it is announced when it streams.
      this.awaitingProbe.delete(connection.id);
      this.awaitingStart.add(connection.id);
      send(connection, { type: 'cf_agent_stream_pending', ...probe });
    } else send(connection, { type: 'cf_agent_stream_resume_none', reason: 'idle', ...probe });
  }

  /** Everything so far as replay frames, then live: in one synchronous step, so nothing is missed or sent twice. */
  private acknowledged(connection: ChatConnection, id: string | undefined): void {
    const turn = this.turn;
    if (!turn || turn.id !== id || !turn.pending.delete(connection.id)) return;
    const flags = turn.continuation ? { continuation: true } : {};
    turn.bodies.forEach((body, seq) => {
      send(connection, { type: RESPONSE, id, body, done: false, replay: true, seq, ...flags });
    });
    if (turn.done) send(connection, { type: RESPONSE, id, body: '', done: true, replay: true, outcome: turn.outcome, ...flags });
    else send(connection, { type: RESPONSE, id, body: '', done: false, replay: true, replayComplete: true, ...flags });
  }

  /** Streams a turn to every attached connection; `sender` started it (it reads its own request's frames). */
  private async pipe(id: string, stream: LiveStream, continuation: boolean, sender?: string): Promise<void> {
    const turn: SocketTurn = { id, stream, sender, continuation, bodies: [], done: false, outcome: 'completed', pending: new Set(this.awaitingProbe) };
    this.turn = turn;
    this.awaitingProbe.clear();
    for (const waiting of this.awaitingStart) {
      turn.pending.add(waiting);
      this.sendTo(waiting, { type: 'cf_agent_stream_resuming', id });
    }
    this.awaitingStart.clear();
    if (!continuation) {
      // Other tabs get the new user message (saved when the turn started) before the answer that follows it.
      const transcript = this.host.transcript();
      for (const connection of this.host.connections()) {
        if (connection.id !== sender && !turn.pending.has(connection.id)) send(connection, { type: 'cf_agent_chat_messages', messages: transcript });
      }
    }
    const flags = continuation ? { continuation: true } : {};
    const reader = stream.reader().getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      let chunk: UIMessageChunk = next.value;
      if (chunk.type === 'error') turn.outcome = 'error';
      if (chunk.type === 'abort') turn.outcome = 'aborted';
      // A continuation extends the client's last assistant message: its start must not name a new one.
      if (continuation && chunk.type === 'start') chunk = { type: 'start' };
      const body = JSON.stringify(chunk);
      turn.bodies.push(body);
      this.sendToTurn(turn, { type: RESPONSE, id, body, done: false, seq: turn.bodies.length - 1, ...flags });
    }
    turn.done = true;
    // The turn is saved by now (the stream ends after its onFinish): other tabs get the saved transcript before `done`…
    const transcript = this.host.transcript();
    for (const connection of this.host.connections()) {
      if (connection.id !== sender && !turn.pending.has(connection.id)) send(connection, { type: 'cf_agent_chat_messages', messages: transcript });
    }
    this.sendToTurn(turn, { type: RESPONSE, id, body: '', done: true, outcome: turn.outcome, ...flags });
    // …and every attached tab the answer as saved (a stopped turn's tool calls settled, its metadata), after its stream closed.
    const answer = transcript.at(-1);
    if (answer?.role === 'assistant') {
      for (const connection of this.host.connections())
        if (!turn.pending.has(connection.id)) send(connection, { type: 'cf_agent_message_updated', message: answer });
    }
  }

  private sendToTurn(turn: SocketTurn, frame: object): void {
    const data = JSON.stringify(frame);
    for (const connection of this.host.connections()) if (!turn.pending.has(connection.id)) trySend(connection, data);
  }

  private broadcast(frame: object, except?: string): void {
    const data = JSON.stringify(frame);
    for (const connection of this.host.connections()) if (connection.id !== except) trySend(connection, data);
  }

  private sendTo(id: string, frame: object): void {
    for (const connection of this.host.connections()) if (connection.id === id) send(connection, frame);
  }
}

const first = <T>(items: Iterable<T>): T | undefined => {
  for (const item of items) return item;
  return undefined;
};

const send = (connection: ChatConnection, frame: object) => trySend(connection, JSON.stringify(frame));

/** A connection may close between the moment it was listed and the send: that is not an error. */
function trySend(connection: ChatConnection, data: string): void {
  try {
    connection.send(data);
  } catch {
    // closed meanwhile; its close handler forgets it
  }
}

const errorText = (error: unknown) => (error instanceof ApiError ? error.message : 'Internal error');
