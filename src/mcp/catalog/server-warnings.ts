import type { ServerWarning } from '../../../shared/api/catalog';
import type { ServerState } from './catalog';

/**
 * Sets what was mended in the latest results of `method` (lenient-results.ts)
 * among a server's warnings, replacing what that method had before. True
 * when the warnings changed (the caller saves the state).
 */
export function setWarnings(
  state: Pick<ServerState, 'warnings'>,
  method: string,
  messages: readonly string[],
): boolean {
  const others = (state.warnings ?? []).filter((w) => w.method !== method);
  const next: ServerWarning[] = [...others, ...messages.map((message) => ({ method, message }))];
  const before = state.warnings ?? [];
  if (
    next.length === before.length &&
    next.every((w, i) => w.method === before[i]!.method && w.message === before[i]!.message)
  )
    return false;
  if (next.length) state.warnings = next;
  else delete state.warnings;
  return true;
}

/** The messages of `method` among a server's warnings. */
export function warningsOf(state: Pick<ServerState, 'warnings'>, method: string): string[] {
  return (state.warnings ?? []).filter((w) => w.method === method).map((w) => w.message);
}
