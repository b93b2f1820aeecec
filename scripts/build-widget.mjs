// Bundles the chat widget (widget/src) into one classic script under
// public/widget/, served by the Worker as a static asset. Run by wrangler
// before `wrangler dev` and `wrangler deploy` (`build` in wrangler.toml) and
// by `npm run build:widget`. Writes:
//
//   public/widget/v<version>/mcp-ondemand-chat.<hash>.js  the pinnable copy: its path
//       changes with its bytes, so it is served as immutable (public/_headers)
//       and an embed can pin it with Subresource Integrity
//   public/widget/mcp-ondemand-chat.js   the same bytes at a stable path that
//       follows updates (short cache): the demo page and existing embeds
//   public/widget/v<version>/mcp-ondemand-highlight.<hash>.js   the code highlighting
//       chunk (widget/src/highlight-chunk.ts), which the widget loads when an answer
//       first shows code: its path and SRI hash are built into the widget, so a
//       pinned widget pins it too
//   public/widget/v<version>/mcp-ondemand-lang-<lang>.<hash>.js   each shipped language's strings
//       (widget/src/i18n/<lang>.ts, registered by i18n/register.ts), loaded when a widget speaks it: path and
//       SRI hash built into the widget, like the highlighting chunk's
//   public/widget/mcp-ondemand-chat.d.ts and .react.d.ts   the element's types (widget/)
//   public/widget/manifest.json   {version, path, integrity, size, gzipSize, alias, types, highlight, languages}
//
// and prints the versioned path, its SRI hash and the gzipped size (the
// widget's budget). Anything else in public/widget/ (earlier builds'
// versioned files) is removed, after the new files are in place.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const OUT = 'public/widget';
const NAME = 'mcp-ondemand-chat';

const { version } = JSON.parse(readFileSync('package.json', 'utf8'));

/**
 * One entry bundled as a classic script; its bytes, and where it goes: `v<version>/<name>.<hash>.js`. `entry`: a
 * file, or `{contents, resolveDir}` (a chunk written here).
 */
async function bundle(entry, name, define = {}) {
  const result = await build({
    ...(typeof entry === 'string'
      ? { entryPoints: [entry] }
      : { stdin: { contents: entry.contents, resolveDir: entry.resolveDir, loader: 'ts' } }),
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2022'],
    write: false,
    outfile: `${OUT}/${name}.js`,
    legalComments: 'none',
    logLevel: 'warning',
    define,
  });
  const bytes = Buffer.from(result.outputFiles[0].contents);
  // One sha384 digest: the SRI value, and (its first 16 hex digits) the file name's hash.
  const digest = createHash('sha384').update(bytes).digest();
  return {
    bytes,
    versioned: `v${version}/${name}.${digest.toString('hex').slice(0, 16)}.js`,
    integrity: `sha384-${digest.toString('base64')}`,
    size: bytes.length,
    gzipSize: gzipSync(bytes, { level: 9 }).length,
  };
}

// The chunks first: the widget carries their paths and hashes (code-highlight.ts, i18n/languages.ts).
const highlight = await bundle('widget/src/highlight-chunk.ts', 'mcp-ondemand-highlight');
// Each translation file (`de.ts` exports `DE`) as a chunk that registers its table.
const LANGUAGES = readdirSync('widget/src/i18n').flatMap((name) => /^([a-z]{2})\.ts$/.exec(name)?.[1] ?? []);
const languages = Object.fromEntries(
  await Promise.all(
    LANGUAGES.map(async (lang) => [
      lang,
      await bundle(
        {
          contents: `import { ${lang.toUpperCase()} } from './${lang}';\nimport { registerLanguage } from './register';\nregisterLanguage('${lang}', ${lang.toUpperCase()});\n`,
          resolveDir: 'widget/src/i18n',
        },
        `mcp-ondemand-lang-${lang}`,
      ),
    ]),
  ),
);
const widget = await bundle('widget/src/index.ts', NAME, {
  __MCP_HIGHLIGHT_CHUNK__: JSON.stringify(`/widget/${highlight.versioned}`),
  __MCP_HIGHLIGHT_INTEGRITY__: JSON.stringify(highlight.integrity),
  __MCP_LANGUAGE_CHUNKS__: JSON.stringify(
    Object.fromEntries(
      Object.entries(languages).map(([lang, chunk]) => [
        lang,
        { path: `/widget/${chunk.versioned}`, integrity: chunk.integrity },
      ]),
    ),
  ),
});
const { bytes, versioned, integrity, gzipSize } = widget;
const manifest = {
  version,
  path: `/widget/${versioned}`,
  integrity,
  size: bytes.length,
  gzipSize,
  alias: `/widget/${NAME}.js`,
  types: { dom: `/widget/${NAME}.d.ts`, react: `/widget/${NAME}.react.d.ts` },
  highlight: {
    path: `/widget/${highlight.versioned}`,
    integrity: highlight.integrity,
    size: highlight.size,
    gzipSize: highlight.gzipSize,
  },
  languages: Object.fromEntries(
    Object.entries(languages).map(([lang, chunk]) => [
      lang,
      { path: `/widget/${chunk.versioned}`, integrity: chunk.integrity, size: chunk.size, gzipSize: chunk.gzipSize },
    ]),
  ),
};

const files = new Map([
  [versioned, bytes],
  [highlight.versioned, highlight.bytes],
  ...Object.values(languages).map((chunk) => [chunk.versioned, chunk.bytes]),
  [`${NAME}.js`, bytes],
  [`${NAME}.d.ts`, readFileSync(`widget/${NAME}.d.ts`)],
  [`${NAME}.react.d.ts`, readFileSync(`widget/${NAME}.react.d.ts`)],
  ['manifest.json', `${JSON.stringify(manifest, null, 2)}\n`],
]);

// Each file replaced by a rename, so a `wrangler dev` already serving this
// folder (another test's service, a second terminal) never sees half a file.
for (const [name, content] of files) {
  const path = join(OUT, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.${process.pid}.tmp`, content);
  renameSync(`${path}.${process.pid}.tmp`, path);
}
removeStale(OUT);

function removeStale(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      removeStale(path);
      if (readdirSync(path).length === 0) rmdirSync(path);
    } else if (!files.has(relative(OUT, path)) && !entry.name.endsWith('.tmp')) {
      rmSync(path, { force: true });
    }
  }
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`widget: ${manifest.path} ${kib(bytes.length)}, ${kib(gzipSize)} gzipped
  integrity: ${integrity}
  code highlighting, loaded when code first shows: ${manifest.highlight.path} ${kib(highlight.size)}, ${kib(highlight.gzipSize)} gzipped
  languages, each loaded when spoken: ${Object.entries(languages)
    .map(([lang, chunk]) => `${lang} ${kib(chunk.gzipSize)}`)
    .join(', ')} gzipped
  alias (follows updates): ${manifest.alias}; manifest: /widget/manifest.json`);
