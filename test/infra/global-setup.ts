// vitest globalSetup: runs once in the Node process that drives vitest, not in
// workerd. It starts real MCP servers on 127.0.0.1 so Worker code under test
// can reach them over Streamable HTTP, and hands their URLs to tests via
// `inject()`. Fixed ports keep the URLs predictable; see README.md.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { startFakeModel } from '../../bench/lib/fake-model.mjs';
import { startFaultProxy } from './fault-proxy';
import { startMinimalServer } from './minimal-server';
import { startOAuthServers } from './oauth-servers';
import { FAKE_MODEL_PORT, OAUTH_AS_PORT, OAUTH_RS_PORT, TEST_PORT_BASE } from './ports';
import { providerPolicy } from './provider-model';
import { startSkillServers } from './skill-servers';
import { startTaskServers } from './task-servers';
import { startEchoServer } from './echo-server';
import { startChangingTools } from './changing-tools';
import { DOCUMENT_SERVER_PORT_OFFSET, startDocumentServer } from './document-server';
import { CHANGING_TOOLS_PORT_OFFSET } from './changing-tools-definitions';
import { startV2Servers } from './v2-servers';
import { STDIO_BRIDGE_PORT_OFFSET, startStdioBridge } from './stdio-bridge';
import { PDF_SERVER_PORT_OFFSET, startPdfServer } from './pdf-server';

const EVERYTHING_PORT = TEST_PORT_BASE + 1;
const PROXY_PORT = TEST_PORT_BASE + 2;
const LEGACY_SSE_PORT = TEST_PORT_BASE + 3;
const MINIMAL_PORT = TEST_PORT_BASE + 4;
const V2_PORT = TEST_PORT_BASE + 5;
const SKILLS_PORT = TEST_PORT_BASE + 9;
const TASKS_PORT = TEST_PORT_BASE + 10;
// A server that echoes its credential (echo-server.ts).
const ECHO_PORT = TEST_PORT_BASE + 18;
const STARTUP_TIMEOUT_MS = 15_000;

const EVERYTHING_ENTRY = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Keeps the last few KB of a child's output: enough to explain a failed start. */
function tail(stream: Readable | null): () => string {
  let text = '';
  stream?.setEncoding('utf8');
  // Always drain: the server logs every request to stdout, and a full pipe
  // would block it mid-test.
  stream?.on('data', (chunk: string) => {
    text = (text + chunk).slice(-4000);
  });
  return () => text;
}

