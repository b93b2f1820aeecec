import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

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

/** The properties of the global `Env` whose type is a string (vars and secrets; not bindings), as the compiler sees them. */
function stringPropertiesOfEnv(): Set<string> {
  const declarations = join(ROOT, 'src/env.d.ts');
  const { config } = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
  const program = ts.createProgram([join(ROOT, 'worker-configuration.d.ts'), declarations], { ...options, types: [] });
  const checker = program.getTypeChecker();
  const env = program
    .getSourceFile(declarations)!
    .statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'Env');
  if (!env) throw new Error('src/env.d.ts declares no global interface Env');
  const type = checker.getDeclaredTypeOfSymbol(checker.getSymbolAtLocation(env.name)!);
  const names = new Set<string>();
  for (const property of checker.getPropertiesOfType(type)) {
    const propertyType = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(property, env));
    if (propertyType.flags & ts.TypeFlags.StringLike) names.add(property.name);
  }
  return names;
}
