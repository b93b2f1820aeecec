import { errorFields, logEvent } from '../observability/log';

/** Limits of the demo server's session table. */
export interface SessionLimits {
  /** Most sessions kept; past it the least recently used one is ended. */
  maxSessions: number;
  /** A session that made no request for this long is ended. */
  idleMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = { maxSessions: 1_000, idleMs: 30 * 60_000 };

/**
 * The demo server's live MCP sessions, least recently used first. A client
 * that ends its session sends `DELETE`; one that vanishes without it (a
 * crashed process, a lost network) would otherwise hold its server, transport
 * and subscriptions here for as long as the object lives. So the table is
 * bounded, and idle sessions are ended whenever a new one opens — no timer
 * keeps the object awake. An ended session's client gets 404 on its next
 * request, the spec's signal to initialise again.
 *
 * @example
 * const table = new SessionTable<Session>({ maxSessions: 100, idleMs: 60_000 }, (s) => s.close());
 * table.add(id, session, Date.now());
 * table.get(id, Date.now()); // touches it
 */
export class SessionTable<T> {
  private readonly entries = new Map<string, { value: T; lastSeen: number }>();

  constructor(
    private readonly limits: SessionLimits,
    private readonly end: (value: T, id: string) => unknown,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The session, marked as used at `now`. */
  get(id: string, now: number): T | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    this.entries.delete(id); // re-inserted last: the map stays in least-recently-used order
    entry.lastSeen = now;
    this.entries.set(id, entry);
    return entry.value;
  }

  add(id: string, value: T, now: number): void {
    this.entries.set(id, { value, lastSeen: now });
  }

  /** Forgets a session its client ended (nothing to end here). */
  delete(id: string): void {
    this.entries.delete(id);
  }

  values(): T[] {
    return [...this.entries.values()].map((e) => e.value);
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** Ends idle sessions, then the least recently used ones until one more fits. */
  makeRoom(now: number): void {
    for (const [id, entry] of this.entries) {
      const idle = now - entry.lastSeen >= this.limits.idleMs;
      if (!idle && this.entries.size < this.limits.maxSessions) break; // the rest were used more recently
      this.entries.delete(id);
      Promise.resolve()
        .then(() => this.end(entry.value, id))
        .catch((error) => logEvent('demo.mcp', { what: 'session_end', era: 'legacy', ...errorFields(error) }, 'warn'));
    }
  }
}
