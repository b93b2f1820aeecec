import { sign } from 'hono/jwt';
import { describe, expect, it } from 'vitest';
import type { Feedback, FeedbackList } from '../shared/api/feedback';
import type { ConversationSnapshot } from '../shared/api/conversations';
import type { OperatorOverview } from '../shared/api/operator';
import { FEEDBACK_COMMENT_MAX_CHARS } from '../shared/feedback';
import { TEST_OPERATOR_KEY } from './infra/operator-key';
import { api, createConversation, postJson } from './helpers/api';
import { runScriptedTurn, say, scriptedModel, sseChunks } from './helpers/turns';

/*
 * Ratings of answers through the Worker: `POST …/messages/{messageId}/feedback` kept with the answer in the
 * conversation's Durable Object and in the tenant's ledger, listed by `GET /v1/feedback` (JSON and CSV), counted on the
 * operator's overview. acme answers with the offline model. Each test rates as end users of its own, so that the
 * tenant's listing, filtered by user, holds only its ratings.
 */
const as = (user: string, tenant = 'acme') => ({ authorization: `Bearer test-key-${tenant}`, 'x-end-user': user });
const today = () => new Date().toISOString().slice(0, 10);
const unique = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}`;
const errorOf = async (response: Response) =>
  (await response.json<{ error: { code: string; message: string } }>()).error;

/** A conversation of `user` with one answered question: its id and the ids of the question and the answer. */
async function answered(user: string) {
  const id = await createConversation(as(user));
  const response = await postJson(
    `/v1/conversations/${id}/messages`,
    { text: 'What do the guidelines say?' },
    as(user),
  );
  expect(response.status).toBe(200);
  await sseChunks(response);
  const { messages } = await (await api(`/v1/conversations/${id}`, {}, as(user))).json<ConversationSnapshot>();
  const question = messages.find((m) => m.role === 'user')!;
  const answer = messages.findLast((m) => m.role === 'assistant')!;
  return { id, question: question.id, answer: answer.id };
}

const rate = (user: string, id: string, messageId: string, body: unknown, tenant = 'acme') =>
  postJson(`/v1/conversations/${id}/messages/${encodeURIComponent(messageId)}/feedback`, body, as(user, tenant));

const listing = async (query: string, headers: Record<string, string>) => {
  const response = await api(`/v1/feedback${query}`, {}, headers);
  expect(response.status).toBe(200);
  return response.json<FeedbackList>();
};

describe('rating an answer', () => {
  it('keeps 👎 with a comment on the answer, and a second rating replaces the first', async () => {
    const user = unique('rater');
    const { id, answer } = await answered(user);
    const first = await rate(user, id, answer, { rating: 'down', comment: '  Missed the owner rule.  ' });
    expect(first.status).toBe(200);
    const stored = await first.json<Feedback>();
    expect(stored).toMatchObject({
      conversation: id,
      messageId: answer,
      rating: 'down',
      comment: 'Missed the owner rule.',
      user,
      model: 'offline',
    });
    expect(Date.parse(stored.at)).toBeGreaterThan(Date.now() - 60_000);

    const snapshot = await (await api(`/v1/conversations/${id}`, {}, as(user))).json<ConversationSnapshot>();
    expect(snapshot.messages.find((m) => m.id === answer)?.metadata).toMatchObject({
      feedback: { rating: 'down', comment: 'Missed the owner rule.' },
    });
    // The newest page of messages says the same.
    const page = await (
      await api(`/v1/conversations/${id}/messages?limit=1`, {}, as(user))
    ).json<ConversationSnapshot>();
    expect(page.messages[0]?.metadata).toMatchObject({ feedback: { rating: 'down' } });

    const second = await rate(user, id, answer, { rating: 'up' });
    expect(second.status).toBe(200);
    const again = await (await api(`/v1/conversations/${id}`, {}, as(user))).json<ConversationSnapshot>();
    const feedback = again.messages.find((m) => m.id === answer)?.metadata?.feedback;
    expect(feedback).toMatchObject({ rating: 'up' });
    expect(feedback).not.toHaveProperty('comment');
    const list = await listing(`?user=${user}`, as('anyone'));
    expect(list.rows).toHaveLength(1);
    expect(list.rows[0]).toMatchObject({ messageId: answer, rating: 'up', day: today() });
    expect(list.rows[0]).not.toHaveProperty('comment');
    expect(list.total).toEqual({ up: 1, down: 0 });
  });

  it('refuses a rating that is not up or down, an unknown field, and a comment over the limit (400, nothing kept)', async () => {
    const user = unique('invalid');
    const { id, answer } = await answered(user);
    for (const body of [
      { rating: 'meh' },
      {},
      { rating: 'up', stars: 5 },
      { rating: 'down', comment: 'x'.repeat(FEEDBACK_COMMENT_MAX_CHARS + 1) },
      { rating: 'down', comment: 42 },
    ]) {
      const response = await rate(user, id, answer, body);
      expect(response.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect((await errorOf(response)).code).toBe('invalid_body');
    }
    const notJson = await api(
      `/v1/conversations/${id}/messages/${answer}/feedback`,
      { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'up' },
      as(user),
    );
    expect(notJson.status).toBe(415);
    // A comment of exactly the limit is kept.
    expect(
      (await rate(user, id, answer, { rating: 'down', comment: 'y'.repeat(FEEDBACK_COMMENT_MAX_CHARS) })).status,
    ).toBe(200);
    expect((await listing(`?user=${user}`, as('anyone'))).rows.map((r) => r.comment?.length)).toEqual([
      FEEDBACK_COMMENT_MAX_CHARS,
    ]);
  });

  it('is 404 for an unknown message, a question (not an answer), and a conversation that does not exist', async () => {
    const user = unique('missing');
    const { id, question } = await answered(user);
    const unknown = await rate(user, id, 'no-such-message', { rating: 'up' });
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).code).toBe('message_not_found');
    expect((await rate(user, id, question, { rating: 'up' })).status).toBe(404);
    expect((await rate(user, 'c_0000000000000000000000', 'x', { rating: 'up' })).status).toBe(404);
    expect((await listing(`?user=${user}`, as('anyone'))).rows).toEqual([]);
  });

  it('belongs to the conversation’s owner: another user or tenant gets 404, and sees none of it listed', async () => {
    const user = unique('owner');
    const { id, answer } = await answered(user);
    expect((await rate(unique('stranger'), id, answer, { rating: 'down' })).status).toBe(404);
    expect((await rate(user, id, answer, { rating: 'down' }, 'globex')).status).toBe(404);
    expect((await rate(user, id, answer, { rating: 'down', comment: 'Too vague.' })).status).toBe(200);
    // The tenant sees it; another tenant's key, asking for the same user, does not.
    expect((await listing(`?user=${user}`, as('anyone'))).total.down).toBe(1);
    const globex = await listing(`?user=${user}`, as(user, 'globex'));
    expect(globex.tenant).toBe('globex');
    expect(globex.rows).toEqual([]);
    // A browser token of another acme user lists its own ratings only, whatever `user` asks.
    const token = await sign(
      { tid: 'acme', sub: unique('carol'), aud: 'mcp-ondemand', exp: Math.floor(Date.now() / 1000) + 600 },
      'acme-test-signing-secret-0123456789',
      'HS256',
    );
    const own = await listing(`?user=${user}`, { authorization: `Bearer ${token}`, origin: 'https://app.acme.test' });
    expect(own.user).not.toBe(user);
    expect(own.rows).toEqual([]);
  });

  it('never reaches the model: the next turn’s request holds neither the rating nor the comment', async () => {
    const user = unique('private');
    const { id, answer } = await answered(user);
    expect((await rate(user, id, answer, { rating: 'down', comment: 'Zanzibar-7731 was wrong' })).status).toBe(200);
    const sent: string[] = [];
    const model = scriptedModel((call) => (sent.push(JSON.stringify(call.prompt)), say('Noted.')));
    await runScriptedTurn(id, 'And about estimates?', model);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain('What do the guidelines say?'); // the history went to the model…
    expect(sent[0]).not.toContain('Zanzibar-7731'); // …without the comment
    expect(sent[0]).not.toContain('feedback');
  });
});

describe('GET /v1/feedback', () => {
  it('lists day, user, conversation, message, rating, comment and model, newest first; filters by rating; JSON and CSV', async () => {
    const user = unique('lister');
    const one = await answered(user);
    const two = await answered(user);
    await rate(user, one.id, one.answer, { rating: 'up' });
    await rate(user, two.id, two.answer, { rating: 'down', comment: '=HYPERLINK("x"), and "quotes"\nsecond line' });
    const list = await listing(`?user=${user}`, as('anyone'));
    expect(list).toMatchObject({ tenant: 'acme', to: today(), hasMore: false, total: { up: 1, down: 1 } });
    expect(list.rows.map((r) => [r.conversation, r.messageId, r.rating, r.user, r.model, r.day])).toEqual([
      [two.id, two.answer, 'down', user, 'offline', today()],
      [one.id, one.answer, 'up', user, 'offline', today()],
    ]);
    expect((await listing(`?user=${user}&rating=down`, as('anyone'))).rows.map((r) => r.messageId)).toEqual([
      two.answer,
    ]);
    const limited = await listing(`?user=${user}&limit=1`, as('anyone'));
    expect(limited.rows).toHaveLength(1);
    expect(limited.hasMore).toBe(true);
    expect(limited.total).toEqual({ up: 1, down: 1 });

    for (const [query, headers] of [
      [`?user=${user}&format=csv`, as('anyone')],
      [`?user=${user}`, { ...as('anyone'), accept: 'text/csv' }],
    ] as const) {
      const csv = await api(`/v1/feedback${query}`, {}, headers);
      expect(csv.status).toBe(200);
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(csv.headers.get('content-disposition')).toContain('feedback-acme-');
      const text = await csv.text();
      const [header, first] = text.split('\r\n');
      expect(header).toBe('day,at,user,conversation,messageId,rating,comment,model');
      // A formula is defused, quotes doubled, the line break kept inside the quoted cell.
      expect(first).toContain(`,down,"'=HYPERLINK(""x""), and ""quotes""\nsecond line",offline`);
      expect(text.trimEnd().split('\r\n')).toHaveLength(3);
    }
  });

  it('refuses a range that is not one (400 invalid_query)', async () => {
    for (const query of [
      '?from=2026-02-30',
      '?from=2026-03-02&to=2026-03-01',
      '?from=2020-01-01&to=2026-01-01',
      '?limit=0',
    ]) {
      const response = await api(`/v1/feedback${query}`, {}, as('anyone'));
      expect(response.status, query).toBe(400);
      expect((await errorOf(response)).code).toBe('invalid_query');
    }
  });
});

describe('the operator’s overview', () => {
  it('counts each tenant’s ratings per day and shows the newest comments', async () => {
    const user = unique('ops');
    const { id, answer } = await answered(user);
    const before = await overview();
    const day = (o: OperatorOverview) =>
      o.tenants.find((t) => t.id === 'acme')!.feedback.days.find((d) => d.day === today());
    await rate(user, id, answer, { rating: 'down', comment: '<img src=x onerror=alert(1)>' });
    const after = await overview();
    expect((day(after)?.down ?? 0) - (day(before)?.down ?? 0)).toBe(1);
    expect(after.tenants.find((t) => t.id === 'acme')!.feedback.comments[0]).toMatchObject({
      user,
      rating: 'down',
      comment: '<img src=x onerror=alert(1)>',
    });
    expect(after.tenants.find((t) => t.id === 'globex')!.feedback.comments.some((c) => c.user === user)).toBe(false);
  });
});

async function overview(): Promise<OperatorOverview> {
  const response = await api('/admin/api/overview', {}, { authorization: `Bearer ${TEST_OPERATOR_KEY}` });
  expect(response.status).toBe(200);
  return response.json<OperatorOverview>();
}
