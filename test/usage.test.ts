import { runInDurableObject } from 'cloudflare:test';
import { sign } from 'hono/jwt';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import type { UsageReport } from '../shared/api/usage';
import { api, conversationStub, createConversation, postJson } from './helpers/api';
import { turnIn } from './helpers/conversation';
import { waitFor } from './helpers/demo-client';
import { callTools, scriptedModel, sseChunks, stalledModel, untilText, userMessage } from './helpers/turns';

/*
 * Metering, the usage API and budgets, through the real path: turns through @ai-sdk/anthropic against the fake
 * provider (bench/lib/fake-model.mjs), whose usage is known — input a quarter of the request's bytes, output 5 — the
 * conversation's outbox, the tenant's ledger (a real Durable Object), and the route.
 */
const fake = inject('fakeModelUrl');
const as = (tenant: string, user = 'alice') => ({ authorization: `Bearer test-key-${tenant}`, 'x-end-user': user });
const today = () => new Date().toISOString().slice(0, 10);

interface Recorded {
  body: unknown;
  response?: unknown;
}

beforeEach(async () => {
  await fetch(`${fake}/__reset`, { method: 'POST' });
});

async function turn(tenant: string, text: string, user = 'alice') {
  const id = await createConversation(as(tenant, user));
  const response = await postJson(`/v1/conversations/${id}/messages`, { text }, as(tenant, user));
  return { id, response, chunks: response.status === 200 ? await sseChunks(response) : [] };
}

async function usage(tenant: string, query = '', headers: Record<string, string> = as(tenant)) {
  const response = await api(`/v1/usage${query}`, {}, headers);
  return response;
}

/** The report once the ledger has `requests` model requests (the outbox sends as the turn goes). */
const reportWith = (tenant: string, requests: number, query = '?groupBy=conversation') =>
  waitFor(async () => {
    const report = await (await usage(tenant, query)).json<UsageReport>();
    return report.total.requests >= requests && report;
  }, `${requests} requests in ${tenant}'s ledger`);

