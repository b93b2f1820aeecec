import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import type { UIMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, inject, it } from 'vitest';
import { api, conversationStub, createConversation } from './helpers/api';
import { demoTaskTitles, waitFor } from './helpers/demo-client';
import {
  callTools,
  runScriptedTurn,
  say,
  scriptedModel,
  stalledModel,
  toolResults,
  untilText,
  userMessage,
} from './helpers/turns';
import { approveIn, turnIn } from './helpers/conversation';

/** A model that starts answering, then never finishes (the Durable Object is aborted meanwhile). */
const snapshot = async (id: string) =>
  (await api(`/v1/conversations/${id}`)).json<{
    messages: Array<UIMessage & { metadata?: { interrupted?: string } }>;
    pendingApprovals: unknown[];
  }>();

describe('Durable Object aborted mid-turn', () => {
  it('the user message is kept, marked interrupted; no half answer; a resumed stream names the cause; the next turn works', async () => {
    const id = await createConversation();
    const stub = await conversationStub(id);
    await runInDurableObject(stub, async (instance) => {
      const live = await turnIn(instance, [userMessage('what changed in the guidelines?')], {
        model: stalledModel('The guidelines now'),
        acceptsImages: false,
        spec: 'mock',
      });
      await untilText(live!.reader());
    });
    // A client following the turn (GET …/stream) when the object goes away.
    const following = await api(`/v1/conversations/${id}/stream`);
    expect(following.status).toBe(200);
    const body = following.text();
    await abortAllDurableObjects();
    expect(await body).toContain('"type":"error"');
    expect(await body).toContain('The conversation restarted before this turn finished');

    const after = await snapshot(id);
    expect(after.messages.map((m) => m.role)).toEqual(['user']);
    expect(after.messages[0]!.metadata?.interrupted).toContain('not answered');
    expect(JSON.stringify(after.messages)).not.toContain('The guidelines now');
    expect(after.pendingApprovals).toEqual([]);

    const next = scriptedModel(() => say('Here is the answer.'));
    await runScriptedTurn(id, 'what changed in the guidelines? (again)', next);
    // The interrupted message is not sent to the model (it would be answered twice).
    expect(JSON.stringify(next.doStreamCalls[0]!.prompt)).not.toContain('what changed in the guidelines?"');
    const final = await snapshot(id);
    expect(final.messages.map((m) => [m.role, Boolean(m.metadata?.interrupted)])).toEqual([
      ['user', true],
      ['user', false],
      ['assistant', false],
    ]);
    expect(new Set(final.messages.map((m) => m.id)).size).toBe(3);
  });

  it('a turn that fails (not aborted) still leaves the history as it was', async () => {
    const id = await createConversation();
    const failing = new MockLanguageModelV4({ doStream: async () => Promise.reject(new Error('model exploded')) });
    await runScriptedTurn(id, 'hello?', failing);
    expect((await snapshot(id)).messages).toEqual([]);
  });

  it('a failed turn that resent a stored message (useChat regenerate) does not delete it', async () => {
    const id = await createConversation();
    await runScriptedTurn(
      id,
      'keep me',
      scriptedModel(() => say('Kept.')),
    );
    const before = (await snapshot(id)).messages;
    const stored = before.find((m) => m.role === 'user')!;
    const failing = new MockLanguageModelV4({ doStream: async () => Promise.reject(new Error('model exploded')) });
    await runInDurableObject(await conversationStub(id), async (instance) => {
      const live = await turnIn(instance, [stored as UIMessage], {
        model: failing,
        acceptsImages: false,
        spec: 'mock',
      });
      const reader = live.reader().getReader();
      while (!(await reader.read()).done); // to the end: the failure and the rollback
    });
    expect((await snapshot(id)).messages).toEqual(before);
  });
});

describe('Durable Object aborted mid-approval', () => {
  it('the approved call is settled as "interrupted, may have run", never re-run; the next turn works', async () => {
    const id = await createConversation();
    const title = `Interrupted task ${crypto.randomUUID().slice(0, 8)}`;
    await runScriptedTurn(
      id,
      'create a task',
      scriptedModel(() => callTools(['demo__create_task', { title }])),
    );
    const { pendingApprovals } = await (await api(`/v1/conversations/${id}`)).json<{
      pendingApprovals: Array<{ toolCallId: string }>;
    }>();
    const toolCallId = pendingApprovals[0]!.toolCallId;

    // Approved: the tool runs, then the model stalls and the object is aborted.
    await runInDurableObject(await conversationStub(id), async (instance) => {
      const live = await approveIn(
        instance,
        { toolCallId, approved: true },
        { model: stalledModel('Done, I created'), acceptsImages: false, spec: 'mock' },
      );
      await untilText(live!.reader());
    });
    await abortAllDurableObjects();

    const after = await snapshot(id);
    expect(after.pendingApprovals).toEqual([]);
    expect(after.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const part = after.messages[1]!.parts.find((p) => 'toolCallId' in p) as { state: string; errorText?: string };
    expect(part.state).toBe('output-error');
    expect(part.errorText).toContain('whether it ran is unknown');
    expect((await demoTaskTitles()).filter((t) => t === title)).toHaveLength(1); // it ran once, and was not run again

    const next = scriptedModel(() => say('Noted.'));
    await runScriptedTurn(id, 'did it work?', next);
    expect(toolResults(next.doStreamCalls[0]!.prompt)[0]).toMatchObject({ toolName: 'demo__create_task', error: true });
    const final = await snapshot(id);
    expect(final.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect((await demoTaskTitles()).filter((t) => t === title)).toHaveLength(1);
  });
});

describe('Durable Object evicted with 2025 sessions open', () => {
  // The lazy tenant's notes2025: the SDK v2 stateful server spoken in 2025-11-25 (real sessions; it counts DELETEs).
  const LAZY = { authorization: 'Bearer test-key-lazy', 'x-end-user': 'evicted' };
  const v2 = inject('v2Url');
  const stateful = async () =>
    (await (await fetch(`${v2}/__control/stateful/state`)).json()) as { sessions: number; deletes: number };
  const readNote = async (id: string) => {
    const response = await api(
      `/v1/conversations/${id}/resources/read`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ server: 'notes2025', uri: 'v2://notes/public' }),
      },
      LAZY,
    );
    expect(response.status).toBe(200);
    await response.text();
  };

  it.each([
    [
      'the idle alarm of the next instance',
      async (id: string) => void (await runDurableObjectAlarm(await conversationStub(id))),
    ],
    ['the next instance’s first connection', async (id: string) => readNote(id)],
  ])('ends the session the evicted instance left open: %s', async (_how, wake) => {
    const id = await createConversation(LAZY);
    await readNote(id); // an API read connects: a 2025 session on the server
    const opened = await stateful();
    await abortAllDurableObjects(); // evicted: nothing ran, no DELETE was sent
    expect((await stateful()).deletes).toBe(opened.deletes);
    await wake(id);
    await waitFor(async () => ((await stateful()).deletes > opened.deletes ? true : undefined), 'the orphan DELETE');
    expect((await stateful()).deletes).toBe(opened.deletes + 1);
    // Nothing is left on record to end twice: at most the new instance's own session.
    const left = await runInDurableObject(await conversationStub(id), (_instance, state) =>
      state.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM mcp_open_sessions`).one(),
    );
    expect(left.n).toBeLessThanOrEqual(1);
  });
});
