import type { Owner } from '../owner';
import type { Budgets } from '../usage/budgets';
import type { UsageEntry } from '../usage/counters';
import type { ConversationActivity, Reservation, ReservationVerdict, Spent } from '../usage/ledger';
import type { UsageSink } from '../usage/meter';
import { errorFields, logEvent } from '../observability/log';
import type { ConversationAlarms } from './alarms';
import type { TurnEvent } from '../turn/turn-events';
import type { ConversationTerms } from './terms';
import type { LiveSessions } from './live-sessions';
import type { TaskFollower } from '../turn/tasks/task-follower';

export const USAGE_OUTBOX_TABLES = `CREATE TABLE IF NOT EXISTS usage_outbox (
  id TEXT PRIMARY KEY, user TEXT NOT NULL, entry TEXT NOT NULL
) WITHOUT ROWID`;

/** How soon a write the ledger refused is tried again (the alarm's `usage` job). */
const RETRY_MS = 30_000;

/**
 * How soon after a turn's first entry the alarm sends what is left, should the turn never end (the object crashed or
 * was evicted mid-turn): its entries, and the estimate of a request that was in flight, count within a minute.
 */
const SEND_WITHIN_MS = 60_000;

export interface UsageOutboxHost {
  storage: DurableObjectStorage;
  terms: ConversationTerms;
  alarms: ConversationAlarms;
  waitUntil(promise: Promise<unknown>): void;
  /** What the conversation holds, for the operator's live counts: its sessions' lease, the tasks it follows. */
  live: Pick<LiveSessions, 'usage'>;
  tasks: Pick<TaskFollower, 'running'>;
}

/** How long past MCP_IDLE_MS a conversation's last word of live sessions is believed (the release's own word may be late). */
const LIVE_GRACE_MS = 5 * 60_000;

/** Entries sent in one call to the ledger. */
const OUTBOX_BATCH = 500;

/** A task is given up this long after it started at the latest (TASK_MAX_MS, then the follower's last minute). */
const TASK_GRACE_MS = 60_000;

/**
 * The conversation's side of metering: each entry is written to its own
 * SQLite first (synchronously: an eviction or a failed turn a moment later
 * loses nothing), then sent to the tenant's ledger (usage/ledger.ts) in one
 * call when the turn ends, and deleted once counted there. A send that fails
 * is tried again from the alarm; entries a previous instance left (evicted
 * mid-turn) are sent when this one starts. The ledger counts an entry once
 * however often it is sent.
 *
 * While budgets are in force, a model request is reserved at the ledger
 * before it is made (`reserve`), with what waits here riding on that call;
 * its estimate is kept here, not sent, while it runs — the ledger counts its
 * reservation — and its usage replaces the estimate when it ends. The alarm is
 * set when a turn writes its first entry, so what an instance that crashed
 * mid-turn left (estimates included) is sent within a minute.
 *
 * Each send also says what the conversation holds now — live MCP sessions,
 * tasks followed — so the operator sees every tenant's live work from its
 * ledger alone; riding on the send a turn makes anyway, it costs the turn no
 * call of its own. Letting go between turns (idle, yielded, deleted) is told
 * by `activityChanged`.
 */
export class UsageOutbox implements UsageSink {
  private flushing: Promise<void> | undefined;
  private again = false;
  /** The holdings the ledger last heard of (`live|tasks|until`); unknown to a new instance, which tells once. */
  private said: string | undefined;
  /** The conversation is deleted: its storage is going, nothing more is written or sent. */
  private closed = false;
  /** Entries of model requests being made (their estimates): not sent while they run, the ledger holds their reservation. */
  private readonly inFlight = new Set<string>();
  /** The alarm is set to send what is here (since the first entry after the outbox was last empty). */
  private armed = false;

  constructor(private readonly host: UsageOutboxHost) {
    const left = host.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM usage_outbox').one().n;
    if (left > 0) host.waitUntil(this.flush());
  }

  add(entry: UsageEntry): void {
    if (this.closed) return;
    this.host.storage.sql.exec(
      'INSERT OR REPLACE INTO usage_outbox (id, user, entry) VALUES (?, ?, ?)',
      entry.id,
      entry.user,
      JSON.stringify(entry),
    );
    this.inFlight.delete(entry.id);
    if (!this.armed) {
      this.armed = true;
      this.host.waitUntil(this.host.alarms.schedule('usage', Date.now() + SEND_WITHIN_MS));
    }
  }

  /**
   * A model request about to be made (usage/meter.ts): its estimate kept here while it runs, and its reservation made
   * at the ledger with every entry waiting here — one call. A refused request leaves nothing; the entries sent are
   * deleted once counted.
   */
  async reserve(estimate: UsageEntry, reservation: Reservation, budgets: Budgets): Promise<ReservationVerdict> {
    const rows = this.pending();
    this.add(estimate);
    this.inFlight.add(estimate.id);
    const verdict = await this.ledger().reserve(
      reservation,
      budgets,
      rows.map((row) => JSON.parse(row.entry) as UsageEntry),
    );
    this.deleteRows(rows);
    if ('exceeded' in verdict) {
      this.inFlight.delete(estimate.id);
      this.deleteRows([estimate]);
    }
    return verdict;
  }

  /** A turn ended (turn/turn-events.ts): what it cost goes to the ledger now, in one call. */
  heard(event: TurnEvent): void {
    if (event.type !== 'turnEnded') return;
    // Every request of the turn has ended: an estimate still held (a request whose end was never reported) is what
    // it cost, sent now rather than kept from the ledger for as long as this instance lives.
    this.inFlight.clear();
    this.host.waitUntil(this.flush());
  }

