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

/**
 * The AI SDK's text for a call whose arguments do not fit the tool's schema (InvalidToolInputError, its causes
 * chained: `[AI_InvalidToolInputError: ]Invalid input for tool demo__x: AI_TypeValidationError: Type validation
 * failed: Value: {…}.\nError message: Error: argument "title": …`) as one sentence naming the tool as ToolFailure's
 * other failures do, and the argument (zod's issues, for our own tools, read the same way); undefined for any other
 * text. Applied where that text surfaces — the step's
 * `tool-input-error` chunk (turn/settled-tasks.ts) and the tool result the next step sends the model (turn/stream.ts)
 * — rather than as a stage of the model's stream, which would cost CPU on every chunk of every answer.
 */
export function plainInvalidInput(text: string): string | undefined {
  const match = /^(?:AI_InvalidToolInputError: )?Invalid input for tool ([^\s:]+): ([\s\S]*)$/.exec(text);
  if (!match) return undefined;
  const [, toolName, rest] = match as unknown as [string, string, string];
  const reason = /Error message: (?:\w*Error: )?([\s\S]*)$/.exec(rest)?.[1] ?? rest;
  return `${toolLabel(toolName)} was not called: ${zodIssues(reason.trim()) ?? (reason.trim() || 'its arguments do not fit the tool’s input schema.')}`;
}

/** Zod's issues (a JSON array) as `argument "path": message`; undefined when the text is not that. */
function zodIssues(text: string): string | undefined {
  if (!text.startsWith('[')) return undefined;
  try {
    const issues = JSON.parse(text) as Array<{ path?: unknown[]; message?: string }>;
    if (!Array.isArray(issues) || !issues.length) return undefined;
    return issues
      .map((issue) => {
        const path = Array.isArray(issue.path) ? issue.path.map(String).join('.') : '';
        return `${path ? `argument "${path}": ` : ''}${issue.message ?? 'invalid'}.`;
      })
      .join(' ');
  } catch {
    return undefined;
  }
}

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
