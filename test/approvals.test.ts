import { abortAllDurableObjects, runInDurableObject } from 'cloudflare:test';
import type { UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { api, conversationStub, createConversation, openSocketTab, postJson } from './helpers/api';
import { demoTaskTitles } from './helpers/demo-client';
import { callTools, runScriptedTurn, say, scriptedModel, sseChunks, textOfChunks, toolResults } from './helpers/turns';
import { approveIn } from './helpers/conversation';

type Pending = { toolCallId: string; toolName: string; input: { title?: string }; approvalId: string };
const pendingOf = async (id: string) =>
  (await (await api(`/v1/conversations/${id}`)).json<{ pendingApprovals: Pending[] }>()).pendingApprovals;

async function approveWith(id: string, toolCallId: string, approved: boolean, model: ReturnType<typeof scriptedModel>) {
  return runInDurableObject(await conversationStub(id), async (instance) => {
    const reader = (await approveIn(instance, { toolCallId, approved }, { model, acceptsImages: false, spec: 'mock' }))!
      .reader()
      .getReader();
    const chunks: UIMessageChunk[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    return chunks;
  });
}

const openTaskTitles = demoTaskTitles;

describe('MCP tools as <server>__<tool>', () => {
  it('a read-only tool runs without approval and its result reaches the model', async () => {
    const id = await createConversation();
    const model = scriptedModel((_c, i) =>
      i === 0 ? callTools(['demo__list_tasks', { status: 'all' }]) : say('listed'),
    );
    const chunks = await runScriptedTurn(id, 'what is on the list?', model);
    expect(chunks.some((c) => c.type === 'tool-approval-request')).toBe(false);
    expect(chunks.find((c) => c.type === 'tool-output-available')).toBeTruthy();
    expect(toolResults(model.doStreamCalls[1]!.prompt)[0]).toMatchObject({
      toolName: 'demo__list_tasks',
      error: false,
    });
    expect(model.doStreamCalls[0]!.tools?.map((t) => t.name)).toEqual(
      expect.arrayContaining(['demo__create_task', 'everything__echo', 'read_resource']),
    );
  });

  it("an untrusted server's readOnlyHint decides nothing: its tool waits for approval (the same tool of a trusted server does not)", async () => {
    // "legacy" and "everything" are the same server-everything, whose echo is annotated readOnlyHint: true;
    // only "everything" is configured trustAnnotations (test/infra/tenants.ts).
    const untrusted = await createConversation();
    const paused = scriptedModel(() => callTools(['legacy__echo', { message: 'hi' }]));
    const chunks = await runScriptedTurn(untrusted, 'echo hi', paused);
    expect(chunks.some((c) => c.type === 'tool-approval-request')).toBe(true);
    expect(chunks.some((c) => c.type === 'tool-output-available')).toBe(false);
    expect((await pendingOf(untrusted)).map((p) => p.toolName)).toEqual(['legacy__echo']);

    const trusted = await createConversation();
    const ran = scriptedModel((_c, i) =>
      i === 0 ? callTools(['everything__echo', { message: 'hi' }]) : say('echoed'),
    );
    const direct = await runScriptedTurn(trusted, 'echo hi', ran);
    expect(direct.some((c) => c.type === 'tool-approval-request')).toBe(false);
    expect(direct.find((c) => c.type === 'tool-output-available')).toBeTruthy();
  });
});

describe('approvals', () => {
  it('a tool without a read-only hint pauses the turn; the wait survives a restart; approving runs it', async () => {
    const id = await createConversation();
    const title = `Approved task ${crypto.randomUUID().slice(0, 8)}`;
    const first = scriptedModel(() => callTools(['demo__create_task', { title }]));
    const chunks = await runScriptedTurn(id, 'create a task', first);
    expect(chunks.some((c) => c.type === 'tool-approval-request')).toBe(true);
    expect(first.doStreamCalls).toHaveLength(1); // paused: the model was not called again

    const [pending] = await pendingOf(id);
    expect(pending).toMatchObject({ toolName: 'demo__create_task', input: { title } });
    expect(await openTaskTitles()).not.toContain(title);

    await abortAllDurableObjects();
    expect((await pendingOf(id)).map((p) => p.toolCallId)).toEqual([pending!.toolCallId]);
    const blocked = await postJson(`/v1/conversations/${id}/messages`, { text: 'never mind' });
    expect(blocked.status).toBe(409);

    const after = scriptedModel((call) => {
      const result = toolResults(call.prompt).at(-1)!;
      return say(`Tool said: ${result.text}`);
    });
    const continued = await approveWith(id, pending!.toolCallId, true, after);
    expect(continued.find((c) => c.type === 'tool-output-available')).toBeTruthy();
    expect(await openTaskTitles()).toContain(title);
    expect(await pendingOf(id)).toEqual([]);
    expect(toolResults(after.doStreamCalls[0]!.prompt).at(-1)!.text).toContain(`Created task`);
  });

  it('denying tells the model and runs nothing', async () => {
    const id = await createConversation();
    const title = `Denied task ${crypto.randomUUID().slice(0, 8)}`;
    await runScriptedTurn(
      id,
      'create a task',
      scriptedModel(() => callTools(['demo__create_task', { title }])),
    );
    const [pending] = await pendingOf(id);
    const after = scriptedModel(() => say('Understood, I will not create it.'));
    await approveWith(id, pending!.toolCallId, false, after);
    expect(JSON.stringify(after.doStreamCalls[0]!.prompt)).toContain('execution-denied');
    expect(await openTaskTitles()).not.toContain(title);
    const { messages } = await (await api(`/v1/conversations/${id}`)).json<{ messages: Array<{ role: string }> }>();
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('POST /approvals: unknown tool call → 404, bad body → 400', async () => {
    const id = await createConversation();
    const unknown = await postJson(`/v1/conversations/${id}/approvals`, { toolCallId: 'nope', approved: true });
    expect(unknown.status).toBe(404);
    expect((await unknown.json<{ error: { code: string } }>()).error.code).toBe('approval_not_found');
    expect((await postJson(`/v1/conversations/${id}/approvals`, { toolCallId: 'x', approved: 'yes' })).status).toBe(
      400,
    );
  });
});

describe('an answer that arrives while the turn that asked is still closing', () => {
  // The approval request reaches the client before the model's step has ended — here the model holds its finish back
  // 400 ms, as a slow provider or a loaded service does. A quick click, or useAgentChat (which sends the moment the
  // request shows), answers in that gap: the answer waits for the turn to close and then goes on; it is not refused.
  for (const via of ['http', 'socket'] as const)
    it(`${via}: the answer waits for the asking turn to close, then the turn goes on, once`, async () => {
      const id = await createConversation();
      const title = `Quick approval ${crypto.randomUUID().slice(0, 8)}`;
      const model = scriptedModel(
        (call, i) =>
          i === 0 ? callTools(['demo__create_task', { title }]) : say(`Done: ${toolResults(call.prompt).at(-1)?.text}`),
        { pauseMs: (i) => (i === 0 ? 400 : 0) },
      );
      await runInDurableObject(await conversationStub(id), (instance) => {
        instance.parts.terms.override({ model: { model, acceptsImages: false, spec: 'mock' } });
      });
      const tab = via === 'socket' ? await openSocketTab(id) : undefined;
      const asking = await postJson(`/v1/conversations/${id}/messages`, { text: 'create a task' });
      const reader = asking.body!.pipeThrough(new TextDecoderStream()).getReader();
      let seen = '';
      while (!seen.includes('"tool-approval-request"')) {
        const next = await reader.read();
        if (next.done) throw new Error('the turn ended before asking');
        seen += next.value;
      }
      const toolCallId = /"tool-approval-request"[^}]*"toolCallId":"([^"]+)"/.exec(seen)?.[1] ?? '';
      expect(toolCallId).not.toBe('');
      expect(seen).not.toContain('"type":"finish"'); // still closing: the model has not finished its step

      if (tab) {
        tab.socket.send(
          JSON.stringify({ type: 'cf_agent_tool_approval', toolCallId, approved: true, autoContinue: true }),
        );
      } else {
        const approved = await postJson(`/v1/conversations/${id}/approvals`, { toolCallId, approved: true });
        expect(approved.status).toBe(200);
        expect(textOfChunks(await sseChunks(approved))).toContain('Done: ');
      }
      for (let next = await reader.read(); !next.done; next = await reader.read()) seen += next.value;
      expect(seen).toContain('"type":"finish"'); // the asking turn ended as it would have

      const answer = async () =>
        (await runInDurableObject(await conversationStub(id), (instance) => instance.parts.history.load())).at(-1)!;
      await expect
        .poll(async () => (await answer()).parts.map((p) => (p.type === 'text' ? p.text : '')).join(''), {
          timeout: 10_000,
        })
        .toMatch(/^Done: .*Created task/);
      expect(model.doStreamCalls).toHaveLength(2);
      expect(await openTaskTitles()).toContain(title);
      expect((await answer()).parts.find((p) => 'toolCallId' in p)).toMatchObject({ state: 'output-available' });
      tab?.socket.close();
    });
});
