// `npm run bench:oauth`: what OAuth costs (bench/oauth/), written to BENCHMARKS.md.
import { machine, machineLine, writeSection } from './lib/report.mjs';
import { runBenchmarks } from './lib/vitest-results.mjs';

const r = runBenchmarks('bench/oauth/vitest.config.ts').oauth;
if (!r) {
  console.error('no BENCH_RESULT oauth line in the output');
  process.exit(1);
}
const ms = (x) => `${x.toFixed(2)} ms`;
const ratio = (a, b) => (b > 0 ? `${(a / b).toFixed(2)}×` : 'n/a');
const row = (name, what, { ours, base }) =>
  `| ${name} | ${ours.n} | ${ms(ours.p50)} | ${ms(ours.p99)} | ${ms(base.p50)} | ${ms(base.p99)} | ${ratio(ours.p50, base.p50)} | ${what} |`;

const section = `## OAuth: what a per-user authorization costs

Command: \`npm run bench:oauth\` · ${machineLine(machine())}

Inside workerd (vitest + @cloudflare/vitest-plugin), against the local authorization server and the MCP server it protects
(test/infra/oauth-servers.ts, Node on 127.0.0.1), each measurement next to its baseline, interleaved, in one process.

| what | n | ours p50 | ours p99 | baseline p50 | baseline p99 | ratio (p50) | baseline |
|---|---|---|---|---|---|---|---|
${row(`MCP tool call (\`whoami\`), mean of ${r.calls.batch}`, 'the same server with the same kind of token as a static `secret:` header', r.calls)}
${row('connecting an account', "the SDK's `auth()` alone, in memory: discovery kept, PKCE, the authorization server's redirect, the code exchange", r.connects)}
${row('refreshing a token', "the SDK's refresh with an in-memory provider", r.refreshes)}

Ours, for connecting: minting the link (\`POST /v1/connections/:server\`), the start route (sealed state, the vault's
authorization start — including the unauthenticated request that learns the scope the server wants), the
authorization server, the callback (state and cookie checks, the vault's exchange, tokens sealed, the user's
conversations told). Ours discovers afresh on every connect (a server may have moved to another authorization
server) and first asks the server, without a token, which scope it wants; the baseline keeps its discovery and
only meets the authorization server (authorize, token) — ours adds those requests and three Durable Object calls. Both are paid once per
user and server, while the user clicks through a consent page. For refreshing: one RPC to the user's vault, unseal, refresh (${r.refreshes.ok} refreshes succeeded
at the authorization server), seal. A tool call uses the token the conversation holds in memory: no vault RPC.
`;
writeSection('BENCHMARKS.md', 'oauth', section);
console.log(section);
