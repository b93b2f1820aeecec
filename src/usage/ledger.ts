import { DurableObject } from 'cloudflare:workers';
import type { UsageCounters, UsageGroup, UsageRow } from '../../shared/api/usage';
import { type Budgets, type Exceeded, exceeded } from './budgets';
import { COUNTERS, column, dayOf, sumCounters, type UsageEntry } from './counters';
import {
  FEEDBACK_TABLES,
  type FeedbackEntry,
  type FeedbackQuery,
  feedbackOverview,
  listFeedback,
  recordFeedback,
} from './feedback-ledger';

/** A counter's column: dollars are REAL, counts INTEGER; 0 where nothing was counted. */
const columnDefinition = (counter: (typeof COUNTERS)[number]) =>
  `${column(counter)} ${counter === 'usd' ? 'REAL' : 'INTEGER'} NOT NULL DEFAULT 0`;

const USAGE_TABLES = `
CREATE TABLE IF NOT EXISTS usage_daily (
  day TEXT NOT NULL, user TEXT NOT NULL, conversation TEXT NOT NULL, model TEXT NOT NULL,
  ${COUNTERS.map(columnDefinition).join(', ')},
  PRIMARY KEY (day, user, conversation, model)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS usage_seen (id TEXT PRIMARY KEY, day TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS conversation_live (
  conversation TEXT PRIMARY KEY, user TEXT NOT NULL, live_until INTEGER NOT NULL, tasks INTEGER NOT NULL,
  tasks_until INTEGER NOT NULL, at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS usage_reserved (
  id TEXT PRIMARY KEY, user TEXT NOT NULL, tokens INTEGER NOT NULL, usd REAL NOT NULL, until INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS upload_bytes (day TEXT PRIMARY KEY, bytes INTEGER NOT NULL) WITHOUT ROWID`;

/** Days of upload counts kept (today's is the one checked; yesterday's is still asked for by a release across midnight). */
const UPLOAD_DAYS_KEPT = 2;

/** What an upload's bytes came back with: counted on `day` (release them there if the upload fails), or refused. */
export type UploadVerdict = { day: string } | { refused: { used: number; limit: number } };

/** How long an entry's id is remembered against a retried write: the outbox retries within minutes. */
const SEEN_DAYS = 2;

/**
 * How long a reservation counts without being settled. The conversation settles each one with the request's entry
 * (same id) — at its next reservation or when the turn ends, and after a crash from its alarm within a minute, with
 * the estimate — so this only frees what a conversation that never comes back left. Longer than any model request
 * streams.
 */
const RESERVATION_MS = 30 * 60_000;

/** A model request about to be made, as the conversation estimates it: it counts against the budgets until settled. */
export interface Reservation {
  /** The id the request's usage entry will carry: that entry settles it. */
  id: string;
  user: string;
  tokens: number;
  usd: number;
}

/**
 * What a reservation came back with: admitted, with what is spent (counted, this call's entries included; requests in
 * flight are not, so a turn's own checks between reservations are not ended by others' estimates), or the budget that
 * what is spent and in flight has used up (its `spent` says both).
 */
export type ReservationVerdict = { spent: Spent } | { exceeded: Exceeded };

/** What a tenant and one of its end users have spent, for the budgets (usage/budgets.ts). */
export interface Spent {
  /** USD this calendar month (UTC), the whole tenant. */
  tenantUsdMonth: number;
  /** Tokens (input + output) today (UTC), the whole tenant. */
  tenantTokensDay: number;
  /** USD today (UTC), this end user. */
  userUsdDay: number;
}

/** What one conversation holds right now, as it last said (with its usage, or when it let go). */
export interface ConversationActivity {
  conversation: string;
  user: string;
  /** It holds live MCP sessions (counted in its user's LIVE_CONVERSATIONS_PER_USER). */
  live: boolean;
  /** Until when that word holds without a newer one (ms): sessions unused for MCP_IDLE_MS are released. */
  liveUntil: number;
  /** MCP tasks it follows. */
  tasks: number;
  /** When the last of those tasks is given up at the latest (ms): past it none runs, whatever was last said. */
  tasksUntil: number;
  /** When it said so (ms): an older word than the one kept is ignored. */
  at: number;
}

