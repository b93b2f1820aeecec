import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { checkDoc, documentedNames } from '../../scripts/config-doc.mjs';
import { stringPropertiesOfEnv } from './env-properties';

it('docs/CONFIGURATION.md lists every var, secret and setting with its default and description, as the code says (npm run docs:config)', async () => {
  const { current, expected } = await checkDoc();
  expect(current).toBe(expected);
  expect(current).toContain('| `MAX_STEPS` | `8` |');
  expect(current).toContain('| `OPENAI_API_KEY` | unset (secret) |');
});

it('every var and secret the Worker reads (its Env) is documented', async () => {
  const documented = await documentedNames();
  const missing = [...stringPropertiesOfEnv()].filter((name) => !documented.has(name));
  expect(missing, 'add them to src/config/vars.ts, then npm run docs:config').toEqual([]);
}, 60_000);

it('npm start and npm run dev write one line per log event (LOG_FORMAT=line); a deployment keeps the JSON objects', () => {
  const { scripts } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  for (const name of ['start', 'dev']) expect(scripts[name]).toContain('--var LOG_FORMAT:line');
  expect(scripts.deploy).not.toContain('LOG_FORMAT');
  expect(readFileSync(new URL('../../wrangler.toml', import.meta.url), 'utf8')).not.toContain('LOG_FORMAT');
});
