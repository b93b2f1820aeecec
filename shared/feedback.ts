/**
 * What a rating of an answer is, for the Worker (its API schema, the ledger) and the widget (its form): no zod here,
 * so the widget may import the values.
 */
export const FEEDBACK_RATINGS = ['up', 'down'] as const;
export type FeedbackRating = (typeof FEEDBACK_RATINGS)[number];

/**
 * The longest comment kept, in characters. A comment is the person's own words about an answer: stored with the
 * rating and listed to the tenant, never sent to the model; bounded so one rating stays a small row.
 */
export const FEEDBACK_COMMENT_MAX_CHARS = 1_000;
