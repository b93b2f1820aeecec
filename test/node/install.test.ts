import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** npm's own CLI script: the one running this test (`npm test`), else the `npm` on PATH. */
function npmCli(): string {
  if (process.env.npm_execpath?.endsWith('.js')) return process.env.npm_execpath;
  const found = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
  return join(dirname(realpathSync(found)), 'npm-cli.js');
}

/**
 * The README's one command on a machine with Node 20 (the stack's packages need Node 22; our postinstall fetches one,
 * scripts/ensure-node.mjs): npm checks every package's `engines` against the running Node and warns once per package —
 * 40 warnings, 200 lines, before our line that says all is well, which a newcomer reads as a failure. The project's
 * .npmrc keeps npm to errors. npm runs here as if on Node 20 (a preload sets `process.version`), whatever Node runs the
 * test; a dry run reads the lock and fetches nothing.
 */
it('npm install on Node 20 prints no EBADENGINE warnings', () => {
  const preload = join(mkdtempSync(join(tmpdir(), 'node20-')), 'node20.cjs');
  writeFileSync(
    preload,
    "Object.defineProperty(process, 'version', { value: 'v20.20.2' });\n" +
      "Object.defineProperty(process.versions, 'node', { value: '20.20.2' });\n",
  );
  const install = spawnSync(
    process.execPath,
    ['-r', preload, npmCli(), 'install', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: undefined } },
  );
  expect(install.status, install.stderr).toBe(0);
  expect(`${install.stdout}\n${install.stderr}`).not.toContain('EBADENGINE');
}, 60_000);
