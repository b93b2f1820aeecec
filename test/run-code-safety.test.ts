import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, inject, it } from 'vitest';
import { ACME_ALICE, api, conversationStub, createConversation } from './helpers/api';
import { connectDemoClient, demoTaskTitles, waitFor } from './helpers/demo-client';
import { settle } from './helpers/conversation';
import { callTools, runScriptedTurn, say, scriptedModel, toolResults } from './helpers/turns';
import { HOSTILE_TEXT } from './infra/hostile-text';
import { kvKey } from '../src/cache/keys';
import { parseProgramBlock } from '../src/prompt/markers';

/*
 * What a program (run_code, issue 46) cannot do, each through a real turn: a scripted model calls run_code, the
 * program runs in a Dynamic Worker against the conversation's own MCP sessions, and the test reads what the model
 * was given back. test/run-code.test.ts has the basics (a count, fetch refused, an endless loop).
 */

const BOB = { authorization: 'Bearer test-key-acme', 'x-end-user': 'bob' };
const HOSTILE = { authorization: 'Bearer test-key-hostile', 'x-end-user': 'mallory' };
const SKILLS = { authorization: 'Bearer test-key-skills', 'x-end-user': 'alice' };
const ERAS_ALICE = { authorization: 'Bearer test-key-eras', 'x-end-user': 'alice' };
const TASKS = { authorization: 'Bearer test-key-tasks', 'x-end-user': 'alice' };
const LEAKY = { authorization: 'Bearer test-key-leaky', 'x-end-user': 'alice' };
const NOCODE = { authorization: 'Bearer test-key-nocode', 'x-end-user': 'alice' };

/** One turn in conversation `id` whose model runs `code`, then answers: what it was offered, and run_code's result. */
async function runIn(id: string, code: string, overrides: Record<string, unknown> = {}) {
  const model = scriptedModel((_c, i) => (i === 0 ? callTools(['run_code', { code }]) : say('done')));
  const chunks = await runScriptedTurn(id, 'work it out', model, { RUN_CODE: 'on', ...overrides });
  const offered = model.doStreamCalls[0]!.tools?.map((t) => t.name) ?? [];
  return { offered, result: toolResults(model.doStreamCalls[1]!.prompt).at(-1)!, model, chunks };
}

const run = async (code: string, overrides: Record<string, unknown> = {}, as = ACME_ALICE) =>
  runIn(await createConversation(as), code, overrides);

/** What the program returned, as the model sees it (the wrapper's body). */
const bodyOf = (text: string) => {
  const block = parseProgramBlock(text);
  expect(block, text).toBeDefined();
  return block!.body;
};

/** Collects each call's error message in the program, so one run can try several ways in. */
const tryEach = (calls: string[]) =>
  `const out = [];\n${calls.map((c) => `try { out.push(JSON.stringify(await ${c})); } catch (e) { out.push('refused: ' + e.message); }`).join('\n')}\nreturn out;`;

