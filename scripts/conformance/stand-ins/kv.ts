/**
 * A Workers KV namespace in memory, for the MCP client under test: what the resource cache and the shared catalogs
 * call (get one key or many, put with a TTL, delete). One process, one scenario: nothing outlives the run.
 */
export function memoryKv(): KVNamespace {
  const values = new Map<string, { value: string; expires: number }>();
  const read = (key: string, type: unknown) => {
    const entry = values.get(key);
    if (!entry || entry.expires <= Date.now()) return null;
    const kind = typeof type === 'string' ? type : (type as { type?: string } | undefined)?.type;
    return kind === 'json' ? JSON.parse(entry.value) : entry.value;
  };
  const kv = {
    async get(key: string | string[], type?: unknown) {
      if (Array.isArray(key)) return new Map(key.map((k) => [k, read(k, type)]));
      return read(key, type);
    },
    async put(key: string, value: string, options?: { expirationTtl?: number }) {
      const ttl = options?.expirationTtl ?? Number.POSITIVE_INFINITY;
      values.set(key, { value: String(value), expires: Date.now() + ttl * 1000 });
    },
    async delete(key: string) {
      values.delete(key);
    },
  };
  return kv as unknown as KVNamespace;
}
