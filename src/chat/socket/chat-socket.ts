import type { UIMessage, UIMessageChunk } from 'ai';
import { ApiError } from '../../errors';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../json-depth';
import { errorFields, logEvent } from '../../observability/log';
import type { LiveStream } from '../../turn/live-stream';
import type { ToolCallAnswer } from '../../turn/messages';
import type { TurnRequests } from '../../turn/requests';
import type { TurnRunner } from '../../turn/runner';
import { parseChatBody } from '../use-chat-body';
import {
  type ClientFrame,
  clearFrame,
  elicitationErrorFrame,
  messagesFrame,
  messageUpdatedFrame,
  parseClientFrame,
  responseFrame,
} from './frames';
import { ResumeHandshake, type SocketTurn } from './resume';

/** One WebSocket of the conversation as the chat protocol sees it: its id (kept across hibernation) and a way to send to it. */
export interface ChatPeer {
  id: string;
  send(data: string): void;
}

/** The messages the sockets show: the newest (one frame's worth), clearing, and what a client kept. */
export interface ChatTranscript {
  recent(): UIMessage[];
  clear(): void;
  /** The client set its messages: only these ids stay (a client may remove messages, not rewrite them). */
  keepOnly(ids: string[]): void;
}

export interface ChatSocketHost {
  peers(): Iterable<ChatPeer>;
  transcript: ChatTranscript;
  turns: TurnRunner;
  requests: TurnRequests;
  /** What the user does to the work in flight (conversation/turn-controls.ts). */
  controls: {
    /** Stops the conversation's work: the running turn, and the tasks its tool calls became. */
    stop(): Promise<unknown>;
    /** The user's answer to a server's question: the running turn's, or a task's. */
    answerElicitation(
      id: string,
      answer: { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> | undefined },
    ): Promise<unknown>;
  };
}

/**
 * The WebSocket side of a conversation: the chat protocol of `agents`'
 * `useAgentChat` (agents 0.32 / @cloudflare/ai-chat 0.12), as the hook
 * speaks it — frames in frames.ts, the resume handshake in resume.ts.
 *
 * Every tab of a conversation sees every turn live. A turn's chunks go out
 * once, to every peer that is attached to it; a peer that
 * joins mid-turn (a reload, a second tab, the tab that answered an
 * approval and waits for the continuation) is kept out of the live frames
 * until it acknowledges the resume, then gets everything so far as
 * `replay: true` frames and the rest live: each chunk exactly once.
 */
export class ChatSocket {
  private readonly resume: ResumeHandshake;
  /** Turns being started from socket frames (a refused one may overlap one that starts): piped by their frames' handlers, not by `observe`. */
  private startingHere = 0;

  constructor(private readonly host: ChatSocketHost) {
    this.resume = new ResumeHandshake(
      (peer, frame) => this.sendTo(peer, frame),
      () => host.turns.busy,
    );
    // The answer's one event stream (turn/turn-events.ts): a turn started anywhere (the HTTP API, the widget,
    // `useChat`, a task's end) is seen live in every tab, and so is a message changed outside a turn.
    host.turns.events.on((event) => {
      if (event.type === 'turnStarted') this.observe(event.stream, event.continuation);
      else if (event.type === 'messageUpdated' && event.tell) this.broadcast(messageUpdatedFrame(event.message));
    });
  }

  connected(peer: ChatPeer): void {
    // A turn started elsewhere while no tab was connected: it is followed from now on (from its first chunk).
    const running = this.host.turns.runningTurn;
    if (running) this.observe(running.stream, running.continuation, true);
    // `connect: true`: the hook keeps messages it sent while the socket was still opening (this list may predate them).
    send(peer, messagesFrame(this.host.transcript.recent(), true));
    this.resume.joined(peer.id);
  }

  closed(peer: { id: string }): void {
    this.resume.left(peer.id);
  }

