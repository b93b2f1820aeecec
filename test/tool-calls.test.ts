import type { UIMessageChunk } from 'ai';
import { inject } from 'vitest';
import { describe, expect, it } from 'vitest';
import { createConversation } from './helpers/api';
import { callTools, runScriptedTurn, say, scriptedModel, toolResults } from './helpers/turns';

// Tool calls as a person would want them: arguments checked before anyone is asked, failures named as the tool's.
const LENIENT = { authorization: 'Bearer test-key-lenient', 'x-end-user': 'alice' };
const v2 = inject('v2Url');
// "unhinted" (test/infra/tenants.ts) is this file's and lenient-servers.test.ts's alone: its request counts are ours.
const toolCallsSeen = async () =>
  ((await (await fetch(`${v2}/__control/bent-strip-json-strict/state`)).json()) as { methods: Record<string, number> })
    .methods['tools/call'] ?? 0;

const errorTextOf = (chunks: UIMessageChunk[]) =>
  chunks.flatMap((c) =>
    c.type === 'tool-output-error' || c.type === 'tool-input-error' || c.type === 'error' ? [c.errorText] : [],
  );

describe('tool arguments are checked against the tool’s inputSchema first', () => {
  it('a call that does not fit goes back to the model naming the field; nobody is asked, the server never sees it', async () => {
    const id = await createConversation(LENIENT);
    const before = await toolCallsSeen();
    // `edit` needs approval (no annotations); its uri must be a string.
    const model = scriptedModel((call, i) =>
      i === 0
        ? callTools(['unhinted__edit', { uri: 42, text: 'x' }])
        : i === 1
          ? callTools(['unhinted__edit', { uri: 'v2://notes/public' }])
          : say(
              `noted: ${toolResults(call.prompt)
                .map((r) => r.text)
                .join(' | ')}`,
            ),
    );
    const chunks = await runScriptedTurn(id, 'edit the note', model);
    expect(chunks.some((c) => c.type === 'tool-approval-request')).toBe(false);
    const errors = errorTextOf(chunks);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toBe(
      'Tool "edit" of MCP server "unhinted" was not called: argument "uri": Instance type "number" is invalid. Expected "string".',
    );
    expect(errors[1]).toMatch(/Instance does not have required property "text"/);
    for (const error of errors) expect(error).not.toContain('The model call failed');
    // The model got both errors, and could correct itself.
    const results = toolResults(model.doStreamCalls[2]!.prompt);
    expect(results.map((r) => r.error)).toEqual([true, true]);
    expect(results[0]!.text).toContain('argument "uri"');
    expect(await toolCallsSeen()).toBe(before);
  });

  it('a call that fits is asked about as before', async () => {
    const id = await createConversation(LENIENT);
    const model = scriptedModel(() => callTools(['unhinted__edit', { uri: 'v2://notes/public', text: 'x' }]));
    const chunks = await runScriptedTurn(id, 'edit the note', model);
    expect(chunks.some((c) => c.type === 'tool-approval-request')).toBe(true);
    expect(errorTextOf(chunks)).toEqual([]);
  });
});

describe('failures are worded as what failed', () => {
  it('a tool result with isError names the tool and the server', async () => {
    const id = await createConversation();
    // complete_task runs without approval on the demo server (test/infra/tenants.ts).
    const model = scriptedModel((_call, i) =>
      i === 0 ? callTools(['demo__complete_task', { id: 99_999 }]) : say('no such task'),
    );
    const chunks = await runScriptedTurn(id, 'complete task 99999', model);
    expect(errorTextOf(chunks)).toEqual([
      'Tool "complete_task" of MCP server "demo" returned an error: No task #99999. Use list_tasks to see task ids.',
    ]);
    expect(toolResults(model.doStreamCalls[1]!.prompt)[0]).toMatchObject({
      error: true,
      text: expect.stringContaining('Tool "complete_task"'),
    });
  });

  it('a tool request that times out is the tool’s failure, not the model’s', async () => {
    const id = await createConversation(LENIENT);
    // slow_job is read-only and the server trusted for annotations: it runs without approval, and takes 20 s.
    const model = scriptedModel((_call, i) => (i === 0 ? callTools(['unhinted__slow_job', {}]) : say('it timed out')));
    const chunks = await runScriptedTurn(id, 'run the job', model, { MCP_REQUEST_TIMEOUT_MS: 300 });
    const [error] = errorTextOf(chunks);
    expect(error).toMatch(/^Tool "slow_job" of MCP server "unhinted" did not answer in time: /);
  });

  it('a model that fails is still "The model call failed"', async () => {
    const id = await createConversation();
    const model = scriptedModel(() => {
      throw new Error('provider exploded');
    });
    const chunks = await runScriptedTurn(id, 'hello', model);
    expect(errorTextOf(chunks)).toEqual(['The model call failed: provider exploded']);
  });
});
