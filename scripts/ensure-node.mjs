// Makes sure a Node.js >= 22.12 is available to the project's npm scripts.
//
// wrangler 4, miniflare and vitest 5 need Node >= 22.12, while many machines
// (and our CI image) still ship Node 20. When the running Node is new enough
// this script does nothing at all, so users on Node 22+ pay nothing. Otherwise
// it installs a pinned Node 22 binary from the npm registry (the
// `node-<platform>-<arch>` packages that the official `node` package also
// uses) into `.toolchain/`, outside node_modules so `npm ci` keeps it.
// `scripts/with-node.sh` then puts it first on PATH for each npm script.
//
// Runs as the root package's postinstall and again, lazily, from with-node.sh.
// Keep it Node 20-compatible and dependency-free.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MINIMUM = [22, 12, 0];
const PINNED = '22.23.3';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const toolchain = join(root, '.toolchain');
const binary = join(toolchain, 'node_modules', '.bin', process.platform === 'win32' ? 'node.cmd' : 'node');

function isRecentEnough(version) {
  const parts = version.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if (parts[i] !== MINIMUM[i]) return parts[i] > MINIMUM[i];
  }
  return true;
}

if (isRecentEnough(process.versions.node)) process.exit(0);

if (existsSync(binary)) {
  const probe = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  if (probe.status === 0 && isRecentEnough(probe.stdout.trim())) process.exit(0);
}

const platform = process.platform === 'win32' ? 'win' : process.platform;
const pkg = `node-${platform}-${process.arch}@${PINNED}`;
console.error(
  `[mcp-ondemand] Node ${process.versions.node} is older than ${MINIMUM.join('.')}; installing ${pkg} into .toolchain/ (one time)`,
);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const result = spawnSync(
  npm,
  [
    'install',
    '--prefix',
    toolchain,
    '--no-save',
    '--no-package-lock',
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
    pkg,
  ],
  {
    stdio: 'inherit',
  },
);
if (result.status !== 0 || !existsSync(binary)) {
  console.error(`[mcp-ondemand] could not install ${pkg}; install Node >= ${MINIMUM.join('.')} yourself and retry`);
  process.exit(1);
}
