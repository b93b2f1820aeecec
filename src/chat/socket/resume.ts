import type { LiveStream } from '../../turn/live-stream';
import { pendingFrame, resumeNoneFrame, resumingFrame, responseFrame } from './frames';

/** A turn streamed over the sockets (the last one stays until the next starts, for late acknowledgements). */
export interface SocketTurn {
  id: string;
  stream: LiveStream;
  /** The peer whose request this turn answers (it reads its own request's frames). */
  sender: string | undefined;
  continuation: boolean;
  /** Chunk bodies sent so far, in order (`seq` is the index). */
  bodies: string[];
  done: boolean;
  outcome: 'completed' | 'error' | 'aborted';
  /** Peers told to resume this turn that have not acknowledged yet: no live frames for them. */
  pending: Set<string>;
}

/**
 * Who is told what about resuming a turn — the hook's handshake, as
 * `AIChatAgent` runs it (agents' chat/resume-handshake.ts is the model): a
 * tab that joins mid-turn, or that answered a call and waits for the
 * continuation, probes (`cf_agent_stream_resume_request`); it is told the
 * turn is resuming, pending (still being started), or that there is none;
 * once it acknowledges it gets every chunk so far as replay frames, then the
 * rest live — each chunk exactly once. Kept apart from the socket's dispatch
 * and broadcast so the sequences can be frozen by a test (chat-socket.test.ts).
 */
export class ResumeHandshake {
  /** The turn streamed over the sockets now, or the last one. */
  turn: SocketTurn | undefined;
  /** Tabs that answered a tool call and will probe for the continuation: kept out of its live frames until they do. */
  private readonly awaitingProbe = new Set<string>();
  /** Tabs that probed while a turn was being started (told `pending`): told `resuming` once it streams. */
  private readonly awaitingStart = new Set<string>();
  /** Peers whose chat requests are being started, with how many each. */
  private readonly requesters = new Map<string, number>();

  constructor(
    private readonly send: (peer: string, frame: object) => void,
    /** A turn is being started or streamed (whoever started it). */
    private readonly turnBusy: () => boolean,
  ) {}

  /** A tab connected while a turn streams: told at once, and kept out of live frames until it acknowledges (the hook dedupes the probe's answer). */
  joined(peer: string): void {
    const turn = this.turn;
    if (!turn || turn.done) return;
    turn.pending.add(peer);
    this.send(peer, resumingFrame(turn.id));
  }

  left(peer: string): void {
    this.turn?.pending.delete(peer);
    this.awaitingProbe.delete(peer);
    this.awaitingStart.delete(peer);
  }

  /** While `start` runs, `peer`'s own request is being started: its probes are told there is nothing to resume (it reads that request's frames). */
  async requesting<T>(peer: string, start: () => Promise<T>): Promise<T> {
    this.requesters.set(peer, (this.requesters.get(peer) ?? 0) + 1);
    try {
      return await start();
    } finally {
      const left = (this.requesters.get(peer) ?? 1) - 1;
      if (left > 0) this.requesters.set(peer, left);
      else this.requesters.delete(peer);
    }
  }

  /** `peer` answered the step's last call: the hook probes for the continuation (a new request id, `continuation: true` frames). */
  expectProbe(peer: string): void {
    this.awaitingProbe.add(peer);
  }

  /** The continuation failed to start: the tabs waiting for it hear there is none. */
  startFailed(): void {
    for (const waiting of [...this.awaitingProbe, ...this.awaitingStart]) this.send(waiting, resumeNoneFrame({}, null));
    this.awaitingProbe.clear();
    this.awaitingStart.clear();
  }

  /** A turn starts streaming over the sockets: the tabs waiting for it are attached, each pending until it acknowledges. */
  begin(turn: Omit<SocketTurn, 'pending' | 'bodies' | 'done' | 'outcome'>): SocketTurn {
    const started: SocketTurn = {
      ...turn,
      bodies: [],
      done: false,
      outcome: 'completed',
      pending: new Set(this.awaitingProbe),
    };
    this.turn = started;
    this.awaitingProbe.clear();
    for (const waiting of this.awaitingStart) {
      started.pending.add(waiting);
      this.send(waiting, resumingFrame(started.id));
    }
    this.awaitingStart.clear();
    return started;
  }

  probed(peer: string, probeId: string | undefined): void {
    const probe = { probeId };
    const turn = this.turn;
    // The tab whose own request is starting or streaming reads that request's frames: nothing to resume for it.
    // (Told "resuming" for its own request, the hook would open a second reader of the same turn.)
    if (this.requesters.has(peer) || (turn && !turn.done && turn.sender === peer)) {
      this.send(peer, resumeNoneFrame(probe));
    } else if (turn && (!turn.done || turn.pending.has(peer))) {
      turn.pending.add(peer);
      this.awaitingProbe.delete(peer);
      this.send(peer, resumingFrame(turn.id, probe));
    } else if (this.turnBusy() || this.awaitingProbe.has(peer)) {
      // A turn is being started (its MCP sessions, its context): it is announced when it streams.
      this.awaitingProbe.delete(peer);
      this.awaitingStart.add(peer);
      this.send(peer, pendingFrame(probe));
    } else this.send(peer, resumeNoneFrame(probe));
  }

  /** Everything so far as replay frames, then live: in one synchronous step, so nothing is missed or sent twice. */
  acknowledged(peer: string, id: string | undefined): void {
    const turn = this.turn;
    if (!turn || turn.id !== id || !turn.pending.delete(peer)) return;
    const flags = turn.continuation ? { continuation: true as const } : {};
    turn.bodies.forEach((body, seq) => {
      this.send(peer, responseFrame({ id, body, done: false, replay: true, seq, ...flags }));
    });
    if (turn.done)
      this.send(peer, responseFrame({ id, body: '', done: true, replay: true, outcome: turn.outcome, ...flags }));
    else this.send(peer, responseFrame({ id, body: '', done: false, replay: true, replayComplete: true, ...flags }));
  }

  /** Whether `peer` gets `turn`'s live frames (it is not waiting to acknowledge). */
  attached(turn: SocketTurn, peer: string): boolean {
    return !turn.pending.has(peer);
  }
}
