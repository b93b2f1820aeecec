import type { ChatPeer } from '../chat/socket/chat-socket';

/** A socket as the chat protocol uses it (chat-socket.ts), with a way to end it. */
export type ClosablePeer = ChatPeer & { close(code?: number, reason?: string): void };

/**
 * The conversation's WebSockets, on the Durable Object's hibernation API: the
 * runtime holds them while the object sleeps and wakes it for each frame
 * (`webSocketMessage`). A socket's id lives in its attachment, so it
 * survives hibernation: the client's `_pk` (the id partysocket, under
 * `useAgentChat`, picks and keeps across reconnects), else a fresh one.
 *
 * Our own rather than `agents`' Agent: this is all of Agent the
 * conversation used besides scheduling one alarm, and an Agent costs each new
 * conversation about 13 ms of CPU at creation (its schema migration — some
 * 30 SQL statements — and an MCP client manager nobody here uses) and the
 * Worker 137 KiB of gzipped bundle (BENCHMARKS.md).
 */
export class HibernatingSockets {
  /** Each socket's peer, built once per socket (an attachment is a structured clone to read). */
  private readonly known = new WeakMap<WebSocket, ClosablePeer>();

  constructor(private readonly ctx: DurableObjectState) {}

  /** Accepts an upgrade: the 101 response for the caller, and the peer now open. */
  accept(request: Request): { response: Response; peer: ClosablePeer } {
    const { 0: client, 1: server } = new WebSocketPair();
    const id = new URL(request.url).searchParams.get('_pk') || crypto.randomUUID();
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ id });
    return { response: new Response(null, { status: 101, webSocket: client }), peer: this.peerOf(server) };
  }

  /** Every open socket of this conversation. */
  all(): ClosablePeer[] {
    return this.ctx.getWebSockets().map((ws) => this.peerOf(ws));
  }

  peerOf(ws: WebSocket): ClosablePeer {
    let peer = this.known.get(ws);
    if (!peer) {
      const attachment = ws.deserializeAttachment() as { id?: unknown } | null;
      const id = typeof attachment?.id === 'string' ? attachment.id : crypto.randomUUID();
      peer = { id, send: (data) => ws.send(data), close: (code, reason) => ws.close(code, reason) };
      this.known.set(ws, peer);
    }
    return peer;
  }
}
