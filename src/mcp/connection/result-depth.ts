/**
 * Refuses results nested deeper than `maxDepth`. JSON.parse builds any depth
 * (V8's parser is iterative), but what comes after is recursive —
 * JSON.stringify for KV and history, structured clone across RPC — and a
 * result nested 100,000 levels deep overflowed the stack there: an
 * unhandled 500 instead of an error naming the server. Checked once per
 * result, iteratively, so the check cannot overflow itself.
 */
export function assertDepthAtMost(value: unknown, maxDepth: number): void {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= maxDepth)
      throw new Error(
        `the server sent a result nested more than ${maxDepth} levels deep (MCP_MAX_RESULT_DEPTH); it was refused`,
      );
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
}
