import type { UIMessage } from 'ai';
import type { ApprovalBody, PendingApproval as ApiPendingApproval } from '../../shared/api/conversations';
import { ApiError } from '../errors';

/*
 * The turn's edits of the conversation's messages (AI SDK `UIMessage[]`),
 * as pure functions: which tool calls wait for the user, recording their
 * answers, where a regeneration cuts, what a stop or an abort leaves. The
 * store (conversation/history.ts) only keeps what these return.
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
  const index = messages.length - 1;
  const last = messages[index];
  if (last?.role !== 'assistant') return [];
  return last.parts.flatMap((part) => {
    if (!('toolCallId' in part) || part.state !== 'approval-requested') return [];
    const toolName = part.type === 'dynamic-tool' ? part.toolName : part.type.replace(/^tool-/, '');
    return [
      { toolCallId: part.toolCallId, toolName, input: part.input, approvalId: part.approval.id, messageIndex: index },
    ];
  });
}

/**
 * The message holding the tool call `toolCallId` waits on, with the user's
 * answer recorded in it; undefined if no such call is waiting.
 */
export function answerApproval(messages: UIMessage[], answer: ApprovalAnswer): UIMessage | undefined {
  const pending = pendingApprovals(messages).find((p) => p.toolCallId === answer.toolCallId);
  if (!pending) return undefined;
  const message = messages[pending.messageIndex]!;
  return {
    ...message,
    parts: message.parts.map((part) =>
      'toolCallId' in part && part.toolCallId === answer.toolCallId && part.state === 'approval-requested'
        ? {
            ...part,
            state: 'approval-responded',
            approval: {
              ...part.approval,
              approved: answer.approved,
              ...(answer.reason ? { reason: answer.reason } : {}),
            },
          }
        : part,
    ),
  };
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

/** Tool calls in the last assistant message still waiting for a client's result (tools the client runs: `useAgentChat`'s client tools). */
export function openToolCalls(messages: UIMessage[]): string[] {
  const last = messages.at(-1);
  if (last?.role !== 'assistant') return [];
  return last.parts.flatMap((part) =>
    'toolCallId' in part && part.state === 'input-available' && !part.providerExecuted ? [part.toolCallId] : [],
  );
}

/** The last message with a client tool's result recorded in it; undefined if no such call is waiting. */
export function answerToolCall(
  messages: UIMessage[],
  answer: { toolCallId: string; output: unknown; errorText?: string | undefined },
): UIMessage | undefined {
  if (!openToolCalls(messages).includes(answer.toolCallId)) return undefined;
  const message = messages.at(-1)!;
  return {
    ...message,
    parts: message.parts.map((part) =>
      'toolCallId' in part && part.toolCallId === answer.toolCallId && part.state === 'input-available'
        ? answer.errorText !== undefined
          ? { ...part, state: 'output-error', errorText: answer.errorText }
          : { ...part, state: 'output-available', output: answer.output ?? null }
        : part,
    ),
  };
}

/** A new message while client tool calls still wait: they get an error result, so the history stays valid for the model. */
export function settleOpenToolCalls(messages: UIMessage[]): UIMessage | undefined {
  const open = openToolCalls(messages);
  if (!open.length) return undefined;
  let message = messages.at(-1)!;
  for (const toolCallId of open)
    message = answerToolCall([...messages.slice(0, -1), message], {
      toolCallId,
      output: undefined,
      errorText: 'The client gave no result for this call before the next message.',
    })!;
  return message;
}

/** The last assistant message has answered calls and nothing waits: the turn can go on. */
export function answeredAndReady(messages: UIMessage[]): boolean {
  const last = messages.at(-1);
  if (last?.role !== 'assistant' || pendingApprovals(messages).length || openToolCalls(messages).length) return false;
  return last.parts.some((part) => 'toolCallId' in part && part.state === 'approval-responded');
}

/** The message holds an answered approval for `toolCallId`. */
export function answeredIn(message: UIMessage, toolCallId: string): boolean {
  return message.parts.some(
    (part) => 'toolCallId' in part && part.toolCallId === toolCallId && part.state === 'approval-responded',
  );
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
  const waiting = new Set(pendingApprovals(messages).map((p) => p.toolCallId));
  const fresh = answers.filter((a) => waiting.has(a.toolCallId));
  if (!fresh.length) {
    if (
      answers.length &&
      answeredAndReady(messages) &&
      answers.every((a) => answeredIn(messages.at(-1)!, a.toolCallId))
    )
      return { next: 'continue' };
    throw new ApiError(
      404,
      'approval_not_found',
      answers.length
        ? `No tool call ${answers[0]!.toolCallId} is waiting for approval`
        : 'None of the answered tool calls is waiting for approval',
    );
  }
  let current = messages;
  let message: UIMessage | undefined;
  for (const answer of fresh) {
    message = answerApproval(current, answer)!;
    current = [...current.slice(0, -1), message];
  }
  return { save: message!, next: pendingApprovals(current).length ? 'waiting' : 'continue' };
}

/**
 * Approval answers as a chat client sends them: its copy of the assistant
 * message, which may also carry answers of earlier steps the server already
 * acted on — only calls still waiting, or answered and not yet continued, count.
 */
export function clientApprovals(messages: UIMessage[], answers: ApprovalAnswer[]): ApprovalAnswer[] {
  const waiting = new Set(pendingApprovals(messages).map((p) => p.toolCallId));
  const last = messages.at(-1);
  return answers.filter((a) => waiting.has(a.toolCallId) || (last !== undefined && answeredIn(last, a.toolCallId)));
}

/** A decision or a client tool's result recorded, without continuing: the message to save, and `ready` when nothing in the step waits any more. 404 when the call does not wait. */
export function recordAnswer(messages: UIMessage[], answer: ToolCallAnswer): { message: UIMessage; ready: boolean } {
  const message = answer.kind === 'approval' ? answerApproval(messages, answer) : answerToolCall(messages, answer);
  if (!message) throw new ApiError(404, 'not_waiting', `No tool call ${answer.toolCallId} is waiting for this answer`);
  const after = [...messages.slice(0, -1), message];
  return { message, ready: !pendingApprovals(after).length && !openToolCalls(after).length };
}
