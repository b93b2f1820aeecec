import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { Feedback, FeedbackBody, FeedbackList, FeedbackQuery } from '../../../shared/api/feedback';
import { unwrap } from '../../rpc';
import { feedbackCsv } from '../../usage/csv';
import { reportRange, wantsCsv } from '../../usage/report-range';
import { ownedStub } from '../conversation-stub';
import { errors, json, jsonBody, jsonRequest, routes, V1_ERRORS } from '../openapi';

const rate = createRoute({
  method: 'post',
  path: '/{id}/messages/{messageId}/feedback',
  tags: ['conversations'],
  summary: 'Rate an answer (👍 / 👎, with an optional comment)',
  description:
    'Kept with the answer (`metadata.feedback` when the conversation is read) and in the tenant’s ledger (`GET /v1/feedback`, the operator’s share of 👎 per day). A second rating of the same answer replaces the first. Only a saved answer (an assistant message) can be rated: any other id is 404 `message_not_found`. The comment is never sent to the model.',
  middleware: [jsonRequest] as const,
  request: {
    params: z.object({
      id: z.string().meta({ description: 'The conversation id.' }),
      messageId: z.string().max(256).meta({ description: 'The answer’s message id.' }),
    }),
    body: jsonBody(FeedbackBody),
  },
  responses: { 200: json(Feedback, 'The rating as kept.'), ...errors(400, 404, 415, ...V1_ERRORS) },
});

const list = createRoute({
  method: 'get',
  path: '/',
  tags: ['usage'],
  summary: "The tenant's ratings of answers",
  description:
    'Each rating (day, user, conversation, message, rating, comment, model), newest first, and the count of 👍 and 👎 in the range. ' +
    "An API key sees the whole tenant (or one user with `user`); a browser token sees only its own user's. `format=csv` (or `Accept: text/csv`) gives the rows as CSV.",
  request: { query: FeedbackQuery },
  responses: {
    200: {
      description: 'The ratings.',
      content: { 'application/json': { schema: FeedbackList }, 'text/csv': { schema: z.string() } },
    },
    ...errors(400, ...V1_ERRORS),
  },
});

/** `POST /v1/conversations/{id}/messages/{messageId}/feedback`: a rating, through the conversation (conversation/feedback.ts). */
export const conversationFeedback = routes().openapi(rate, async (c) => {
  const stub = await ownedStub(c);
  return c.json(unwrap(await stub.rateAnswer(c.req.valid('param').messageId, c.req.valid('json'))), 200);
});

/** `GET /v1/feedback`: the tenant's ratings from its ledger (usage/feedback-ledger.ts), JSON or CSV. */
export const feedbackListing = routes().openapi(list, async (c) => {
  const query = c.req.valid('query');
  const principal = c.get('principal');
  const { from, to } = reportRange(query);
  // A browser token is one end user's: their own ratings, whatever `user` says.
  const user = principal.browser ? principal.user : query.user;
  const ledger = c.env.USAGE_LEDGER.getByName(principal.tenant);
  const listed = await ledger.feedback({ from, to, user, rating: query.rating, limit: query.limit });
  const body = { tenant: principal.tenant, from, to, ...(user ? { user } : {}), ...listed };
  if (wantsCsv(query.format, c.req.header('accept')))
    return c.body(feedbackCsv(body), 200, {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="feedback-${principal.tenant}-${from}-${to}.csv"`,
    });
  return c.json(body, 200);
});
