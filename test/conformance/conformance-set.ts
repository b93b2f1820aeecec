/**
 * One set of the MCP conformance suite's client scenarios (scripts/conformance/README.md) as tests: `npm run
 * conformance:<set>` runs them all once in `beforeAll`, then each run is one test. A run we know fails
 * (scripts/conformance/expected-failures.mjs, each with its reason) is a test that it still fails, reason in the
 * test's name: when it starts passing, that test fails until the entry is removed. Nothing is skipped: the runs are
 * asked of the pinned suite when the file is collected, so a scenario a new version adds gets a test.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectedFailureOf } from '../../scripts/conformance/expected-failures.mjs';
import { ROOT, scenarioRuns } from '../../scripts/conformance/scenarios.mjs';

interface RunResult {
  id: string;
  status: 'pass' | 'fail';
  reason: string;
  resultDir: string;
}

export function describeConformanceSet(set: 'auth' | 'mcp', title: string): void {
  const summaryPath = join(ROOT, 'test-results', `conformance-${set}.json`);
  const runs = scenarioRuns(set);
  let results = new Map<string, RunResult>();

  beforeAll(async () => {
    const startedAt = Date.now();
    let output = '';
    // The run's exit code says whether everything ended as expected; each test below judges its own run.
    await new Promise<void>((resolve, reject) => {
      const child = spawn('npm', ['run', '--silent', `conformance:${set}`], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.on('data', (d: Buffer) => (output += d));
      child.stderr.on('data', (d: Buffer) => (output += d));
      child.on('error', reject);
      child.on('close', () => resolve());
    });
    console.log(output);
    if (!existsSync(summaryPath)) throw new Error(`npm run conformance:${set} wrote no ${summaryPath}:\n${output}`);
    const summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as { finishedAt: string; runs: RunResult[] };
    if (Date.parse(summary.finishedAt) < startedAt) throw new Error(`${summaryPath} is from an earlier run`);
    results = new Map(summary.runs.map((r) => [r.id, r]));
  }, 15 * 60_000);

  describe(title, () => {
    it(`lists ${set} scenarios to run`, () => {
      expect(runs.length).toBeGreaterThan(0);
    });

    for (const run of runs) {
      const knownFailure = expectedFailureOf(run);
      if (knownFailure) {
        it(`${run.id} fails, as known: ${knownFailure}`, () => {
          const result = results.get(run.id);
          expect(result, `${run.id} was not run`).toBeDefined();
          expect(result!.status, `${run.id} now passes: remove it from scripts/conformance/expected-failures.mjs`).toBe(
            'fail',
          );
        });
        continue;
      }
      it(run.id, () => {
        const result = results.get(run.id);
        expect(result, `${run.id} was not run`).toBeDefined();
        expect(result!.status, `${run.id}: ${result!.reason} (details: ${result!.resultDir})`).toBe('pass');
      });
    }
  });
}
