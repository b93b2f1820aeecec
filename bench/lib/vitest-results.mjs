// Runs one vitest config of benchmarks inside workerd, passes its output on
// (without the Sourcemap noise), exits with its status if it failed, and
// returns the results each benchmark printed as `BENCH_RESULT <name> <json>`.
import { spawnSync } from 'node:child_process';

export function runBenchmarks(config) {
  const run = spawnSync('vitest', ['run', '--config', config], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    shell: false,
  });
  process.stdout.write(
    run.stdout
      .split('\n')
      .filter((l) => !l.includes('Sourcemap'))
      .join('\n'),
  );
  process.stderr.write(run.stderr);
  if (run.status !== 0) process.exit(run.status ?? 1);
  const results = {};
  for (const match of run.stdout.matchAll(/BENCH_RESULT (\S+) (\{.*\})/g)) results[match[1]] = JSON.parse(match[2]);
  return results;
}
