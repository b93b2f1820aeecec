import { NoSuchToolError } from 'ai';
import { noSuchTool, ToolFailure } from '../tools/tool-failure';

/**
 * The error text the stream carries — a tool's failure, or a model call's —
 * without stack traces or credentials. The AI SDK sends tool errors through
 * here too: a ToolFailure says which tool failed; a call the model made with
 * arguments that do not fit the tool arrives as the AI SDK's text ("Invalid
 * input for tool …"); a call of a tool that does not exist is said in words,
 * with the few closest names (not the AI SDK's list of every tool, cut at
 * 1,000 characters); only the rest is the model's own failure.
 */
export function describeTurnError(error: unknown): string {
  if (NoSuchToolError.isInstance(error)) return noSuchTool(error.toolName, error.availableTools);
  const message = error instanceof Error ? error.message : String(error);
  const safe = message.replace(KEY_SHAPE, '[redacted]').slice(0, 1_000);
  if (error instanceof ToolFailure || INVALID_TOOL_INPUT.test(message)) return safe;
  return `The model call failed: ${safe.slice(0, 500)}`;
}

/**
 * A provider key or token in an error text (`sk-proj-…`, `key_…`, `token-…`): a prefix at a word's start, then a run
 * with a digit in it. Words that merely contain "sk", "key" or "token" (TASKS_PER_CONVERSATION, asking_…) are left.
 */
const KEY_SHAPE = /\b(?:sk|pk|rk|key|token)[-_](?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{12,}/gi;

/** How the AI SDK words a tool call whose arguments failed the tool's schema (InvalidToolInputError, passed on as text). */
const INVALID_TOOL_INPUT = /^Invalid input for tool /;
