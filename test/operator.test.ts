import { env } from 'cloudflare:workers';
import { Hono } from 'hono';
import { onError } from '../src/http/errors';
import { operatorAuth } from '../src/http/middleware/operator-auth';
import type { AppBindings } from '../src/http/types';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import type { OperatorOverview, OperatorServers, OperatorTenant } from '../shared/api/operator';
import type { UsageReport } from '../shared/api/usage';
import { TEST_OPERATOR_KEY } from './infra/operator-key';
import { api, createConversation, postJson } from './helpers/api';
import { waitFor } from './helpers/demo-client';
import { callTools, runScriptedTurn, say, scriptedModel, sseChunks } from './helpers/turns';

/*
 * What the operator's page reads (/admin/api/*), through the Worker: the operator key and nothing else opens it; its
 * figures are the tenants' own usage reports; live conversations and running tasks are what each conversation last
 * told the tenant's ledger (with its usage, or when it let go). Turns through @ai-sdk/anthropic against the fake
 * provider, as in test/usage.test.ts. The page itself, in Chromium: test/browser/operator-page.test.ts.
 */
const fake = inject('fakeModelUrl');
const OPERATOR = { authorization: `Bearer ${TEST_OPERATOR_KEY}` };
const as = (tenant: string, user = 'alice') => ({ authorization: `Bearer test-key-${tenant}`, 'x-end-user': user });
const today = () => new Date().toISOString().slice(0, 10);

beforeEach(async () => {
  await fetch(`${fake}/__reset`, { method: 'POST' });
});

async function turn(tenant: string, text: string, user = 'alice') {
  const id = await createConversation(as(tenant, user));
  const response = await postJson(`/v1/conversations/${id}/messages`, { text }, as(tenant, user));
  expect(response.status).toBe(200);
  await sseChunks(response);
  return id;
}

const overview = async () => {
  const response = await api('/admin/api/overview', {}, OPERATOR);
  expect(response.status).toBe(200);
  return response.json<OperatorOverview>();
};
const tenantIn = (o: OperatorOverview, id: string) => o.tenants.find((t) => t.id === id) as OperatorTenant;

const report = async (tenant: string, query: string) =>
  (await api(`/v1/usage${query}`, {}, as(tenant))).json<UsageReport>();

describe('the operator key', () => {
  it('is the only thing that opens /admin/api: missing, forged and tenant keys all get the same 401', async () => {
    const answers = await Promise.all(
      (
        [
          {},
          { authorization: 'Bearer not-the-operator-key' },
          { authorization: `Bearer ${TEST_OPERATOR_KEY}x` },
          { authorization: 'Bearer test-key-ops-a' }, // a tenant's API key
          { authorization: 'Basic b3BlcmF0b3I6a2V5' },
        ] as Array<Record<string, string>>
      ).map(async (headers) => {
        const response = await api('/admin/api/overview', {}, headers);
        return { status: response.status, body: await response.text() };
      }),
    );
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(answers[0]!.status).toBe(401);
    expect(JSON.parse(answers[0]!.body)).toEqual({
      error: { code: 'unauthorized', message: 'Send Authorization: Bearer <operator key>' },
    });
    // Nothing about tenants in it, and the servers route answers the same.
    expect(answers[0]!.body).not.toMatch(/ops-a|tenant/i);
    const servers = await api('/admin/api/servers', {}, { authorization: 'Bearer test-key-ops-a' });
    expect(servers.status).toBe(401);
    expect(await servers.text()).toBe(answers[0]!.body);
  });

  it('opens no tenant route: the operator key is not an API key', async () => {
    const response = await api('/v1/usage', {}, OPERATOR);
    expect(response.status).toBe(401);
    expect((await response.json<{ error: { code: string } }>()).error.code).toBe('unauthorized');
  });
});

