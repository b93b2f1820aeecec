import { type RpcResult, toRpcResult } from '../rpc';
import type { TurnRunner } from '../turn/runner';
import type { ConversationTerms } from './terms';
import type { LiveSessions } from './live-sessions';
import type { SocketEntry } from './socket-entry';
import type { TaskFollower } from '../turn/tasks/task-follower';
import type { UsageOutbox } from './usage-outbox';
import type { ConversationUploads } from './uploads';
import type { Thread } from './thread';

/** How long a deletion waits for the turn it stops to end (and count what it spent). */
const TURN_STOP_WAIT_MS = 2_000;

export interface RemovalHost {
  terms: ConversationTerms;
  thread: Thread;
  live: LiveSessions;
  turns: TurnRunner;
  tasks: TaskFollower;
  sockets: SocketEntry;
  storage: DurableObjectStorage;
  /** What it cost and holds, told to the ledger before its storage goes. */
  usage: UsageOutbox;
  /** Its files (R2), deleted with it. */
  uploads: ConversationUploads;
  /** Ends this instance (a new one would find nothing). */
  abort(reason: string): void;
}

/**
 * Deleting a conversation: nothing of it outlives it, even if the runtime
 * keeps the instance a while — its tasks are cancelled, the sessions end
 * (or a restarted instance leaves the live count), the running turn stops,
 * what it cost reaches the tenant's ledger (and it leaves the live counts),
 * the threads list forgets it, its storage and alarm are gone, its sockets
 * closed, and the instance aborted.
 */
export class ConversationRemoval {
  constructor(private readonly host: RemovalHost) {}

  remove(): Promise<RpcResult<void>> {
    return toRpcResult(async () => {
      const { terms, thread, live, turns, tasks, sockets, storage, usage, uploads } = this.host;
      const row = terms.existing();
      // Its tasks first, while it still exists and the sessions they live in are open: cancelled on their servers.
      await tasks.abandon();
      thread.deleted = true;
      await live.close(row.owner);
      // Its files, while nothing else is gone yet (from here an upload finishing is refused, and removes its own):
      // if R2 fails, the deletion fails and can be asked again, rather than leave the files behind.
      try {
        await uploads.removeAll(row.owner.tenant);
      } catch (error) {
        thread.deleted = false;
        throw error;
      }
      // The stopped turn still counts what it spent (its last request, estimated): awaited, briefly, so it is sent.
      const stopped = turns.whenIdle();
      turns.forget();
      await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, TURN_STOP_WAIT_MS))]);
      await thread.removed(row);
      await usage.gone(row.owner);
      await storage.deleteAlarm();
      await storage.deleteAll();
      sockets.closeAll('conversation deleted');
      // After this call has answered: aborting now would fail the caller's request.
      setTimeout(() => this.host.abort('conversation deleted'), 0);
    });
  }
}