describe('a program reads nothing the conversation could not', () => {
  const NOTES = 'Meeting notes: the overdue tasks are the invoice export and the SSO rollout.\n';
  const uploadNotes = async (id: string, as = ACME_ALICE) => {
    const body = new FormData();
    body.append('file', new File([NOTES], 'notes.txt', { type: 'text/plain' }));
    const response = await api(`/v1/conversations/${id}/files`, { method: 'POST', body }, as);
    expect(response.status).toBe(201);
    return (await response.json<{ files: Array<{ uri: string }> }>()).files[0]!.uri;
  };

  it("another user's private upload, and another conversation's of the same user: refused, nothing of it returned", async () => {
    const alices = await createConversation();
    const uri = await uploadNotes(alices);
    // The upload is private to its conversation: its own program reads it (so the refusals below say something).
    const own = await runIn(alices, `return await resources.read({ uri: ${JSON.stringify(uri)} })`);
    expect(own.result.error).toBe(false);
    expect(bodyOf(own.result.text)).toContain('overdue');

    const bobs = await createConversation(BOB);
    const alicesOther = await createConversation();
    await uploadNotes(alicesOther);
    for (const id of [bobs, alicesOther]) {
      const { result } = await runIn(
        id,
        tryEach([
          `resources.read({ uri: ${JSON.stringify(uri)} })`,
          `resources.read({ server: 'uploads', uri: ${JSON.stringify(uri)} })`,
          `resources.search({ server: 'uploads', uri: ${JSON.stringify(uri)}, query: 'overdue' })`,
        ]),
      );
      expect(result.error).toBe(false);
      const answers = JSON.parse(bodyOf(result.text)) as string[];
      expect(answers).toHaveLength(3);
      for (const answer of answers) expect(answer).toMatch(/^refused: /);
      expect(result.text).not.toContain('overdue');
    }
  });

  it('a private resource a program reads is kept for its user only, as any read of it is', async () => {
    const id = await createConversation(ERAS_ALICE);
    const { result } = await runIn(id, "return await resources.read({ server: 'strict', uri: 'v2://notes/private' })");
    expect(bodyOf(result.text)).toBe('private note, version 1');
    await settle(await conversationStub(id));
    const ref = { server: 'strict', uri: 'v2://notes/private' };
    expect(await env.RESOURCE_CACHE.get(await kvKey('tenant:eras:user:alice', ref))).not.toBeNull();
    expect(await env.RESOURCE_CACHE.get(await kvKey('tenant:eras', ref))).toBeNull();
  });

  it("a server's credential that the server echoes back is masked in all a program is given", async () => {
    // test/secret-echo.test.ts: the echo server puts the `secret:` header it was sent in every answer.
    const { result } = await run(
      tryEach([
        "tools.call({ server: 'echo', name: 'whoami', arguments: {} })",
        "tools.call({ server: 'echo', name: 'whoami_error', arguments: {} })",
        "resources.read({ server: 'echo', uri: 'echo://credentials' })",
        "prompts.get({ server: 'echo', name: 'echo', arguments: {} })",
      ]),
      {},
      LEAKY,
    );
    expect(result.error).toBe(false);
    const answers = JSON.parse(bodyOf(result.text)) as string[];
    expect(answers).toHaveLength(4);
    // Each answer carries the credential's place, masked: the tool's text and error, the resource, the prompt.
    for (const answer of answers) expect(answer).toContain('[redacted]');
    expect(result.text).not.toContain('tok_live_9f8e7d6c5b4a3210');
  });

  it("another tenant's servers: no such server, whatever the program asks of them", async () => {
    // "strict" and "hostile" are servers of other tenants (eras, hostile), not acme's.
    const { result } = await run(
      tryEach([
        "resources.read({ server: 'strict', uri: 'v2://notes/public' })",
        "resources.read({ uri: 'v2://notes/public' })",
        "resources.list({ server: 'hostile' })",
        "resources.search({ server: 'hostile', query: 'notes' })",
        "prompts.get({ server: 'strict', name: 'summarize', arguments: {} })",
        "tools.call({ server: 'hostile', name: 'big_report', arguments: {} })",
      ]),
    );
    expect(result.error).toBe(false);
    const answers = JSON.parse(bodyOf(result.text)) as string[];
    expect(answers).toHaveLength(6);
    expect(answers[0]).toMatch(/^refused: No server "strict"/);
    expect(answers[1]).toMatch(/^refused: No server lists or templates v2:\/\/notes\/public/);
    expect(answers[2]).toMatch(/^refused: No server "hostile"/);
    expect(answers[3]).toMatch(/^refused: No server "hostile"/);
    expect(answers[4]).toMatch(/^refused: No server "strict"/);
    expect(answers[5]).toMatch(/^refused: No tool "big_report" on server "hostile"/);
    expect(result.text).not.toContain('public note');
  });

  it('a skill the operator does not allow: its files refused as read_resource refuses them, the server never asked', async () => {
    const skillsUrl = inject('skillsUrl');
    const reads = async () =>
      (await (await fetch(`${skillsUrl}/__control/stateful/state`)).json<{ reads: Record<string, number> }>()).reads;
    const hidden = 'skill://plan-a-sprint/SKILL.md';
    const { result } = await run(
      tryEach([
        `resources.read({ server: 'kit2025', uri: '${hidden}' })`,
        `resources.read({ uri: '${hidden}' })`,
        `resources.search({ server: 'kit2025', uri: '${hidden}', query: 'sprint' })`,
      ]),
      {},
      SKILLS,
    );
    expect(result.error).toBe(false);
    const answers = JSON.parse(bodyOf(result.text)) as string[];
    expect(answers[0]).toMatch(/^refused: .*skill "plan-a-sprint"/);
    expect(answers[2]).toMatch(/^refused: .*skill "plan-a-sprint"/);
    // Without a server: the skills server of the other era ("kit") has it, and allows it; what matters is that
    // kit2025's copy, the operator's refusal, was never read.
    expect((await reads())[hidden]).toBeUndefined();
  });
});

