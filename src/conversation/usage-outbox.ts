import type { UsageEntry } from '../usage/counters';
import type { Spent } from '../usage/ledger';
import type { UsageSink } from '../usage/meter';
import type { ConversationAlarms } from './alarms';
import type { TurnEvent } from '../turn/turn-events';
import type { ConversationContext } from './context';

export const USAGE_OUTBOX_TABLES = `CREATE TABLE IF NOT EXISTS usage_outbox (
  id TEXT PRIMARY KEY, user TEXT NOT NULL, entry TEXT NOT NULL
) WITHOUT ROWID`;

/** How soon a write the ledger refused is tried again (the alarm's `usage` job). */
const RETRY_MS = 30_000;

export interface UsageOutboxHost {
  storage: DurableObjectStorage;
  context: ConversationContext;
  alarms: ConversationAlarms;
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * The conversation's side of metering: each entry is written to its own
 * SQLite first (synchronously: an eviction or a failed turn a moment later
 * loses nothing), then sent to the tenant's ledger (usage/ledger.ts) in one
 * call when the turn ends, and deleted once counted there. A send that fails
 * is tried again from the alarm; entries a previous instance left (evicted
 * mid-turn) are sent when this one starts. The ledger counts an entry once
 * however often it is sent.
 */
export class UsageOutbox implements UsageSink {
  private flushing: Promise<void> | undefined;
  private again = false;

  constructor(private readonly host: UsageOutboxHost) {
    const left = host.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM usage_outbox').one().n;
    if (left > 0) host.waitUntil(this.flush());
  }

  add(entry: UsageEntry): void {
    this.host.storage.sql.exec(
      'INSERT OR IGNORE INTO usage_outbox (id, user, entry) VALUES (?, ?, ?)',
      entry.id,
      entry.user,
      JSON.stringify(entry),
    );
  }

  /** A turn ended (turn/turn-events.ts): what it cost goes to the ledger now, in one call. */
  heard(event: TurnEvent): void {
    if (event.type === 'turnEnded') this.host.waitUntil(this.flush());
  }

  /** What the tenant and `user` have spent, as the ledger says (for the budget check before a turn). */
  spent(user: string): Promise<Spent> {
    return this.ledger().spent(user);
  }

  /** Sends what is waiting; one send at a time (a send asked for meanwhile runs after it). */
  flush(): Promise<void> {
    if (this.flushing) {
      this.again = true;
      return this.flushing;
    }
    this.flushing = this.send().finally(() => {
      this.flushing = undefined;
      if (this.again) {
        this.again = false;
        this.host.waitUntil(this.flush());
      }
    });
    return this.flushing;
  }

  private async send(): Promise<void> {
    const rows = this.host.storage.sql
      .exec<{ id: string; entry: string }>('SELECT id, entry FROM usage_outbox LIMIT 500')
      .toArray();
    if (!rows.length) return;
    try {
      await this.ledger().record(rows.map((row) => JSON.parse(row.entry) as UsageEntry));
      for (const row of rows) this.host.storage.sql.exec('DELETE FROM usage_outbox WHERE id = ?', row.id);
      if (rows.length === 500) this.again = true; // more than one call's worth waited
    } catch {
      // The ledger did not answer: kept here, and tried again from the alarm.
      await this.host.alarms.schedule('usage', Date.now() + RETRY_MS);
    }
  }

  private ledger() {
    return this.host.context.env.USAGE_LEDGER.getByName(this.host.context.owner().tenant);
  }
}
