import type { UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import type { ElicitationNotice } from '../../../shared/api/stream';
import type { McpSessions } from '../../mcp/sessions';
import { LegacyTaskQuestions } from './legacy-task-questions';
import type { TaskRow } from './task-store';

const row: TaskRow = {
  toolCallId: 'call-1',
  server: 'everything',
  tool: 'simulate-research-query',
  taskId: 'task-1',
  era: 'legacy',
  startedAt: 0,
  deadlineAt: Date.now() + 60_000,
  nextPollAt: 0,
  status: 'input_required',
  failures: 0,
  asked: [],
};

const SCHEMA = {
  type: 'object' as const,
  properties: { interpretation: { type: 'string' as const, enum: ['programming', 'snake'] } },
  required: ['interpretation'],
};

/** The questions over one saved answer holding the task's call; what they save is kept, what the result stream does is set per test. */
function setUp({ timeoutMs = 60_000, result = new Promise<never>(() => {}) } = {}) {
  let messages: UIMessage[] = [
    {
      id: 'a',
      role: 'assistant',
      parts: [
        { type: 'tool-everything__simulate-research-query', toolCallId: 'call-1', state: 'input-available', input: {} },
      ],
    } as UIMessage,
  ];
  const polled: string[] = [];
  const questions = new LegacyTaskQuestions({
    history: { load: () => messages },
    save: (message) => {
      messages = messages.map((m) => (m.id === message.id ? message : m));
    },
    rows: () => [row],
    elicitationTimeoutMs: () => timeoutMs,
    withMcp: (work) => work({ awaitTaskResult: () => result } as unknown as McpSessions),
    pollSoon: (toolCallId) => polled.push(toolCallId),
  });
  const notices = () =>
    messages[0]!.parts.filter((p) => p.type === 'data-elicitation').map((p) => (p as { data: ElicitationNotice }).data);
  return { questions, notices, polled };
}

const ask = (questions: LegacyTaskQuestions, taskId = 'task-1') =>
  questions.ask('everything', taskId, { mode: 'form', message: 'Which one?', requestedSchema: SCHEMA }, undefined);

describe('the questions of 2025 tasks', () => {
  it('a question is shown pending in the task’s step; the checked answer resolves it and is kept', async () => {
    const { questions, notices } = setUp();
    const asked = ask(questions);
    const [pending] = notices();
    expect(pending).toMatchObject({ server: 'everything', message: 'Which one?', status: 'pending' });
    expect(pending!.id).toMatch(/^task:call-1:/);
    expect(() =>
      questions.answer(row, pending!.id, { action: 'accept', content: { interpretation: 'lizard' } }),
    ).toThrow(/does not fit/);
    expect(notices()[0]!.status).toBe('pending');
    questions.answer(row, pending!.id, { action: 'accept', content: { interpretation: 'snake' } });
    await expect(asked).resolves.toEqual({ action: 'accept', content: { interpretation: 'snake' } });
    expect(notices()[0]).toMatchObject({ status: 'accept', content: { interpretation: 'snake' } });
  });

  it('the server stopping to wait expires the question: cancelled for the server, expired for the user, 404 after', async () => {
    const { questions, notices } = setUp();
    const asked = ask(questions);
    questions.expire('call-1');
    await expect(asked).resolves.toEqual({ action: 'cancel' });
    expect(notices()[0]!.status).toBe('expired');
    expect(() => questions.answer(row, notices()[0]!.id, { action: 'decline' })).toThrow(/no longer waiting/);
  });

  it('nobody answering within ELICITATION_TIMEOUT_MS expires it', async () => {
    const { questions, notices } = setUp({ timeoutMs: 20 });
    await expect(ask(questions)).resolves.toEqual({ action: 'cancel' });
    expect(notices()[0]!.status).toBe('expired');
  });

  it('a question for a task the conversation does not follow is cancelled at once, and shown nowhere', async () => {
    const { questions, notices } = setUp();
    await expect(ask(questions, 'another-task')).resolves.toEqual({ action: 'cancel' });
    expect(notices()).toEqual([]);
  });

  it('the result stream is opened once per task; when it ends, pending questions expire and the task is looked at again', async () => {
    let end!: () => void;
    const result = new Promise<never>((_resolve, reject) => (end = () => reject(new Error('closed'))));
    const { questions, notices, polled } = setUp({ result });
    questions.listen(row);
    questions.listen(row); // already open: nothing more
    const asked = ask(questions);
    end();
    await expect(asked).resolves.toEqual({ action: 'cancel' });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(notices()[0]!.status).toBe('expired');
    expect(polled).toEqual(['call-1']);
  });
});