  async received(peer: ChatPeer, raw: string): Promise<void> {
    let frame: ClientFrame | undefined;
    try {
      if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) return; // not ours (ours are shallow)
      frame = parseClientFrame(JSON.parse(raw));
    } catch {
      return; // not ours
    }
    if (!frame) return;
    const { turns, transcript } = this.host;
    switch (frame.type) {
      case 'cf_agent_use_chat_request':
        return this.request(peer, frame);
      case 'cf_agent_tool_approval':
        return this.answered(
          peer,
          { kind: 'approval', toolCallId: frame.toolCallId, approved: frame.approved },
          frame.autoContinue !== false,
        );
      case 'cf_agent_tool_result':
        return this.answered(
          peer,
          {
            kind: 'tool-result',
            toolCallId: frame.toolCallId,
            output: frame.output,
            ...(frame.state === 'output-error' ? { errorText: frame.errorText ?? 'The client tool failed' } : {}),
          },
          frame.autoContinue !== false && frame.state !== 'output-error',
        );
      case 'cf_agent_chat_request_cancel':
        // The hook sends the id of the turn it shows — its own, or another tab's it observes: either way, the one running
        // (and the tasks its calls became).
        await this.host.controls.stop();
        return;
      case 'cf_agent_chat_clear':
        // A running turn is stopped and its end awaited first: its save would otherwise bring the cleared history back.
        await this.host.controls.stop();
        await turns.whenIdle();
        transcript.clear();
        this.broadcast(clearFrame(), peer.id);
        return;
      case 'cf_agent_chat_messages': {
        if (!turns.busy)
          transcript.keepOnly(
            frame.messages.flatMap((m) =>
              typeof (m as { id?: unknown })?.id === 'string' ? [(m as { id: string }).id] : [],
            ),
          );
        // Everyone (the sender too, when a running turn kept it from applying) converges on what the server holds.
        this.broadcast(messagesFrame(transcript.recent()), turns.busy ? undefined : peer.id);
        return;
      }
      case 'mcp_elicitation_response':
        try {
          await this.host.controls.answerElicitation(frame.id, {
            action: frame.action,
            content: frame.content as Record<string, unknown> | undefined,
          });
        } catch (error) {
          send(
            peer,
            elicitationErrorFrame(
              frame.id,
              error instanceof ApiError ? error.code : 'internal_error',
              errorText(error),
            ),
          );
        }
        return;
      case 'cf_agent_stream_resume_request':
        return this.resume.probed(peer.id, frame.probeId);
      case 'cf_agent_stream_resume_ack':
        return this.resume.acknowledged(peer.id, frame.id);
    }
  }

  private async request(
    peer: ChatPeer,
    frame: Extract<ClientFrame, { type: 'cf_agent_use_chat_request' }>,
  ): Promise<void> {
    const id = typeof frame.id === 'string' ? frame.id : crypto.randomUUID();
    let stream: LiveStream | undefined;
    try {
      let body: unknown;
      try {
        const raw = frame.init?.body;
        if (typeof raw === 'string' && nestsDeeperThan(raw, MAX_JSON_DEPTH)) throw new Error('too deep');
        body = typeof raw === 'string' ? JSON.parse(raw) : raw;
      } catch {
        throw new ApiError(
          400,
          'invalid_json',
          `Request body is not valid JSON, or nests deeper than ${MAX_JSON_DEPTH} levels`,
        );
      }
      const { command, clientTools } = parseChatBody(body);
      if (clientTools) this.host.turns.offerClientTools(clientTools);
      stream = await this.resume.requesting(peer.id, () => this.startHere(() => this.host.requests.run(command)));
    } catch (error) {
      send(peer, responseFrame({ id, body: errorText(error), done: true, error: true }));
      return;
    }
    if (!stream) {
      // Approval answers recorded; other calls of the step still wait.
      send(peer, responseFrame({ id, body: '', done: true }));
      this.broadcast(messagesFrame(this.host.transcript.recent()));
      return;
    }
    await this.pipe(id, stream, false, peer.id);
  }

  private async answered(peer: ChatPeer, answer: ToolCallAnswer, autoContinue: boolean): Promise<void> {
    let result: { message: UIMessage; ready: boolean };
    try {
      result = await this.host.turns.record(answer);
    } catch (error) {
      send(peer, messagesFrame(this.host.transcript.recent()));
      logEvent('ws.refused', { kind: answer.kind, toolCallId: answer.toolCallId, ...errorFields(error) }, 'warn');
      return;
    }
    if (!result.ready || !autoContinue) return;
    this.resume.expectProbe(peer.id);
    const id = crypto.randomUUID();
    let stream: LiveStream | undefined;
    try {
      stream = await this.startHere(() => this.host.requests.continueIfReady());
      // The runner decided not to go on (a task of the step still runs): its end continues the answer.
      if (!stream) return this.resume.startFailed();
    } catch (error) {
      this.resume.startFailed();
      this.broadcast(responseFrame({ id, body: errorText(error), done: true, error: true, continuation: true }));
      return;
    }
    await this.pipe(id, stream, true);
  }

  /**
   * A turn started elsewhere (the HTTP API, the widget, `useChat`): every
   * tab sees it live too, under a request id of its own.
   */
  private observe(stream: LiveStream, continuation: boolean, joining = false): void {
    if (this.startingHere > 0 || this.resume.turn?.stream === stream) return;
    // With no tab connected nobody needs it (yet): a tab that connects mid-turn starts following it (`connected`).
    if (!joining && !first(this.host.peers())) return;
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

  /** Streams a turn to every attached peer; `sender` started it (it reads its own request's frames). */
  private async pipe(id: string, stream: LiveStream, continuation: boolean, sender?: string): Promise<void> {
    const turn = this.resume.begin({ id, stream, sender, continuation });
    if (!continuation) {
      // Other tabs get the new user message (saved when the turn started) before the answer that follows it.
      this.sendToOthers(turn, messagesFrame(this.host.transcript.recent()));
    }
    const flags = continuation ? { continuation: true as const } : {};
    const reader = stream.reader().getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      let chunk: UIMessageChunk = next.value;
      if (chunk.type === 'error') turn.outcome = 'error';
      if (chunk.type === 'abort') turn.outcome = 'aborted';
      // A continuation extends the client's last assistant message: its start must not name a new one.
      if (continuation && chunk.type === 'start') chunk = { type: 'start' };
      const body = JSON.stringify(chunk);
      turn.bodies.push(body);
      this.sendToTurn(turn, responseFrame({ id, body, done: false, seq: turn.bodies.length - 1, ...flags }));
    }
    turn.done = true;
    // The turn is saved by now (the stream ends after its onFinish): other tabs get the saved transcript before `done`…
    const transcript = this.host.transcript.recent();
    this.sendToOthers(turn, messagesFrame(transcript));
    this.sendToTurn(turn, responseFrame({ id, body: '', done: true, outcome: turn.outcome, ...flags }));
    // …and every attached tab the answer as saved (a stopped turn's tool calls settled, its metadata), after its stream closed.
    const answer = transcript.at(-1);
    if (answer?.role === 'assistant') this.sendToTurn(turn, messageUpdatedFrame(answer));
  }

  /** To every peer attached to `turn` (not waiting to acknowledge a resume). */
  private sendToTurn(turn: SocketTurn, frame: object): void {
    const data = JSON.stringify(frame);
    for (const peer of this.host.peers()) if (this.resume.attached(turn, peer.id)) trySend(peer, data);
  }

  /** To the attached peers other than the turn's sender. */
  private sendToOthers(turn: SocketTurn, frame: object): void {
    const data = JSON.stringify(frame);
    for (const peer of this.host.peers())
      if (peer.id !== turn.sender && this.resume.attached(turn, peer.id)) trySend(peer, data);
  }

  private broadcast(frame: object, except?: string): void {
    const data = JSON.stringify(frame);
    for (const peer of this.host.peers()) if (peer.id !== except) trySend(peer, data);
  }

  private sendTo(id: string, frame: object): void {
    for (const peer of this.host.peers()) if (peer.id === id) send(peer, frame);
  }
}

const first = <T>(items: Iterable<T>): T | undefined => {
  for (const item of items) return item;
  return undefined;
};

const send = (peer: ChatPeer, frame: object) => trySend(peer, JSON.stringify(frame));

/** A peer may close between the moment it was listed and the send: that is not an error. */
function trySend(peer: ChatPeer, data: string): void {
  try {
    peer.send(data);
  } catch {
    // closed meanwhile; its close handler forgets it
  }
}

const errorText = (error: unknown) => (error instanceof ApiError ? error.message : 'Internal error');
