// The Worker under `wrangler dev` (workerd), as `npm start` runs it, on a
// port of its own with fresh local state, for the browser tests. The same
// starter the load benchmark and the soak use (bench/lib/stack.mjs).
import { startWrangler } from '../../bench/lib/stack.mjs';

export interface Service {
  url: string;
  stop(): Promise<void>;
}

export async function startService(port: number, vars: Record<string, string>): Promise<Service> {
  // A cold CI machine builds the widget and starts workerd first: allow more than the benchmark's default.
  const wrangler = await startWrangler({ port, inspectorPort: port + 1000, vars, startupTimeoutMs: 90_000 });
  return { url: wrangler.base, stop: () => wrangler.stop() };
}
