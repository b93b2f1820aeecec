import { INVALIDATION_LOG_TABLES } from '../cache/invalidation-log';
import { MCP_STATE_TABLES } from '../mcp/catalog/state-store';
import type { Owner } from '../owner';
import { ensureTables } from '../sql-schema';
import { TurnRequests } from '../turn/requests';
import { TurnRunner } from '../turn/runner';
import { ChatSocket } from '../chat/socket/chat-socket';
import { alarmJobs } from './alarm-jobs';
import { type AlarmJobs, ConversationAlarms } from './alarms';
import { CompactionPoint } from './compaction';
import { ConversationTerms } from './terms';
import { AnswerFeedback, FEEDBACK_TABLES, FeedbackStore } from './feedback';
import { History, HISTORY_TABLES } from './history';
import { LARGE_RESULT_TABLES, SqlLargeResultStore } from './large-result-store';
import { LiveSessions } from './live-sessions';
import { TurnPace } from './pace';
import { ConversationReads } from './reads';
import { ConversationRecordStore, RECORD_TABLES } from './record';
import { ConversationRemoval } from './removal';
import { SocketEntry } from './socket-entry';
import { HibernatingSockets } from './sockets';
import { TaskFollower } from '../turn/tasks/task-follower';
import { TaskStore } from '../turn/tasks/task-store';
import { Thread } from './thread';
import { TurnControls } from './turn-controls';
import { TurnResponses } from './turn-responses';
import { SqlViewNonces, VIEW_NONCE_TABLES } from './view-nonces';
import { USAGE_OUTBOX_TABLES, UsageOutbox } from './usage-outbox';
import { ConversationUploads, UPLOADS_TABLES, UploadsFlag } from './uploads';

/** What the parts need of the Durable Object they make up. */
export interface PartsHost {
  ctx: DurableObjectState;
  env: Env;
  /** Asks another conversation of the same end user to release its MCP sessions; false if it is busy. */
  yieldPeer(other: string, owner: Owner): Promise<boolean>;
}

/**
 * The parts of one conversation, made and connected — nothing else happens
 * here (each behaviour is in the part named for it). The Durable Object's
 * methods (conversation.ts) each call one of them; tests reach them through
 * `runInDurableObject` (`instance.parts`, an instance field, so not on the
 * RPC surface).
 */
export class ConversationParts {
  readonly history: History;
  readonly largeResults: SqlLargeResultStore;
  /** The nonces of view links, each a capability to one MCP Apps view (views.ts). */
  readonly viewNonces: SqlViewNonces;
  readonly terms: ConversationTerms;
  readonly thread: Thread;
  /** The MCP sessions over time: built on first use, leased within the user's limit, released when idle. */
  readonly live: LiveSessions;
  /** The turns: one at a time (a second is refused with 409), each stoppable. */
  readonly turns: TurnRunner;
  readonly requests: TurnRequests;
  /** Stop, a server's question and its answer, routed to the running turn or a task. */
  readonly controls: TurnControls;
  /** The `useAgentChat` protocol over the object's WebSockets, and the runtime's handlers in front of it. */
  readonly sockets: ChatSocket;
  readonly socketEntry: SocketEntry;
  /** The tasks its tool calls became (MCP Tasks), followed from the alarm. */
  readonly tasks: TaskFollower;
  /** When its turns started: the cost planner's pace. */
  readonly pace: TurnPace;
  /** What its turns cost, on its way to the tenant's ledger (usage-outbox.ts). */
  readonly usage: UsageOutbox;
  /** The object's one alarm, shared by its jobs, and what each job runs (alarms.ts). */
  readonly alarms: ConversationAlarms;
  readonly alarmJobs: AlarmJobs;
  /** The routes' reads and turns, as RPC answers. */
  readonly reads: ConversationReads;
  readonly responses: TurnResponses;
  readonly removal: ConversationRemoval;
  /** Its files (R2): the `uploads` server turned on, refreshed after each change, deleted with it (uploads.ts). */
  readonly uploads: ConversationUploads;
  /** Its answers' ratings: kept beside them, reported to the tenant's ledger (feedback.ts). */
  readonly feedback: AnswerFeedback;

