import type { ChatSocket } from '../chat/socket/chat-socket';
import { errorFields, logEvent } from '../observability/log';
import { inScope, type ScopeOwner } from './request-scope';
import type { HibernatingSockets } from './sockets';
import type { Thread } from './thread';

export interface SocketEntryHost {
  sockets: HibernatingSockets;
  chat: ChatSocket;
  thread: Thread;
  scope: ScopeOwner;
}

/**
 * The Durable Object's WebSocket handlers (upgrade, frame, close, error)
 * between the runtime's hibernation API (sockets.ts) and the `useAgentChat`
 * protocol (chat-socket.ts): a frame of a conversation that does not exist
 * is ignored, and an error never reaches the runtime (which would send its
 * stack in a frame).
 */
export class SocketEntry {
  constructor(private readonly host: SocketEntryHost) {}

  /** The route's upgrade (`GET /v1/conversations/:id/ws`, ownership checked there): the transcript comes first. */
  open(request: Request): Response {
    if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket')
      return new Response('Not found', { status: 404 });
    const { response, peer } = this.host.sockets.accept(request);
    try {
      if (this.host.thread.row()) this.host.chat.connected(peer);
      else peer.close(4004, 'conversation not found');
    } catch (error) {
      logEvent('ws.error', { conversation: this.host.scope.name, ...errorFields(error, { stack: true }) }, 'error');
      peer.close(1011, 'internal error');
    }
    return response;
  }

  /** A frame: a request of its own (a turn it starts gets a request id of its own). */
  async message(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const { chat, sockets, thread, scope } = this.host;
    if (thread.row() && typeof message === 'string')
      await inScope(scope, undefined, () => chat.received(sockets.peerOf(ws), message));
  }

  closed(ws: WebSocket, code: number, reason: string): void {
    this.host.chat.closed(this.host.sockets.peerOf(ws));
    try {
      ws.close(code, reason); // completes the closing handshake (1005/1006 cannot be sent back: nothing to complete)
    } catch {}
  }

  failed(ws: WebSocket): void {
    this.host.chat.closed(this.host.sockets.peerOf(ws));
  }

  /** Every socket closed: the conversation was deleted. */
  closeAll(reason: string): void {
    for (const peer of this.host.sockets.all()) peer.close(1000, reason);
  }
}