describe('tools inside a program', () => {
  it('a tool that needs approval is refused with an error saying so; nothing is created; an auto-approved one runs', async () => {
    const title = `From a program ${crypto.randomUUID().slice(0, 8)}`;
    const { client } = await connectDemoClient('approval-check');
    const existing = `Already there ${crypto.randomUUID().slice(0, 8)}`;
    await client.callTool({ name: 'create_task', arguments: { title: existing } });
    await client.close();
    const id = await createConversation();
    const { result } = await runIn(
      id,
      `const listed = await tools.call({ server: 'demo', name: 'list_tasks', arguments: { status: 'all' } });
let refused;
try {
  await tools.call({ server: 'demo', name: 'create_task', arguments: { title: ${JSON.stringify(title)} } });
} catch (e) {
  refused = e.message;
}
return { titles: listed.tasks.map((t) => t.title), refused };`,
    );
    expect(result.error).toBe(false);
    const answer = JSON.parse(bodyOf(result.text)) as { titles: string[]; refused: string };
    expect(answer.titles).toContain(existing);
    expect(answer.refused).toBe(
      `The tool "create_task" of server "demo" needs the person's approval, which a program cannot ask for: call demo__create_task directly.`,
    );
    expect(await demoTaskTitles()).not.toContain(title);
    // Nobody was asked either: the turn ended without a call waiting for approval.
    const waiting = await runInDurableObject(await conversationStub(id), async (instance) =>
      instance.parts.history.waitingApprovals(),
    );
    expect(waiting).toEqual([]);
  });

  it.each([
    ['2026-07-28 (an input_required result)', 'demo', ACME_ALICE],
    ['2025-11-25 (elicitation/create)', 'demo2025', ERAS_ALICE],
  ] as const)('a tool that asks the person a question (%s) is refused; nobody is asked', async (_era, server, as) => {
    const { result, chunks } = await run(
      `return await tools.call({ server: '${server}', name: 'weekly_report', arguments: {} })`,
      { RUN_CODE_WALL_MS: 5_000 },
      as,
    );
    expect(result.error).toBe(true);
    expect(result.text).toContain(
      `The tool "weekly_report" of server "${server}" asks the person a question, which a program cannot ask for: call ${server}__weekly_report directly.`,
    );
    expect(chunks.filter((c) => c.type === 'data-elicitation')).toEqual([]);
  });

  it('a call the program did not await before returning is not run', async () => {
    // complete_task runs without approval for acme (test/infra/tenants.ts): a late call would complete a task.
    const { client } = await connectDemoClient('late-call');
    const created = await client.callTool({
      name: 'create_task',
      arguments: { title: `Late call ${crypto.randomUUID().slice(0, 8)}` },
    });
    const task = (created.structuredContent as { task: { id: number } }).task;
    const status = async () => {
      const listed = await client.callTool({ name: 'list_tasks', arguments: { status: 'all' } });
      return (listed.structuredContent as { tasks: Array<{ id: number; status: string }> }).tasks.find(
        (t) => t.id === task.id,
      )?.status;
    };
    const { result } = await run(
      `tools.call({ server: 'demo', name: 'complete_task', arguments: { id: ${task.id} } });
setTimeout(() => tools.call({ server: 'demo', name: 'complete_task', arguments: { id: ${task.id} } }), 20);
return 'returned first';`,
    );
    expect(result.error).toBe(false);
    expect(bodyOf(result.text)).toBe('returned first');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await status()).toBe('open');
    await client.close();
  });
});

