import type { ChatConnection } from '../chat/socket/chat-socket';

/** A socket as the chat protocol uses it (chat-socket.ts), with a way to end it. */
export type SocketConnection = ChatConnection & { close(code?: number, reason?: string): void };

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
  /** Each socket's connection, built once per socket (an attachment is a structured clone to read). */
  private readonly known = new WeakMap<WebSocket, SocketConnection>();

  constructor(private readonly ctx: DurableObjectState) {}

  /** Accepts an upgrade: the 101 response for the caller, and the connection now open. */
  accept(request: Request): { response: Response; connection: SocketConnection } {
    const { 0: client, 1: server } = new WebSocketPair();
    const id = new URL(request.url).searchParams.get('_pk') || crypto.randomUUID();
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ id });
    return { response: new Response(null, { status: 101, webSocket: client }), connection: this.connectionOf(server) };
  }

  /** Every open socket of this conversation. */
  all(): SocketConnection[] {
    return this.ctx.getWebSockets().map((ws) => this.connectionOf(ws));
  }

  connectionOf(ws: WebSocket): SocketConnection {
    let connection = this.known.get(ws);
    if (!connection) {
      const attachment = ws.deserializeAttachment() as { id?: unknown } | null;
      const id = typeof attachment?.id === 'string' ? attachment.id : crypto.randomUUID();
      connection = { id, send: (data) => ws.send(data), close: (code, reason) => ws.close(code, reason) };
      this.known.set(ws, connection);
    }
    return connection;
  }
}
