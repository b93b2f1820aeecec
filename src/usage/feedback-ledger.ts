import type { FeedbackRating } from '../../shared/feedback';
import type { FeedbackRow } from '../../shared/api/feedback';
import { dayOf } from './counters';

/**
 * A tenant's ratings of answers, in its UsageLedger (ledger.ts calls these on its SQLite): one row per answer — a
 * second rating of it replaces the first — so the tenant's listing and the operator's share of 👎 per day are one
 * query each, not a visit to every conversation. The conversation keeps the same rating with the answer
 * (conversation/feedback.ts); this is the tenant's copy, kept like its usage rows when a conversation is deleted.
 */
export const FEEDBACK_TABLES = `
CREATE TABLE IF NOT EXISTS feedback (
  conversation TEXT NOT NULL, message TEXT NOT NULL, day TEXT NOT NULL, at INTEGER NOT NULL, user TEXT NOT NULL,
  model TEXT NOT NULL, rating TEXT NOT NULL, comment TEXT,
  PRIMARY KEY (conversation, message)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS feedback_by_day ON feedback (day, at)`;

/** One rating as the conversation reports it. */
export interface FeedbackEntry {
  conversation: string;
  messageId: string;
  rating: FeedbackRating;
  comment?: string | undefined;
  /** When (ms since epoch): a report older than the rating kept does not replace it. */
  at: number;
  user: string;
  model: string;
}

export interface FeedbackQuery {
  from: string;
  to: string;
  user?: string | undefined;
  rating?: FeedbackRating | undefined;
  limit: number;
}

/** Ratings per day, for the operator's share of 👎. */
export interface FeedbackDay {
  day: string;
  up: number;
  down: number;
}

type Row = Record<string, string | number | null>;

export function recordFeedback(sql: SqlStorage, entry: FeedbackEntry): void {
  sql.exec(
    `INSERT INTO feedback (conversation, message, day, at, user, model, rating, comment) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (conversation, message) DO UPDATE SET day = excluded.day, at = excluded.at, user = excluded.user,
     model = excluded.model, rating = excluded.rating, comment = excluded.comment WHERE excluded.at >= feedback.at`,
    entry.conversation,
    entry.messageId,
    dayOf(entry.at),
    entry.at,
    entry.user,
    entry.model,
    entry.rating,
    entry.comment ?? null,
  );
}

/** The ratings of days `from`…`to` (inclusive), newest first, at most `limit`, and the count of each in the range. */
export function listFeedback(
  sql: SqlStorage,
  query: FeedbackQuery,
): { rows: FeedbackRow[]; hasMore: boolean; total: { up: number; down: number } } {
  const where = ['day >= ?', 'day <= ?'];
  const args: Array<string | number> = [query.from, query.to];
  if (query.user !== undefined) where.push('user = ?'), args.push(query.user);
  if (query.rating !== undefined) where.push('rating = ?'), args.push(query.rating);
  const rows = sql
    .exec<Row>(`SELECT * FROM feedback WHERE ${where.join(' AND ')} ORDER BY at DESC LIMIT ?`, ...args, query.limit + 1)
    .toArray();
  const counts = sql
    .exec<{ up: number | null; down: number | null }>(
      `SELECT SUM(rating = 'up') AS up, SUM(rating = 'down') AS down FROM feedback WHERE ${where.join(' AND ')}`,
      ...args,
    )
    .one();
  return {
    rows: rows.slice(0, query.limit).map(rowOf),
    hasMore: rows.length > query.limit,
    total: { up: counts.up ?? 0, down: counts.down ?? 0 },
  };
}

/** Each day of `from`…`to` that has ratings, and the newest `comments` ratings that carry a comment. */
export function feedbackOverview(
  sql: SqlStorage,
  from: string,
  to: string,
  comments: number,
): { days: FeedbackDay[]; comments: FeedbackRow[] } {
  const days = sql
    .exec<{ day: string; up: number; down: number }>(
      `SELECT day, SUM(rating = 'up') AS up, SUM(rating = 'down') AS down FROM feedback
       WHERE day >= ? AND day <= ? GROUP BY day ORDER BY day`,
      from,
      to,
    )
    .toArray();
  const recent = sql
    .exec<Row>(
      `SELECT * FROM feedback WHERE day >= ? AND day <= ? AND comment IS NOT NULL ORDER BY at DESC LIMIT ?`,
      from,
      to,
      comments,
    )
    .toArray();
  return { days: days.map(({ day, up, down }) => ({ day, up, down })), comments: recent.map(rowOf) };
}

function rowOf(row: Row): FeedbackRow {
  return {
    day: String(row.day),
    at: new Date(Number(row.at)).toISOString(),
    user: String(row.user),
    conversation: String(row.conversation),
    messageId: String(row.message),
    rating: row.rating as FeedbackRating,
    ...(row.comment === null ? {} : { comment: String(row.comment) }),
    model: String(row.model),
  };
}
