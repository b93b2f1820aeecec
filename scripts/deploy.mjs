// `npm run deploy [-- wrangler deploy options]`: checks the configuration
// the deploy would run with (scripts/deploy-check.mjs), then `wrangler deploy`.
// Refuses a config that locks everyone out (no TENANTS anywhere, a tenant
// nobody can call as) or opens the service (AUTH_DISABLED). `--force` skips.
import { spawnSync } from 'node:child_process';
import { unstable_readConfig } from 'wrangler';
import { cliVarsOf, deployProblems } from './deploy-check.mjs';

const args = process.argv.slice(2);
const force = args.includes('--force');
const passThrough = args.filter((a) => a !== '--force');

const config = unstable_readConfig({ config: './wrangler.toml' });
const list = spawnSync('npx', ['wrangler', 'secret', 'list', '--format', 'json'], { encoding: 'utf8' });
let secretNames;
try {
  secretNames = list.status === 0 ? JSON.parse(list.stdout).map((s) => s.name) : undefined;
} catch {
  secretNames = undefined;
}
const { problems, warnings } = deployProblems({
  configVars: config.vars ?? {},
  cliVars: cliVarsOf(passThrough),
  secretNames,
});
for (const warning of warnings) console.warn(`warning: ${warning}`);
if (problems.length) {
  for (const problem of problems) console.error(`refused: ${problem}`);
  if (!force) {
    console.error('Nothing was deployed. Fix the above, or deploy anyway with `npm run deploy -- --force`.');
    process.exit(1);
  }
}
const deploy = spawnSync('npx', ['wrangler', 'deploy', ...passThrough], { stdio: 'inherit' });
process.exit(deploy.status ?? 1);
