import type { CachedResource } from './types';

/**
 * The in-Durable-Object layer: a Map used as an LRU bounded by content bytes
 * (a Map iterates in insertion order, so re-inserting on a hit makes the
 * first key the least recently used).
 */
export class MemoryLayer {
  private readonly entries = new Map<string, CachedResource>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): CachedResource | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  set(key: string, entry: CachedResource): void {
    this.delete(key);
    if (entry.bytes > this.maxBytes) return; // would evict everything else and still not fit
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    for (const [oldest, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= old.bytes;
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  /** Every key, as a snapshot (callers delete while they go). */
  keys(): string[] {
    return [...this.entries.keys()];
  }

  get size() {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
