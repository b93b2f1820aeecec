import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

/**
 * The deploy bundle's gzipped size against a budget kept in the repo
 * (bundle-budget.json): a size, not a time, so the check is deterministic,
 * and growth is a decision someone writes down instead of an accident.
 * Measured as `wrangler deploy` builds it (`--dry-run`: same esbuild
 * settings, `alias`, `minify`), every module it would upload, source maps
 * aside.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BUDGET = JSON.parse(readFileSync(join(ROOT, 'test/node/bundle-budget.json'), 'utf8')) as { gzipKiB: number };

describe('the deploy bundle', () => {
  it(`is at most ${BUDGET.gzipKiB} KiB gzipped`, () => {
    const outdir = mkdtempSync(join(tmpdir(), 'mcp-ondemand-bundle-'));
    try {
      const build = spawnSync(
        process.execPath,
        [join(ROOT, 'node_modules/wrangler/bin/wrangler.js'), 'deploy', '--dry-run', '--outdir', outdir],
        {
          cwd: ROOT,
          encoding: 'utf8',
          env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' },
        },
      );
      expect(build.status, `${build.stdout}\n${build.stderr}`).toBe(0);
      const modules = readdirSync(outdir).filter((name) => /\.(m?js|wasm)$/.test(name));
      expect(modules).toContain('index.js');
      const gzipKiB =
        modules.reduce((sum, name) => sum + gzipSync(readFileSync(join(outdir, name))).byteLength, 0) / 1024;
      // wrangler's own figure, for the record when this fails.
      const printed =
        /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(build.stdout)?.[0] ?? '(wrangler printed no total)';
      expect(
        gzipKiB,
        `${gzipKiB.toFixed(1)} KiB gzipped (${printed}); budget ${BUDGET.gzipKiB} KiB in test/node/bundle-budget.json`,
      ).toBeLessThanOrEqual(BUDGET.gzipKiB);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, 120_000);
});