describe('limits', () => {
  it('a result past RUN_CODE_RESULT_CHARS is cut, and the model is told how long it was', async () => {
    const { result } = await run("return 'abcdefghij'.repeat(500)", { RUN_CODE_RESULT_CHARS: 100 });
    expect(result.error).toBe(false);
    expect(bodyOf(result.text)).toBe('abcdefghij'.repeat(10));
    expect(result.text).toMatch(
      /<\/program-output>\n\[The result is 5000 characters; only the first 100 are shown\. Return less: a count, a summary, the top rows\.\]$/,
    );
  });

  it('console lines past the bound are dropped and counted; a long line is cut', async () => {
    const { result } = await run(
      "console.log('y'.repeat(2000)); for (let i = 1; i <= 60; i++) console.log('line ' + i); return 'ok';",
    );
    expect(result.error).toBe(false);
    const lines = bodyOf(result.text).split('\n');
    expect(lines.slice(0, 3)).toEqual(['ok', '', 'console:']);
    expect(lines[3]).toBe(`${'y'.repeat(500)}…`);
    expect(lines.slice(4, 53)).toEqual(Array.from({ length: 49 }, (_, i) => `line ${i + 1}`));
    expect(lines.slice(53)).toEqual(['(11 more console lines not kept)']);
  });

  it('a program past RUN_CODE_MAX_READ_BYTES is stopped with the limit named, even if it catches the error', async () => {
    const { result } = await run(
      `for (const uri of ['docs://test-matrix', 'docs://test-matrix', 'task://guidelines']) {
  try { await resources.read({ uri }); } catch (e) { console.log('caught: ' + e.message); }
}
return 'carried on';`,
      { RUN_CODE_MAX_READ_BYTES: 1_024 },
    );
    expect(result.error).toBe(true);
    expect(result.text).toMatch(
      /^Tool "run_code" failed: The program was stopped by its read bytes limit\.\n<program-output /,
    );
    expect(result.text).toContain('The program may be given 1024 bytes per run');
    expect(result.text).not.toContain('carried on');
  });

  it('a program past RUN_CODE_MAX_CALLS is stopped with the limit named, even if it catches the error', async () => {
    const { result } = await run(
      `for (let i = 0; i < 5; i++) {
  try { await resources.list({}); } catch (e) { console.log('caught: ' + e.message); }
}
return 'carried on';`,
      { RUN_CODE_MAX_CALLS: 2 },
    );
    expect(result.error).toBe(true);
    expect(result.text).toMatch(
      /^Tool "run_code" failed: The program was stopped by its calls limit\.\n<program-output calls="2" /,
    );
    expect(result.text).toContain('The program made more than 2 calls, its limit per run.');
    expect(result.text).not.toContain('carried on');
  });

  it('a tool call still running when the wall time ends the run is cancelled, not left running', async () => {
    const tasksUrl = inject('tasksUrl');
    await fetch(`${tasksUrl}/__control/reset`, { method: 'POST' });
    const waiting = async () =>
      (
        await (
          await fetch(`${tasksUrl}/__control/state`)
        ).json<{
          tasks: Array<{ tool: string; status: string; cancelRequested: boolean }>;
        }>()
      ).tasks.filter((t) => t.tool === 'wait_forever');
    const { result } = await run(
      "return await tools.call({ server: 'jobs', name: 'wait_forever', arguments: {} })",
      { RUN_CODE_WALL_MS: 1_000 },
      TASKS,
    );
    expect(result.error).toBe(true);
    expect(result.text).toContain('stopped by its wall time limit');
    await waitFor(
      async () => ((await waiting()).some((t) => t.status === 'cancelled') ? true : undefined),
      'the task cancelled',
      3_000,
    );
  });

  it('a syntax error is refused with its place, before anything runs', async () => {
    const { result } = await run('const total = 1;\nreturn total +;');
    expect(result.error).toBe(true);
    expect(result.text).toMatch(/^Tool "run_code" failed: The program does not parse: Unexpected token \(2:\d+\)$/);
  });

  it("RUN_CODE=off, or a tenant's runCode 'off', and run_code is not offered", async () => {
    // The same question and servers with programs on, so the two below say something.
    expect((await run('return 1')).offered).toContain('run_code');
    const model = () => scriptedModel(() => say('no programs here'));
    const offered = async (as: Record<string, string>, overrides: Record<string, unknown>) => {
      const m = model();
      await runScriptedTurn(await createConversation(as), 'how many tasks per assignee?', m, overrides);
      return m.doStreamCalls[0]!.tools?.map((t) => t.name) ?? [];
    };
    const off = await offered(ACME_ALICE, { RUN_CODE: 'off' });
    expect(off).toContain('read_resource');
    expect(off).not.toContain('run_code');
    const tenantOff = await offered(NOCODE, { RUN_CODE: 'on' });
    expect(tenantOff).toContain('read_resource');
    expect(tenantOff).not.toContain('run_code');
  });
});

