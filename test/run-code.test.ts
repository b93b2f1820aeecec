import { describe, expect, it } from 'vitest';
import { createConversation } from './helpers/api';
import { callTools, runScriptedTurn, say, scriptedModel, toolResults } from './helpers/turns';

/*
 * Code over resources (issue 46): run_code runs a program in a Dynamic Worker (the LOADER binding, as the
 * Workers Vitest integration provides it) against the conversation's own MCP sessions.
 */

const run = async (code: string, overrides: Record<string, unknown> = {}) => {
  const id = await createConversation();
  const model = scriptedModel((_c, i) => (i === 0 ? callTools(['run_code', { code }]) : say('done')));
  await runScriptedTurn(id, 'count it', model, { RUN_CODE: 'on', ...overrides });
  const offered = model.doStreamCalls[0]!.tools?.map((t) => t.name) ?? [];
  return { id, offered, result: toolResults(model.doStreamCalls[1]!.prompt).at(-1)!, model };
};

describe('run_code', () => {
  it('counts the lines of a resource, read through the conversation', async () => {
    const { offered, result } = await run(
      "const text = await resources.read({ uri: 'task://guidelines' }); return { lines: text.split('\\n').length };",
    );
    expect(offered).toContain('run_code');
    expect(result.error).toBe(false);
    expect(result.text).toMatch(
      /^<program-output calls="1" read="[^"]+">\n\{\n {2}"lines": \d+\n\}\n<\/program-output>$/,
    );
  });

  it('a program that calls fetch fails with a clear error', async () => {
    const { result } = await run("return await fetch('https://example.com/')");
    expect(result.error).toBe(true);
    expect(result.text).toContain('not permitted to access the internet');
  });

  it('an endless loop ends at its CPU limit, and the conversation answers the next message', async () => {
    const { id, result } = await run('while (true) {}', { RUN_CODE_MAX_STEPS: 100_000 });
    expect(result.error).toBe(true);
    expect(result.text).toContain('stopped by its cpu limit');
    const next = scriptedModel(() => say('still here'));
    const chunks = await runScriptedTurn(id, 'hello?', next);
    expect(JSON.stringify(chunks)).toContain('still here');
  });

  it('a program that waits past its wall time is stopped, the limit named; one that waits forever ends too', async () => {
    const slow = await run('await new Promise((r) => setTimeout(r, 10_000)); return 1;', { RUN_CODE_WALL_MS: 300 });
    expect(slow.result.error).toBe(true);
    expect(slow.result.text).toContain('stopped by its wall time limit');
    expect(slow.result.text).toContain('time limit (300 ms)');
    const never = await run('await new Promise(() => {}); return 1;', { RUN_CODE_WALL_MS: 2_000 });
    expect(never.result.error).toBe(true);
  });

  it('two programs in one step run side by side, each with its own counts', async () => {
    const id = await createConversation();
    const model = scriptedModel((_c, i) =>
      i === 0
        ? callTools(
            ['run_code', { code: "return (await resources.read({ uri: 'task://guidelines' })).length;" }],
            ['run_code', { code: "const all = await resources.list({ server: 'demo' }); return all.length;" }],
          )
        : say('done'),
    );
    await runScriptedTurn(id, 'count', model, { RUN_CODE: 'on' });
    const [a, b] = toolResults(model.doStreamCalls[1]!.prompt);
    expect(a!.error || b!.error).toBe(false);
    expect(Number(a!.text.split('\n')[1])).toBeGreaterThan(100);
    expect(Number(b!.text.split('\n')[1])).toBeGreaterThan(2);
    expect(a!.text).toMatch(/^<program-output calls="1"/);
  });
});
