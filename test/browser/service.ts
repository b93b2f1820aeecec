// Starts the Worker with `wrangler dev` (workerd), the way `npm start` does,
// on a port of its own, with fresh local state, for the browser tests.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WRANGLER = join(ROOT, 'node_modules/wrangler/bin/wrangler.js');
const STARTUP_TIMEOUT_MS = 90_000;

export interface Service {
  url: string;
  /** Everything wrangler printed (request lines, worker logs), for the secret checks. */
  output(): string;
  stop(): Promise<void>;
}

export async function startService(port: number, vars: Record<string, string>): Promise<Service> {
  const state = mkdtempSync(join(tmpdir(), 'mcp-ondemand-browser-'));
  const args = [WRANGLER, 'dev', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(port + 1000), '--persist-to', state, '--show-interactive-dev-session=false', '--log-level', 'info'];
  for (const [name, value] of Object.entries(vars)) args.push('--var', `${name}:${value}`);
  // process.execPath: the Node 22 that runs vitest (scripts/with-node.sh).
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' } });
  let output = '';
  const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-200_000));
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal); // wrangler and the workerd it started
    } catch {
      // already gone
    }
  };
  const onExit = () => killGroup('SIGKILL');
  process.once('exit', onExit);

  const stop = async () => {
    process.off('exit', onExit);
    if (child.exitCode === null && child.signalCode === null) {
      killGroup('SIGTERM');
      const timer = setTimeout(() => killGroup('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(state, { recursive: true, force: true });
  };

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`wrangler dev exited (${child.exitCode}) before listening on ${port}:\n${output.slice(-4000)}`);
    }
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`wrangler dev did not answer on ${port} within ${STARTUP_TIMEOUT_MS} ms:\n${output.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, output: () => output, stop };
}
