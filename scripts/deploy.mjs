// `npm run deploy [-- wrangler deploy options]`: checks the configuration
// the deploy would run with (scripts/deploy-check.mjs), then deploys the
// document converter (converter/wrangler.toml) and then the service, whose
// CONVERTER service binding needs the converter to exist (docs/DEPLOY.md).
// Refuses a config that locks everyone out (no TENANTS anywhere, a tenant
// nobody can call as) or opens the service (AUTH_DISABLED). `--force` skips.
// The options go to the service's deploy; the converter's gets `--dry-run`
// (and `--outdir …/converter`) when the service's does.
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
const converterArgs = ['wrangler', 'deploy', '--config', 'converter/wrangler.toml'];
if (passThrough.includes('--dry-run')) converterArgs.push('--dry-run');
const outdir = passThrough.indexOf('--outdir');
if (outdir >= 0 && passThrough[outdir + 1]) converterArgs.push('--outdir', `${passThrough[outdir + 1]}/converter`);
console.log('Deploying the document converter (converter/wrangler.toml), then the service.');
const converter = spawnSync('npx', converterArgs, { stdio: 'inherit' });
if (converter.status !== 0) {
  console.error('The converter was not deployed, so neither was the service (its CONVERTER binding needs it).');
  process.exit(converter.status ?? 1);
}
const deploy = spawnSync('npx', ['wrangler', 'deploy', ...passThrough], { stdio: 'inherit' });
process.exit(deploy.status ?? 1);
