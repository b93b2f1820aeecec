// How often a task poll leaves the task engine (turn/tasks/) and comes back, from the alarm's poll to the answer
// going on (issue 47: "a task poll from the alarm to the continued answer … returns 33 times to a module it had
// left"). Every function the conversation hands the follower (its host: the answer, the clock, the MCP sessions and
// what they give, the conversation's settings and owner) and every call the poll makes of the runner is counted once
// per call — each is a trip out of turn/tasks/ and back. The task store is the engine's own (turn/tasks/task-store.ts)
// and is not counted; the continued turn's own crossings are test/turn-crossings.test.ts's. The bound keeps a new
// crossing from coming in unnoticed: raise it only with a reason.
import { runInDurableObject } from 'cloudflare:test';
import { expect, inject, it } from 'vitest';
import { pollTasks } from '../src/turn/tasks/task-poll';
import type { TaskStore } from '../src/turn/tasks/task-store';
import { conversationStub, createConversation } from './helpers/api';
import { callTools, say, scriptedModel, toolResults, userMessage } from './helpers/turns';

const TASKS = { authorization: 'Bearer test-key-tasks', 'x-end-user': 'alice' };
const tasksUrl = inject('tasksUrl');

/** `target` with every method call (at any depth of plain objects) written to `calls` under its path. */
function counted<T extends object>(target: T, path: string, calls: string[], skip: string[] = []): T {
  return new Proxy(target, {
    get(object, key) {
      const value = Reflect.get(object, key);
      const name = `${path}.${String(key)}`;
      if (skip.includes(name) || name.endsWith('.env')) return value; // its own store; the runtime's bindings
      if (typeof value === 'function')
        return (...args: unknown[]) => {
          calls.push(name);
          // What a call hands back into the engine (the MCP sessions given to `withMcp`'s work) is counted too.
          const wrapped = args.map((arg) =>
            typeof arg === 'function'
              ? (...inner: unknown[]) =>
                  (arg as (...a: unknown[]) => unknown)(
                    ...inner.map((i) => (i && typeof i === 'object' ? counted(i as object, `${name}()`, calls) : i)),
                  )
              : arg,
          );
          return (value as (...a: unknown[]) => unknown).apply(object, wrapped);
        };
      if (value && typeof value === 'object' && !Array.isArray(value))
        return counted(value as object, name, calls, skip);
      if (typeof key === 'string' && Object.getOwnPropertyDescriptor(Object.getPrototypeOf(object), key)?.get)
        calls.push(name); // a getter (runner.busy) is a call too
      return value;
    },
  });
}

it('a task poll that ends the task and continues the answer leaves the task engine a counted number of times', async () => {
  await fetch(`${tasksUrl}/__control/reset`, { method: 'POST' });
  const id = await createConversation(TASKS);
  const model = scriptedModel((call, index) => {
    if (index === 0) return callTools(['jobs__build', { steps: 1, stepMs: 20 }]);
    return say(`Result: ${toolResults(call.prompt).at(-1)?.text}`);
  });
  // The alarm's first poll is a minute away: this test makes the poll itself, once the task has ended on the server.
  const settings = { TASK_POLL_MIN_MS: 60_000, TASK_POLL_MAX_MS: 60_000 };
  await runInDurableObject(await conversationStub(id), async (instance) => {
    instance.parts.terms.override({ model: { model, acceptsImages: false, spec: 'mock' }, settings });
    const live = await instance.parts.turns.start({ kind: 'message', newMessages: [userMessage('build it')] });
    await live.ended;
  });
  await expect
    .poll(
      async () => (await (await fetch(`${tasksUrl}/__control/state`)).json<{ tasks: { status: string }[] }>()).tasks,
    )
    .toMatchObject([{ status: 'completed' }]);

  const calls: string[] = [];
  const answer = await runInDurableObject(await conversationStub(id), async (instance) => {
    const follower = instance.parts.tasks as unknown as { host: { store: TaskStore } };
    const [row] = follower.host.store.all();
    follower.host.store.reschedule(row!.toolCallId, Date.now()); // due now
    follower.host = counted(follower.host, 'host', calls, ['host.store']);
    await pollTasks(instance.parts.tasks, counted(instance.parts.turns, 'runner', calls));
    return instance.parts.history.load().at(-1)!;
  });
  const text = answer.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
  expect(text).toContain('Result: Built in 1 steps.'); // the poll ended the task and the answer went on
  expect(answer.metadata).toMatchObject({ waitingForTasks: false });

  const byName = Object.entries(
    calls.reduce<Record<string, number>>((n, call) => ((n[call] = (n[call] ?? 0) + 1), n), {}),
  ).map(([call, n]) => `${call}×${n}`);
  console.log(`task poll → out of turn/tasks and back: ${calls.length} (${byName.join(', ')})`);
  expect(calls).toContain('runner.continueIfReady');
  // Issue 47's bound: at most 10.
  expect(calls.length).toBeLessThanOrEqual(10);
});
