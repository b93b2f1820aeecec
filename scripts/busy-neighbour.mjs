// A heavy neighbour for flakiness checks: busy loops with memory churn on
// half of this machine's cores, until stopped. Run it beside the suite:
//   node scripts/busy-neighbour.mjs & for i in 1 2 3; do npm test || break; done; kill %1
// Tests must wait for events (a turn's end, a frame), never for time: this
// makes any test that races its own assumptions fail here first.
import { cpus } from 'node:os';
import { isMainThread, Worker } from 'node:worker_threads';

if (isMainThread) {
  const threads = Math.max(1, Math.floor(cpus().length / 2));
  for (let i = 0; i < threads; i++) new Worker(new URL(import.meta.url));
  console.log(`busy neighbour: ${threads} busy thread(s); stop it with Ctrl-C or kill`);
} else {
  for (;;) {
    let junk = [];
    for (let i = 0; i < 1e6; i++) junk.push(i * 2);
    junk = [];
  }
}
