import { z } from 'zod';
import { FEEDBACK_COMMENT_MAX_CHARS, FEEDBACK_RATINGS } from '../feedback';
import { DayRangeQuery } from './usage';

/**
 * Ratings of answers: what a person says of one (`POST /v1/conversations/{id}/messages/{messageId}/feedback`), and
 * the tenant's listing of them (`GET /v1/feedback`), from its usage ledger.
 */

export const FeedbackBody = z
  .object({
    rating: z.enum(FEEDBACK_RATINGS).meta({ description: '`up` (👍) or `down` (👎).' }),
    comment: z
      .string()
      .trim()
      .max(FEEDBACK_COMMENT_MAX_CHARS)
      .optional()
      .meta({
        description: `What the person adds, at most ${FEEDBACK_COMMENT_MAX_CHARS} characters (trimmed; empty: none). Kept with the rating and listed to the tenant; never sent to the model.`,
      }),
  })
  .strict()
  .meta({ id: 'FeedbackBody' });
export type FeedbackBody = z.infer<typeof FeedbackBody>;

/** One rating as stored: with its answer in the conversation, and in the tenant's ledger. */
export const Feedback = z
  .object({
    conversation: z.string(),
    messageId: z.string().meta({ description: 'The answer rated (an assistant message of the conversation).' }),
    rating: z.enum(FEEDBACK_RATINGS),
    comment: z.string().optional(),
    at: z.string().meta({ description: 'When it was given (ISO 8601, UTC); a second rating replaces the first.' }),
    user: z.string().meta({ description: 'The end user who gave it (the conversation’s owner).' }),
    model: z
      .string()
      .meta({ description: 'The model that wrote the answer (`anthropic:claude-sonnet-4-5`, `offline`).' }),
  })
  .meta({ id: 'Feedback' });
export type Feedback = z.infer<typeof Feedback>;

export const FeedbackRow = Feedback.extend({
  day: z.string().meta({ description: 'The UTC day it was given (YYYY-MM-DD).' }),
}).meta({ id: 'FeedbackRow' });
export type FeedbackRow = z.infer<typeof FeedbackRow>;

export const FeedbackList = z
  .object({
    tenant: z.string(),
    from: z.string().meta({ description: 'First day listed (UTC, YYYY-MM-DD).' }),
    to: z.string().meta({ description: 'Last day listed (UTC), inclusive.' }),
    user: z.string().optional().meta({ description: 'Set when the listing is one end user’s own (a browser token).' }),
    rows: z.array(FeedbackRow).meta({ description: 'Newest first, at most `limit`.' }),
    hasMore: z.boolean().meta({ description: 'More ratings in the range than `limit`: narrow `from`/`to`.' }),
    total: z
      .object({ up: z.number().int(), down: z.number().int() })
      .meta({ description: 'Every rating of the range (not only the rows listed).' }),
  })
  .meta({ id: 'FeedbackList' });
export type FeedbackList = z.infer<typeof FeedbackList>;

/** The most rows one listing returns. */
export const MAX_FEEDBACK_ROWS = 5_000;

export const FeedbackQuery = z.object({
  ...DayRangeQuery,
  rating: z.enum(FEEDBACK_RATINGS).optional().meta({ description: 'Only 👍 (`up`) or only 👎 (`down`).' }),
  user: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .meta({ description: 'One end user only (API keys; a browser token always sees its own user only).' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_FEEDBACK_ROWS)
    .default(1_000)
    .meta({ description: `Rows at most (1-${MAX_FEEDBACK_ROWS}); \`hasMore\` says when there were more.` }),
  format: z.enum(['json', 'csv']).optional().meta({ description: 'CSV also with `Accept: text/csv`.' }),
});
