import type { UIMessage } from 'ai';
import type { ElicitationNotice, TaskNotice } from '../../shared/api/stream';

/*
 * The last answer's open calls, as one model: what the answer waits for before the turn can go on. Every waiting
 * kind — a call the user must approve, a call whose result the client sends (useAgentChat's client tools), a call the
 * server runs as a task (MCP Tasks), a question a task asks — is one kind of pending call here; `settle` writes an
 * outcome into the answer and `ready` says whether nothing waits any more. The runner, the WebSocket and the task
 * follower all decide through it (the AI SDK's `last-assistant-message-is-complete-with-*` predicates are the model:
 * one rule, one place). Pure: the store keeps what these return.
 */

type Part = UIMessage['parts'][number];
type ToolPart = Part & {
  toolCallId: string;
  state: string;
  input?: unknown;
  providerExecuted?: boolean;
  approval?: { id: string; approved?: boolean; reason?: string };
};

/** One open call of the last answer, by what it waits for. */
export type PendingCall =
  | { kind: 'approval'; toolCallId: string; toolName: string; input: unknown; approvalId: string }
  | { kind: 'client-result'; toolCallId: string; toolName: string }
  | { kind: 'task'; toolCallId: string; toolName: string; task: TaskNotice }
  | { kind: 'question'; toolCallId: string; questionId: string };

/** What settles an open call: the user's decision, the call's output, or its failure. */
export type CallOutcome =
  | { kind: 'approval'; approved: boolean; reason?: string | undefined }
  | { kind: 'output'; output: unknown }
  | { kind: 'error'; errorText: string };

const isToolPart = (part: Part): part is ToolPart =>
  typeof (part as { toolCallId?: unknown }).toolCallId === 'string' && 'state' in part;

const toolNameOf = (part: ToolPart) =>
  part.type === 'dynamic-tool' ? (part as { toolName: string }).toolName : part.type.replace(/^tool-/, '');

/** The open calls of the last message when it is an answer (none otherwise), in the answer's order. */
export class PendingStep {
  readonly calls: readonly PendingCall[];
  /** The answer the calls belong to (undefined when the last message is not an answer). */
  readonly answer: UIMessage | undefined;

  private constructor(readonly messages: readonly UIMessage[]) {
    const last = messages.at(-1);
    this.answer = last?.role === 'assistant' ? last : undefined;
    this.calls = this.answer ? openCalls(this.answer) : [];
  }

  static of(messages: readonly UIMessage[]): PendingStep {
    return new PendingStep(messages);
  }

  /** The open calls of one kind. */
  of<K extends PendingCall['kind']>(kind: K): Extract<PendingCall, { kind: K }>[] {
    return this.calls.filter((c): c is Extract<PendingCall, { kind: K }> => c.kind === kind);
  }

  /** The open call `toolCallId` (a question: by its id). */
  find(id: string): PendingCall | undefined {
    return this.calls.find((c) => (c.kind === 'question' ? c.questionId === id : c.toolCallId === id));
  }

  /** Nothing of the answer waits any more: no decision, no client result, no task, no question. */
  ready(): boolean {
    return this.answer !== undefined && this.calls.length === 0;
  }

  /** The answer with `outcome` written into the open call `toolCallId`; undefined when no such call waits for that kind of outcome. */
  settle(toolCallId: string, outcome: CallOutcome): UIMessage | undefined {
    const call = this.calls.find((c) => c.kind !== 'question' && c.toolCallId === toolCallId);
    if (!call || !this.answer || (outcome.kind === 'approval') !== (call.kind === 'approval')) return undefined;
    return withOutcome(this.answer, toolCallId, outcome);
  }

  /** The answer holds a decision on `toolCallId` not yet acted on (the AI SDK runs it when the turn goes on). */
  decided(toolCallId: string): boolean {
    return (
      !this.calls.some((c) => c.toolCallId === toolCallId) &&
      (this.answer?.parts ?? []).some(
        (part) => isToolPart(part) && part.toolCallId === toolCallId && part.state === 'approval-responded',
      )
    );
  }

  /** The step after settling `toolCallId`. */
  after(message: UIMessage): PendingStep {
    return new PendingStep([...this.messages.slice(0, -1), message]);
  }
}

/**
 * `message` with the tool call `toolCallId` given its outcome: a decision (`approval-responded`, which the AI SDK acts
 * on when the turn goes on), an output or an error. Also for a call no longer last (a task's result lands in the
 * answer that made it).
 */
export function withOutcome(message: UIMessage, toolCallId: string, outcome: CallOutcome): UIMessage {
  return {
    ...message,
    parts: message.parts.map((part) => {
      if (!isToolPart(part) || part.toolCallId !== toolCallId) return part;
      if (outcome.kind === 'approval')
        return {
          ...part,
          state: 'approval-responded',
          approval: {
            ...part.approval,
            approved: outcome.approved,
            ...(outcome.reason ? { reason: outcome.reason } : {}),
          },
        } as Part;
      const { output: _o, errorText: _e, ...rest } = part as ToolPart & { output?: unknown; errorText?: unknown };
      return (
        outcome.kind === 'output'
          ? { ...rest, state: 'output-available', output: outcome.output ?? null }
          : { ...rest, state: 'output-error', errorText: outcome.errorText }
      ) as Part;
    }),
  };
}

function openCalls(answer: UIMessage): PendingCall[] {
  const tasks = new Map<string, TaskNotice>();
  for (const part of answer.parts)
    if (part.type === 'data-task') {
      const notice = (part as { data: TaskNotice }).data;
      tasks.set(notice.toolCallId, notice);
    }
  const calls: PendingCall[] = [];
  // A call that became a task keeps the state it ran from until the task's result settles it: `input-available`, or
  // `approval-responded` when it ran on the user's approval.
  const running = new Set(
    answer.parts.flatMap((part) =>
      isToolPart(part) &&
      (part.state === 'input-available' || part.state === 'approval-responded') &&
      tasks.has(part.toolCallId)
        ? [part.toolCallId]
        : [],
    ),
  );
  for (const part of answer.parts) {
    if (part.type === 'data-elicitation') {
      // A running task's question (a turn's own questions live in the running turn, never in a saved answer); its id
      // begins with the task's call id (turn/tasks/).
      const notice = (part as { data: ElicitationNotice }).data;
      const task =
        notice.status === 'pending' ? [...running].find((id) => notice.id.startsWith(`task:${id}:`)) : undefined;
      if (task !== undefined) calls.push({ kind: 'question', toolCallId: task, questionId: notice.id });
      continue;
    }
    if (!isToolPart(part)) continue;
    if (part.state === 'approval-requested' && part.approval)
      calls.push({
        kind: 'approval',
        toolCallId: part.toolCallId,
        toolName: toolNameOf(part),
        input: part.input,
        approvalId: part.approval.id,
      });
    else if (running.has(part.toolCallId))
      calls.push({
        kind: 'task',
        toolCallId: part.toolCallId,
        toolName: toolNameOf(part),
        task: tasks.get(part.toolCallId)!,
      });
    else if (part.state === 'input-available' && !part.providerExecuted)
      calls.push({ kind: 'client-result', toolCallId: part.toolCallId, toolName: toolNameOf(part) });
  }
  return calls;
}
