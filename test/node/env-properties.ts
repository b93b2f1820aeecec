import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The properties of the global `Env` whose type is a string (vars and secrets; not bindings), as the compiler sees them. */
export function stringPropertiesOfEnv(): Set<string> {
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
