// Which runs of the pinned conformance suite's client authorization
// scenarios `npm run conformance:auth` makes, asked of the suite itself
// (`conformance list`), so a scenario the pinned version adds is run, never
// skipped unseen. Shared by run.mjs and test/conformance/auth.test.ts.
//
// Each auth scenario runs once per protocol revision it belongs to, at that
// revision's wire (2025-11-25: initialize handshake; 2026-07-28: stateless,
// per-request _meta) — the suite's README: passing on one wire says nothing
// about the other. A scenario of older revisions only (the 2025-03-26
// back-compat ones) runs at its newest; an extension, at the suite's default.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PACKAGE = '@modelcontextprotocol/conformance';

/** The suite's CLI, and its version (the package.json pin). */
export function conformanceCli() {
  const require = createRequire(join(ROOT, 'package.json'));
  const manifestPath = require.resolve(`${PACKAGE}/package.json`);
  const manifest = require(manifestPath);
  return { cli: join(dirname(manifestPath), manifest.bin.conformance), version: manifest.version };
}

/** Revisions whose frozen requirement sets we read (and whose wires we run). */
export const REVISIONS = ['2025-11-25', '2026-07-28'];

function list(args) {
  const { cli } = conformanceCli();
  return execFileSync(process.execPath, [cli, 'list', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * The two sets of client scenarios, each with its own client under test: `auth` (the `auth/*` scenarios, against
 * our OAuth code: client.ts) and `mcp` (every other client scenario, against our MCP path: mcp-client.ts).
 */
export const SETS = ['auth', 'mcp'];
const inSet = (set, scenario) => (set === 'auth') === scenario.startsWith('auth/');

/** `  - name [tag,tag]` lines of `conformance list --client`, the scenarios of `set` only. */
function clientScenarios(set) {
  const scenarios = [];
  for (const line of list(['--client']).split('\n')) {
    const match = /^\s+- (\S+) \[([^\]]*)\]\s*$/.exec(line);
    if (match && inSet(set, match[1]))
      scenarios.push({ scenario: match[1], tags: match[2].split(',').map((t) => t.trim()) });
  }
  if (scenarios.length === 0)
    throw new Error(`\`conformance list --client\` listed no ${set} scenarios: has its output format changed?`);
  return scenarios;
}

/** The client scenarios a revision's frozen requirement set scores. */
function requiredBy(revision) {
  const text = list(['--requirements', revision]);
  const client = text.split(/^Client scenarios.*$/m)[1]?.split(/^\S.*$/m)[0] ?? '';
  return new Set([...client.matchAll(/^\s+- (\S+)\s*$/gm)].map((m) => m[1]));
}

/**
 * The runs: `{ id, scenario, specVersion, kind, requiredBy }`, where `id` is
 * `scenario@specVersion` (`specVersion` undefined for an extension: the
 * suite's default wire) and `kind` is `required` (by that revision's frozen
 * set), `not-scored` (of that revision, added after it shipped), `extension`
 * or `back-compat` (older revisions only).
 */
export function scenarioRuns(set = 'auth') {
  const required = Object.fromEntries(REVISIONS.map((r) => [r, requiredBy(r)]));
  const runs = [];
  for (const { scenario, tags } of clientScenarios(set)) {
    const requiring = REVISIONS.filter((r) => required[r].has(scenario));
    if (tags.includes('extension')) {
      runs.push({ id: scenario, scenario, specVersion: undefined, kind: 'extension', requiredBy: [] });
      continue;
    }
    const wires = REVISIONS.filter((r) => tags.includes(r));
    if (wires.length === 0) {
      runs.push({
        id: `${scenario}@${[...tags].sort().at(-1)}`,
        scenario,
        specVersion: [...tags].sort().at(-1),
        kind: 'back-compat',
        requiredBy: [],
      });
      continue;
    }
    for (const specVersion of wires) {
      const scored = requiring.includes(specVersion);
      runs.push({
        id: `${scenario}@${specVersion}`,
        scenario,
        specVersion,
        kind: scored ? 'required' : 'not-scored',
        requiredBy: scored ? [specVersion] : [],
      });
    }
  }
  return runs;
}
