import type { UIMessage, UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { settledTaskChunks, taskParts } from './settled-tasks';

const notice = (toolCallId: string, status: string) => ({
  toolCallId,
  server: 'jobs',
  tool: 'build',
  taskId: `t-${toolCallId}`,
  status,
  startedAt: 1,
  updatedAt: 2,
});

const answer = (parts: unknown[]): UIMessage => ({ id: 'a', role: 'assistant', parts: parts as UIMessage['parts'] });

describe('settledTaskChunks: the calls that ended as tasks, re-sent to the stream that goes on', () => {
  it('a completed call and a failed one: input, outcome, final task part — keyed by the call', () => {
    const chunks = settledTaskChunks([
      { id: 'u', role: 'user', parts: [{ type: 'text', text: 'go' }] },
      answer([
        { type: 'step-start' },
        { type: 'tool-jobs__build', toolCallId: 'c1', state: 'output-available', input: { steps: 3 }, output: 'ok' },
        { type: 'data-task', id: 'c1', data: notice('c1', 'completed') },
        { type: 'tool-jobs__explode', toolCallId: 'c2', state: 'output-error', input: {}, errorText: 'fire' },
        { type: 'data-task', id: 'c2', data: notice('c2', 'failed') },
      ]),
    ]);
    expect(chunks).toEqual([
      { type: 'tool-input-available', toolCallId: 'c1', toolName: 'jobs__build', input: { steps: 3 } },
      { type: 'tool-output-available', toolCallId: 'c1', output: 'ok' },
      { type: 'data-task', id: 'c1', data: notice('c1', 'completed') },
      { type: 'tool-input-available', toolCallId: 'c2', toolName: 'jobs__explode', input: {} },
      { type: 'tool-output-error', toolCallId: 'c2', errorText: 'fire' },
      { type: 'data-task', id: 'c2', data: notice('c2', 'failed') },
    ]);
  });

  it('nothing for a task still running, an answer without tasks, or a new message', () => {
    const running = answer([
      { type: 'tool-jobs__build', toolCallId: 'c1', state: 'input-available', input: {} },
      { type: 'data-task', id: 'c1', data: notice('c1', 'working') },
    ]);
    expect(settledTaskChunks([running])).toEqual([]);
    expect(settledTaskChunks([answer([{ type: 'text', text: 'hi' }])])).toEqual([]);
    expect(settledTaskChunks([{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'go' }] }])).toEqual([]);
  });
});

describe("taskParts: the one stage for tasks in the turn's stream", () => {
  const run = async (chunks: UIMessageChunk[], resent: UIMessageChunk[]) => {
    const source = new ReadableStream<UIMessageChunk>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    const out: UIMessageChunk[] = [];
    const reader = source.pipeThrough(taskParts<UIMessageChunk>(resent)).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
    return out;
  };

  it('puts the chunks right after the start chunk, once', async () => {
    const out = await run([{ type: 'start' }, { type: 'start-step' }, { type: 'finish' }] as UIMessageChunk[], [
      { type: 'data-x', data: 1 } as UIMessageChunk,
    ]);
    expect(out.map((c) => c.type)).toEqual(['start', 'data-x', 'start-step', 'finish']);
  });

  it("a task's placeholder output becomes its data-task part; other outputs pass", async () => {
    const placeholder = {
      server: 'jobs',
      tool: 'build',
      text: '',
      images: [],
      task: { taskId: 't1', status: 'working' },
    };
    const out = await run(
      [
        { type: 'tool-output-available', toolCallId: 'c1', output: placeholder },
        { type: 'tool-output-available', toolCallId: 'c2', output: 'plain' },
      ] as UIMessageChunk[],
      [],
    );
    expect(out[0]).toMatchObject({
      type: 'data-task',
      id: 'c1',
      data: { toolCallId: 'c1', taskId: 't1', status: 'working' },
    });
    expect(out[1]).toEqual({ type: 'tool-output-available', toolCallId: 'c2', output: 'plain' });
  });
});
