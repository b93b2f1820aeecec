// The converter Worker (converter/) for the workerd test projects: built once per run the way `wrangler deploy`
// builds it (a dry run: the same esbuild, its `.wasm` module beside the bundle), then given to the plugin as an
// auxiliary Worker named as the main Worker's `[[services]]` entry says, so `env.CONVERTER.convert(…)` in a test
// crosses a real service binding into a real second Worker. The build goes to a folder of its own per
// TEST_PORT_BASE, so two suites running at once never read each other's half-written bundle.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unstable_readConfig } from 'wrangler';
import { TEST_PORT_BASE } from './ports.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG = resolve(ROOT, 'converter/wrangler.toml');
export const CONVERTER_BUILD_DIR = resolve(ROOT, `.wrangler/converter-test-${TEST_PORT_BASE}`);

/** `wrangler deploy --dry-run --outdir` of converter/wrangler.toml (about 5 s). */
export function buildConverter(): void {
  const run = spawnSync(
    process.execPath,
    [
      resolve(ROOT, 'node_modules/wrangler/bin/wrangler.js'),
      'deploy',
      '--dry-run',
      '-c',
      CONFIG,
      '--outdir',
      CONVERTER_BUILD_DIR,
    ],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' } },
  );
  if (run.status !== 0) throw new Error(`building the converter Worker failed:\n${run.stdout}\n${run.stderr}`);
}

/**
 * The converter as a miniflare auxiliary Worker, named and dated by its wrangler.toml: its built modules (the
 * bundle first, then its `.wasm`), so call it once the build exists (the plugin's options as a function).
 */
export function converterWorker() {
  const config = unstable_readConfig({ config: CONFIG });
  const wasm = readdirSync(CONVERTER_BUILD_DIR).filter((name) => name.endsWith('.wasm'));
  return {
    name: config.name!,
    compatibilityDate: config.compatibility_date!,
    compatibilityFlags: config.compatibility_flags,
    modulesRoot: CONVERTER_BUILD_DIR,
    modules: [
      { type: 'ESModule' as const, path: resolve(CONVERTER_BUILD_DIR, 'index.js') },
      ...wasm.map((name) => ({ type: 'CompiledWasm' as const, path: resolve(CONVERTER_BUILD_DIR, name) })),
    ],
  };
}

/** vitest globalSetup: build it before the pool starts the Workers. */
export default function setup(): void {
  buildConverter();
}
