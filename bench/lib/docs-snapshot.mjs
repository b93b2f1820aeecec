// A frozen copy of the service for bench:docs: the working tree (tracked and untracked files, not ignored ones) or a
// commit, copied to a temporary directory with this checkout's node_modules linked in. `wrangler dev` restarts on
// every change to the files it watches; run against the copy, a long benchmark sees one version of the code while
// the tree goes on changing. `wrangler deploy --dry-run` of the copy checks that it builds and gives its bundle size.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const WRANGLER = path.join(root, 'node_modules/wrangler/bin/wrangler.js');
const WRANGLER_ENV = { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1' };

export const git = (...args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' }).stdout.trim();

/**
 * Copies the working tree (`rev` undefined) or commit `rev` to a new directory. Returns its path, a short label of
 * what it holds, and `remove()`.
 */
export function snapshot(rev) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-docs-tree-'));
  if (rev) {
    const archive = spawnSync('sh', ['-c', `git archive ${rev} | tar -x -C '${dir}'`], { cwd: root });
    if (archive.status !== 0) throw new Error(`git archive ${rev} failed: ${archive.stderr}`);
  } else {
    const files = git('ls-files', '-co', '--exclude-standard', '-z').split('\0').filter(Boolean);
    for (const file of files) {
      const to = path.join(dir, file);
      mkdirSync(path.dirname(to), { recursive: true });
      try {
        cpSync(path.join(root, file), to);
      } catch {
        // deleted in the tree since it was listed
      }
    }
  }
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  // The custom build (widget, API reference) run once here, then taken out of the copy's config: under `wrangler dev`
  // its output in public/ would make wrangler reload while the first requests wait (and hang).
  const config = path.join(dir, 'wrangler.toml');
  const toml = readFileSync(config, 'utf8');
  const command = /^\[build\]\s*\ncommand = "([^"]+)"/m.exec(toml)?.[1];
  if (command) {
    const build = spawnSync('sh', ['-c', command], { cwd: dir, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`${command} failed in the copy:\n${build.stdout}\n${build.stderr}`);
    writeFileSync(
      config,
      toml.replace(/^\[build\]\s*\ncommand = .*$/m, '# [build] run once by bench/lib/docs-snapshot.mjs'),
    );
  }
  return {
    dir,
    label: rev ? git('rev-parse', '--short', rev) : `${git('rev-parse', '--short', 'HEAD')} + working tree`,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** `wrangler deploy --dry-run` of `config` in `dir`: KiB and gzipped KiB as wrangler prints them, or the build's error. */
export function bundleSize(dir, config = 'wrangler.toml') {
  const out = mkdtempSync(path.join(os.tmpdir(), 'bench-docs-bundle-'));
  try {
    const run = spawnSync(process.execPath, [WRANGLER, 'deploy', '--dry-run', '--config', config, '--outdir', out], {
      cwd: dir,
      encoding: 'utf8',
      env: WRANGLER_ENV,
    });
    const m = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(run.stdout);
    if (run.status !== 0 || !m) return { error: `${run.stdout.slice(-1500)}\n${run.stderr.slice(-1500)}` };
    return { kib: Number(m[1]), gzipKib: Number(m[2]) };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
