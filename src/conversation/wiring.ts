import { errorFields, logEvent } from '../observability/log';
import type { Owner } from '../owner';
import { toolCallIdsOf } from '../tools/large-results';
import { TurnRequests } from '../turn/requests';
import { TurnRunner } from '../turn/runner';
import { type ChatConnection, ChatSocket } from '../chat/socket/chat-socket';
import { ConversationContext } from './context';
import { History } from './history';
import { SqlLargeResultStore } from './large-result-store';
import { LiveSessions } from './live-sessions';
import { ConversationRecordStore } from './record';
import { Thread } from './thread';
import { SqlViewLinks } from './view-links';

/** What the parts need of the Durable Object they make up. */
export interface PartsHost {
  env: Env;
  storage: DurableObjectStorage;
  /** The conversation id. */
  name: string;
  waitUntil(promise: Promise<unknown>): void;
  connections(): Iterable<ChatConnection>;
  /** Calls the idle check with `lease` in about `delayMs` (a Durable Object alarm). */
  scheduleIdleCheck(delayMs: number, lease: string): Promise<void>;
  /** Asks another conversation of the same end user to release its MCP sessions; false if it is busy. */
  yieldPeer(other: string, owner: Owner): Promise<boolean>;
}

/**
 * The parts of one conversation, made and connected — nothing else happens
 * here. The Durable Object's methods (conversation.ts) each call one of
 * them; tests reach them through `runInDurableObject` (`instance.parts`,
 * an instance field, so not on the RPC surface).
 */
export class ConversationParts {
  readonly history: History;
  readonly largeResults: SqlLargeResultStore;
  /** The capability links to MCP Apps views (views.ts). */
  readonly viewLinks: SqlViewLinks;
  readonly context: ConversationContext;
  readonly thread: Thread;
  /** The MCP sessions over time: built on first use, leased within the user's limit, released when idle. */
  readonly live: LiveSessions;
  /** The turns: one at a time (a second is refused with 409), each stoppable. */
  readonly turns: TurnRunner;
  readonly requests: TurnRequests;
  /** The `useAgentChat` protocol over the object's WebSockets. */
  readonly sockets: ChatSocket;

  constructor(host: PartsHost) {
    // Synchronous SQLite: the schemas exist before any method runs.
    const record = new ConversationRecordStore(host.storage);
    this.history = new History(host.storage);
    this.largeResults = new SqlLargeResultStore(host.storage);
    this.viewLinks = new SqlViewLinks(host.storage);
    this.thread = new Thread({ ...host, record, history: this.history, largeResults: this.largeResults });
    this.context = new ConversationContext(host.env, host.name, () => this.thread.row());
    this.live = new LiveSessions({
      context: this.context,
      storage: host.storage,
      turnRunning: () => this.turns.busy,
      scheduleIdleCheck: host.scheduleIdleCheck,
      yieldSessions: host.yieldPeer,
      waitUntil: host.waitUntil,
      elicit: (server, params, signal) => this.turns.elicit(server, params, signal),
      authRequired: (state) => void this.turns.authRequired(state).catch((error) => logEvent('auth.link', { server: state.id, ...errorFields(error) }, 'warn')),
    });
    const withMcp = this.live.use.bind(this.live);
    this.turns = new TurnRunner({
      env: host.env,
      conversation: host.name,
      store: this.history,
      largeResults: this.largeResults,
      context: this.context,
      withMcp,
      ended: () => this.live.touch(),
      saved: (messages) => this.thread.active(messages),
      pinnedSkills: () => record.pinnedSkills(),
    });
    this.requests = new TurnRequests({ runner: this.turns, context: this.context, withMcp });
    // Every turn that starts, however it was asked for, streams to the sockets too (ChatSocket subscribes to the runner).
    this.sockets = new ChatSocket({ connections: host.connections, transcript: this.thread, turns: this.turns, requests: this.requests });
    // A new instance: no turn runs here yet, so one still marked pending was cut by an abort (and what its
    // tool calls kept belongs to an answer that was never saved).
    if (this.history.recoverInterrupted()) this.largeResults.keepOnly(toolCallIdsOf(this.history.load()));
  }
}
