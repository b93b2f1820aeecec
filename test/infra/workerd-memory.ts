// Memory of the workerd process that runs the tests, read from /proc (Linux).
// Inside workerd there is no process.memoryUsage(), so the Node side measures
// from outside: VmHWM is the peak resident set since the last reset, and
// writing "5" to clear_refs resets it (Linux ≥ 4.0), so a test can measure
// the peak of one operation. It covers the whole workerd process (every
// isolate, and workerd itself), so it is an upper bound on what the isolate
// under test used.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

/** The workerd processes vitest started (children of this process). */
function workerdPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …
      const match = /^\d+ \((.*)\) \S+ (\d+)/.exec(stat);
      if (match?.[1] === 'workerd' && Number(match[2]) === process.pid) pids.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return pids;
}

const kb = (status: string, field: string) =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);

export interface WorkerdMemory {
  available: boolean;
  /** Resident set now, and its peak since the last reset, in KiB (summed over workerd processes). */
  rssKb: number;
  peakKb: number;
}

export function workerdMemory(): WorkerdMemory {
  const pids = workerdPids();
  let rssKb = 0;
  let peakKb = 0;
  for (const pid of pids) {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    rssKb += kb(status, 'VmRSS');
    peakKb += kb(status, 'VmHWM');
  }
  return { available: pids.length > 0 && Number.isFinite(peakKb), rssKb, peakKb };
}

/** Resets the peak (VmHWM) to the current resident set. */
export function resetWorkerdPeak(): void {
  for (const pid of workerdPids()) writeFileSync(`/proc/${pid}/clear_refs`, '5');
}
