import type { UIMessage } from 'ai';
import type { Feedback, FeedbackBody } from '../../shared/api/feedback';
import type { FeedbackRating } from '../../shared/feedback';
import { ApiError } from '../errors';
import type { ConversationTerms } from './terms';
import type { History } from './history';

export const FEEDBACK_TABLES = `CREATE TABLE IF NOT EXISTS message_feedback (
  message TEXT PRIMARY KEY, rating TEXT NOT NULL, comment TEXT, at INTEGER NOT NULL
) WITHOUT ROWID`;

/** A rating as it is kept with its answer (and shown with it: `metadata.feedback`). */
export interface StoredFeedback {
  rating: FeedbackRating;
  comment?: string;
  /** ISO 8601. */
  at: string;
}

/**
 * The ratings of the conversation's answers, one per answer, in a table of their own beside the messages rather than
 * in the message's JSON: a turn saves the whole history it loaded when it began, and would put back an answer without
 * the rating given while it ran. Reads join them to the messages (`withFeedback`); the model's input never does.
 */
export class FeedbackStore {
  constructor(private readonly sql: SqlStorage) {}

  put(messageId: string, feedback: { rating: FeedbackRating; comment?: string | undefined }, at: number): void {
    this.sql.exec(
      `INSERT INTO message_feedback (message, rating, comment, at) VALUES (?, ?, ?, ?)
       ON CONFLICT (message) DO UPDATE SET rating = excluded.rating, comment = excluded.comment, at = excluded.at`,
      messageId,
      feedback.rating,
      feedback.comment ?? null,
      at,
    );
  }

  /** `messages` as clients read them: each rated answer with its rating in `metadata.feedback`. */
  withFeedback(messages: UIMessage[]): UIMessage[] {
    const rows = this.sql
      .exec<{ message: string; rating: FeedbackRating; comment: string | null; at: number }>(
        'SELECT message, rating, comment, at FROM message_feedback',
      )
      .toArray();
    if (!rows.length) return messages;
    const byId = new Map(rows.map((row) => [row.message, row]));
    return messages.map((message) => {
      const row = byId.get(message.id);
      if (!row) return message;
      const feedback: StoredFeedback = {
        rating: row.rating,
        ...(row.comment === null ? {} : { comment: row.comment }),
        at: new Date(row.at).toISOString(),
      };
      return { ...message, metadata: { ...(message.metadata as object | undefined), feedback } };
    });
  }
}

export interface AnswerFeedbackHost {
  terms: ConversationTerms;
  history: History;
  ratings: FeedbackStore;
}

/**
 * A person rates an answer (`POST …/messages/{messageId}/feedback`): kept with the answer here, and reported to the
 * tenant's ledger (usage/feedback-ledger.ts), which lists it and counts it for the operator. A second rating
 * replaces the first in both. Only a saved answer can be rated: a user message, or an answer still being written, is
 * 404 like an unknown id.
 */
export class AnswerFeedback {
  constructor(private readonly host: AnswerFeedbackHost) {}

  async rate(messageId: string, body: FeedbackBody, now = Date.now()): Promise<Feedback> {
    const { terms, history, ratings } = this.host;
    const { owner } = terms.existing();
    const answer = history.load().find((m) => m.id === messageId && m.role === 'assistant');
    if (!answer) throw new ApiError(404, 'message_not_found', `No answer ${messageId} in conversation ${terms.name}`);
    const comment = body.comment || undefined;
    ratings.put(messageId, { rating: body.rating, comment }, now);
    // The model that wrote it (a turn's finish records it), not the one the tenant uses now.
    const model = (answer.metadata as { model?: unknown } | undefined)?.model;
    const entry = {
      conversation: terms.name,
      messageId,
      rating: body.rating,
      ...(comment ? { comment } : {}),
      at: now,
      user: owner.user,
      model: typeof model === 'string' ? model : terms.model().spec,
    };
    // Awaited: a failure is the caller's error, and sending the same rating again replaces it in both places.
    await terms.env.USAGE_LEDGER.getByName(owner.tenant).recordFeedback(entry);
    return { ...entry, at: new Date(now).toISOString() };
  }
}
