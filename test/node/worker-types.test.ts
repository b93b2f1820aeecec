import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stringPropertiesOfEnv } from './env-properties';

/**
 * The Worker's `Env` type against what it describes: the generated part
 * (worker-configuration.d.ts) against wrangler.toml and the installed
 * runtime, and the whole of it against the list of vars and secrets in
 * .dev.vars.example (src/env.d.ts says why the two parts).
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('Env', () => {
  it('worker-configuration.d.ts is what `npm run types` writes now (wrangler types --check)', () => {
    // --check regenerates in memory with the options recorded in the file's header (--env-file=/dev/null,
    // so a developer's .dev.vars never counts) and compares: wrangler.toml's bindings and vars, the workerd version, the date.
    const check = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules/wrangler/bin/wrangler.js'), 'types', '--check'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' },
      },
    );
    expect(
      check.status,
      `${check.stdout}\n${check.stderr}\nRun \`npm run types\` and commit worker-configuration.d.ts.`,
    ).toBe(0);
  }, 60_000);

  it('declares exactly the vars and secrets .dev.vars.example lists', () => {
    const example = readFileSync(join(ROOT, '.dev.vars.example'), 'utf8');
    // Secrets that config names ("secret:NAME") are examples of names no type can know (src/config/secrets.ts).
    const namedByConfig = new Set([...example.matchAll(/secret:([A-Z0-9_]+)/g)].map((m) => m[1]!));
    const listed = new Set(
      [...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!).filter((name) => !namedByConfig.has(name)),
    );

    expect([...stringPropertiesOfEnv()].sort()).toEqual([...listed].sort());
  }, 60_000);
});