/** server-everything on 127.0.0.1:`port` (also for the browser project's own copy). */
export async function startEverything(
  transport: 'streamableHttp' | 'sse',
  port: number,
): Promise<{ child: ChildProcess; stop(): Promise<void> }> {
  // An orphan from an earlier, hard-killed run would answer our readiness
  // probe while our own child dies with EADDRINUSE; fail clearly instead.
  if (await canConnect(port)) {
    throw new Error(`port ${port} is already in use (a server-everything left over from an earlier run?)`);
  }
  const child = spawn(process.execPath, [EVERYTHING_ENTRY, transport], {
    // Not process.env: the server's `get-env` tool returns its whole environment
    // to any MCP client, so CI secrets would end up in test output.
    env: { PATH: process.env.PATH ?? '', PORT: String(port), GZIP_ALLOWED_DOMAINS: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr = tail(child.stderr);
  const stdout = tail(child.stdout);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const hasExited = () => child.exitCode !== null || child.signalCode !== null;
  // Last resort if vitest exits without running teardown.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  async function stop(): Promise<void> {
    process.off('exit', killOnExit);
    if (hasExited()) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  }

  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (!(await canConnect(port))) {
    if (hasExited() || Date.now() > deadline) {
      const why = hasExited()
        ? `exited (${child.exitCode ?? child.signalCode})`
        : `did not listen within ${STARTUP_TIMEOUT_MS} ms`;
      await stop();
      throw new Error(
        `server-everything (${transport}) ${why} on port ${port}.\n--- stderr ---\n${stderr()}\n--- stdout ---\n${stdout()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, stop };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const everythingUrl = `http://127.0.0.1:${EVERYTHING_PORT}/mcp`;
  // Started one after the other; whatever started is stopped if a later one fails
  // (vitest registers no teardown when setup throws).
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    stops.push((await startEverything('streamableHttp', EVERYTHING_PORT)).stop);
    // Proxy before the SSE server in `stops` order: its open streams are clients of the first child.
    const proxy = await startFaultProxy({ port: PROXY_PORT, upstream: everythingUrl });
    stops.push(() => proxy.close());
    stops.push((await startEverything('sse', LEGACY_SSE_PORT)).stop);
    const minimal = await startMinimalServer(MINIMAL_PORT);
    stops.push(() => minimal.close());
    const v2 = await startV2Servers(V2_PORT);
    stops.push(() => v2.close());
    const skills = await startSkillServers(SKILLS_PORT);
    stops.push(() => skills.close());
    const tasks = await startTaskServers(TASKS_PORT);
    stops.push(() => tasks.close());
    const echo = await startEchoServer(ECHO_PORT);
    stops.push(() => echo.close());
    const changing = await startChangingTools(TEST_PORT_BASE + CHANGING_TOOLS_PORT_OFFSET);
    stops.push(() => changing.close());
    const documents = await startDocumentServer(TEST_PORT_BASE + DOCUMENT_SERVER_PORT_OFFSET);
    stops.push(() => documents.close());
    // server-filesystem (stdio only) over a folder of documents, bridged to Streamable HTTP.
    const filesystem = await startStdioBridge(TEST_PORT_BASE + STDIO_BRIDGE_PORT_OFFSET);
    stops.push(() => filesystem.close());
    project.provide('filesystemFolder', filesystem.folder);
    // server-pdf (its stdio mode; its HTTP mode listens on every interface) over a folder with a PDF, bridged the same way.
    const pdf = await startPdfServer(TEST_PORT_BASE + PDF_SERVER_PORT_OFFSET);
    stops.push(() => pdf.close());
    project.provide('pdfFolder', pdf.folder);
    const oauth = await startOAuthServers({ asPort: OAUTH_AS_PORT, rsPort: OAUTH_RS_PORT });
    stops.push(oauth.stop);
    const model = await startFakeModel({ port: FAKE_MODEL_PORT, decide: providerPolicy });
    stops.push(() => model.close());
  } catch (err) {
    await stopAll();
    throw err;
  }

  project.provide('everythingUrl', everythingUrl);
  project.provide('faultyUrl', `http://127.0.0.1:${PROXY_PORT}/mcp`);
  project.provide('faultControlUrl', `http://127.0.0.1:${PROXY_PORT}/__control`);
  project.provide('minimalUrl', `http://127.0.0.1:${MINIMAL_PORT}/mcp`);
  project.provide('v2Url', `http://127.0.0.1:${V2_PORT}`);
  project.provide('skillsUrl', `http://127.0.0.1:${SKILLS_PORT}`);
  project.provide('tasksUrl', `http://127.0.0.1:${TASKS_PORT}`);
  project.provide('oauthAsUrl', `http://127.0.0.1:${OAUTH_AS_PORT}`);
  project.provide('oauthRsUrl', `http://127.0.0.1:${OAUTH_RS_PORT}/mcp`);
  project.provide('fakeModelUrl', `http://127.0.0.1:${FAKE_MODEL_PORT}`);
  project.provide('changingToolsUrl', `http://127.0.0.1:${TEST_PORT_BASE + CHANGING_TOOLS_PORT_OFFSET}`);
  project.provide('documentsUrl', `http://127.0.0.1:${TEST_PORT_BASE + DOCUMENT_SERVER_PORT_OFFSET}`);

  return stopAll;
}
