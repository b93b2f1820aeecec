import type { ServerWarning } from '../../../shared/api/catalog';
import type { ServerState } from './catalog';

/**
 * Sets what was mended in the latest results of `method` (lenient-results.ts)
 * among a server's warnings, replacing what that method had before (a
 * definition's change, `setChangeWarnings`, is not among them). True when
 * the warnings changed (the caller saves the state).
 */
export function setWarnings(
  state: Pick<ServerState, 'warnings'>,
  method: string,
  messages: readonly string[],
): boolean {
  const others = (state.warnings ?? []).filter((w) => w.method !== method || w.change);
  return replaceWarnings(state, [...others, ...messages.map((message) => ({ method, message }))]);
}

/** Sets the warnings about definitions that changed since they were approved (definition-check.ts), replacing the earlier ones. */
export function setChangeWarnings(state: Pick<ServerState, 'warnings'>, changes: readonly ServerWarning[]): boolean {
  return replaceWarnings(state, [...(state.warnings ?? []).filter((w) => !w.change), ...changes]);
}

function replaceWarnings(state: Pick<ServerState, 'warnings'>, next: ServerWarning[]): boolean {
  const before = state.warnings ?? [];
  if (next.length === before.length && next.every((w, i) => JSON.stringify(w) === JSON.stringify(before[i])))
    return false;
  if (next.length) state.warnings = next;
  else delete state.warnings;
  return true;
}

/** The messages of `method` among a server's warnings (mended results; not the definitions' changes). */
export function warningsOf(state: Pick<ServerState, 'warnings'>, method: string): string[] {
  return (state.warnings ?? []).filter((w) => w.method === method && !w.change).map((w) => w.message);
}

/**
 * A server-controlled name as a warning or log line shows it: one line
 * (JSON's escapes for control characters, and `\uXXXX` for the line and
 * paragraph separators and bidirectional controls JSON leaves raw), in
 * backticks it cannot close, at most 64 characters — a hostile name cannot
 * break, reorder or forge a line.
 */
export function quotedName(name: string): string {
  const flat = JSON.stringify(name)
    .slice(1, -1)
    .replace(/`/g, "'")
    .replace(
      /[\u0085\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  return `\`${flat.length > 64 ? `${flat.slice(0, 63)}…` : flat}\``;
}
