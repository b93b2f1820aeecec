import type { UsageCounters } from '../../shared/api/usage';

/** The counters, in the order of the ledger's columns (snake case there, camel case in the API). */
export const COUNTERS = [
  'requests',
  'inputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'outputTokens',
  'usd',
  'estimatedRequests',
  'toolCalls',
  'readsMemory',
  'readsKv',
  'readsServer',
  'tasks',
  'programRuns',
  'programMs',
  'programReadBytes',
] as const satisfies ReadonlyArray<keyof UsageCounters>;

export const column = (counter: keyof UsageCounters) => counter.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export const zeroCounters = (): UsageCounters =>
  Object.fromEntries(COUNTERS.map((counter) => [counter, 0])) as UsageCounters;

/** The counters of `rows` added up. */
export function sumCounters(rows: readonly UsageCounters[]): UsageCounters {
  const total = zeroCounters();
  for (const row of rows) for (const c of COUNTERS) total[c] += row[c];
  return total;
}

/**
 * One thing that costs, as the conversation records it: a model request
 * (tokens, dollars), a tool execution (a call, a read and its layer, a
 * task) or a program run (`run_code`: its time, its reads, its dollars). `id` makes a retried write count once.
 */
export interface UsageEntry {
  id: string;
  /** When (ms since epoch, UTC): its day is the row it adds to. */
  at: number;
  user: string;
  conversation: string;
  /** The model spec (`anthropic:claude-sonnet-5-5`, `offline`). */
  model: string;
  counters: Partial<UsageCounters>;
}

/** A UTC day as the ledger keys it. */
export const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);
