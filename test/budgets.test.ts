import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { UsageReport } from '../shared/api/usage';
import { api, conversationStub, createConversation, postJson } from './helpers/api';
import { turnIn } from './helpers/conversation';
import { waitFor } from './helpers/demo-client';
import { sseChunks, stalledModel, untilText, userMessage } from './helpers/turns';

/** A model whose answer starts, then its stream fails (the connection to the provider lost mid-answer). */
function brokenModel(text: string) {
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] });
          controller.enqueue({ type: 'text-start', id: 't' });
          controller.enqueue({ type: 'text-delta', id: 't', delta: text });
          controller.error(new TypeError('Network connection lost.'));
        },
      }),
    }),
  });
}

/*
 * Budgets that hold (docs/USAGE.md, "Budgets"), through the real path: turns and approvals over HTTP, through
 * @ai-sdk/anthropic against the fake provider (bench/lib/fake-model.mjs: input a quarter of the request's bytes,
 * output 5), the conversation's outbox and the tenant's ledger (real Durable Objects). Each test has a tenant of its
 * own (test/infra/tenants.ts), so what one spends never reaches another's budget.
 */
const fake = inject('fakeModelUrl');
const as = (tenant: string, user = 'alice') => ({ authorization: `Bearer test-key-${tenant}`, 'x-end-user': user });

interface Recorded {
  bytes: number;
  chat: { messages: Array<{ role: string; content: unknown }>; tools?: unknown[] };
}
interface Saved {
  messages: Array<{
    role: string;
    parts: Array<{ type: string; state?: string; toolCallId?: string; data?: { message?: string } }>;
    metadata?: { budgetExceeded?: unknown; steps?: number; stepLimitReached?: boolean };
  }>;
  pendingApprovals: Array<{ toolCallId: string }>;
}

/** The requests the fake provider answered for conversations whose user wrote `marker`, oldest first. */
async function requestsFor(marker: string): Promise<Recorded[]> {
  const all = (await (await fetch(`${fake}/__requests`)).json()) as Recorded[];
  return all.filter((r) => JSON.stringify(r.chat.messages).includes(marker));
}

/** Tokens the fake provider reports for a request: a quarter of its bytes in, 5 out. */
const tokensOf = (r: Recorded) => Math.ceil(r.bytes / 4) + 5;

const saved = async (id: string, tenant: string) =>
  (await api(`/v1/conversations/${id}`, {}, as(tenant))).json<Saved>();

/** The tenant's report once nothing is in flight and `ready` holds of it (the outbox sends as turns go). */
const reportOf = (tenant: string, ready: (r: UsageReport) => boolean) =>
  waitFor(async () => {
    const report = await (await api('/v1/usage?groupBy=conversation', {}, as(tenant))).json<UsageReport>();
    return ready(report) && report;
  }, `${tenant}'s ledger`);

/** Approves every waiting call, one answer at a time, as a person clicking would; returns how many were approved. */
async function approveAll(id: string, tenant: string, most: number): Promise<number> {
  let approved = 0;
  for (; approved < most; approved++) {
    const [pending] = (await saved(id, tenant)).pendingApprovals;
    if (!pending) break;
    const response = await postJson(
      `/v1/conversations/${id}/approvals`,
      { toolCallId: pending.toolCallId, approved: true },
      as(tenant),
    );
    expect(response.status).toBe(200);
    await sseChunks(response);
  }
  return approved;
}

beforeAll(async () => {
  await fetch(`${fake}/__reset`, { method: 'POST' });
});

