/**
 * `cloudflare:workers` for the MCP client under test (mcp-client.ts), which runs our MCP path in Node: the only
 * things that path takes from the runtime are the loopback fetch to this Worker (for a server at a relative URL, the
 * demo server: never one of the suite's) and tracing spans (observability/tracing.ts already runs without them).
 * Bundled in place of the module by run.mjs; nothing else of the runtime is stood in for.
 */
export const exports = {
  default: {
    fetch: (input: RequestInfo | URL, init?: RequestInit) => fetch(input, init),
  },
};

export const tracing = undefined;

export const env = {};

/** Imported by modules of the Worker's graph that the harness never instantiates (the Durable Objects). */
export class DurableObject {
  constructor(
    readonly ctx: unknown,
    readonly env: unknown,
  ) {}
}

/** Imported by the run_code sandbox's gateway (src/sandbox/gateway.ts), reached through a lazy import the harness never runs. */
export class RpcTarget {}
