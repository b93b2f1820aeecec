// The layout figures of docs/ARCHITECTURE.md and issue 36's closing note, measured from the source (not by hand):
// host interfaces by member count, lambdas in conversation/wiring.ts, the largest modules by lines and by imports,
// and, per MCP extension we consume, the src files that name it (anywhere, comments too) and the code that names
// it outside its own folder (mcp/extensions/<name>/) and outside demo/.
//
//   npm run layout:metrics            # a table on stdout
//   npm run layout:metrics -- --json  # the same as JSON
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');
const src = path.join(root, 'src');
const files = walk(src).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'));
const rel = (f) => path.relative(src, f);

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

const parsed = new Map(
  files.map((f) => [f, ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true)]),
);

/** Interfaces whose name ends in Host: what a part needs of whoever made it. */
const hosts = [];
for (const [file, sf] of parsed)
  sf.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text.endsWith('Host'))
      hosts.push({ name: node.name.text, file: rel(file), members: node.members.length });
  });
hosts.sort((a, b) => b.members - a.members);

/** Arrow functions and function expressions written in wiring.ts. */
function lambdas(file) {
  const sf = parsed.get(path.join(src, file));
  if (!sf) return 0;
  let n = 0;
  const visit = (node) => {
    if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) n++;
    node.forEachChild(visit);
  };
  visit(sf);
  return n;
}

const modules = files
  .map((f) => {
    const text = readFileSync(f, 'utf8');
    return {
      file: rel(f),
      lines: text.split('\n').length,
      imports: (text.match(/^import\s/gm) ?? []).length,
    };
  })
  .sort((a, b) => b.lines - a.lines);

/** Each extension, by the words its code uses: how many src files (outside tests) name it, in how many folders. */
const EXTENSIONS = {
  skills: { names: /\bskills?\b|Skill[A-Z]|skill[A-Z]|load_skill|list_skills|skill:\/\//i },
  tasks: {
    names:
      /\bTask(Notice|Row|Snapshot|Store|Follower|Placeholder)\b|isTaskPlaceholder|waitingForTasks|data-task|tasks\/(get|result|cancel)|taskSupport/,
  },
  apps: { names: /ui:\/\/|mcp-app|McpApp|io\.modelcontextprotocol\/ui|_meta\.ui|resourceUri/ },
};
/** A module's code without its comments: a word in a comment is not a dependency. */
const printer = ts.createPrinter({ removeComments: true });
const codeOf = new Map([...parsed].map(([f, sf]) => [f, printer.printFile(sf)]));
const extensions = Object.fromEntries(
  Object.entries(EXTENSIONS).map(([name, { names }]) => {
    const naming = files.filter((f) => names.test(readFileSync(f, 'utf8')));
    // Code (not comments) that names it, outside its own folder (mcp/extensions/<name>/) and outside demo/ (our
    // demo server is a server of the extension, not a consumer).
    const own = `mcp/extensions/${name}/`;
    const code = files.filter(
      (f) => !rel(f).startsWith(own) && !rel(f).startsWith('demo/') && names.test(codeOf.get(f)),
    );
    return [
      name,
      {
        files: naming.length,
        folders: new Set(naming.map((f) => path.dirname(rel(f)))).size,
        codeOutside: code.length,
        codeOutsideFolders: new Set(code.map((f) => path.dirname(rel(f)))).size,
        codeOutsideFiles: code.map(rel),
      },
    ];
  }),
);

const result = {
  hosts: hosts.slice(0, 8),
  wiringLambdas: lambdas('conversation/wiring.ts'),
  largest: modules.slice(0, 8),
  mostImports: [...modules].sort((a, b) => b.imports - a.imports).slice(0, 5),
  extensions,
  modules: modules.length,
};
if (process.argv.includes('--json')) console.log(JSON.stringify(result, null, 2));
else {
  console.log(
    'host interfaces (members):',
    hosts
      .slice(0, 8)
      .map((h) => `${h.name} ${h.members}`)
      .join(', '),
  );
  console.log('lambdas in conversation/wiring.ts:', result.wiringLambdas);
  console.log('largest modules (lines):', result.largest.map((m) => `${m.file} ${m.lines}`).join(', '));
  console.log('most imports:', result.mostImports.map((m) => `${m.file} ${m.imports}`).join(', '));
  console.log(
    'src files naming each extension (files / folders):',
    Object.entries(extensions)
      .map(([k, v]) => `${k} ${v.files} / ${v.folders}`)
      .join(', '),
  );
  console.log(
    'code naming each extension outside its folder and demo/ (files / folders):',
    Object.entries(extensions)
      .map(([k, v]) => `${k} ${v.codeOutside} / ${v.codeOutsideFolders}`)
      .join(', '),
  );
}
