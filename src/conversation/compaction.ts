/**
 * Where the conversation was last compacted (turn/runner.ts): the id of the user message from which earlier reads are
 * sent again as they were; the reads of every turn before it are one-line notes for the model. In the object's KV, so
 * that every later request makes the same choice — and extends the cached prefix the compaction started.
 */
export class CompactionPoint {
  private static readonly KEY = 'compacted-before';

  constructor(private readonly storage: DurableObjectStorage) {}

  get(): string | undefined {
    return this.storage.kv.get<string>(CompactionPoint.KEY);
  }

  set(messageId: string | undefined): void {
    if (messageId === undefined) this.storage.kv.delete(CompactionPoint.KEY);
    else this.storage.kv.put(CompactionPoint.KEY, messageId);
  }
}
