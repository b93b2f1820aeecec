/** Types for the part of stack.mjs the browser tests use (test/browser/service.ts). */
export function startWrangler(options: {
  port: number;
  inspectorPort: number;
  vars: Record<string, string>;
  config?: string;
  /** More `wrangler dev` arguments (e.g. `--no-minify`). */
  args?: string[];
  startupTimeoutMs?: number;
}): Promise<{
  base: string;
  output(): string;
  stop(): Promise<void>;
}>;