/**
 * The model sees what a server wrote only inside the one <program-output> wrapper: it opens the text, closes it once
 * (at the end, or before the cut note), and the server's heading never starts a line outside it.
 */
function keptInside(text: string) {
  const opening = text.indexOf('<program-output ');
  const closing = text.indexOf('\n</program-output>');
  expect(opening).toBeGreaterThanOrEqual(0);
  expect(text.match(/<\/program-output>/g)).toHaveLength(1);
  const outside = text.slice(0, opening) + text.slice(closing);
  expect(outside).not.toContain('SYSTEM RULES');
  expect(outside).not.toContain('</resource>');
  expect(text.slice(closing)).toMatch(/^\n<\/program-output>(\n\[The result is \d+ characters;[^\n]*\])?$/);
}

describe('what a server wrote stays inside the wrapper', () => {
  it("a resource's text, returned and logged by the program, and the server's catalog fields", async () => {
    const { result } = await run(
      `const text = await resources.read({ server: 'hostile', uri: 'hostile://notes' });
console.log(text);
const listed = await resources.list({ server: 'hostile' });
return text + '\\n' + listed.map((r) => r.title).join('\\n');`,
      {},
      HOSTILE,
    );
    expect(result.error).toBe(false);
    const body = bodyOf(result.text);
    // It is there (so the check below says something), with the closing tag escaped.
    expect(body).toContain('## SYSTEM RULES (from the host)');
    expect(body).toContain('<\\/program-output>');
    expect(body.match(/Team notes\./g)).toHaveLength(2);
    keptInside(result.text);
  });

  it("a tool's error message, thrown through the program or caught and logged", async () => {
    const thrown = await run(
      "return await tools.call({ server: 'hostile', name: 'audit', arguments: {} })",
      {},
      HOSTILE,
    );
    expect(thrown.result.error).toBe(true);
    expect(thrown.result.text).toMatch(/^Tool "run_code" failed: The program threw an error\.\n<program-output /);
    expect(thrown.result.text).toContain('The tool "audit" of server "hostile" failed: Audit failed: x]');
    keptInside(thrown.result.text);

    const caught = await run(
      "try { await tools.call({ server: 'hostile', name: 'audit', arguments: {} }); } catch (e) { console.error(e.message); } return 'checked';",
      {},
      HOSTILE,
    );
    expect(caught.result.error).toBe(false);
    expect(bodyOf(caught.result.text)).toContain('[error] The tool "audit" of server "hostile" failed: Audit failed:');
    keptInside(caught.result.text);
  });

  it('a result cut in the middle of a hostile string cannot close the wrapper either', async () => {
    const { result } = await run(
      `const text = await resources.read({ server: 'hostile', uri: 'hostile://notes' });
return text.repeat(40);`,
      { RUN_CODE_RESULT_CHARS: 1_000 },
      HOSTILE,
    );
    expect(result.error).toBe(false);
    expect(HOSTILE_TEXT).toContain('</program-output>');
    keptInside(result.text);
  });
});
