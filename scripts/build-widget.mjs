// Bundles the chat widget (widget/src) into one classic script under
// public/widget/, served by the Worker as a static asset. Run by wrangler
// before `wrangler dev` and `wrangler deploy` ([build] in wrangler.toml) and
// by `npm run build:widget`. Prints the gzipped size: the widget's budget.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const outfile = 'public/widget/mcp-ondemand-chat.js';
await build({
  entryPoints: ['widget/src/index.ts'],
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2022'],
  outfile,
  legalComments: 'none',
  logLevel: 'warning',
});
const bytes = readFileSync(outfile);
console.log(`widget: ${outfile} ${(bytes.length / 1024).toFixed(1)} KiB, ${(gzipSync(bytes, { level: 9 }).length / 1024).toFixed(1)} KiB gzipped`);
