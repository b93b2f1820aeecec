// How often control crosses from turn/ into conversation/ in one plain turn (issue 36: "a turn crosses
// conversation/ ⇄ turn/ eight times"). Every function the conversation hands the runner (its host, nested
// objects' methods included) and every listener of the runner's events on the conversation's side is counted
// once per call; the figure printed is what docs/ARCHITECTURE.md and the closing note quote. The bound below
// keeps a new crossing from coming in unnoticed: raise it only with a reason.
import { runInDurableObject } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { conversationStub, createConversation } from './helpers/api';
import { turnIn } from './helpers/conversation';
import { say, scriptedModel, userMessage } from './helpers/turns';

/** `target` with every method call (at any depth of plain objects) written to `calls` under its path. */
function counted<T extends object>(target: T, path: string, calls: string[]): T {
  return new Proxy(target, {
    get(object, key) {
      const value = Reflect.get(object, key);
      const name = `${path}.${String(key)}`;
      if (name === 'host.env') return value; // the runtime's bindings are not conversation/
      if (typeof value === 'function')
        return (...args: unknown[]) => (calls.push(name), (value as (...a: unknown[]) => unknown).apply(object, args));
      if (value && typeof value === 'object' && !Array.isArray(value)) return counted(value as object, name, calls);
      if (typeof key === 'string' && Object.getOwnPropertyDescriptor(Object.getPrototypeOf(object), key)?.get)
        calls.push(name); // a getter of a part (tasks.pending) is a call too
      return value;
    },
  });
}

it('a plain message turn crosses from turn/ into conversation/ a counted number of times', async () => {
  const id = await createConversation();
  const calls: string[] = [];
  await runInDurableObject(await conversationStub(id), async (instance) => {
    const runner = instance.parts.turns as unknown as {
      host: object;
      events?: { on(listener: (event: { type: string }) => void): () => void };
    };
    runner.host = counted(runner.host, 'host', calls);
    // The conversation's listener of the runner's events (wiring.ts) hears each event once.
    runner.events?.on((event: { type: string }) => void calls.push(`event.${event.type}`));
    const live = await turnIn(instance, [userMessage('hello')], {
      model: scriptedModel(() => say('hi there')),
      acceptsImages: false,
      spec: 'mock',
    });
    await live.ended;
  });
  const byName = Object.entries(
    calls.reduce<Record<string, number>>((n, call) => ((n[call] = (n[call] ?? 0) + 1), n), {}),
  ).map(([call, n]) => `${call}×${n}`);
  console.log(`turn → conversation crossings: ${calls.length} (${byName.join(', ')})`);
  expect(calls.length).toBeGreaterThan(0);
  // 15 until issue 47: the turn now reads what it runs on once (terms: model, settings, config, owner, pins — it read
  // them in five calls), marks the pace in one call (two), and sees running tasks in the answer's pending step (it asked
  // the task follower). Issue 47's bound: fewer than 10.
  expect(calls.length).toBeLessThan(10);
});
