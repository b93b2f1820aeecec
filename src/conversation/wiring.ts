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
import type { AlarmJobs, ConversationAlarms } from './alarms';
import { TaskFollower } from './tasks/task-follower';
import { TaskStore } from './tasks/task-store';
import { TurnPace } from './pace';
import { CompactionPoint } from './compaction';
import type { ElicitationAnswer } from '../turn/elicitations';
import { PendingStep } from '../turn/pending-step';

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
  /** The object's one alarm, shared by its jobs (alarms.ts). */
  alarms(): ConversationAlarms;
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
  /** The tasks its tool calls became (MCP Tasks), followed from the alarm. */
  readonly tasks: TaskFollower;
  /** When its turns started: the cost planner's pace. */
  readonly pace: TurnPace;
  /** What the object's alarm runs, by job (alarms.ts). */
  readonly alarmJobs: AlarmJobs;

  constructor(host: PartsHost) {
    // Synchronous SQLite: the schemas exist before any method runs.
    const record = new ConversationRecordStore(host.storage);
    this.history = new History(host.storage);
    this.largeResults = new SqlLargeResultStore(host.storage);
    this.viewLinks = new SqlViewLinks(host.storage);
    this.pace = new TurnPace(host.storage);
    this.thread = new Thread({ ...host, record, history: this.history, largeResults: this.largeResults });
    this.context = new ConversationContext(host.env, host.name, () => this.thread.row());
    this.tasks = new TaskFollower({
      store: new TaskStore(host.storage),
      conversation: {
        env: host.env,
        name: host.name,
        settings: () => this.context.settings(),
        owner: () => this.context.owner(),
        acceptsImages: () => this.context.acceptsImages(),
        largeResults: this.largeResults,
      },
      withMcp: (work) => this.live.use(work),
      alarms: host.alarms,
      answer: {
        load: () => this.history.load(),
        save: (message, tell = true) => {
          this.history.save([message], false);
          if (tell) this.sockets.messageUpdated(message);
        },
        busy: () => this.turns.busy,
        continue: () => this.requests.continueIfReady(),
      },
    });
    this.live = new LiveSessions({
      context: this.context,
      storage: host.storage,
      // Sessions stay while a turn runs or a task is followed (a 2025 task lives in its session).
      turnRunning: () => this.turns.busy || this.tasks.pending,
      scheduleIdleCheck: host.scheduleIdleCheck,
      yieldSessions: host.yieldPeer,
      waitUntil: host.waitUntil,
      // A 2025 task's question is the task's (it may come while no turn runs); any other, the running turn's.
      elicit: (server, params, signal, relatedTask) =>
        relatedTask !== undefined
          ? this.tasks.elicit(server, relatedTask, params, signal)
          : this.turns.elicit(server, params, signal),
      authRequired: (state) =>
        void this.turns
          .authRequired(state)
          .catch((error) => logEvent('auth.link', { server: state.id, ...errorFields(error) }, 'warn')),
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
      tasks: this.tasks,
      pace: this.pace,
      compaction: new CompactionPoint(host.storage),
    });
    this.requests = new TurnRequests({ runner: this.turns, context: this.context, withMcp });
    // Every turn that starts, however it was asked for, streams to the sockets too (ChatSocket subscribes to the runner).
    this.sockets = new ChatSocket({
      connections: host.connections,
      transcript: this.thread,
      turns: this.turns,
      requests: this.requests,
      stop: () => this.stop(),
      answerElicitation: (id, answer) => this.answerElicitation(id, answer),
    });
    this.alarmJobs = {
      idle: async () => {
        const lease = host.alarms().idleLease();
        if (lease !== undefined) await this.live.releaseIdle(lease);
      },
      tasks: async () => {
        if (this.thread.row()) await this.tasks.poll();
      },
    };
    // A new instance: no turn runs here yet, so one still marked pending was cut by an abort (and what its
    // tool calls kept belongs to an answer that was never saved).
    if (this.history.recoverInterrupted()) this.largeResults.keepOnly(toolCallIdsOf(this.history.load()));
  }

  /** Stops the running turn and the tasks its tool calls became; whether anything was running. */
  async stop(): Promise<boolean> {
    const turn = this.turns.stop();
    if (turn) await this.turns.whenIdle();
    return (await this.tasks.stop()) || turn;
  }

  /** A server's question answered: a task's (a call of the saved answer waits on it) or the running turn's (in memory). */
  async answerElicitation(id: string, answer: ElicitationAnswer): Promise<void> {
    const pending = PendingStep.of(this.history.load()).find(id);
    if (pending?.kind === 'question') return this.tasks.answer(pending, answer);
    this.turns.answerElicitation(id, answer);
  }
}
