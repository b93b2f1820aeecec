/**
 * When this conversation's turns started (the latest few, in the object's KV): the pace the cost planner reads to
 * choose how long the provider should keep the prompt's prefix (prompt/cost-planner.ts). A turn a person asked for
 * counts, not a continuation after an approval or a task (it is the same turn, to them).
 */
export class TurnPace {
  private static readonly KEY = 'pace';
  /** How many starts are kept: enough to see whether a person pauses for minutes. */
  private static readonly KEPT = 8;

  constructor(private readonly storage: DurableObjectStorage) {}

  /** A new turn started at `at` (ms since epoch). */
  started(at: number): void {
    const starts = [...this.starts(), at].slice(-TurnPace.KEPT);
    this.storage.kv.put(TurnPace.KEY, starts);
  }

  /** The time between consecutive turns so far, oldest first (ms). */
  gaps(): number[] {
    const starts = this.starts();
    return starts.slice(1).map((at, i) => at - starts[i]!);
  }

  /** What a turn asks when it starts: a turn a person asked for started at `at` (none: a continuation); the gaps after it. */
  mark(at: number | undefined): number[] {
    if (at !== undefined) this.started(at);
    return this.gaps();
  }

  /** How many turns started (of the kept ones). */
  turns(): number {
    return this.starts().length;
  }

  private starts(): number[] {
    return this.storage.kv.get<number[]>(TurnPace.KEY) ?? [];
  }
}
