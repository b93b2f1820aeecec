// Counts what a SQLite database writes, from outside the process that
// writes it: its write-ahead log (`<db>-wal`), read as SQLite lays it out
// (https://www.sqlite.org/fileformat.html, "The WAL file format"). A
// 32-byte header (page size, checkpoint sequence, two salts), then frames:
// a 24-byte header (page number; the database size after a commit, in the
// commit's last frame, else 0; the salts) and one page. Frames of the
// current log carry the header's salts; a checkpoint that restarts the log
// writes new salts, and the frames after the new end still carry the old
// ones. So the frames written since the last look are the frames with the
// current salts past the ones already counted (all of them after a restart).
// Frames written after the last look and before a restart are missed: look
// often (a restart comes after about 1,000 pages, SQLite's default).
import { closeSync, openSync, readSync } from 'node:fs';

export function walTracker(file) {
  let salts;
  let counted = 0;
  const totals = { frames: 0, commits: 0, bytes: 0, resets: 0 };
  const header = Buffer.alloc(32);
  const frame = Buffer.alloc(24);
  return {
    /** Reads the log's new frames into the totals. */
    sample() {
      let fd;
      try {
        fd = openSync(file, 'r');
      } catch {
        return; // no log yet
      }
      try {
        if (readSync(fd, header, 0, 32, 0) < 32) return;
        const pageSize = header.readUInt32BE(8);
        const now = `${header.readUInt32BE(16)}:${header.readUInt32BE(20)}`;
        if (now !== salts) {
          if (salts !== undefined) totals.resets++;
          salts = now;
          counted = 0;
        }
        for (;;) {
          const offset = 32 + counted * (24 + pageSize);
          if (readSync(fd, frame, 0, 24, offset) < 24) break;
          if (`${frame.readUInt32BE(8)}:${frame.readUInt32BE(12)}` !== salts) break;
          counted++;
          totals.frames++;
          totals.bytes += pageSize;
          if (frame.readUInt32BE(4) !== 0) totals.commits++;
        }
      } finally {
        closeSync(fd);
      }
    },
    /** Frames (pages) and commits counted so far, the page bytes they carried, the restarts seen. */
    totals: () => ({ ...totals }),
  };
}
