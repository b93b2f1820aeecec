/**
 * The MCP conformance suite's client authorization scenarios against our
 * OAuth code (scripts/conformance/README.md): `npm run conformance:auth` runs
 * them all once, then each run is one test here. A run we know fails
 * (scripts/conformance/expected-failures.mjs, each with its reason) is a test
 * that it still fails, reason in the test's name: when it starts passing,
 * that test fails until the entry is removed. Nothing is skipped.
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

const SUMMARY = join(ROOT, 'test-results', 'conformance-auth.json');
// Asked of the pinned suite when this file is collected, so every scenario it has gets a test.
const runs = scenarioRuns();
let results = new Map<string, RunResult>();
let runnerOutput = '';

beforeAll(async () => {
  const startedAt = Date.now();
  // The run's exit code says whether everything ended as expected; each test below judges its own run.
  await new Promise<void>((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'conformance:auth'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d: Buffer) => (runnerOutput += d));
    child.stderr.on('data', (d: Buffer) => (runnerOutput += d));
    child.on('error', reject);
    child.on('close', () => resolve());
  });
  console.log(runnerOutput);
  if (!existsSync(SUMMARY)) throw new Error(`npm run conformance:auth wrote no ${SUMMARY}:\n${runnerOutput}`);
  const summary = JSON.parse(readFileSync(SUMMARY, 'utf8')) as { finishedAt: string; runs: RunResult[] };
  if (Date.parse(summary.finishedAt) < startedAt) throw new Error(`${SUMMARY} is from an earlier run`);
  results = new Map(summary.runs.map((r) => [r.id, r]));
}, 15 * 60_000);

describe('MCP conformance: client authorization scenarios', () => {
  it('lists auth scenarios to run', () => {
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
