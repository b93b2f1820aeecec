/**
 * A Map that keeps at most `max` keys, forgetting the least recently set or
 * read first (a Map's insertion order, refreshed on use). `onEvict` hears of
 * each key it forgets, so a caller can stay on the safe side of what it no
 * longer knows (cache/resource-cache.ts keeps a floor for its generations).
 */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();

  constructor(
    private readonly max: number,
    private readonly onEvict?: (key: K, value: V) => void,
  ) {}

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.max) {
      const [oldest, old] = this.map.entries().next().value as [K, V];
      this.map.delete(oldest);
      this.onEvict?.(oldest, old);
    }
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  keys(): IterableIterator<K> {
    return this.map.keys();
  }
}
