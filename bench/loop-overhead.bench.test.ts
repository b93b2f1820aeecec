import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { it } from 'vitest';
import { callTools, say, scriptedModel, userMessage } from '../test/helpers/turns';
import { turnIn } from '../test/helpers/conversation';

/**
 * Gateway overhead per loop step: turns with a zero-latency scripted model
 * (the AI SDK's MockLanguageModelV4), so all the time is ours — system
 * prompt, tools, the edge-resolved read_resource (a memory hit after the
 * first), the UI message stream, saving the history. Each turn has two steps
 * (a read_resource call, then an answer); conversations are 10 turns long, and
 * the first turn of each (MCP connection, first read from the server) is not
 * counted: that time is the MCP server's, not ours.
 */
const TURNS = 500;
const PER_CONVERSATION = 10;

it('loop overhead per step with a zero-latency model', async () => {
  const perStep: number[] = [];
  for (let c = 0; c < TURNS / PER_CONVERSATION; c++) {
    const stub = env.CONVERSATION.getByName(crypto.randomUUID());
    await stub.create();
    const times = await runInDurableObject(stub, async (instance) => {
      const out: number[] = [];
      for (let t = 0; t < PER_CONVERSATION; t++) {
        const model = scriptedModel((_call, i) =>
          i === 0 ? callTools(['read_resource', { uri: 'task://guidelines', server: 'demo' }]) : say('Done.'),
        );
        const started = performance.now();
        const reader = (
          await turnIn(instance, [userMessage('What are the guidelines?')], {
            model,
            acceptsImages: false,
            spec: 'mock',
          })
        )
          .reader()
          .getReader();
        while (!(await reader.read()).done);
        // The first turn of a conversation connects to the MCP server and reads from it: that is not our code.
        if (t > 0) out.push((performance.now() - started) / 2);
      }
      return out;
    });
    perStep.push(...times);
  }
  const sorted = [...perStep].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  console.log(
    `BENCH_RESULT loop-overhead ${JSON.stringify({ steps: perStep.length * 2, turns: perStep.length, p50: q(0.5), p99: q(0.99), mean: perStep.reduce((a, b) => a + b, 0) / perStep.length })}`,
  );
});
