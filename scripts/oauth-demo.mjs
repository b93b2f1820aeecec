// `npm run demo:oauth`: the demo page with an OAuth-protected MCP server to
// connect. Starts, on 127.0.0.1, the local authorization server and the MCP
// server it protects (test/infra/oauth-servers.ts — the same ones the tests
// use; they approve at once, as "upstream-user-1"), then `wrangler dev` with
// the demo server and that one (`auth: oauth`). Open http://127.0.0.1:8787,
// ask "who am I on account?", and use the Connect card.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const AS_PORT = Number(process.env.OAUTH_DEMO_AS_PORT ?? 8790);
const RS_PORT = Number(process.env.OAUTH_DEMO_RS_PORT ?? 8791);

// A .ts module: this script runs with --experimental-strip-types (package.json).
const { startOAuthServers } = await import('../test/infra/oauth-servers.ts');
const servers = await startOAuthServers({ asPort: AS_PORT, rsPort: RS_PORT });
console.log(`authorization server ${servers.asUrl}, protected MCP server ${servers.rsUrl}`);

const mcpServers = [
  { id: 'demo', url: '/demo/mcp', trustAnnotations: true },
  { id: 'account', url: servers.rsUrl, transport: 'streamable-http', auth: { type: 'oauth' }, trustAnnotations: true },
];
const wrangler = spawn(
  process.execPath,
  [
    fileURLToPath(new URL('../node_modules/wrangler/bin/wrangler.js', import.meta.url)),
    'dev',
    '--var',
    'AUTH_DISABLED:true',
    '--var',
    `MCP_SERVERS:${JSON.stringify(mcpServers)}`,
  ],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
const stop = async () => {
  wrangler.kill('SIGINT');
  await servers.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
wrangler.on('exit', async (code) => {
  await servers.stop();
  process.exit(code ?? 0);
});