  /**
   * The conversation let go of its sessions or tasks outside a turn: the ledger hears of it. Resolves once a send that
   * began after the change has ended (one already under way may carry the old word); a send the ledger refused is
   * tried again from the alarm.
   */
  activityChanged(): Promise<void> {
    const sent = (this.flushing?.catch(() => undefined) ?? Promise.resolve()).then(() => this.flush());
    this.host.waitUntil(sent);
    return sent;
  }

  /**
   * The conversation is being deleted: what it cost is sent now (its storage goes next), with nothing held. A ledger
   * that does not answer loses those entries: the deletion is not held up (logged as `usage.ledger`).
   */
  async gone(owner: Owner): Promise<void> {
    await this.flushing?.catch(() => undefined);
    this.closed = true;
    const ledger = this.host.terms.env.USAGE_LEDGER.getByName(owner.tenant);
    const nothingHeld = {
      conversation: this.host.terms.name,
      user: owner.user,
      live: false,
      tasks: 0,
      tasksUntil: 0,
      liveUntil: 0,
    };
    try {
      // Every entry, a call's worth at a time; the last call also says the conversation holds nothing.
      for (;;) {
        const rows = this.pending();
        const last = rows.length < OUTBOX_BATCH;
        await this.sendRows(ledger, rows, last ? { ...nothingHeld, at: Date.now() } : undefined);
        if (last) return;
      }
    } catch (error) {
      const left = this.host.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM usage_outbox').one().n;
      logEvent('usage.ledger', { outcome: 'lost_on_delete', entries: left, ...errorFields(error) }, 'warn');
    }
  }

  /** What the tenant and `user` have spent, as the ledger says (for the budget check before a turn). */
  spent(user: string): Promise<Spent> {
    return this.ledger().spent(user);
  }

  /** Sends what is waiting; one send at a time (a send asked for meanwhile runs after it). */
  flush(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.flushing) {
      this.again = true;
      return this.flushing;
    }
    this.flushing = this.send().finally(() => {
      this.flushing = undefined;
      if (this.again) {
        this.again = false;
        this.host.waitUntil(this.flush());
      }
    });
    return this.flushing;
  }

  /** Up to a call's worth of entries to send: not the estimates of requests still being made. */
  private pending() {
    const rows = this.host.storage.sql
      .exec<{ id: string; entry: string }>(
        `SELECT id, entry FROM usage_outbox LIMIT ${OUTBOX_BATCH + this.inFlight.size}`,
      )
      .toArray();
    return this.inFlight.size ? rows.filter((row) => !this.inFlight.has(row.id)).slice(0, OUTBOX_BATCH) : rows;
  }

  private deleteRows(rows: Array<{ id: string }>): void {
    for (const row of rows) this.host.storage.sql.exec('DELETE FROM usage_outbox WHERE id = ?', row.id);
  }

  /** `rows` counted by the ledger (with what the conversation holds, if said), then deleted here. */
  private async sendRows(
    ledger: ReturnType<UsageOutbox['ledger']>,
    rows: Array<{ id: string; entry: string }>,
    activity: ConversationActivity | undefined,
  ): Promise<void> {
    await ledger.record(
      rows.map((row) => JSON.parse(row.entry) as UsageEntry),
      Date.now(),
      activity,
    );
    this.deleteRows(rows);
  }

  private async send(): Promise<void> {
    const rows = this.pending();
    let activity: ConversationActivity | undefined;
    try {
      activity = this.activity();
    } catch {
      // Deleted meanwhile (no owner): `gone` tells the ledger.
    }
    const said = activity && `${activity.live}|${activity.tasks}|${activity.tasksUntil}`;
    if (!rows.length && said === this.said) return this.keepAlarm();
    try {
      await this.sendRows(this.ledger(), rows, activity);
      if (said) this.said = said;
      if (rows.length === OUTBOX_BATCH)
        this.again = true; // more than one call's worth waited
      else await this.keepAlarm();
    } catch {
      // The ledger did not answer: kept here, and tried again from the alarm.
      await this.host.alarms.schedule('usage', Date.now() + RETRY_MS);
    }
  }

  /**
   * After a send: with everything counted and no request running, the alarm need not wake the object for it; with a
   * request still running (a long turn the alarm fired during), it stays set for the next minute.
   */
  private async keepAlarm(): Promise<void> {
    if (!this.armed) return;
    const left = this.host.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM usage_outbox').one().n;
    if (left > 0) return this.host.alarms.schedule('usage', Date.now() + SEND_WITHIN_MS);
    this.armed = false;
    await this.host.alarms.cancel('usage');
  }

  private activity(): ConversationActivity {
    const { terms, live, tasks } = this.host;
    const running = tasks.running();
    const lastStart = Math.max(0, ...running.map((task) => task.startedAt));
    return {
      conversation: terms.name,
      user: terms.owner().user,
      live: live.usage.leased,
      tasks: running.length,
      tasksUntil: running.length ? lastStart + terms.settings().TASK_MAX_MS + TASK_GRACE_MS : 0,
      at: Date.now(),
      // Unused sessions are released after MCP_IDLE_MS, which says so: past this, without a word since, none are held.
      liveUntil: Date.now() + terms.settings().MCP_IDLE_MS + LIVE_GRACE_MS,
    };
  }

  private ledger() {
    return this.host.terms.env.USAGE_LEDGER.getByName(this.host.terms.owner().tenant);
  }
}
