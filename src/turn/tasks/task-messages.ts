import type { UIMessage } from 'ai';
import type { ElicitationNotice, TaskNotice } from '../../../shared/api/stream';
import { PendingStep } from '../pending-step';

/*
 * The edits a task makes to the answer it belongs to, as pure functions over
 * UI messages: its `data-task` part (id: the tool call's) updated as it
 * moves, and a question it asks as a `data-elicitation` part. Its result
 * settles the call as every waiting call is settled (turn/pending-step.ts).
 */

type Part = UIMessage['parts'][number];
type ToolPart = Part & { toolCallId: string; state: string };

const isToolPart = (part: Part): part is ToolPart =>
  typeof (part as { toolCallId?: unknown }).toolCallId === 'string' && 'state' in part;

/** The message (and its index) holding the tool call `toolCallId`, newest first. */
export function messageWithToolCall(
  messages: UIMessage[],
  toolCallId: string,
): { message: UIMessage; index: number } | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.parts.some((part) => isToolPart(part) && part.toolCallId === toolCallId)) return { message, index };
  }
  return undefined;
}

/** `message` with its `data-task` part for `notice.toolCallId` set to `notice` (added after the tool part when it has none yet). */
export function withTaskNotice(message: UIMessage, notice: TaskNotice): UIMessage {
  const part = { type: 'data-task', id: notice.toolCallId, data: notice } as unknown as Part;
  const at = message.parts.findIndex((p) => p.type === 'data-task' && (p as { id?: string }).id === notice.toolCallId);
  if (at >= 0) return { ...message, parts: message.parts.map((p, i) => (i === at ? part : p)) };
  const tool = message.parts.findIndex((p) => isToolPart(p) && p.toolCallId === notice.toolCallId);
  const parts = [...message.parts];
  parts.splice(tool >= 0 ? tool + 1 : parts.length, 0, part);
  return { ...message, parts };
}

/** The task's notice as the message keeps it. */
export function taskNoticeOf(message: UIMessage, toolCallId: string): TaskNotice | undefined {
  const part = message.parts.find((p) => p.type === 'data-task' && (p as { id?: string }).id === toolCallId) as
    | { data?: TaskNotice }
    | undefined;
  return part?.data;
}

/** `message` with a `data-elicitation` part (a task's question) set to `notice` (added at the end the first time). */
export function withElicitation(message: UIMessage, notice: ElicitationNotice): UIMessage {
  const part = { type: 'data-elicitation', id: notice.id, data: notice } as unknown as Part;
  const at = message.parts.findIndex((p) => p.type === 'data-elicitation' && (p as { id?: string }).id === notice.id);
  return { ...message, parts: at >= 0 ? message.parts.map((p, i) => (i === at ? part : p)) : [...message.parts, part] };
}

/** A `data-elicitation` part of the message, by id. */
export function elicitationOf(message: UIMessage, id: string): ElicitationNotice | undefined {
  const part = message.parts.find((p) => p.type === 'data-elicitation' && (p as { id?: string }).id === id) as
    | { data?: ElicitationNotice }
    | undefined;
  return part?.data;
}

/**
 * `message` without a last step that holds nothing the model said or called — only `data-*` parts, or nothing: the
 * stand-in step of a continuation whose approved call became a task (turn/no-model-step.ts). Kept while the task runs
 * (a chat client's `lastAssistantMessageIsCompleteWithApprovalResponses` reads the last step: with the approved call
 * in it, still `approval-responded`, it would send the approval again); dropped when the answer goes on, since the
 * AI SDK looks a re-sent call up in the last step only (turn/settled-tasks.ts), and would store and show it twice.
 */
export function withoutEmptyLastStep(message: UIMessage): UIMessage {
  const at = message.parts.findLastIndex((p) => p.type === 'step-start');
  if (at < 0 || message.parts.slice(at + 1).some((p) => !p.type.startsWith('data-'))) return message;
  // A step is only empty after another: the answer's first step stays.
  if (!message.parts.slice(0, at).some((p) => p.type === 'step-start')) return message;
  return { ...message, parts: message.parts.filter((_, i) => i !== at) };
}

/**
 * `message` with its `waitingForTasks` flag (what clients read: the widget looks again while it is true) as its
 * pending step says — a call still runs as a task — not kept beside it: derived whenever the follower saves the answer,
 * so a settled or stopped task can never leave it waiting.
 */
export function withTaskWait(message: UIMessage): UIMessage {
  const metadata = (message.metadata ?? {}) as { waitingForTasks?: boolean };
  const waiting = message.role === 'assistant' && PendingStep.of([message]).of('task').length > 0;
  if (metadata.waitingForTasks === waiting || (!waiting && metadata.waitingForTasks === undefined)) return message;
  return { ...message, metadata: { ...metadata, waitingForTasks: waiting } };
}
