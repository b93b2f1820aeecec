// What every benchmark report states (command and machine), and the one way
// scripts write BENCHMARKS.md: each owns a section between its own markers
// and leaves the rest of the file alone.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

export function machine() {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const workerd = JSON.parse(readFileSync('node_modules/workerd/package.json', 'utf8')).version;
  const wrangler = JSON.parse(readFileSync('node_modules/wrangler/package.json', 'utf8')).version;
  return {
    date: new Date().toISOString().slice(0, 10),
    cpu,
    cores: os.cpus().length,
    ramGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.versions.node,
    workerd,
    wrangler,
  };
}

export const machineLine = (m) =>
  `measured ${m.date} · ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB · Node ${m.node} · wrangler ${m.wrangler}, workerd ${m.workerd}`;

/**
 * Replaces the text between `<!-- name:begin -->` and `<!-- name:end -->` in
 * `file` (appending the section if the markers are not there yet).
 */
export function writeSection(file, name, content) {
  const begin = `<!-- ${name}:begin -->`;
  const end = `<!-- ${name}:end -->`;
  const block = `${begin}\n${content.trimEnd()}\n${end}`;
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const from = current.indexOf(begin);
  const to = current.indexOf(end);
  const next =
    from >= 0 && to > from
      ? current.slice(0, from) + block + current.slice(to + end.length)
      : `${current.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, next);
}