const SUMS = COUNTERS.map((c) => `SUM(${column(c)}) AS ${c}`).join(', ');
const GROUP_COLUMN: Record<UsageGroup, string> = {
  day: 'day',
  user: 'user',
  model: 'model',
  conversation: 'conversation',
};

/**
 * A tenant's usage ledger: one Durable Object per tenant (SQLite), rows by
 * day, end user, conversation and model, each entry added once (its id).
 * One place per tenant makes the budgets consistent across the tenant's
 * conversations and a report one query, not a visit to every conversation
 * (the choice against D1 and Analytics Engine: docs/USAGE.md).
 */
export class UsageLedger extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  /** The day old entry ids were last forgotten (in memory: a new instance prunes once more, harmlessly). */
  private prunedOn: string | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(USAGE_TABLES);
    this.sql.exec(FEEDBACK_TABLES);
    addMissingCounters(this.sql);
  }

  /** Ratings of answers (feedback-ledger.ts): one kept per answer, the newest. */
  async recordFeedback(entry: FeedbackEntry): Promise<void> {
    recordFeedback(this.sql, entry);
  }
  async feedback(query: FeedbackQuery) {
    return listFeedback(this.sql, query);
  }
  async feedbackOverview(from: string, to: string, comments: number) {
    return feedbackOverview(this.sql, from, to, comments);
  }

  /**
   * Adds each entry not added before (a retried send counts once), and what the conversation holds now. An entry
   * settles the reservation of the same id; an entry that counts nothing only releases it (a request never made).
   */
  async record(entries: UsageEntry[], now = Date.now(), activity?: ConversationActivity): Promise<void> {
    this.ctx.storage.transactionSync(() => this.recordNow(entries, now, activity));
  }

  /**
   * Before a model request: in one transaction, `entries` are recorded (what the conversation has to settle), then
   * the request is admitted if no budget is used up by what is spent plus what is in flight — and reserved, so every
   * other conversation of the tenant counts it from now on — or refused with the budget it hit. Admitting while
   * anything is left means the tenant goes over by at most one request's estimate (the last admitted), plus what the
   * requests then in flight write beyond their output estimate, however many turns run at once (docs/USAGE.md).
   */
  async reserve(
    reservation: Reservation,
    budgets: Budgets,
    entries: UsageEntry[] = [],
    now = Date.now(),
  ): Promise<ReservationVerdict> {
    return this.ctx.storage.transactionSync(() => {
      this.recordNow(entries, now);
      this.sql.exec('DELETE FROM usage_reserved WHERE until <= ?', now);
      const spent = this.spentNow(reservation.user, now);
      const held = this.heldNow(reservation.user, now);
      const hit = exceeded(
        budgets,
        {
          tenantUsdMonth: spent.tenantUsdMonth + held.tenantUsdMonth,
          tenantTokensDay: spent.tenantTokensDay + held.tenantTokensDay,
          userUsdDay: spent.userUsdDay + held.userUsdDay,
        },
        now,
      );
      if (hit) return { exceeded: hit };
      this.sql.exec(
        'INSERT OR REPLACE INTO usage_reserved (id, user, tokens, usd, until) VALUES (?, ?, ?, ?, ?)',
        reservation.id,
        reservation.user,
        reservation.tokens,
        reservation.usd,
        now + RESERVATION_MS,
      );
      return { spent };
    });
  }

  private recordNow(entries: UsageEntry[], now: number, activity?: ConversationActivity): void {
    if (activity) this.saveActivity(activity);
    for (const entry of entries) {
      const day = dayOf(entry.at);
      this.sql.exec('DELETE FROM usage_reserved WHERE id = ?', entry.id);
      const values = COUNTERS.map((c) => entry.counters[c] ?? 0);
      if (values.every((v) => v === 0)) continue; // a release: nothing to count
      if (this.sql.exec('INSERT OR IGNORE INTO usage_seen (id, day) VALUES (?, ?)', entry.id, day).rowsWritten === 0)
        continue; // a retried write of an entry already counted
      this.sql.exec(
        `INSERT INTO usage_daily (day, user, conversation, model, ${COUNTERS.map(column).join(', ')})
         VALUES (?, ?, ?, ?, ${COUNTERS.map(() => '?').join(', ')})
         ON CONFLICT (day, user, conversation, model) DO UPDATE SET
         ${COUNTERS.map((c) => `${column(c)} = ${column(c)} + excluded.${column(c)}`).join(', ')}`,
        day,
        entry.user,
        entry.conversation,
        entry.model,
        ...values,
      );
    }
    // Old ids go once a day, not at every write (the table has no index by day: a scan).
    const today = dayOf(now);
    if (this.prunedOn !== today) {
      this.sql.exec('DELETE FROM usage_seen WHERE day < ?', dayOf(now - SEEN_DAYS * 86_400_000));
      // Conversations whose last word has run out (no live sessions, no task left): they hold nothing.
      this.sql.exec('DELETE FROM conversation_live WHERE live_until <= ?1 AND tasks_until <= ?1', now);
      this.prunedOn = today;
    }
  }

  /**
   * What the tenant spent this month and today, and `user` today (UTC): counted usage only. Requests in flight are
   * counted where a request is admitted (`reserve`), not here: their estimates settle lower or higher within seconds,
   * and a turn refused for them would be told to come back tomorrow.
   */
  async spent(user: string, now = Date.now()): Promise<Spent> {
    return this.spentNow(user, now);
  }

  private spentNow(user: string, now: number): Spent {
    const today = dayOf(now);
    const month = `${today.slice(0, 7)}-01`;
    const row = this.sql
      .exec<{ month_usd: number | null; day_tokens: number | null; user_usd: number | null }>(
        `SELECT SUM(usd) AS month_usd,
                SUM(CASE WHEN day = ?1 THEN input_tokens + output_tokens ELSE 0 END) AS day_tokens,
                SUM(CASE WHEN day = ?1 AND user = ?2 THEN usd ELSE 0 END) AS user_usd
         FROM usage_daily WHERE day >= ?3`,
        today,
        user,
        month,
      )
      .one();
    return { tenantUsdMonth: row.month_usd ?? 0, tenantTokensDay: row.day_tokens ?? 0, userUsdDay: row.user_usd ?? 0 };
  }

  /** What the model requests in flight are reserved for, in the same terms. */
  private heldNow(user: string, now: number): Spent {
    const held = this.sql
      .exec<{ usd: number | null; tokens: number | null; user_usd: number | null }>(
        `SELECT SUM(usd) AS usd, SUM(tokens) AS tokens, SUM(CASE WHEN user = ?1 THEN usd ELSE 0 END) AS user_usd
         FROM usage_reserved WHERE until > ?2`,
        user,
        now,
      )
      .one();
    return { tenantUsdMonth: held.usd ?? 0, tenantTokensDay: held.tokens ?? 0, userUsdDay: held.user_usd ?? 0 };
  }

  /** The rows of days `from`…`to` (inclusive, YYYY-MM-DD) grouped by `groupBy`, and their total; one user's only with `user`. */
  async report(query: {
    from: string;
    to: string;
    groupBy: UsageGroup;
    user?: string | undefined;
  }): Promise<{ rows: UsageRow[]; total: UsageCounters }> {
    const where = `day >= ? AND day <= ?${query.user === undefined ? '' : ' AND user = ?'}`;
    const args = query.user === undefined ? [query.from, query.to] : [query.from, query.to, query.user];
    const key = GROUP_COLUMN[query.groupBy];
    const rows = this.sql
      .exec<Record<string, number | string>>(
        `SELECT ${key} AS key, ${SUMS} FROM usage_daily WHERE ${where} GROUP BY ${key} ORDER BY ${key}`,
        ...args,
      )
      .toArray()
      .map((row) => ({ key: String(row.key), ...countersOf(row) }));
    return { rows, total: sumCounters(rows) };
  }

  private saveActivity(a: ConversationActivity): void {
    if (!a.live && a.tasks === 0) {
      this.sql.exec('DELETE FROM conversation_live WHERE conversation = ? AND at <= ?', a.conversation, a.at);
      return;
    }
    this.sql.exec(
      `INSERT INTO conversation_live (conversation, user, live_until, tasks, tasks_until, at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (conversation) DO UPDATE SET live_until = excluded.live_until, tasks = excluded.tasks,
       tasks_until = excluded.tasks_until, at = excluded.at WHERE excluded.at >= conversation_live.at`,
      a.conversation,
      a.user,
      a.live ? a.liveUntil : 0,
      a.tasks,
      a.tasksUntil,
      a.at,
    );
  }

  /**
   * Before an upload is stored: in one transaction, its bytes are added to the tenant's count for today (UTC) if that
   * stays within `limit` (UPLOAD_BYTES_PER_TENANT_PER_DAY or the tenant's own), or refused — so conversations
   * uploading at once can never pass the limit together. An upload that then fails gives them back (`releaseUpload`).
   */
  async reserveUpload(bytes: number, limit: number, now = Date.now()): Promise<UploadVerdict> {
    const day = dayOf(now);
    return this.ctx.storage.transactionSync(() => {
      const used = this.sql
        .exec<{ bytes: number }>('SELECT bytes FROM upload_bytes WHERE day = ?', day)
        .toArray()[0]?.bytes;
      if ((used ?? 0) + bytes > limit) return { refused: { used: used ?? 0, limit } };
      if (used === undefined)
        this.sql.exec('DELETE FROM upload_bytes WHERE day < ?', dayOf(now - UPLOAD_DAYS_KEPT * 86_400_000));
      this.sql.exec(
        'INSERT INTO upload_bytes (day, bytes) VALUES (?, ?) ON CONFLICT(day) DO UPDATE SET bytes = bytes + excluded.bytes',
        day,
        bytes,
      );
      return { day };
    });
  }

  /** An upload counted on `day` was not stored after all: its bytes no longer count. */
  async releaseUpload(day: string, bytes: number): Promise<void> {
    this.sql.exec('UPDATE upload_bytes SET bytes = MAX(0, bytes - ?) WHERE day = ?', bytes, day);
  }

  /** The tenant's live conversations and running tasks (operators: /admin). */
  async activity(now = Date.now()): Promise<{ conversations: number; tasks: number; users: number }> {
    const row = this.sql
      .exec<{ conversations: number | null; tasks: number | null; users: number }>(
        `SELECT SUM(CASE WHEN live_until > ?1 THEN 1 ELSE 0 END) AS conversations,
                SUM(CASE WHEN tasks_until > ?1 THEN tasks ELSE 0 END) AS tasks,
                COUNT(DISTINCT CASE WHEN live_until > ?1 OR tasks_until > ?1 THEN user END) AS users
         FROM conversation_live`,
        now,
      )
      .one();
    return { conversations: row.conversations ?? 0, tasks: row.tasks ?? 0, users: row.users };
  }
}

/**
 * Counters came after the first release (the program runs': issue 46): a ledger created before has `usage_daily`
 * without their columns. One probe of every column when it is there (each new instance); otherwise each missing one
 * is added, its past rows 0.
 */
function addMissingCounters(sql: SqlStorage): void {
  try {
    sql.exec(`SELECT ${COUNTERS.map(column).join(', ')} FROM usage_daily LIMIT 0`);
  } catch {
    for (const counter of COUNTERS) {
      try {
        sql.exec(`SELECT ${column(counter)} FROM usage_daily LIMIT 0`);
      } catch {
        sql.exec(`ALTER TABLE usage_daily ADD COLUMN ${columnDefinition(counter)}`);
      }
    }
  }
}

function countersOf(row: Record<string, number | string>): UsageCounters {
  return Object.fromEntries(COUNTERS.map((c) => [c, Number(row[c] ?? 0)])) as UsageCounters;
}
