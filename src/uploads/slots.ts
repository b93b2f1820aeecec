import { ensureTables } from '../sql-schema';
import { uniqueName } from './names';

/**
 * The names a conversation holds for uploads under way: reserved before a byte is written to R2, given up once the
 * files are stored (R2 lists them from then on) or taken back. Names only, never bytes.
 */
export const UPLOAD_SLOTS_TABLES = `CREATE TABLE IF NOT EXISTS upload_slots (name TEXT PRIMARY KEY, expires INTEGER NOT NULL)`;

/**
 * How long a slot counts without being given up. Every request gives up its slots when it ends, stored or not; this
 * only frees what a request that never came back left (its Worker ended mid-upload). Longer than any upload takes:
 * a slot that expired too soon would let its name be taken twice. A file that did reach R2 counts from R2 anyway.
 */
const SLOT_MS = 15 * 60_000;

/** What a reservation came back with: the names held for the files, in their order, or the count that refused them. */
export type SlotVerdict = { names: string[] } | { refused: { held: number; limit: number } };

/**
 * The check of UPLOADS_PER_CONVERSATION and the names of a conversation's uploads, made one step in its Durable Object
 * — the one place every upload of the conversation passes (the files route through its stub, `useChat` file parts
 * inside it). Without it, requests at once each count what R2 holds, each see room, and all store (six files in a
 * conversation of three); and two files of one name each get that name, the second overwriting the first.
 *
 * A conversation's files are what R2 lists plus the slots of uploads under way. Counting them is not atomic by
 * itself: R2's list is I/O, and a Durable Object takes other calls while it waits for anything but its own storage.
 * So reservations and the slots' ends run one at a time, in order (`serial`): a slot can never be given up while a
 * reservation is between its R2 list and its count — its file is either in that list or still held by its slot.
 */
export class UploadSlots {
  /** The end of the last step queued: the next one starts after it. */
  private queue: Promise<unknown> = Promise.resolve();

  /** `stored`: the names R2 holds for the conversation now. */
  constructor(
    private readonly sql: SqlStorage,
    private readonly stored: () => Promise<string[]>,
  ) {
    ensureTables(sql, UPLOAD_SLOTS_TABLES);
  }

  /**
   * Names for `wanted` (safe names, in order) held until `release`, each unique among the conversation's files and
   * the uploads under way (`-2`, `-3`… as names.ts makes them); refused when the files with these would pass `limit`,
   * and then nothing is held.
   */
  reserve(wanted: string[], limit: number): Promise<SlotVerdict> {
    return this.serial(async () => {
      const inR2 = await this.stored();
      const now = Date.now();
      this.sql.exec('DELETE FROM upload_slots WHERE expires <= ?', now);
      const held = this.sql
        .exec<{ name: string }>('SELECT name FROM upload_slots')
        .toArray()
        .map((row) => row.name);
      // A file stored but not yet released is in both: counted once.
      const taken = new Set([...inR2, ...held]);
      if (taken.size + wanted.length > limit) return { refused: { held: taken.size, limit } };
      const names = wanted.map((name) => {
        const unique = uniqueName(name, taken);
        taken.add(unique);
        return unique;
      });
      for (const name of names)
        this.sql.exec('INSERT INTO upload_slots (name, expires) VALUES (?, ?)', name, now + SLOT_MS);
      return { names };
    });
  }

  /** The uploads of `names` ended: stored (R2 counts them now) or taken back (their objects deleted first). */
  release(names: string[]): Promise<void> {
    return this.serial(async () => {
      for (const name of names) this.sql.exec('DELETE FROM upload_slots WHERE name = ?', name);
    });
  }

  /** Runs `step` after every step queued before it; a step that fails does not stop the next. */
  private serial<T>(step: () => Promise<T>): Promise<T> {
    const run = this.queue.then(step);
    this.queue = run.catch(() => {});
    return run;
  }
}