describe('budgets that hold', () => {
  it('approving calls one at a time past a budget: the approved call runs and is kept, then no further model request', async () => {
    const marker = `keep creating tasks ${crypto.randomUUID().slice(0, 8)}`;
    const id = await createConversation(as('budget-approvals'));
    const first = await postJson(`/v1/conversations/${id}/messages`, { text: marker }, as('budget-approvals'));
    expect(first.status).toBe(200);
    await sseChunks(first);
    // One request of the fake is about as large as the whole day's budget (4,000 tokens): the first uses it up.
    const [opening] = await requestsFor(marker);
    expect(tokensOf(opening!)).toBeGreaterThan(4_000 / 2);

    const approved = await approveAll(id, 'budget-approvals', 12);
    const requests = await requestsFor(marker);
    // Before: every approval asked the model again (12 approvals, 12 more requests, 7.5× the budget).
    expect(requests.length).toBeLessThanOrEqual(2);
    expect(approved).toBeLessThanOrEqual(2);
    const { messages, pendingApprovals } = await saved(id, 'budget-approvals');
    expect(pendingApprovals).toEqual([]);
    const answer = messages.at(-1)!;
    // What the person approved ran, and its result is stored; the answer ends with the notice.
    const calls = answer.parts.filter((p) => p.type === 'tool-demo__create_task');
    expect(calls.at(-1)?.state).toBe('output-available');
    expect(answer.parts.findLast((p) => p.type === 'data-notice')?.data?.message).toMatch(
      /^This workspace's budget of 4,000 tokens a day is used up/,
    );
    expect(answer.metadata?.budgetExceeded).toMatchObject({ scope: 'tenant', unit: 'tokens', limit: 4_000 });
    const report = await reportOf('budget-approvals', (r) => r.total.requests >= requests.length);
    expect(report.total.requests).toBe(requests.length);
    expect(report.total.inputTokens + report.total.outputTokens).toBeLessThanOrEqual(
      requests.reduce((sum, r) => sum + tokensOf(r), 0),
    );
  });

  it('a client tool result past a budget: stored, then no further model request', async () => {
    const marker = `keep creating tasks ${crypto.randomUUID().slice(0, 8)}`;
    const id = await createConversation(as('budget-client'));
    await sseChunks(await postJson(`/v1/conversations/${id}/messages`, { text: marker }, as('budget-client')));
    const [pending] = (await saved(id, 'budget-client')).pendingApprovals;
    // The AI SDK chat body a client sends with its answer: an assistant message carrying `approval-responded`.
    const { messages } = await saved(id, 'budget-client');
    const last = messages.at(-1)!;
    const answered = {
      ...last,
      parts: last.parts.map((p) =>
        p.toolCallId === pending!.toolCallId
          ? {
              ...p,
              state: 'approval-responded',
              approval: { ...(p as { approval?: object }).approval, approved: true },
            }
          : p,
      ),
    };
    const response = await postJson(`/v1/conversations/${id}/messages`, { messages: [answered] }, as('budget-client'));
    expect(response.status).toBe(200);
    const chunks = (await sseChunks(response)) as Array<{ type: string; data?: { message?: string } }>;
    expect(chunks.find((c) => c.type === 'data-notice')?.data?.message).toMatch(/budget of 1,000 tokens a day/);
    expect(chunks.some((c) => c.type === 'tool-output-available')).toBe(true);
    expect(await requestsFor(marker)).toHaveLength(1);
  });

  it('many turns at once on one budget spend at most the budget and one request more, not one budget each', async () => {
    const tenant = 'budget-parallel';
    const budget = 40_000;
    const turns = 10;
    const marker = `loop ${crypto.randomUUID().slice(0, 8)}`;
    const ids = await Promise.all(Array.from({ length: turns }, () => createConversation(as(tenant))));
    // "loop": the fake reads the guidelines at every step, until the step limit or a budget ends the turn.
    const responses = await Promise.all(
      ids.map((id, i) => postJson(`/v1/conversations/${id}/messages`, { text: `${marker} ${i}` }, as(tenant))),
    );
    for (const response of responses) expect(response.status).toBe(200);
    await Promise.all(responses.map((response) => sseChunks(response)));

    const requests = await requestsFor(marker);
    const largest = Math.max(...requests.map(tokensOf));
    // Each turn alone could afford several requests: without reservations every turn spent a budget of its own.
    expect(largest * 4).toBeLessThan(budget);
    const report = await reportOf(tenant, (r) => r.total.requests >= requests.length);
    const spent = report.total.inputTokens + report.total.outputTokens;
    expect(report.total.requests).toBe(requests.length);
    // The bound USAGE.md states: the budget, plus what the last request admitted made (an estimate at most, over).
    expect(spent).toBeLessThanOrEqual(budget + 2 * largest);
    // Every turn ended and was saved; the budget, not the step limit, ended them (the notice in each answer).
    for (const id of ids) {
      const { messages } = await saved(id, tenant);
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(messages[1]!.metadata?.budgetExceeded).toMatchObject({ unit: 'tokens', limit: budget });
    }
    // Nothing is left reserved once every request has ended.
    const held = await runInDurableObject(env.USAGE_LEDGER.getByName(tenant), (_instance, state) =>
      state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM usage_reserved').one(),
    );
    expect(held.n).toBe(0);
  });

  it('a crash mid-request: the alarm is set, and the request counts its estimate within a minute', async () => {
    const tenant = 'budget-crash';
    const id = await createConversation(as(tenant));
    const stub = await conversationStub(id);
    const mock = { acceptsImages: false, spec: 'mock' } as const;
    const alarm = await runInDurableObject(stub, async (instance, state) => {
      const live = await turnIn(instance, [userMessage('talk')], { ...mock, model: stalledModel('a b c') });
      await untilText(live.reader());
      return state.storage.getAlarm();
    });
    // Set when the outbox took the turn's first entry (the request's estimate), to send within a minute.
    expect(alarm).not.toBeNull();
    expect(alarm! - Date.now()).toBeLessThanOrEqual(60_000);
    // While the request runs, the ledger counts its reservation.
    const ledger = env.USAGE_LEDGER.getByName(tenant);
    const reservedWhileRunning = await runInDurableObject(ledger, (_instance, state) =>
      state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM usage_reserved').one(),
    );
    expect(reservedWhileRunning.n).toBe(1);

    await abortAllDurableObjects(); // the object goes away mid-request: nothing of the turn's end runs
    expect(await runDurableObjectAlarm(await conversationStub(id))).toBe(true);
    const report = await reportOf(tenant, (r) => r.rows.some((row) => row.key === id));
    expect(report.rows.find((row) => row.key === id)).toMatchObject({ requests: 1, estimatedRequests: 1 });
    const reservedAfter = await runInDurableObject(env.USAGE_LEDGER.getByName(tenant), (_instance, state) =>
      state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM usage_reserved').one(),
    );
    expect(reservedAfter.n).toBe(0);
  });
});