describe('metering', () => {
  it('counts each model request as the provider reported it, prices it, and counts tools and reads by layer', async () => {
    const { id, response } = await turn('usage-a', 'what do the guidelines say?');
    expect(response.status).toBe(200);
    const sent = (await (await fetch(`${fake}/__requests`)).json()) as Recorded[];
    expect(sent).toHaveLength(2); // read_resource, then the answer
    // What the fake provider billed: input = ceil(bytes / 4) of each request, output 5 each.
    const inputs = sent.map((r) => Math.ceil(new TextEncoder().encode(JSON.stringify(r.body)).byteLength / 4));
    const report = await reportWith('usage-a', 2);
    const row = report.rows.find((r) => r.key === id)!;
    expect(row.requests).toBe(2);
    expect(row.outputTokens).toBe(10);
    // Bytes as the package serialised them may differ from our JSON.stringify by whitespace: within 2 %.
    expect(row.inputTokens).toBeGreaterThan(0.98 * inputs.reduce((a, b) => a + b, 0));
    expect(row.inputTokens).toBeLessThan(1.02 * inputs.reduce((a, b) => a + b, 0));
    expect(row.estimatedRequests).toBe(0);
    // claude-sonnet-4-5: $3 per million in, $15 out (src/config/price-cards.ts).
    expect(row.usd).toBeCloseTo((row.inputTokens * 3 + row.outputTokens * 15) / 1e6, 9);
    expect(row.toolCalls).toBe(1);
    expect(row.readsMemory + row.readsKv + row.readsServer).toBe(1);
  });

  it('groups by day, user, model and conversation; the same rows as CSV', async () => {
    await turn('usage-a', 'hello from bob', 'bob');
    await reportWith('usage-a', 1, '?groupBy=user&user=bob');
    const byUser = await (await usage('usage-a', '?groupBy=user')).json<UsageReport>();
    expect(byUser.rows.map((r) => r.key)).toContain('bob');
    const byModel = await (await usage('usage-a', '?groupBy=model')).json<UsageReport>();
    expect(byModel.rows.map((r) => r.key)).toEqual(['anthropic:claude-sonnet-4-5']);
    const byDay = await (await usage('usage-a', '?groupBy=day')).json<UsageReport>();
    expect(byDay.rows.map((r) => r.key)).toEqual([today()]);
    expect(byDay.total.requests).toBe(byModel.total.requests);

    const csv = await usage('usage-a', '?groupBy=user', { ...as('usage-a'), accept: 'text/csv' });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toBe(
      'user,requests,inputTokens,cacheReadTokens,cacheWriteTokens,outputTokens,usd,estimatedRequests,toolCalls,readsMemory,readsKv,readsServer,tasks,programRuns,programMs,programReadBytes',
    );
    const bob = lines.find((l) => l.startsWith('bob,'))!.split(',');
    expect(Number(bob[1])).toBe(byUser.rows.find((r) => r.key === 'bob')!.requests);
    expect(lines.at(-1)!.startsWith(`total,${byUser.total.requests},`)).toBe(true);
  });

  it('a tenant never sees another tenant’s usage', async () => {
    await turn('usage-b', 'only in b');
    const b = await reportWith('usage-b', 1);
    const a = await (await usage('usage-a', '?groupBy=conversation')).json<UsageReport>();
    expect(a.rows.map((r) => r.key)).not.toContain(b.rows[0]!.key);
    expect(b.tenant).toBe('usage-b');
  });

  it('an end user with a browser token sees only their own usage', async () => {
    await turn('acme', 'alice speaks');
    await turn('acme', 'carol speaks', 'carol');
    const token = await sign(
      { tid: 'acme', sub: 'carol', aud: 'mcp-ondemand', exp: Math.floor(Date.now() / 1000) + 600 },
      'acme-test-signing-secret-0123456789',
      'HS256',
    );
    const mine = await waitFor(async () => {
      const report = await (
        await usage('acme', '?groupBy=user&user=alice', { authorization: `Bearer ${token}` })
      ).json<UsageReport>();
      return report.rows.length > 0 && report;
    }, "carol's usage");
    expect(mine.user).toBe('carol');
    expect(mine.rows.map((r) => r.key)).toEqual(['carol']);
  });

  it('nothing billed is lost: a turn that fails halfway counts its first request, a stopped one our estimate, marked', async () => {
    const id = await createConversation(as('usage-a', 'frank'));
    const stub = await conversationStub(id);
    const mock = { acceptsImages: false, spec: 'mock' } as const;
    // Its first request calls a tool (10 in, 5 out, as the mock reports); the second fails: the turn is not saved.
    const failing = scriptedModel((_call, index) => {
      if (index === 0) return callTools(['read_resource', { uri: 'task://guidelines', server: 'demo' }]);
      throw new Error('the model went away');
    });
    await runInDurableObject(stub, async (instance) => {
      const live = await turnIn(instance, [userMessage('read it')], { ...mock, model: failing });
      await live.ended;
    });
    // Stopped mid-answer: the provider reported nothing, so the request counts with our estimate.
    await runInDurableObject(stub, async (instance) => {
      const live = await turnIn(instance, [userMessage('talk')], { ...mock, model: stalledModel('a b c d e f') });
      await untilText(live.reader());
      instance.parts.turns.stop();
      await live.ended;
    });
    const report = await waitFor(async () => {
      const r = await (await usage('usage-a', `?groupBy=conversation`)).json<UsageReport>();
      const row = r.rows.find((x) => x.key === id);
      return row && row.requests >= 2 && row;
    }, "the failed and the stopped turn's requests");
    expect(report.requests).toBe(2);
    expect(report.estimatedRequests).toBe(1);
    expect(report.outputTokens).toBeGreaterThanOrEqual(5 + 1); // the mock's 5, and our estimate of what streamed
    expect(report.toolCalls).toBe(1);
    expect(report.usd).toBe(0); // the mock model has no price card
  });

  it('a conversation deleted before its usage was sent still counts it', async () => {
    const id = await createConversation(as('usage-a', 'gina'));
    // An entry the turn wrote to the outbox, not yet sent (the send runs when the turn ends; the delete came first).
    await runInDurableObject(await conversationStub(id), async (instance) => {
      instance.parts.usage.add({
        id: `entry-${id}`,
        at: Date.now(),
        user: 'gina',
        conversation: id,
        model: 'mock',
        counters: { requests: 1, inputTokens: 120, outputTokens: 7 },
      });
    });
    expect((await api(`/v1/conversations/${id}`, { method: 'DELETE' }, as('usage-a', 'gina'))).status).toBe(204);
    const report = await (await usage('usage-a', '?groupBy=conversation')).json<UsageReport>();
    expect(report.rows.find((r) => r.key === id)).toMatchObject({ requests: 1, inputTokens: 120, outputTokens: 7 });
  });

  it('bad queries are a clear 400', async () => {
    const cases: Array<[string, RegExp]> = [
      ['?from=2026-12-05&to=2026-12-01', /"from" \(2026-12-05\) is after "to" \(2026-12-01\)/],
      ['?groupBy=week', /groupBy/],
      ['?from=2025-01-01&to=2026-12-31', /at most 366/],
      ['?from=2026-02-30', /"from" is not a day/],
      ['?to=yesterday', /YYYY-MM-DD/],
    ];
    for (const [query, message] of cases) {
      const response = await usage('usage-a', query);
      expect(response.status, query).toBe(400);
      const body = await response.json<{ error: { code: string; message: string } }>();
      expect(body.error.code, query).toBe('invalid_query');
      expect(body.error.message, query).toMatch(message);
    }
  });
});

