import type { UIMessage } from 'ai';
import type { ApprovalBody, PendingApproval as ApiPendingApproval } from '../../shared/api/conversations';
import { ApiError } from '../errors';
import { PendingStep } from './pending-step';

/*
 * The turn's edits of the conversation's messages (AI SDK `UIMessage[]`),
 * as pure functions: the user's answers to waiting calls as the API takes
 * them (what waits, and what settles it, is pending-step.ts's one model),
 * where a regeneration cuts, what a stop or an abort leaves. The store
 * (conversation/history.ts) only keeps what these return.
 */

/** What an approved tool call whose run an abort cut is answered with (it may have run: never run again blindly). */
export const INTERRUPTED_TOOL =
  'The conversation restarted while this approved tool call was running; whether it ran is unknown. Check before running it again.';

/** A user's decision on a tool call waiting for approval (the body of `POST …/approvals`). */
export type ApprovalAnswer = ApprovalBody;

/** What answers a waiting tool call: the user's decision, or the result of a tool the client runs. */
export type ToolCallAnswer =
  | ({ kind: 'approval' } & ApprovalAnswer)
  | { kind: 'tool-result'; toolCallId: string; output: unknown; errorText?: string | undefined };

/** A tool call waiting for the user's decision (as the API lists it), and the index of the assistant message holding it. */
export type PendingApproval = ApiPendingApproval & { messageIndex: number };

/** Tool calls in the last assistant message that wait for approval (they pause the turn). */
export function pendingApprovals(messages: UIMessage[]): PendingApproval[] {
  const messageIndex = messages.length - 1;
  return PendingStep.of(messages)
    .of('approval')
    .map(({ toolCallId, toolName, input, approvalId }) => ({ toolCallId, toolName, input, approvalId, messageIndex }));
}

/** An approved call whose run was cut becomes an error result; a denied one, the denial it already was. */
export function settleInterruptedApproval(part: UIMessage['parts'][number]): UIMessage['parts'][number] {
  if (!('toolCallId' in part) || part.state !== 'approval-responded') return part;
  if (!part.approval.approved)
    return { ...part, state: 'output-denied', approval: { ...part.approval, approved: false } };
  return {
    ...part,
    state: 'output-error',
    errorText: INTERRUPTED_TOOL,
    approval: { ...part.approval, approved: true },
  };
}

/**
 * Where a regeneration cuts the history, as `useChat`'s `regenerate()` does
 * on the client: at the assistant message `messageId` (or the last message),
 * or just after it when it is a user message. What stays must end with the
 * user message to answer again.
 */
export function regenerationCut(
  messages: UIMessage[],
  messageId?: string,
): { keep: number; replaceFrom: string | undefined } | undefined {
  const index = messageId === undefined ? messages.length - 1 : messages.findIndex((m) => m.id === messageId);
  const target = messages[index];
  if (!target) return undefined;
  const keep = target.role === 'assistant' ? index : index + 1;
  if (messages[keep - 1]?.role !== 'user') return undefined;
  return { keep, replaceFrom: messages[keep]?.id };
}

/** A new message while client tool calls still wait: they get an error result, so the history stays valid for the model. */
export function settleOpenToolCalls(messages: UIMessage[]): UIMessage | undefined {
  let step = PendingStep.of(messages);
  const open = step.of('client-result');
  if (!open.length) return undefined;
  let message: UIMessage | undefined;
  for (const { toolCallId } of open) {
    message = step.settle(toolCallId, {
      kind: 'error',
      errorText: 'The client gave no result for this call before the next message.',
    })!;
    step = step.after(message);
  }
  return message;
}

/**
 * The user's decisions on calls waiting for approval: the message to save at
 * once (the decision is the user's and must survive a failure of what
 * follows), and whether the turn may go on — `continue` when nothing of the
 * step waits any more, or when every answer was already recorded and the
 * turn did not go on (answered over the WebSocket without automatic
 * continuation, or the continuation failed); `waiting` while other calls of
 * the step still wait. 404 when none of them waits.
 */
export function recordApprovals(
  messages: UIMessage[],
  answers: ApprovalAnswer[],
): { save?: UIMessage; next: 'continue' | 'waiting' } {
  let step = PendingStep.of(messages);
  const fresh = answers.filter((a) => step.find(a.toolCallId)?.kind === 'approval');
  if (!fresh.length) {
    if (answers.length && step.ready() && answers.every((a) => step.decided(a.toolCallId))) return { next: 'continue' };
    throw new ApiError(
      404,
      'approval_not_found',
      answers.length
        ? `No tool call ${answers[0]!.toolCallId} is waiting for approval`
        : 'None of the answered tool calls is waiting for approval',
    );
  }
  let message: UIMessage | undefined;
  for (const answer of fresh) {
    message = step.settle(answer.toolCallId, { kind: 'approval', approved: answer.approved, reason: answer.reason })!;
    step = step.after(message);
  }
  return { save: message!, next: step.of('approval').length ? 'waiting' : 'continue' };
}

/**
 * Approval answers as a chat client sends them: its copy of the assistant
 * message, which may also carry answers of earlier steps the server already
 * acted on — only calls still waiting, or answered and not yet continued, count.
 */
export function clientApprovals(messages: UIMessage[], answers: ApprovalAnswer[]): ApprovalAnswer[] {
  const step = PendingStep.of(messages);
  return answers.filter((a) => step.find(a.toolCallId)?.kind === 'approval' || step.decided(a.toolCallId));
}

/** A decision or a client tool's result recorded, without continuing: the message to save, and `ready` when nothing in the step waits any more. 404 when the call does not wait. */
export function recordAnswer(messages: UIMessage[], answer: ToolCallAnswer): { message: UIMessage; ready: boolean } {
  const step = PendingStep.of(messages);
  const call = step.find(answer.toolCallId);
  const message =
    answer.kind === 'approval'
      ? step.settle(answer.toolCallId, { kind: 'approval', approved: answer.approved, reason: answer.reason })
      : call?.kind === 'client-result'
        ? step.settle(
            answer.toolCallId,
            answer.errorText !== undefined
              ? { kind: 'error', errorText: answer.errorText }
              : { kind: 'output', output: answer.output },
          )
        : undefined;
  if (!message) throw new ApiError(404, 'not_waiting', `No tool call ${answer.toolCallId} is waiting for this answer`);
  return { message, ready: step.after(message).ready() };
}