describe('the operator key, configured or not', () => {
  // The middleware alone, with each deployment's vars (the suite's Worker has TENANTS and a key).
  const guarded = new Hono<AppBindings>()
    .use(operatorAuth)
    .get('/', (c) => c.text('open'))
    .onError(onError);
  const ask = (vars: Partial<Env>, headers: Record<string, string> = {}) =>
    guarded.request('/', { headers }, { ...env, TENANTS: undefined, OPERATOR_KEY_SHA256: undefined, ...vars } as Env);

  it('is open under `npm start` (no TENANTS, AUTH_DISABLED, no key set), as the rest of the local service', async () => {
    expect((await ask({ AUTH_DISABLED: 'true' })).status).toBe(200);
    // With a key set, the key is needed even then.
    expect((await ask({ AUTH_DISABLED: 'true', OPERATOR_KEY_SHA256: 'ab'.repeat(32) })).status).toBe(401);
  });

  it('with TENANTS and no key set, refuses everyone with the same 401', async () => {
    const tenants = { TENANTS: env.TENANTS, AUTH_DISABLED: 'true' };
    const refused = await ask(tenants, { authorization: 'Bearer test-key-ops-a' });
    expect(refused.status).toBe(401);
    expect(await refused.text()).toBe(await (await ask(tenants)).text());
  });

  it('a digest that is not SHA-256 hex is a configuration error: logged naming the var, a 500 to the caller', async () => {
    const { vi } = await import('vitest');
    const lines: unknown[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(line));
    let response: Response;
    try {
      response = await ask({ OPERATOR_KEY_SHA256: 'not-a-digest', TENANTS: env.TENANTS }, OPERATOR);
    } finally {
      spy.mockRestore();
    }
    expect(response.status).toBe(500);
    expect((await response.json<{ error: { code: string } }>()).error.code).toBe('internal_error');
    expect(lines).toContainEqual(
      expect.objectContaining({
        outcome: 'invalid_config',
        error: 'OPERATOR_KEY_SHA256 must be SHA-256 hex digests, comma-separated',
      }),
    );
  });

  it('takes any of several digests (a rotation)', async () => {
    const digest = [...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode('k2')))]
      .map((b) => b.toString(16).padStart(2, '0'))
      .join('');
    const vars = { TENANTS: env.TENANTS, OPERATOR_KEY_SHA256: `${'ab'.repeat(32)}, ${digest}` };
    expect((await ask(vars, { authorization: 'Bearer k2' })).status).toBe(200);
    expect((await ask(vars, { authorization: 'Bearer k1' })).status).toBe(401);
  });
});

