import { InvalidToolInputError, type StreamTextTransform, type ToolSet } from 'ai';

/**
 * A tool call that failed, worded as such: which tool of which server, and
 * what it said. What the model gets as the tool's error and what the person
 * sees in the step — never "The model call failed", which is for the model's
 * own request (turn/turn-error.ts, `describeTurnError`).
 */
export class ToolFailure extends Error {
  override readonly name = 'ToolFailure';
  constructor(message: string) {
    super(message);
  }

  /** The text alone: what the model is sent for a failed tool (the AI SDK sends `String(error)`), never "ToolFailure: …". */
  override toString(): string {
    return this.message;
  }

  /**
   * A call the model made with arguments that do not fit the tool's schema (the AI SDK's InvalidToolInputError, whose
   * text chains its causes: `Invalid input for tool … AI_TypeValidationError: Type validation failed: Value: {…}.
   * Error message: Error: …`): the tool's name and the last sentence, which names the argument.
   */
  static invalidInput(toolName: string, error: unknown): ToolFailure {
    return new ToolFailure(`${toolLabel(toolName)} was not called: ${innermostReason(error)}`);
  }

  /**
   * An MCP tool's request that failed (-32602, -32601, a timeout, …): the
   * upstream error's own wording (`MCP server "x" did not answer in time: …`)
   * with the tool in front.
   */
  static mcpRequest(server: string, tool: string, error: unknown): ToolFailure {
    const message = error instanceof Error ? error.message : String(error);
    const prefix = `MCP server "${server}" `;
    return new ToolFailure(
      message.startsWith(prefix) ? `Tool "${tool}" of ${message}` : `Tool "${tool}" of ${prefix}failed: ${message}`,
    );
  }

  /** An MCP tool's result with `isError`: what the tool said. */
  static mcpResult(server: string, tool: string, text: string): ToolFailure {
    return new ToolFailure(`Tool "${tool}" of MCP server "${server}" returned an error: ${text || '(no text)'}`);
  }

  /** A synthetic tool's (read_resource, invoke_prompt, …) or a client tool's failure. */
  static of(tool: string, error: unknown): ToolFailure {
    if (error instanceof ToolFailure) return error;
    return new ToolFailure(`Tool "${tool}" failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** `Tool "create_task" of MCP server "demo"` for the MCP tool `demo__create_task`; `Tool "read_resource"` for ours. */
function toolLabel(name: string): string {
  const at = name.indexOf('__');
  return at > 0 ? `Tool "${name.slice(at + 2)}" of MCP server "${name.slice(0, at)}"` : `Tool "${name}"`;
}

/** Why the arguments were refused, from the innermost cause: our schema check's sentence, zod's issues, or bad JSON. */
function innermostReason(error: unknown): string {
  let cause: unknown = error;
  while (cause instanceof Error && cause.cause !== undefined && cause.cause !== cause) cause = cause.cause;
  const issues = (cause as { issues?: Array<{ path?: PropertyKey[]; message?: string }> } | undefined)?.issues;
  if (Array.isArray(issues) && issues.length)
    return issues
      .map((issue) => {
        const path = (issue.path ?? []).map(String).join('.');
        return `${path ? `argument "${path}": ` : ''}${issue.message ?? 'invalid'}`;
      })
      .join('; ');
  if (cause instanceof Error && cause.name === 'AI_JSONParseError') return 'its arguments are not valid JSON.';
  const message = cause instanceof Error ? cause.message : String(cause);
  return message || 'its arguments do not fit the tool’s input schema.';
}

/**
 * The turn's stream stage that words an invalid tool call as the tool's failure (ToolFailure.invalidInput), before the
 * step's messages are recorded: so the model's next step and the person's step read one sentence, not the AI SDK's
 * chain of errors. The AI SDK marks the call `invalid` with its error (what the step shows), then sends its
 * `tool-error` with that error already made text (what the model is sent): both are replaced.
 */
export const invalidToolInputWording: StreamTextTransform<ToolSet> = () => {
  const worded = new Map<string, ToolFailure>();
  return new TransformStream({
    transform(part, controller) {
      if (part.type === 'tool-call' && part.invalid && InvalidToolInputError.isInstance(part.error)) {
        const failure = ToolFailure.invalidInput(part.toolName, part.error);
        worded.set(part.toolCallId, failure);
        controller.enqueue({ ...part, error: failure });
        return;
      }
      const failure = part.type === 'tool-error' ? worded.get(part.toolCallId) : undefined;
      if (failure) {
        worded.delete((part as { toolCallId: string }).toolCallId);
        controller.enqueue({ ...part, error: failure.message } as typeof part);
        return;
      }
      controller.enqueue(part);
    },
  });
};

/**
 * The turn's tools with every failure a ToolFailure naming the tool. A stop
 * (the abort) passes as it is: that is no tool's failure.
 */
export function withToolFailures<
  T extends Record<string, { execute?: ((input: never, options: never) => unknown) | undefined }>,
>(tools: T): T {
  const named: Record<string, unknown> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute as
      | ((input: unknown, options: { abortSignal?: AbortSignal }) => Promise<unknown>)
      | undefined;
    named[name] = execute
      ? {
          ...tool,
          execute: async (input: unknown, options: { abortSignal?: AbortSignal }) => {
            try {
              return await execute(input, options);
            } catch (error) {
              if (options?.abortSignal?.aborted) throw error;
              throw ToolFailure.of(name, error);
            }
          },
        }
      : tool;
  }
  return named as T;
}