describe('requests in flight', () => {
  it('a model stream that breaks mid-answer counts its estimate and settles its reservation when the turn ends', async () => {
    const tenant = 'budget-crash';
    const id = await createConversation(as(tenant));
    await runInDurableObject(await conversationStub(id), async (instance) => {
      const live = await turnIn(instance, [userMessage('talk')], {
        acceptsImages: false,
        spec: 'mock',
        model: brokenModel('a few words, then the connection is lost'),
      });
      await live.ended;
    });
    const report = await reportOf(tenant, (r) => r.rows.some((row) => row.key === id));
    const row = report.rows.find((x) => x.key === id)!;
    // Estimated from what streamed (not the reservation's 1,000 output tokens assumed before the request).
    expect(row).toMatchObject({ requests: 1, estimatedRequests: 1 });
    expect(row.outputTokens).toBeLessThan(100);
    const held = await runInDurableObject(env.USAGE_LEDGER.getByName(tenant), (_instance, state) =>
      state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM usage_reserved').one(),
    );
    expect(held.n).toBe(0);
  });

  it('refuse a request, never a turn: a new turn is not told to come back tomorrow for estimates in flight', async () => {
    const tenant = 'budget-held';
    const ledger = env.USAGE_LEDGER.getByName(tenant);
    // Another conversation's request in flight, reserved at the whole day's budget.
    const other = { id: `held-${crypto.randomUUID()}`, user: 'bob', tokens: 1_000_000, usd: 0 };
    expect(await ledger.reserve(other, { tokensPerDay: 1_000_000 })).toHaveProperty('spent');
    expect((await ledger.spent('alice')).tenantTokensDay).toBe(0);

    const marker = `hello ${crypto.randomUUID().slice(0, 8)}`;
    const id = await createConversation(as(tenant));
    const first = await postJson(`/v1/conversations/${id}/messages`, { text: marker }, as(tenant));
    expect(first.status).toBe(200); // not 429 with a Retry-After at midnight
    const chunks = (await sseChunks(first)) as Array<{ type: string; data?: { message?: string } }>;
    // Its request was refused at the ledger (no model request made): the answer is the notice.
    expect(chunks.find((c) => c.type === 'data-notice')?.data?.message).toMatch(/budget of 1,000,000 tokens a day/);
    expect(await requestsFor(marker)).toHaveLength(0);

    // The other request ends (its entry settles the reservation): the next turn is answered.
    await ledger.record([{ id: other.id, at: Date.now(), user: 'bob', conversation: 'c', model: 'm', counters: {} }]);
    const second = await postJson(`/v1/conversations/${id}/messages`, { text: `${marker} again` }, as(tenant));
    expect(second.status).toBe(200);
    await sseChunks(second);
    expect(await requestsFor(marker)).toHaveLength(1);
  });
});

describe('MAX_STEPS counts a whole turn', () => {
  it('approving calls one at a time does not restart the steps: the step past the limit answers without tools', async () => {
    const marker = `keep creating tasks ${crypto.randomUUID().slice(0, 8)}`;
    const id = await createConversation(as('steps'));
    await sseChunks(await postJson(`/v1/conversations/${id}/messages`, { text: marker }, as('steps')));
    const approved = await approveAll(id, 'steps', 12);
    const requests = await requestsFor(marker);
    const withTools = requests.filter((r) => (r.chat.tools ?? []).length > 0);
    // MAX_STEPS is 8: eight steps may call tools (each ended on a call waiting for approval), then one answers.
    expect(withTools).toHaveLength(8);
    expect(requests).toHaveLength(9);
    expect(approved).toBe(8);
    const answer = (await saved(id, 'steps')).messages.at(-1)!;
    expect(answer.metadata).toMatchObject({ steps: 9, stepLimitReached: true });
  });
});
