import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

/**
 * The dependency direction docs/ARCHITECTURE.md draws, checked on every
 * relative import: http → conversation → chat → turn → tools / models →
 * prompt → mcp → cache, with auth beside mcp, and leaves every layer may use. A module may import its
 * own layer and the layers it may use — never one above it.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** What each area may import, besides itself. */
const MAY_USE: Record<string, string[]> = {
  'src/http': [
    'src/conversation',
    'src/chat',
    'src/turn',
    'src/tools',
    'src/prompt',
    'src/models',
    'src/mcp',
    'src/cache',
    'src/auth',
    'src/limits',
    'src/usage',
    'src/demo',
    'src/uploads',
    'src/documents',
    'src/sandbox',
  ],
  'src/conversation': [
    'src/chat',
    'src/turn',
    'src/tools',
    'src/prompt',
    'src/models',
    'src/mcp',
    'src/cache',
    'src/auth',
    'src/limits',
    'src/usage',
    'src/uploads',
    'src/documents',
    'src/sandbox',
  ],
  'src/chat': ['src/turn'],
  'src/turn': [
    'src/tools',
    'src/prompt',
    'src/models',
    'src/mcp',
    'src/cache',
    'src/auth',
    'src/limits',
    'src/usage',
    'src/documents',
    'src/sandbox',
  ],
  'src/models': ['src/prompt'],
  'src/tools': ['src/prompt', 'src/mcp', 'src/cache', 'src/documents', 'src/sandbox'],
  // Programs in a Dynamic Worker: the loader, the limits, the gateway; what the API means is the tools' (program-api.ts).
  'src/sandbox': [],
  'src/prompt': ['src/mcp', 'src/cache', 'src/documents'],
  'src/mcp': ['src/cache', 'src/auth', 'src/documents'],
  // Documents as text: the converter's client and the converted contents' pages (below mcp, which converts on read).
  'src/documents': [],
  'src/auth': [],
  'src/cache': [],
  'src/limits': [],
  'src/usage': [],
  'src/demo': [],
  // The user's files: R2 and the built-in MCP server `uploads` (its entrypoint, and how a conversation reaches it).
  'src/uploads': [],
  // The entry exports every Durable Object class, wherever it lives (DefinitionPins is mcp/catalog's).
  'src/index.ts': [
    'src/http',
    'src/conversation',
    'src/auth',
    'src/demo',
    'src/limits',
    'src/usage',
    'src/mcp',
    'src/uploads',
  ],
  'widget/src': [],
  // The converter Worker (converter/): a Worker of its own, reached by a service binding; it shares the contract
  // (shared/documents.ts) and nothing else, and the service never imports it.
  'converter/src': [],
};
/** Leaves: any area may import them; they import no area (but `errors.ts`). */
const LEAVES = [
  'src/config',
  'src/errors.ts',
  'src/rpc.ts',
  'src/json-depth.ts',
  'src/sql-schema.ts',
  'src/owner.ts',
  'src/observability',
  'shared',
];

const areaOf = (file: string) =>
  [...Object.keys(MAY_USE), ...LEAVES].find(
    (area) => file === area || file.startsWith(`${area}/`) || file === `${area}.ts`,
  );

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path);
    // A module's own tests (`*.test.ts` beside it) may set it up with any layer: they are not part of the layering.
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

it('imports point one way: no layer imports one above it, leaves import no layer', () => {
  const wrong: string[] = [];
  for (const file of [...sources('src'), ...sources('shared'), ...sources('widget/src'), ...sources('converter/src')]) {
    const from = areaOf(file);
    if (!from) continue;
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'(\.[^']+)'/g)) {
      const target = relative(ROOT, resolve(ROOT, dirname(file), match[1]!));
      const to = areaOf(target) ?? areaOf(`${target}.ts`);
      if (!to || to === from) continue;
      // The converter is another Worker: of the leaves, only the code both Workers share (shared/).
      const allowed =
        from === 'converter/src'
          ? to === 'shared'
          : LEAVES.includes(from)
            ? to === 'src/errors.ts'
            : LEAVES.includes(to) || MAY_USE[from]!.includes(to);
      if (!allowed) wrong.push(`${file} imports ${target} (${from} → ${to})`);
    }
  }
  expect(wrong).toEqual([]);
});

/** The converter's libraries: in the service's bundle they would double it (docs/ARCHITECTURE.md, "The converter Worker"). */
const CONVERTER_PACKAGES = /^(unpdf|pdfjs-dist|mammoth|mdream|txml|fflate)(\/|$)/;

it('the service imports none of the converter Worker’s libraries: documents are converted behind its binding', () => {
  const wrong: string[] = [];
  for (const file of [...sources('src'), ...sources('shared'), ...sources('widget/src')]) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const match of text.matchAll(
      /(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'([^.'][^']*)'|import\('([^.'][^']*)'\)/g,
    ))
      if (CONVERTER_PACKAGES.test(match[1] ?? match[2]!)) wrong.push(`${file} imports ${match[1] ?? match[2]}`);
  }
  expect(wrong).toEqual([]);
});

/**
 * Inside `src/mcp/`, bottom-up: `connection/` (transport, limits, lenient results, errors) imports no sibling;
 * `extensions/` (the registry and one folder per extension) may use it; `catalog/` both; `channels/` all three;
 * the modules at the folder's root (server-link, sessions, the read path) use any of them and none of the
 * sub-folders imports them.
 */
