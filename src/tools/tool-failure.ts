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