  constructor({ ctx, env, yieldPeer }: PartsHost) {
    const { storage } = ctx;
    const name = ctx.id.name;
    if (name === undefined) throw new Error('a conversation is addressed by its id (getByName)');
    // Every table of this object's stores in one batch (sql-schema.ts); each store's own call then finds them made.
    ensureTables(
      storage.sql,
      RECORD_TABLES,
      HISTORY_TABLES,
      LARGE_RESULT_TABLES,
      VIEW_NONCE_TABLES,
      MCP_STATE_TABLES,
      INVALIDATION_LOG_TABLES,
      USAGE_OUTBOX_TABLES,
      UPLOADS_TABLES,
      FEEDBACK_TABLES,
    );
    const waitUntil = (promise: Promise<unknown>) => ctx.waitUntil(promise);
    const hibernating = new HibernatingSockets(ctx);
    const record = new ConversationRecordStore(storage);
    const uploadsFlag = new UploadsFlag(storage.sql);
    this.alarms = new ConversationAlarms(storage);
    this.history = new History(storage);
    this.largeResults = new SqlLargeResultStore(storage);
    this.viewNonces = new SqlViewNonces(storage);
    this.pace = new TurnPace(storage);
    const ratings = new FeedbackStore(storage.sql);
    this.thread = new Thread({
      env,
      name,
      waitUntil,
      record,
      history: this.history,
      largeResults: this.largeResults,
      ratings,
    });
    this.terms = new ConversationTerms(env, name, () => this.thread.row());
    this.feedback = new AnswerFeedback({ terms: this.terms, history: this.history, ratings });
    this.tasks = new TaskFollower({
      store: new TaskStore(storage),
      conversation: this.terms,
      withMcp: (work) => this.live.use(work),
      clock: {
        schedule: (at) => this.alarms.schedule('tasks', at),
        cancel: () => this.alarms.cancel('tasks'),
      },
      answer: {
        load: () => this.history.load(),
        largeResults: this.largeResults,
        save: (message) => this.turns.saveAnswer(message),
      },
      activityChanged: () => this.usage.activityChanged(),
    });
    this.live = new LiveSessions({
      terms: this.terms,
      storage,
      // Sessions stay while a turn runs or a task is followed (a 2025 task lives in its session).
      turnRunning: () => this.turns.busy || this.tasks.pending,
      alarms: this.alarms,
      yieldSessions: yieldPeer,
      waitUntil,
      elicit: (server, params, signal, relatedTask) => this.controls.elicit(server, params, signal, relatedTask),
      authRequired: (state) => void this.turns.authRequired(state),
      released: () => this.usage.activityChanged(),
      hasUploads: () => uploadsFlag.on,
    });
    this.uploads = new ConversationUploads({ terms: this.terms, storage, live: this.live, flag: uploadsFlag });
    this.usage = new UsageOutbox({
      storage,
      terms: this.terms,
      alarms: this.alarms,
      waitUntil,
      live: this.live,
      tasks: this.tasks,
    });
    const withMcp = this.live.use.bind(this.live);
    this.turns = new TurnRunner({
      env,
      conversation: name,
      store: this.history,
      largeResults: this.largeResults,
      terms: () => this.terms.forTurn(record.pinnedSkills()),
      withMcp,
      tasks: this.tasks,
      pace: this.pace,
      usage: this.usage,
      compaction: new CompactionPoint(storage),
    });
    // The answer's events: a turn's end restarts the sessions' idle clock, sends what it cost to the ledger; a saved
    // one moves the thread up its list.
    this.turns.events.on((event) => (this.live.heard(event), this.thread.heard(event), this.usage.heard(event)));
    this.requests = new TurnRequests({
      runner: this.turns,
      terms: this.terms,
      withMcp,
      fileParts: (command) => this.uploads.fileParts(command),
    });
    this.controls = new TurnControls({
      terms: this.terms,
      history: this.history,
      turns: this.turns,
      tasks: this.tasks,
    });
    // Every turn that starts, however it was asked for, streams to the sockets too (ChatSocket subscribes to the runner).
    this.sockets = new ChatSocket({
      peers: () => hibernating.all(),
      transcript: this.thread,
      turns: this.turns,
      requests: this.requests,
      controls: this.controls,
    });
    this.socketEntry = new SocketEntry({
      sockets: hibernating,
      chat: this.sockets,
      thread: this.thread,
      scope: this.terms,
    });
    this.alarmJobs = alarmJobs(this);
    this.reads = new ConversationReads(this);
    this.responses = new TurnResponses(this);
    this.removal = new ConversationRemoval({
      ...this,
      sockets: this.socketEntry,
      storage,
      abort: (reason) => ctx.abort(reason),
    });
    this.thread.recover();
  }
}
