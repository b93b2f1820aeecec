// An MCP server (SDK v2, Streamable HTTP, in Node) serving the team
// handbook of bench/lib/skills-corpus.mjs: its ten skills through the SDK's
// skills extension (SEP-2640: skills/list, skills/get, each file readable as
// skill://<skill>/<path>, digests and sizes computed by the SDK) and its five
// documents as ordinary resources — what the skills dollars benchmark
// (bench/skills-cost.mjs) runs the service against. `docs: false` serves the
// skills alone. It counts the MCP methods that reach it (a check that
// load_skill and read_resource really read through it).
//
//   node bench/lib/skills-server.mjs 8863      # standalone
import http from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { memorySkillFiles, SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import { TEAM_DOCS, TEAM_SKILLS } from './skills-corpus.mjs';

// A handbook changes with a release, not during a run: lists and reads may be reused for 5 minutes (as corpus-server.mjs).
/** @type {{ ttlMs: number, cacheScope: 'public' }} */
const HINT = { ttlMs: 300_000, cacheScope: 'public' };

/** Every skill file by its path under the skills root ("triage-a-bug/severity.md"). */
export const SKILL_FILES = Object.fromEntries(
  TEAM_SKILLS.flatMap((s) => Object.entries(s.files).map(([path, text]) => [`${s.name}/${path}`, text])),
);

export async function startSkillsServer({ port, docs = true }) {
  // Built once (hashing every file is async); attached to each per-request server.
  const skills = await SkillsExtension.load(memorySkillFiles(SKILL_FILES), { cacheHint: HINT });
  const methods = {};
  const build = () => {
    const server = new McpServer(
      { name: 'team-handbook', title: 'Team handbook', version: '1.0.0' },
      {
        capabilities: { resources: {} },
        instructions: "The team's handbook: skills for recurring tasks, and reference documents.",
        cacheHints: { 'resources/list': HINT, 'server/discover': HINT },
      },
    );
    skills.attach(server);
    for (const doc of docs ? TEAM_DOCS : []) {
      server.registerResource(
        doc.name,
        doc.uri,
        { title: doc.title, description: doc.description, mimeType: doc.mimeType, size: doc.size, cacheHint: HINT },
        () => ({ contents: [{ uri: doc.uri, mimeType: doc.mimeType, text: doc.text }] }),
      );
    }
    return server;
  };
  // A fresh McpServer per request (the SDK's stateless serving): 2026 and 2025 clients both work.
  const handler = createMcpHandler(build, { onerror: () => {} });
  const node = toNodeHandler(handler, { onerror: () => {} });
  const server = http.createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') return void res.writeHead(404).end();
    const method = req.headers['mcp-method'];
    if (typeof method === 'string') methods[method] = (methods[method] ?? 0) + 1;
    void node(req, res);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    methods: () => ({ ...methods }),
    async close() {
      await handler.close().catch(() => {});
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.argv[2] ?? 8863);
  console.log((await startSkillsServer({ port })).url);
}
