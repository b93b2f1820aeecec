/**
 * A Durable Object has one alarm; a conversation has three jobs for it: the
 * idle release of its MCP sessions (LiveSessions), the polling of the
 * tasks its tool calls became (turn/tasks/task-follower.ts), and sending again
 * the usage its ledger did not take (usage-outbox.ts). Each job keeps its
 * own due time here, in the object's synchronous KV (so a restart, an
 * eviction or a redeploy keeps them), and the alarm is set to the earliest.
 * When it fires, every job whose time has come runs; the alarm is then set
 * to the earliest time still kept (a job reschedules itself as it runs).
 */
export type AlarmJob = 'idle' | 'tasks' | 'usage';

/** What each job does when its time comes: one table, by name (as agents' schedules are), built with the parts. */
export type AlarmJobs = Record<AlarmJob, () => Promise<void>>;

const JOBS: readonly AlarmJob[] = ['idle', 'tasks', 'usage'];
const keyOf = (job: AlarmJob) => `alarm:${job}`;
/** The idle job's argument, kept beside its due time: the lease it checks (live-sessions.ts). */
const IDLE_LEASE_KEY = 'idle-check-lease';

export interface AlarmStorage {
  kv: Pick<SyncKvStorage, 'get' | 'put' | 'delete'>;
  getAlarm(): Promise<number | null>;
  setAlarm(at: number): Promise<void>;
  deleteAlarm(): Promise<void>;
}

export class ConversationAlarms {
  constructor(private readonly storage: AlarmStorage) {}

  /** Runs `job` at `at` (ms since epoch) — or earlier, if it was already due sooner. */
  async schedule(job: AlarmJob, at: number): Promise<void> {
    const current = this.storage.kv.get<number>(keyOf(job));
    if (current !== undefined && current <= at && current > Date.now()) return;
    this.storage.kv.put(keyOf(job), at);
    await this.arm();
  }

  /** The idle release at `at`, for the sessions' lease `lease` (a check for an earlier lease does nothing). */
  async scheduleIdle(at: number, lease: string): Promise<void> {
    this.storage.kv.put(IDLE_LEASE_KEY, lease);
    await this.schedule('idle', at);
  }

  /** The lease the idle release checks. */
  idleLease(): string | undefined {
    return this.storage.kv.get<string>(IDLE_LEASE_KEY);
  }

  /** `job` has nothing more to do (until it schedules again). */
  async cancel(job: AlarmJob): Promise<void> {
    this.storage.kv.delete(keyOf(job));
    await this.arm();
  }

  /**
   * The alarm fired: the jobs due now, each forgotten (it schedules again if it needs to). An alarm that fires
   * before any job is due (the runtime's clock against ours; a test's `runDurableObjectAlarm`) runs the earliest
   * one: the alarm was set for it, and every job is safe to run early (the idle release checks its lease, the
   * polling asks the server).
   */
  takeDue(now = Date.now()): AlarmJob[] {
    const kept = JOBS.map((job) => ({ job, at: this.storage.kv.get<number>(keyOf(job)) })).filter(
      (entry): entry is { job: AlarmJob; at: number } => entry.at !== undefined,
    );
    const earliest = Math.min(...kept.map((entry) => entry.at));
    const due = kept.filter((entry) => entry.at <= Math.max(now, earliest)).map((entry) => entry.job);
    for (const job of due) this.storage.kv.delete(keyOf(job));
    return due;
  }

  /** The alarm fired: runs each job due now from `jobs`, then sets the alarm to the earliest time still kept. */
  async run(jobs: AlarmJobs): Promise<void> {
    for (const job of this.takeDue()) await jobs[job]();
    await this.arm();
  }

  /** Sets the alarm to the earliest job's time (or removes it when none is kept). */
  async arm(): Promise<void> {
    const times = JOBS.map((job) => this.storage.kv.get<number>(keyOf(job))).filter(
      (at): at is number => at !== undefined,
    );
    if (!times.length) return this.storage.deleteAlarm();
    const earliest = Math.min(...times);
    if ((await this.storage.getAlarm()) !== earliest) await this.storage.setAlarm(earliest);
  }
}