describe('the overview', () => {
  it("is each tenant's own usage report: today, this month and the days, with its budgets", async () => {
    await turn('ops-a', 'what do the guidelines say?');
    await turn('ops-a', 'hello from bob', 'bob');
    await turn('ops-b', 'hello');
    const expected = { 'ops-a': 3, 'ops-b': 1 } as const; // read_resource + answer, answer, answer
    const settled = await waitFor(async () => {
      const o = await overview();
      return Object.entries(expected).every(([id, requests]) => tenantIn(o, id).today.requests >= requests) && o;
    }, 'both tenants in the overview');

    for (const id of ['ops-a', 'ops-b']) {
      const tenant = tenantIn(settled, id);
      const byDay = await report(id, `?groupBy=day&from=${today().slice(0, 8)}01&to=${today()}`);
      expect(tenant.month).toEqual(byDay.total);
      const { key: _key, ...todayRow } = byDay.rows.find((r) => r.key === today())!;
      expect(tenant.today).toEqual(todayRow);
      expect(tenant.today.requests).toBe(expected[id as keyof typeof expected]);
      expect(tenant.today.usd).toBeGreaterThan(0); // claude-sonnet-4-5 is priced
      // 30 days, oldest first, ending today; today's bar is today's tokens.
      expect(tenant.days).toHaveLength(30);
      expect(tenant.days.at(-1)).toEqual({
        day: today(),
        inputTokens: tenant.today.inputTokens,
        outputTokens: tenant.today.outputTokens,
        usd: tenant.today.usd,
      });
      expect(tenant.days.map((d) => d.day)).toEqual([...tenant.days.map((d) => d.day)].sort());
    }
    // The budgets in force: ops-a's own; ops-b has none (the suite sets no deployment default).
    expect(tenantIn(settled, 'ops-a').budgets).toEqual({ usdPerMonth: 50, tokensPerDay: 1_000_000 });
    expect(tenantIn(settled, 'ops-b').budgets).toEqual({});
    // The guidelines were read once: one MCP read, in some layer.
    const a = tenantIn(settled, 'ops-a').month;
    expect(a.readsMemory + a.readsKv + a.readsServer).toBe(1);
    // Every configured tenant is listed, once.
    const ids = settled.tenants.map((t) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain('acme');
  });

  it('counts the conversations holding live MCP sessions and the tasks running, per tenant', async () => {
    const id = await turn('ops-b', 'hello again', 'carol');
    // The turn connected the conversation's sessions: carol holds one live conversation.
    const live = await waitFor(async () => {
      const tenant = tenantIn(await overview(), 'ops-b');
      return tenant.live.conversations >= 1 && tenant;
    }, "ops-b's live conversation");
    expect(live.live.users).toBeGreaterThanOrEqual(1);
    const before = live.live.conversations;

    // A task: the model calls the demo's build_report, which runs as an MCP task for 2 s, then the answer goes on.
    const model = scriptedModel((_, step) =>
      step === 0 ? callTools(['demo__build_report', { topic: 'the ops review', seconds: 2 }]) : say('Noted.'),
    );
    const reporting = await createConversation(as('ops-b', 'carol'));
    await runScriptedTurn(reporting, 'build the ops report', model);
    await waitFor(async () => tenantIn(await overview(), 'ops-b').live.tasks === 1, 'the task counted', 10_000);
    await waitFor(async () => tenantIn(await overview(), 'ops-b').live.tasks === 0, 'the task ended', 20_000);
    const withBoth = tenantIn(await overview(), 'ops-b').live.conversations;
    expect(withBoth).toBe(before + 1); // the reporting conversation holds its sessions too

    // Deleting the conversation releases its sessions: one fewer live.
    expect((await api(`/v1/conversations/${id}`, { method: 'DELETE' }, as('ops-b', 'carol'))).status).toBe(204);
    await waitFor(
      async () => tenantIn(await overview(), 'ops-b').live.conversations === withBoth - 1,
      'the conversation released',
    );
  });

  it("Stop on a running task releases it before it answers: the overview and the user's task places, no turn after", async () => {
    const dave = as('ops-b', 'dave');
    const places = env.LIVE_CONVERSATIONS.getByName('ops-b:dave');
    const model = scriptedModel((_, step) =>
      step === 0 ? callTools(['demo__build_report', { topic: 'the long review', seconds: 60 }]) : say('Noted.'),
    );
    const id = await createConversation(dave);
    await runScriptedTurn(id, 'build the long report', model);
    await waitFor(async () => tenantIn(await overview(), 'ops-b').live.tasks === 1, 'the task counted', 10_000);
    expect(await places.taskCount()).toBe(1);

    const stopped = await api(`/v1/conversations/${id}/stream`, { method: 'DELETE' }, dave);
    expect(await stopped.json()).toEqual({ stopped: true });
    // Released by the time Stop answered (D13: the ledger heard of it only at the conversation's next turn).
    expect(await places.taskCount(), "the user's TASKS_PER_USER places").toBe(0);
    expect(tenantIn(await overview(), 'ops-b').live.tasks, "the overview's running tasks").toBe(0);
    expect(model.doStreamCalls).toHaveLength(1);
  });

  it('a conversation that vanished without a word stops counting when its word runs out', async () => {
    // What the ledger was last told by a conversation that was then lost (evicted, its delete's send failed).
    const ledger = env.USAGE_LEDGER.getByName('ops-lost');
    const now = Date.now();
    await ledger.record([], now, {
      conversation: 'c-lost',
      user: 'dora',
      live: true,
      liveUntil: now + 60_000,
      tasks: 2,
      tasksUntil: now + 120_000,
      at: now,
    });
    expect(await ledger.activity(now + 1_000)).toEqual({ conversations: 1, tasks: 2, users: 1 });
    expect(await ledger.activity(now + 90_000)).toEqual({ conversations: 0, tasks: 2, users: 1 });
    expect(await ledger.activity(now + 150_000)).toEqual({ conversations: 0, tasks: 0, users: 0 });
    // An older word than the one kept changes nothing; a newer one that holds nothing clears it.
    const holdsNothing = (at: number) => ({
      conversation: 'c-lost',
      user: 'dora',
      live: false,
      liveUntil: 0,
      tasks: 0,
      tasksUntil: 0,
      at,
    });
    await ledger.record([], now, holdsNothing(now - 1));
    expect((await ledger.activity(now + 1_000)).conversations).toBe(1);
    await ledger.record([], now, holdsNothing(now + 1));
    expect(await ledger.activity(now + 1_000)).toEqual({ conversations: 0, tasks: 0, users: 0 });
  });

  it("lists each tenant's servers with their status; one tenant with ?tenant=", async () => {
    const response = await api('/admin/api/servers?tenant=ops-a', {}, OPERATOR);
    expect(response.status).toBe(200);
    const { servers } = await response.json<OperatorServers>();
    expect(servers.map((s) => [s.tenant, s.id, s.status])).toEqual([['ops-a', 'demo', 'connected']]);
    expect(servers[0]!.protocolVersion).toBeTruthy();
  });
});
