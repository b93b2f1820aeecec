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
 * The AI SDK's text for an invalid tool call as one sentence, undefined for any other text:
 * - a call whose arguments do not fit the tool's schema (InvalidToolInputError, its causes chained:
 *   `[AI_InvalidToolInputError: ]Invalid input for tool demo__x: AI_TypeValidationError: Type validation failed:
 *   Value: {…}.\nError message: Error: argument "title": …`) names the tool as ToolFailure's other failures do, and
 *   the argument (zod's issues, for our own tools, read the same way);
 * - a call of a tool that does not exist (NoSuchToolError: `[AI_NoSuchToolError: ]Model tried to call unavailable
 *   tool 'x'. Available tools: …` — every tool of the step, 38 names and more) says so with the few closest names
 *   (`noSuchTool`).
 * Applied where that text surfaces — the step's `tool-input-error` chunk (turn/settled-tasks.ts) and the tool result
 * the next step sends the model (turn/stream.ts) — rather than as a stage of the model's stream, which would cost CPU
 * on every chunk of every answer.
 */
export function plainInvalidInput(text: string): string | undefined {
  const unknown = NO_SUCH_TOOL.exec(text);
  if (unknown) {
    const [, name, list] = unknown as unknown as [string, string, string | undefined];
    return noSuchTool(name, list === undefined ? [] : availableNames(list));
  }
  const match = /^(?:AI_InvalidToolInputError: )?Invalid input for tool ([^\s:]+): ([\s\S]*)$/.exec(text);
  if (!match) return undefined;
  const [, toolName, rest] = match as unknown as [string, string, string];
  const reason = /Error message: (?:\w*Error: )?([\s\S]*)$/.exec(rest)?.[1] ?? rest;
  return `${toolLabel(toolName)} was not called: ${zodIssues(reason.trim()) ?? (reason.trim() || 'its arguments do not fit the tool’s input schema.')}`;
}

/** How the AI SDK words a call of a tool the step does not have (NoSuchToolError's message, maybe with its name). */
const NO_SUCH_TOOL =
  /^(?:AI_NoSuchToolError: )?Model tried to call unavailable tool '([\s\S]*?)'\. (?:Available tools: ([\s\S]*)|No tools are available\.)$/;

/** The names of "Available tools: a, b, c." — a list cut short (the stream's error text stops at 1,000 characters) loses its last, partial name. */
function availableNames(list: string): string[] {
  const names = list.split(', ');
  if (list.endsWith('.')) names[names.length - 1] = names.at(-1)!.slice(0, -1);
  else names.pop();
  return names.filter(Boolean);
}

/**
 * A call of a tool that does not exist, in words: the name it used, and the (up to) three names of the step's tools
 * closest to it — by spelling (edit distance) or by the words in them (`read_resources` → `read_resource`,
 * `search_resource`) — never the whole list, which the model was given already. With `search_tools` among them, it is
 * reminded that a server tool not offered yet is found with it.
 */
export function noSuchTool(called: string, available: readonly string[] = []): string {
  // The model's own text: a name as providers allow (64 characters), not a paragraph.
  const name = called.length > 80 ? `${called.slice(0, 80)}…` : called;
  if (!available.length) return `There is no tool "${name}", and no tools can be called now.`;
  const closest = closestNames(called, available, 3);
  const guess = closest.length
    ? ` Did you mean ${closest.map((n) => `"${n}"`).join(closest.length === 2 ? ' or ' : ', ')}?`
    : '';
  const search = available.includes('search_tools')
    ? ' A server tool that is not offered yet is found with search_tools.'
    : '';
  return `There is no tool "${name}".${guess} Call only the tools you were given, by their exact names.${search}`;
}

/** Of `names`, the `count` closest to `name` (at least half alike by spelling or by words), closest first. */
export function closestNames(name: string, names: readonly string[], count: number): string[] {
  const words = wordsOf(name);
  return names
    .map((candidate, order) => {
      const spelling =
        1 - editDistance(name.toLowerCase(), candidate.toLowerCase()) / Math.max(name.length, candidate.length);
      const theirs = wordsOf(candidate);
      const shared = [...words].filter((w) => theirs.has(w)).length;
      const byWords = shared / new Set([...words, ...theirs]).size;
      return { candidate, order, spelling, score: Math.max(spelling, byWords) };
    })
    .filter((c) => c.score >= 0.5 && c.candidate !== name)
    .sort((a, b) => b.score - a.score || b.spelling - a.spelling || a.order - b.order)
    .slice(0, count)
    .map((c) => c.candidate);
}

/** The words of a tool name (`demo__create_tasks` → demo, create, task), a plural's `s` taken off. */
function wordsOf(name: string): Set<string> {
  return new Set(
    name
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean)
      .map((w) => (w.length > 3 && w.endsWith('s') ? w.slice(0, -1) : w)),
  );
}

/** Levenshtein distance (tool names are at most 64 characters: one row of numbers). */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
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