it('extensions through one door: nothing outside mcp/extensions/ imports a file inside an extension’s folder', () => {
  const EXTENSIONS = 'src/mcp/extensions';
  const folders = readdirSync(join(ROOT, EXTENSIONS)).filter((name) =>
    statSync(join(ROOT, EXTENSIONS, name)).isDirectory(),
  );
  expect(folders.length).toBeGreaterThanOrEqual(3);
  const wrong: string[] = [];
  for (const file of sources('src').filter((f) => !f.startsWith(`${EXTENSIONS}/`))) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'(\.[^']+)'/g)) {
      const target = relative(ROOT, resolve(ROOT, dirname(file), match[1]!));
      if (folders.some((folder) => target.startsWith(`${EXTENSIONS}/${folder}/`)))
        wrong.push(`${file} imports ${target} (use ${EXTENSIONS}/index.ts)`);
    }
  }
  expect(wrong).toEqual([]);
});

const MCP_LAYERS = ['src/mcp/connection', 'src/mcp/extensions', 'src/mcp/catalog', 'src/mcp/channels'];

it('inside mcp/ the sub-folders are layered too: connection at the bottom, nothing imports up', () => {
  const layerOf = (file: string) => {
    const at = MCP_LAYERS.findIndex((layer) => file.startsWith(`${layer}/`));
    return at >= 0 ? at : file.startsWith('src/mcp/') ? MCP_LAYERS.length : undefined;
  };
  const wrong: string[] = [];
  for (const file of sources('src/mcp')) {
    const from = layerOf(file)!;
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'(\.[^']+)'/g)) {
      const resolved = relative(ROOT, resolve(ROOT, dirname(file), match[1]!));
      // A folder's import is its index.ts.
      const target =
        existsSync(join(ROOT, resolved)) && statSync(join(ROOT, resolved)).isDirectory()
          ? `${resolved}/index.ts`
          : resolved;
      const to = layerOf(target) ?? layerOf(`${target}.ts`);
      if (to !== undefined && to > from) wrong.push(`${file} imports ${target}`);
    }
  }
  expect(wrong).toEqual([]);
});

/** The ids of the MCP extensions we consume, and the SDK's names for them. */
const EXTENSION_NAMES =
  /io\.modelcontextprotocol\/(ui|skills|tasks)\b|SKILLS_EXTENSION_ID|TASKS_EXTENSION|UI_EXTENSION|acceptTaskResults/;

it('the connection and the catalog name no MCP extension: they ask the registry (mcp/extensions/)', () => {
  const naming = [...sources('src/mcp/connection'), ...sources('src/mcp/catalog'), 'src/turn/context.ts'].filter(
    (file) => EXTENSION_NAMES.test(readFileSync(join(ROOT, file), 'utf8')),
  );
  expect(naming).toEqual([]);
});

it('an extension folder imports no other extension: each is one folder of its own', () => {
  const wrong: string[] = [];
  for (const file of sources('src/mcp/extensions')) {
    const own = file.split('/')[3]!;
    if (own.endsWith('.ts')) continue; // the registry and its index list every extension
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'(\.[^']+)'/g)) {
      const target = relative(ROOT, resolve(ROOT, dirname(file), match[1]!));
      const other = target.startsWith('src/mcp/extensions/') ? target.split('/')[3] : undefined;
      if (other && other !== own && target.split('/').length > 4) wrong.push(`${file} imports ${target}`);
    }
  }
  expect(wrong).toEqual([]);
});

it('the widget takes only types from shared/api (its schemas are zod: none of it may reach the bundle)', () => {
  const wrong: string[] = [];
  for (const file of sources('widget/src')) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const match of text.matchAll(/(?:^|\n)\s*(import|export)(\s+type)?\s[^'"]*?from\s+'(\.[^']+)'/g)) {
      const target = relative(ROOT, resolve(ROOT, dirname(file), match[3]!));
      if (target.startsWith('shared/api') && !match[2]) wrong.push(`${file}: ${match[0].trim()}`);
    }
  }
  expect(wrong).toEqual([]);
});

it('the turn owns its tasks without a cycle: the runner never imports the task engine, which never imports the runner', () => {
  const importsOf = (file: string) =>
    [...readFileSync(join(ROOT, file), 'utf8').matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'(\.[^']+)'/g)].map(
      (match) => relative(ROOT, resolve(ROOT, dirname(file), match[1]!)),
    );
  const TASKS = 'src/turn/tasks';
  const engine = sources(TASKS).filter((file) => file !== `${TASKS}/task-poll.ts`);
  expect(engine.length).toBeGreaterThanOrEqual(3);
  const wrong = [
    // The task engine: no runner, no turn entry points (the alarm's poll, task-poll.ts, is where the two meet).
    ...engine.flatMap((file) =>
      importsOf(file)
        .filter((target) => ['src/turn/runner', 'src/turn/requests', 'src/turn/assembly'].includes(target))
        .map((target) => `${file} imports ${target}`),
    ),
    // The runner and what assembles a turn: the tasks only through the TurnTasks seam (turn/host.ts).
    ...['src/turn/runner.ts', 'src/turn/assembly.ts', 'src/turn/requests.ts', 'src/turn/host.ts'].flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith(`${TASKS}/`))
        .map((target) => `${file} imports ${target}`),
    ),
  ];
  expect(wrong).toEqual([]);
});