describe('budgets', () => {
  it('a turn that crosses the tenant’s budget finishes its step, then stops with a notice; the next is refused with 429', async () => {
    const first = await turn('budget', 'what do the guidelines say?');
    expect(first.response.status).toBe(200);
    // One step ran (the read) and its result is kept; no second model request.
    const sent = (await (await fetch(`${fake}/__requests`)).json()) as Recorded[];
    expect(sent).toHaveLength(1);
    const chunks = first.chunks as Array<{ type: string; data?: { message?: string }; messageMetadata?: unknown }>;
    expect(chunks.some((c) => c.type === 'tool-output-available')).toBe(true);
    const notice = chunks.find((c) => c.type === 'data-notice')?.data?.message;
    expect(notice).toMatch(
      /^This workspace's budget of \$0\.00 a month is used up \(\$0\.0\d+ spent\); it resets on \d{4}-\d{2}-01 00:00 UTC\.$/,
    );
    const saved = await (await api(`/v1/conversations/${first.id}`, {}, as('budget'))).json<{
      messages: Array<{ role: string; parts: Array<{ type: string }>; metadata?: { budgetExceeded?: unknown } }>;
    }>();
    expect(saved.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(saved.messages[1]!.parts.map((p) => p.type)).toContain('data-notice');
    expect(saved.messages[1]!.metadata?.budgetExceeded).toMatchObject({
      scope: 'tenant',
      unit: 'usd',
      period: 'month',
      limit: 0.001,
    });

    await reportWith('budget', 1);
    const refused = await turn('budget', 'and now?');
    expect(refused.response.status).toBe(429);
    expect(Number(refused.response.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = await refused.response.json<{
      error: { code: string; message: string; budget: { limit: number; spent: number; resetsAt: string } };
    }>();
    expect(body.error.code).toBe('budget_exceeded');
    expect(body.error.budget.limit).toBe(0.001);
    expect(body.error.budget.spent).toBeGreaterThan(0.001);
    expect(Date.parse(body.error.budget.resetsAt)).toBeGreaterThan(Date.now());
    // Nothing of the refused turn was written.
    const after = await (await api(`/v1/conversations/${refused.id}`, {}, as('budget'))).json<{
      messages: unknown[];
    }>();
    expect(after.messages).toEqual([]);
  });

  it('an end user’s daily budget stops that user only', async () => {
    await turn('budget-user', 'hello', 'dave');
    await reportWith('budget-user', 1, '?groupBy=user&user=dave');
    expect((await turn('budget-user', 'again', 'dave')).response.status).toBe(429);
    expect((await turn('budget-user', 'my first', 'erin')).response.status).toBe(200);
  });
});
